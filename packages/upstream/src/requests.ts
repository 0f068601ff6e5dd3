import type { z } from 'zod';
import type { OversizedItems } from './json-items.js';
import type { OversizedLinePolicy } from './lines.js';

export interface UpstreamRequest<S extends z.ZodType> {
  /** Low-cardinality label for metrics: `list_applications`, `get_application`... */
  readonly operation: string;
  readonly path: string;
  readonly query?: URLSearchParams;
  readonly schema: S;
  readonly signal?: AbortSignal | undefined;
}

/** What one exchange needs of a request: everything but how its body is validated. */
export type UpstreamTarget = Omit<UpstreamRequest<z.ZodType>, 'schema'>;

/** Items of a list body; `null` items (an empty list, as some upstreams write it) give []. */
export interface UpstreamListRequest<S extends z.ZodType> extends Omit<UpstreamRequest<S>, 'schema'> {
  readonly itemSchema: S;
  /** The top-level member holding the items (getList: `items` by default; another, such as a tree's `nodes`). */
  readonly listKey?: string;
  /** An item over `maxValueBytes`: refused (the default), or skipped unread and reported (getItems). */
  readonly oversizedItems?: 'refuse' | 'skip';
}

/** A list read by getItems: its items, and the items skipped for their size. */
export interface UpstreamItems<T> {
  readonly items: T[];
  readonly oversized: OversizedItems;
}

/** Why a line read stopped. */
export type LineReadStop = 'end' | 'max_lines' | 'max_bytes' | 'selected';

/** What `select` says of one parsed line: keep it, skip it (not kept, not counted against maxLines), or stop reading there. */
export type LineVerdict = 'keep' | 'skip' | 'stop';

/**
 * A streamed body of one JSON value per line (a server stream: `{"result": {...}}\n` per message).
 * Each line is parsed and validated with `lineSchema` as it arrives; the read stops early, abandoning the
 * response, once `maxLines` lines were kept and another keepable one arrived, or `maxBytes` were read.
 */
export interface UpstreamLinesRequest<S extends z.ZodType> extends Omit<UpstreamRequest<S>, 'schema'> {
  readonly lineSchema: S;
  /** Lines kept at most (1 to maxItems); a further keepable line stops the read with `max_lines`. */
  readonly maxLines: number;
  /** Bytes read at most (at most maxBodyBytes, the default); past them the read stops with `max_bytes`, the partial line dropped. */
  readonly maxBytes?: number | undefined;
  /** Lines over `maxValueBytes`: refused (the default: `upstream_too_large` naming `line N`) or skipped and counted. */
  readonly oversizedLines?: OversizedLinePolicy | undefined;
  /** Decides per parsed line (filters, an end marker); without it every line is kept. */
  readonly select?: ((line: z.output<NoInfer<S>>) => LineVerdict) | undefined;
}

/** The outcome of a line read: the kept lines, and how much was read and why it stopped. */
export interface UpstreamLines<T> {
  readonly items: T[];
  /** Lines parsed (kept, skipped by `select`, and the one that stopped the read). */
  readonly linesRead: number;
  readonly bytesRead: number;
  readonly stopped: LineReadStop;
  /** Lines over `maxValueBytes` skipped unread (oversizedLines 'skip'). */
  readonly oversizedSkipped: number;
}

/** One page of a paged list (`{count, next, previous, results: [...]}`): its items and its small members. */
export interface UpstreamPageRequest<S extends z.ZodType, M extends z.ZodObject> extends UpstreamListRequest<S> {
  /** The top-level member holding the items (`results`); it must be there (`null` reads as no items). */
  readonly listKey: string;
  /** The top-level scalars read beside the list, by the names of this schema's keys, and validated by it. */
  readonly scalarsSchema: M;
  /**
   * The page size asked for (`limit`): a page with more items breaks the protocol and is refused as soon as it
   * passes it (a server ignoring `limit` cannot make the client read thousands of items for one page).
   */
  readonly pageSize?: number;
}

export interface UpstreamPage<T, M> {
  readonly items: T[];
  readonly scalars: M;
}
