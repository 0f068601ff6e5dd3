import type { FlotillaError } from '@flotilla/core';
import type { FlotillaMetrics } from '@flotilla/metrics';
import type { TokenCounter } from '@flotilla/tokens';
import { fitItems, fitObject, PageItems, type ItemSource, type PageEnvelope } from './fit.js';
import type { JsonObject } from './json.js';
import { costMemoFor } from './memo.js';
import type { BoundedToolResult, ResourceLinkBlock, ResultSize } from './measure.js';
import { encodeCursor, type Counts } from './paging.js';
import type { SnapshotCache } from './snapshot.js';
import type { ResultStore, StoredResultMeta } from './store/types.js';
import type { ListPayload, ObjectPayload } from './types.js';

/** What rendering needs of a kit: shared by its page, list and registration modules. */
export interface RenderContext {
  readonly counter: TokenCounter;
  readonly store: ResultStore;
  readonly metrics: FlotillaMetrics;
  readonly snapshots: SnapshotCache;
  readonly spillThreshold: number;
  /** The budget of this call: the configured one times the memory guard's factor. */
  readonly budgetNow: () => number;
}

/**
 * A result with its exact size, counted while fitting, so it is not tokenized a second time for metrics. Carried
 * beside the result, not in a WeakMap: a long-lived WeakMap keeps every result (and its text) until a major GC.
 */
export interface Rendered {
  readonly result: BoundedToolResult;
  readonly size: ResultSize;
}

/**
 * A successful result: the JSON text (what the budget bounds and a model reads) and, as MCP's `structuredContent`,
 * the same object, for clients that validate it against the tool's `outputSchema`.
 */
function resultOf(text: string, structured: JsonObject, link?: ResourceLinkBlock): BoundedToolResult {
  return { content: link === undefined ? [{ type: 'text', text }] : [{ type: 'text', text }, link], structuredContent: structured };
}

/** An isError result (no structured content: MCP validates only successful results against the output schema). */
export function errorResult(ctx: RenderContext, error: FlotillaError): BoundedToolResult {
  const budget = ctx.budgetNow();
  const body: JsonObject = { error: error.code, message: ctx.counter.truncate(error.message, Math.floor(budget / 2)) };
  if (error.remedy !== undefined) body.remedy = error.remedy;
  if (Object.keys(error.details).length > 0) body.details = { ...error.details };
  const fitted = fitObject(body, budget, ctx.counter, error.remedy ?? 'Correct the arguments and call again.');
  return { content: [{ type: 'text', text: fitted.text }], isError: true };
}

/** An object payload, whole or (over the budget) as a preview envelope. */
export function renderObject(ctx: RenderContext, tool: string, payload: ObjectPayload): Rendered {
  ctx.metrics.toolRawResultBytes.observe({ tool }, Buffer.byteLength(JSON.stringify(payload.data), 'utf8'));
  const fitted = fitObject(payload.data, ctx.budgetNow(), ctx.counter, payload.overflowHint ?? 'Ask for less: a section or a filter.');
  if (fitted.truncated) ctx.metrics.toolBudgetTruncations.inc({ tool });
  // The object the text carries, parsed from it: never the tool's own data (an in-process caller would share it, and
  // a value JSON drops would differ from the text).
  const structured = JSON.parse(fitted.text) as JsonObject;
  return { result: resultOf(fitted.text, structured), size: { tokens: fitted.tokens, bytes: Buffer.byteLength(fitted.text, 'utf8') } };
}

/** The texts of items [offset, offset + limit) of a stored result, as a page source. */
export function storedSource(store: ResultStore, meta: StoredResultMeta, offset: number, limit: number): ItemSource {
  return {
    length: Math.max(0, Math.min(limit, meta.total_items - offset)),
    read: async (from, to) =>
      store.readTexts === undefined
        ? (await store.read(meta.result_id, { offset: offset + from, limit: to - from })).items.map((item) => JSON.stringify(item))
        : (await store.readTexts(meta.result_id, offset + from, to - from)).texts,
  };
}

/** The items of a page of a stored result, priced from the costs remembered for that result. */
export function storedItems(ctx: RenderContext, meta: StoredResultMeta, source: ItemSource, offset: number): PageItems {
  return new PageItems(source, ctx.counter, costMemoFor(ctx.store).of(ctx.counter.encoding, meta.result_id, meta.total_items, offset, source.length));
}

/** What a tool read, in bytes of JSON, before any budget: its items' JSON as a list (never the whole list as one string). */
export function textsBytes(texts: readonly string[]): number {
  let bytes = 2;
  for (const text of texts) bytes += Buffer.byteLength(text, 'utf8') + 1;
  return bytes;
}

export interface PageView {
  readonly tool: string;
  readonly itemKind: string;
  readonly total: number;
  readonly offset: number;
  readonly limit: number;
  /** The items the page may carry (at most `limit`), read and priced as the budget needs them. */
  readonly items: PageItems;
  readonly counts: Counts | undefined;
  readonly notes: readonly string[];
  /** A search's scan and cap, when the list is a search's matches. */
  readonly search?: ListPayload['search'];
  /** The stored list the page points at (its first page of a large list). */
  readonly stored?: StoredResultMeta | undefined;
  /** Of the list, for cursors; none: the page gives no cursor. */
  readonly fingerprint?: string | undefined;
  /** Set when the page came from a snapshot older than SnapshotCache.showAgeAfterSeconds. */
  readonly snapshotAgeSeconds?: number | undefined;
  readonly nextCall: (nextOffset: number) => string;
}

