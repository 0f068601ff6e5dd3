import { LRUCache } from 'lru-cache';
import { FlotillaError } from '@flotilla/core';
import type { FlotillaMetrics } from '@flotilla/metrics';
import { LIMITS, STORE_DEFAULTS } from '../limits.js';
import { newResultId, resultUri, type PutResultInput, type StoredResultMeta } from './types.js';

export interface StoreLimits {
  readonly ttlSeconds: number;
  readonly diskCapBytes: number;
  readonly maxResultBytes: number;
}

export interface StoreOptions extends Partial<StoreLimits> {
  readonly metrics?: FlotillaMetrics;
  /** Injected clock (ms since epoch) for TTL tests. */
  readonly now?: () => number;
}

export function resolveLimits(options: StoreOptions): StoreLimits {
  const limits = {
    ttlSeconds: options.ttlSeconds ?? STORE_DEFAULTS.ttlSeconds,
    diskCapBytes: options.diskCapBytes ?? STORE_DEFAULTS.diskCapBytes,
    maxResultBytes: options.maxResultBytes ?? STORE_DEFAULTS.maxResultBytes,
  };
  if (limits.maxResultBytes > limits.diskCapBytes) {
    throw new FlotillaError('config_invalid', 'result store: maxResultBytes must not exceed diskCapBytes');
  }
  return limits;
}

export function tooManyItems(count: number): FlotillaError | undefined {
  return count > LIMITS.storeMaxItems
    ? new FlotillaError('payload_too_large', `result has ${count} items; a stored result holds at most ${LIMITS.storeMaxItems}`, {
        remedy: 'Narrow the query with filters before listing.',
      })
    : undefined;
}

export function tooLarge(bytes: number, limits: StoreLimits): FlotillaError {
  return new FlotillaError(
    'payload_too_large',
    `result is larger than a stored result may be (${limits.maxResultBytes} bytes; this one is at least ${bytes})`,
    { remedy: 'Narrow the query with filters so the full result is smaller.', details: { max_bytes: limits.maxResultBytes } },
  );
}

export function unknownResult(resultId: string, expired: boolean, ttlSeconds: number): FlotillaError {
  return expired
    ? new FlotillaError('result_expired', `stored result ${resultId} has expired (results are kept ${ttlSeconds} s)`, {
        remedy: 'Run the original tool again to get a fresh result_id.',
      })
    : new FlotillaError('not_found', `no stored result with id ${resultId}`, {
        remedy: 'Use a result_id exactly as a tool returned it; if it is old, run the original tool again.',
      });
}

/** Bounded memory of ids that expired, so a late reader is told "expired", not "unknown". */
export class Tombstones {
  private readonly ids = new LRUCache<string, true>({ max: STORE_DEFAULTS.tombstones });
  add(id: string): void {
    this.ids.set(id, true);
  }
  has(id: string): boolean {
    return this.ids.has(id);
  }
}

/**
 * Runs `fn` now and hands back its value as a promise; a throw becomes a rejection, so the synchronous store
 * operations honour the async `ResultStore` contract (callers never see a synchronous throw).
 */
export function settle<T>(fn: () => T): Promise<T> {
  return new Promise((resolve) => resolve(fn()));
}

/** The header of a new stored result (everything but its size), with a fresh id and its expiry. */
export function newHeader(input: PutResultInput, created: number, ttlSeconds: number): Omit<StoredResultMeta, 'bytes'> {
  const id = newResultId();
  return {
    result_id: id,
    tool: input.tool,
    item_kind: input.item_kind,
    created_at: new Date(created).toISOString(),
    expires_at: new Date(created + ttlSeconds * 1000).toISOString(),
    query: input.query,
    total_items: input.items.length,
    counts: input.counts,
    uri: resultUri(id),
  };
}

export function isExpired(meta: StoredResultMeta, now: number): boolean {
  return Date.parse(meta.expires_at) <= now;
}
