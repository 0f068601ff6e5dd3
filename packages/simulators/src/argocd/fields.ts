/**
 * Argo CD's `fields` projection of application lists. The server converts each application through a fixed
 * whitelist of paths; `fields=items.a,items.b` keeps the listed whitelisted paths, a leading `-`
 * (`fields=-items.spec,...`) keeps every whitelisted path except the listed ones. Paths outside the whitelist
 * are ignored; the granularity is the whitelist's (asking for `items.spec.project` gives nothing: `spec` is one
 * unit). The list's own `metadata` is always kept.
 */
export const APPLICATION_FIELD_WHITELIST = [
  'metadata.name',
  'metadata.namespace',
  'metadata.annotations',
  'metadata.labels',
  'metadata.creationTimestamp',
  'metadata.deletionTimestamp',
  'spec',
  'operation.sync',
  'status.sync.status',
  'status.sync.revision',
  'status.health',
  'status.operationState.phase',
  'status.operationState.finishedAt',
  'status.operationState.operation.sync',
  'status.summary',
  'status.resources',
] as const;

type Json = Record<string, unknown>;

function get(object: Json, path: string): unknown {
  let value: unknown = object;
  for (const part of path.split('.')) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Json)[part];
  }
  return value;
}

function set(object: Json, path: string, value: unknown): void {
  const parts = path.split('.');
  let target = object;
  for (const part of parts.slice(0, -1)) {
    const next = target[part];
    if (next === null || typeof next !== 'object') target[part] = {};
    target = target[part] as Json;
  }
  target[parts[parts.length - 1] ?? ''] = value;
}

/** The whitelisted paths a `fields` parameter selects; `undefined` means no projection. */
export function selectedFields(fields: string | undefined): readonly string[] | undefined {
  if (fields === undefined || fields.trim().length === 0) return undefined;
  const exclude = fields.startsWith('-');
  const listed = new Set(
    (exclude ? fields.slice(1) : fields)
      .split(',')
      .map((f) => f.trim())
      .filter((f) => f.length > 0),
  );
  return APPLICATION_FIELD_WHITELIST.filter((path) => listed.has(`items.${path}`) !== exclude);
}

/** One application reduced to the selected whitelisted paths. */
export function projectFields(app: Json, paths: readonly string[]): Json {
  const out: Json = {};
  for (const path of paths) {
    const value = get(app, path);
    if (value !== undefined) set(out, path, value);
  }
  return out;
}
