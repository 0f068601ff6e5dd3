import { z } from 'zod';

/**
 * The schemas of tool results' `structuredContent` (MCP `outputSchema`). The structured content is the object the
 * result's JSON text carries (the text stays, within the token budget), so these describe what the kit writes:
 * the page envelope (every level it degrades to) over a tool's item schema, and an object or, when it was cut to
 * the budget, its preview envelope. Each is built once per process: a server per request must not rebuild them.
 */

const count = z.number().int().min(0);

/** One item too large to fit the budget on its own, replaced by a clipped preview of its JSON (see `ClippedItem`). */
export const CLIPPED_ITEM_SCHEMA = z.strictObject({ _clipped: z.literal(true), _tokens: count, preview: z.string() });

/** An object cut to the token budget (`fitObject`): a preview of its JSON and what to ask for instead. */
export const TRUNCATED_OBJECT_SCHEMA = z.strictObject({
  truncated_by_budget: z.literal(true),
  tokens_full: count,
  budget: count,
  preview: z.string().optional(),
  next_step: z.string(),
});

/** Aggregates over a whole filtered set: dimension → value → items. */
export const COUNTS_SCHEMA = z.record(z.string(), z.record(z.string(), count));

/**
 * The envelope of a page, without its items: what describes the whole list, then what this page holds. Fields a
 * degraded envelope leaves out are optional (see `renderPage`).
 */
const PAGE_ENVELOPE_SHAPE = {
  item_kind: z.string(),
  total: count,
  search: z.strictObject({ scanned: count, capped: z.boolean(), match_cap: count }).optional(),
  counts: COUNTS_SCHEMA.optional(),
  counts_omitted: z.literal(true).optional(),
  result_id: z.string().optional(),
  stored_items: count.optional(),
  expires_at: z.string().optional(),
  notes: z.array(z.string()).optional(),
  returned: count,
  offset: count,
  limit: count,
  has_more: z.boolean(),
  next_offset: count.nullable(),
  next_cursor: z.string().optional(),
  snapshot_age_seconds: count.optional(),
  truncated_by_budget: z.literal(true).optional(),
  next_step: z.string().optional(),
};

/** Any JSON value: the item of a list tool that declares none. */
export const ANY_ITEM_SCHEMA = z.unknown();

const pages = new WeakMap<z.ZodType, z.ZodType>();

function buildListPageOutput<T extends z.ZodType>(item: T) {
  return z.strictObject({ ...PAGE_ENVELOPE_SHAPE, items: z.array(z.union([item, CLIPPED_ITEM_SCHEMA])) });
}

/** A page of a list over items of `item` (an item cut to the budget is a `CLIPPED_ITEM_SCHEMA`); one per item schema. */
export function listPageOutput<T extends z.ZodType>(item: T): ReturnType<typeof buildListPageOutput<T>> {
  let page = pages.get(item);
  if (page === undefined) {
    page = buildListPageOutput(item);
    pages.set(item, page);
  }
  return page as ReturnType<typeof buildListPageOutput<T>>;
}

/** An object tool's result: the object, or (cut to the budget) its preview envelope. Build it once, at module level. */
export function objectOutput<T extends z.ZodObject>(data: T) {
  return z.union([data, TRUNCATED_OBJECT_SCHEMA]);
}

/** What read_result with summary_only answers. */
export const RESULT_SUMMARY_SCHEMA = z.strictObject({
  result_id: z.string(),
  tool: z.string(),
  item_kind: z.string(),
  total: count,
  counts: COUNTS_SCHEMA,
  query: z.unknown(),
  created_at: z.string(),
  expires_at: z.string(),
  bytes: count,
  next_step: z.string(),
});

/** read_result's result: a summary (summary_only), or a page of the stored items. */
export const READ_RESULT_OUTPUT = z.union([RESULT_SUMMARY_SCHEMA, TRUNCATED_OBJECT_SCHEMA, listPageOutput(ANY_ITEM_SCHEMA)]);

export type ListPageOutput<T> = z.output<ReturnType<typeof buildListPageOutput<z.ZodType<T>>>>;
