import { randomBytes } from 'node:crypto';
import type { RedisClient } from '@flotilla/state';
import type { JsonValue } from '../json.js';
import type { Counts } from '../paging.js';

/** Facts about a stored result: the header of its file, and what read_result reports. */
export interface StoredResultMeta {
  readonly result_id: string;
  readonly tool: string;
  readonly item_kind: string;
  readonly created_at: string;
  readonly expires_at: string;
  readonly query: JsonValue;
  readonly total_items: number;
  readonly counts: Counts;
  /** Size of the stored representation in bytes. */
  readonly bytes: number;
  /** `flotilla://results/<id>`: the resource_link a tool returns. */
  readonly uri: string;
}

export interface PutResultInput {
  readonly tool: string;
  readonly item_kind: string;
  readonly query: JsonValue;
  readonly counts: Counts;
  readonly items: readonly JsonValue[];
  /**
   * The items' JSON, each exactly `JSON.stringify(items[i])`, when the caller has it already (it measured them):
   * the store writes these instead of stringifying every item again.
   */
  readonly texts?: readonly string[] | undefined;
}

export interface ReadRequest {
  readonly offset: number;
  readonly limit: number;
  /** Keep only items this accepts; offset and total then count matching items. */
  readonly filter?: ((item: JsonValue) => boolean) | undefined;
}

export interface ReadResponse {
  readonly meta: StoredResultMeta;
  readonly items: JsonValue[];
  /** Items in the (filtered) result: meta.total_items without a filter. */
  readonly total: number;
}

export interface ReadTextsResponse {
  readonly meta: StoredResultMeta;
  /** The JSON of each item read, exactly as `JSON.stringify` wrote it: never parsed on the way. */
  readonly texts: string[];
}

/**
 * Where spilled tool results live until they expire. Implementations: files (default), memory. Every one
 * passes the same contract suite. Errors: `not_found` (unknown id), `result_expired`, `payload_too_large`.
 */
export interface ResultStore {
  put(input: PutResultInput): Promise<StoredResultMeta>;
  meta(resultId: string): Promise<StoredResultMeta>;
  read(resultId: string, request: ReadRequest): Promise<ReadResponse>;
  /**
   * Items [offset, offset + limit) as their JSON texts, unparsed (no filter): what a page is rendered from, a few
   * items at a time, so a page reads only what its token budget can hold. Every store here has it; a wrapper
   * without it is read through `read` (parsed, then stringified again).
   */
  readTexts?(resultId: string, offset: number, limit: number): Promise<ReadTextsResponse>;
  /** Remove expired results now (also done on a timer and on put). */
  sweep(): Promise<void>;
  close(): Promise<void>;
  /**
   * The shared state store the results live in (a Redis store), so caches built on this store (the snapshot
   * index) keep their entries there too and replicas on the same prefix share them. Undefined: per process.
   */
  readonly shared?: { readonly client: RedisClient; readonly keyPrefix: string } | undefined;
}

export const RESULT_ID_PATTERN = /^r_[0-9a-f]{24}$/;

export function newResultId(): string {
  return `r_${randomBytes(12).toString('hex')}`;
}

export function resultUri(resultId: string): string {
  return `flotilla://results/${resultId}`;
}
