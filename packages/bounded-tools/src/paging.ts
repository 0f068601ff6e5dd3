import { createHash } from 'node:crypto';
import { z } from 'zod';
import { FlotillaError } from '@flotilla/core';
import { LIMITS } from './limits.js';

const limitMessage = `limit must be a whole number from 1 to ${LIMITS.pageMax} (default ${LIMITS.pageDefault}); page with offset or cursor for more`;
const offsetMessage = `offset must be a whole number from 0 to ${LIMITS.offsetMax} (default 0); use next_offset from the previous page`;

/** Page arguments every list tool takes. */
export const PAGE_SHAPE = {
  limit: z
    .number({ message: limitMessage })
    .int(limitMessage)
    .min(1, limitMessage)
    .max(LIMITS.pageMax, limitMessage)
    .default(LIMITS.pageDefault)
    .describe(`Items per page, 1-${LIMITS.pageMax} (default ${LIMITS.pageDefault}). The token budget may return fewer; trust returned and next_offset.`),
  offset: z
    .number({ message: offsetMessage })
    .int(offsetMessage)
    .min(0, offsetMessage)
    .max(LIMITS.offsetMax, offsetMessage)
    .default(0)
    .describe('Items to skip (default 0). Use next_offset from the previous page.'),
  cursor: z
    .string()
    .max(200, 'cursor must be the next_cursor value of a previous page')
    .optional()
    .describe('Opaque alternative to offset: next_cursor from the previous page of the same query.'),
} as const;

export interface PageRequest {
  readonly limit: number;
  readonly offset: number;
  readonly cursor?: string | undefined;
}

/** A short stable fingerprint of a query (its filter arguments), so a cursor cannot be replayed on another query. */
export function queryFingerprint(query: unknown): string {
  return createHash('sha256').update(stableStringify(query)).digest('base64url').slice(0, 10);
}

export function encodeCursor(offset: number, fingerprint: string): string {
  return Buffer.from(`v1:${offset}:${fingerprint}`, 'utf8').toString('base64url');
}

/** The offset a page starts at: from the cursor when given (checked against the query), else `offset`. */
export function resolveOffset(page: PageRequest, fingerprint: string): number {
  if (page.cursor === undefined) return page.offset;
  const decoded = Buffer.from(page.cursor, 'base64url').toString('utf8');
  const match = /^v1:(\d{1,9}):([A-Za-z0-9_-]{10})$/.exec(decoded);
  if (match === null) {
    throw new FlotillaError('invalid_argument', 'cursor is not a cursor this tool issued', {
      remedy: 'Pass next_cursor exactly as a previous page returned it, or use offset instead.',
    });
  }
  if (match[2] !== fingerprint) {
    throw new FlotillaError('invalid_argument', 'cursor belongs to a different query (the filters changed)', {
      remedy: 'Start again without cursor (offset 0) for the new filters, or repeat the original filters.',
    });
  }
  return Number(match[1]);
}

/** JSON with sorted keys, undefined dropped: equal queries give equal strings. */
export function stableStringify(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(stableStringify).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableStringify(v)}`).join(',')}}`;
}

/** How to group items for an aggregate: one value, several (e.g. labels), or none. */
export type CountKey<T> = (item: T) => string | readonly string[] | undefined;
export type Counts = Record<string, Record<string, number>>;

/**
 * Aggregates over the whole filtered set (never the page). Each dimension lists its most frequent values
 * (ties by name) up to LIMITS.countsTopValues; the rest are folded into one "(N others)" entry so the
 * aggregate itself stays bounded at any estate size.
 */
export function computeCounts<T>(
  items: readonly T[],
  keys: Readonly<Record<string, CountKey<T>>>,
  top = LIMITS.countsTopValues,
  /** A larger cap for some dimensions (at most LIMITS.countsTopValuesMax): e.g. clusters, which are few and all wanted. */
  topOf: Readonly<Record<string, number>> = {},
): Counts {
  const result: Counts = {};
  for (const [dimension, key] of Object.entries(keys)) {
    const cap = Math.min(topOf[dimension] ?? top, LIMITS.countsTopValuesMax);
    const tally = new Map<string, number>();
    for (const item of items) {
      const value = key(item);
      if (value === undefined) continue;
      for (const v of typeof value === 'string' ? [value] : value) tally.set(v, (tally.get(v) ?? 0) + 1);
    }
    const sorted = [...tally.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    const shown = Object.fromEntries(sorted.slice(0, cap));
    const rest = sorted.slice(cap);
    if (rest.length > 0) shown[`(${rest.length} others)`] = rest.reduce((sum, [, n]) => sum + n, 0);
    result[dimension] = shown;
  }
  return result;
}
