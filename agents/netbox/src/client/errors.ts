import type { UpstreamErrorReading } from '@flotilla/upstream';

/**
 * The error of a NetBox (Django REST framework) error body: `{"detail": ...}`, NetBox's own `{"error": ...}` of a
 * server error, or per-field errors `{"site": ["Select a valid choice..."]}`.
 */
export function djangoRestError(body: unknown): UpstreamErrorReading | undefined {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const record = body as Record<string, unknown>;
  for (const key of ['detail', 'error']) {
    const value = record[key];
    if (typeof value === 'string' && value !== '') return { message: value };
  }
  const fields = Object.entries(record)
    .filter((entry): entry is [string, unknown[]] => Array.isArray(entry[1]))
    .map(([field, problems]) => `${field}: ${problems.filter((p) => typeof p === 'string').join(' ')}`);
  return fields.length > 0 ? { message: fields.join('; ') } : undefined;
}
