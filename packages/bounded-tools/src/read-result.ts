import { z } from 'zod';
import type { JsonObject, JsonValue } from './json.js';
import { LIMITS } from './limits.js';
import { READ_RESULT_OUTPUT } from './output.js';
import { PAGE_SHAPE } from './paging.js';
import { RESULT_ID_PATTERN, type ResultStore, type StoredResultMeta } from './store/types.js';
import type { ToolSpec } from './types.js';

export const READ_RESULT_TOOL = 'read_result';

const idMessage = 'result_id must be an id a tool returned, like r_0123456789abcdef01234567';
const readLimit = `limit must be a whole number from 1 to ${LIMITS.readMax} (default ${LIMITS.readDefault})`;

/** read_result's arguments (the same for every server: built once per process). */
const READ_RESULT_INPUT = z.strictObject({
  result_id: z.string({ message: idMessage }).regex(RESULT_ID_PATTERN, idMessage).describe('The result_id a tool returned.'),
  limit: z.number({ message: readLimit }).int(readLimit).min(1, readLimit).max(LIMITS.readMax, readLimit).default(LIMITS.readDefault)
    .describe(`Items to return, 1-${LIMITS.readMax} (default ${LIMITS.readDefault}); the token budget may return fewer.`),
  offset: PAGE_SHAPE.offset,
  summary_only: z.boolean({ message: 'summary_only must be true or false' }).default(false)
    .describe('Only totals and counts, no items.'),
  filter: z.string().min(1).max(LIMITS.filterMaxLength, `filter must be at most ${LIMITS.filterMaxLength} characters`).optional()
    .describe('Keep items matching it: "text" matches any value (case-insensitive); "field=value" matches one field exactly (dotted paths allowed).'),
});

/** The companion reader of spilled results, a tool like any other (the kit registers it through `register`). */
export function readResultTool(store: ResultStore): ToolSpec<typeof READ_RESULT_INPUT> {
  return {
    name: READ_RESULT_TOOL,
    title: 'Read a stored result',
    description:
      'Page through a result that a tool stored because it was too large to return whole (it gave you a result_id). ' +
      'Returns totals and counts of the full result, and items within the token budget. Results expire.',
    input: READ_RESULT_INPUT,
    output: READ_RESULT_OUTPUT,
    run: async (args) => {
      if (args.summary_only) {
        const meta = await store.meta(args.result_id);
        return { kind: 'object', data: summaryOf(meta) };
      }
      const nextCall = (next: number): string =>
        `read_result with result_id "${args.result_id}"${args.filter === undefined ? '' : ' and the same filter'} and offset ${next}`;
      if (args.filter === undefined) {
        // The kit reads only the items the budget can hold, priced from the costs remembered for this result.
        return { kind: 'stored_page', meta: await store.meta(args.result_id), offset: args.offset, limit: args.limit, nextCall };
      }
      const read = await store.read(args.result_id, { offset: args.offset, limit: args.limit, filter: compileFilter(args.filter) });
      const notes = [`filter "${args.filter}" matched ${read.total} of ${read.meta.total_items} stored items; counts describe all of them.`];
      return {
        kind: 'page',
        itemKind: read.meta.item_kind,
        total: read.total,
        offset: args.offset,
        limit: args.limit,
        items: read.items,
        counts: read.meta.counts,
        notes,
        nextCall,
      };
    },
  };
}

function summaryOf(meta: StoredResultMeta): JsonObject {
  return {
    result_id: meta.result_id,
    tool: meta.tool,
    item_kind: meta.item_kind,
    total: meta.total_items,
    counts: meta.counts,
    query: meta.query,
    created_at: meta.created_at,
    expires_at: meta.expires_at,
    bytes: meta.bytes,
    next_step: `Read items with read_result, result_id "${meta.result_id}", offset 0; add filter to narrow.`,
  };
}

/** read_result's filter: "field=value" (exact, case-insensitive, dotted path) or free text over all values. */
export function compileFilter(filter: string): (item: JsonValue) => boolean {
  const eq = /^([A-Za-z_][\w.-]*)=(.*)$/.exec(filter);
  if (eq !== null) {
    const path = (eq[1] ?? '').split('.');
    const wanted = (eq[2] ?? '').toLowerCase();
    return (item) => {
      let value: JsonValue | undefined = item;
      for (const key of path) {
        value = value !== null && typeof value === 'object' && !Array.isArray(value) ? value[key] : undefined;
      }
      // Only scalars compare: an object or array never equals a value (no "[object Object]" matches).
      if (Array.isArray(value)) return value.some((v) => (v === null || typeof v !== 'object') && String(v).toLowerCase() === wanted);
      return value !== undefined && value !== null && typeof value !== 'object' && String(value).toLowerCase() === wanted;
    };
  }
  const needle = filter.toLowerCase();
  const anyValue = (value: JsonValue): boolean => {
    if (value === null) return false;
    if (typeof value === 'object') return Array.isArray(value) ? value.some(anyValue) : Object.values(value).some(anyValue);
    return String(value).toLowerCase().includes(needle);
  };
  return anyValue;
}