function linkFor(meta: StoredResultMeta): ResourceLinkBlock {
  return {
    type: 'resource_link',
    uri: meta.uri,
    name: meta.result_id,
    title: `${meta.total_items} ${meta.item_kind} from ${meta.tool}`,
    mimeType: 'application/json',
    size: meta.bytes,
  };
}

/**
 * Envelope levels, tried in order until a page carries at least one item: 0 everything; 1 without notes;
 * 2 without counts (said to be omitted) and with brief steps; 3 only what paging needs.
 */
const LEVELS = [0, 1, 2, 3] as const;

/** A page fitted to the budget, its envelope degraded level by level until it carries an item. */
export async function renderPage(ctx: RenderContext, view: PageView): Promise<Rendered & { readonly returned: number }> {
  const { counter } = ctx;
  const budget = ctx.budgetNow();
  const link = view.stored === undefined ? undefined : linkFor(view.stored);
  const linkJson = link === undefined ? undefined : JSON.stringify(link);
  const reserve = linkJson === undefined ? 0 : counter.count(linkJson);
  const textBudget = budget - reserve;

  const hasCounts = view.counts !== undefined && Object.keys(view.counts).length > 0;
  /** What describes the whole list at a level: the same on each of its pages (see PageEnvelope). */
  const listPart = (level: (typeof LEVELS)[number]): JsonObject => {
    const list: JsonObject = { item_kind: view.itemKind, total: view.total };
    if (view.search !== undefined) list.search = { scanned: view.search.scanned, capped: view.search.capped, match_cap: view.search.cap };
    if (level <= 1 && hasCounts) list.counts = view.counts ?? {};
    // Counts are dropped only when the page could not otherwise carry a single item; say so, and where to get them.
    if (level >= 2 && hasCounts) list.counts_omitted = true;
    if (view.stored !== undefined) {
      list.result_id = view.stored.result_id;
      if (level < 3) {
        list.stored_items = view.stored.total_items;
        list.expires_at = view.stored.expires_at;
      }
    }
    if (level === 0 && view.notes.length > 0) list.notes = [...view.notes];
    return list;
  };
  const build = (level: (typeof LEVELS)[number]) => {
    const list = listPart(level);
    return (returned: number, truncated: boolean): PageEnvelope => {
      const nextOffset = view.offset + returned;
      const hasMore = nextOffset < view.total;
      const brief = level >= 2;
      const page: JsonObject = { returned, offset: view.offset, limit: view.limit, has_more: hasMore, next_offset: hasMore ? nextOffset : null };
      if (hasMore && view.fingerprint !== undefined && level < 3) page.next_cursor = encodeCursor(nextOffset, view.fingerprint);
      if (view.snapshotAgeSeconds !== undefined) page.snapshot_age_seconds = view.snapshotAgeSeconds;
      if (truncated) page.truncated_by_budget = true;
      const steps: string[] = [];
      if (level < 3) {
        if (hasMore) steps.push(`More: call ${view.nextCall(nextOffset)}.`);
        if (view.snapshotAgeSeconds !== undefined && !brief) {
          steps.push(`Paged from the list as fetched ${view.snapshotAgeSeconds} s ago; call with refresh true for current data.`);
        }
        if (truncated && !brief) steps.push(`This page was cut to the ${budget}-token budget; filters give fewer, more relevant items.`);
        if (brief && hasCounts) {
          steps.push(view.stored === undefined ? 'Counts: ask again with limit 1.' : 'Counts: read_result with summary_only true.');
        }
        if (view.search?.capped === true) {
          steps.push(brief ? 'Search capped: narrow the query.' : `The search stopped at ${view.search.cap} matches; add words, use a regex or filter by type to narrow it.`);
        }
      }
      if (steps.length > 0) page.next_step = steps.join(' ');
      return { list, page };
    };
  };

  // Degrade gracefully, level by level, until the page carries an item (or there are none to carry).
  const items = view.items;
  let fitted = await fitItems(items, build(0), textBudget, counter);
  for (const level of LEVELS.slice(1)) {
    if (fitted.tokens <= textBudget && (fitted.returned > 0 || items.length === 0)) break;
    fitted = await fitItems(items, build(level), textBudget, counter);
  }
  if (fitted.tokens > textBudget) {
    // Cannot happen with budgetMin and the minimal envelope; fail loudly rather than exceed the budget.
    throw new Error(`envelope of ${view.tool} does not fit ${textBudget} tokens`);
  }
  if (fitted.truncated) ctx.metrics.toolBudgetTruncations.inc({ tool: view.tool });
  // The structured content is the page the text carries (a page is a few KiB: parsing it is cheap next to fitting it).
  const result = resultOf(fitted.text, JSON.parse(fitted.text) as JsonObject, link);
  const size = { tokens: fitted.tokens + reserve, bytes: Buffer.byteLength(fitted.text, 'utf8') + (linkJson === undefined ? 0 : Buffer.byteLength(linkJson, 'utf8')) };
  return { result, size, returned: fitted.returned };
}
