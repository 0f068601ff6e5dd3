import type { z } from 'zod';
import type { Logger } from '@flotilla/core';
import type { JsonObject, JsonValue } from './json.js';
import type { CountKey, Counts, PageRequest } from './paging.js';
import type { SearchOutcome } from './search.js';
import type { SnapshotListPayload } from './snapshot.js';
import type { StoredResultMeta } from './store/types.js';

export interface ToolCallContext {
  readonly tool: string;
  readonly logger: Logger;
  readonly signal: AbortSignal;
}

/** What a tool hands back to the kit; the kit pages, measures, fits, spills and renders it. */
export type ToolPayload = ObjectPayload | ListPayload | PagePayload | StoredPagePayload | SnapshotListPayload;

export interface ObjectPayload {
  readonly kind: 'object';
  readonly data: JsonObject;
  /** What to ask for when the object is cut to the budget (e.g. "ask for one section"). */
  readonly overflowHint?: string;
}

export interface ListPayload {
  readonly kind: 'list';
  readonly itemKind: string;
  /** The whole filtered set, in order; the kit takes the page. */
  readonly items: readonly JsonValue[];
  readonly page: PageRequest;
  /** The filter arguments: fingerprint for cursors, recorded with a spilled result. */
  readonly query: JsonValue;
  readonly counts?: Counts;
  readonly notes?: readonly string[];
  readonly search?: Pick<SearchOutcome<unknown>, 'capped' | 'cap' | 'scanned'>;
  /** Set false for lists that must never be stored (e.g. already a read of a stored result). */
  readonly spill?: boolean;
}

/** A page the tool already cut (e.g. read from the result store): the kit only fits it to the budget. */
export interface PagePayload {
  readonly kind: 'page';
  readonly itemKind: string;
  /** Items in the whole (filtered) result. */
  readonly total: number;
  readonly offset: number;
  readonly limit: number;
  readonly items: readonly JsonValue[];
  readonly counts?: Counts;
  readonly notes?: readonly string[];
  /** The call that fetches the page at `nextOffset`, for next_step. */
  readonly nextCall: (nextOffset: number) => string;
}

/**
 * A page of a stored result, read by the kit itself: only the items the token budget can hold are read (as JSON,
 * never parsed), and priced from their costs remembered for that result (`CostMemo`).
 */
export interface StoredPagePayload {
  readonly kind: 'stored_page';
  readonly meta: StoredResultMeta;
  readonly offset: number;
  readonly limit: number;
  readonly notes?: readonly string[];
  /** The call that fetches the page at `nextOffset`, for next_step. */
  readonly nextCall: (nextOffset: number) => string;
}

export interface ToolSpec<S extends z.ZodObject> {
  readonly name: string;
  readonly title?: string;
  readonly description: string;
  readonly input: S;
  /**
   * The schema of the result's `structuredContent` (advertised as the tool's `outputSchema`): `objectOutput(data)`
   * for object payloads (an object cut to the budget is a preview envelope), `listPageOutput(item)` for pages.
   * Build it once per process (a module constant), not per server.
   */
  readonly output?: z.ZodType;
  readonly run: (args: z.output<S>, ctx: ToolCallContext) => Promise<ToolPayload>;
}

export interface LoadedList<T> {
  readonly items: readonly T[];
  readonly notes?: readonly string[];
  readonly search?: Pick<SearchOutcome<unknown>, 'capped' | 'cap' | 'scanned'>;
}

export interface ListToolSpec<F extends z.ZodObject, T extends JsonValue> {
  readonly name: string;
  readonly title?: string;
  readonly description: string;
  /** Filter arguments (page arguments are added by the kit). A module constant: the kit builds its input once per filters object. */
  readonly filters: F;
  readonly itemKind: string;
  /**
   * The schema of one item (a loose object where rows are projected); the tool's output schema is the page
   * envelope over it (`listPageOutput`). A module constant. Default: any JSON value.
   */
  readonly item?: z.ZodType;
  readonly load: (filters: z.output<F>, ctx: ToolCallContext) => Promise<readonly T[] | LoadedList<T>>;
  /** Aggregates computed over the whole filtered set. */
  readonly counts?: Readonly<Record<string, CountKey<T>>>;
  /** Values shown per aggregate dimension when more than the default 10 are wanted (capped at 50). */
  readonly countsTop?: Readonly<Record<string, number>>;
  /**
   * Page from a snapshot (SnapshotListPayload): for upstreams without server-side paging, where every page would
   * otherwise fetch the whole list again. Adds the `refresh` argument.
   */
  readonly snapshot?: boolean;
}
