import type { z } from 'zod';
import { isFlotillaError } from '@flotilla/core';
import { PageItems, type ItemSource } from './fit.js';
import type { JsonValue } from './json.js';
import { ANY_ITEM_SCHEMA, listPageOutput } from './output.js';
import { renderPage, storedItems, storedSource, textsBytes, type RenderContext, type Rendered } from './page.js';
import { computeCounts, PAGE_SHAPE, queryFingerprint, resolveOffset, type Counts, type PageRequest } from './paging.js';
import { SNAPSHOT_SHAPE, type SnapshotHit, type SnapshotListPayload } from './snapshot.js';
import type { StoredResultMeta } from './store/types.js';
import type { ListPayload, ListToolSpec, LoadedList, ToolPayload, ToolSpec } from './types.js';

/**
 * List inputs built once per process, not once per MCP server: the HTTP server keeps a server per request in
 * flight (`mcpServerPool`). Keyed by the tool's filters object, so a tool whose filters are a module constant
 * shares its input across servers.
 */
const listInputs = new WeakMap<z.ZodObject, { plain?: z.ZodObject; snapshot?: z.ZodObject }>();

/** A list tool's arguments: its filters and the kit's page (and snapshot) arguments, built once per filters object. */
function listInput(filters: z.ZodObject, snapshot: boolean): z.ZodObject {
  const known = listInputs.get(filters) ?? {};
  listInputs.set(filters, known);
  if (snapshot) return (known.snapshot ??= filters.extend(PAGE_SHAPE).extend(SNAPSHOT_SHAPE));
  return (known.plain ??= filters.extend(PAGE_SHAPE));
}

/** A list tool as a plain tool: its input (filters + page arguments), output (the page over its items) and run. */
export function listTool<F extends z.ZodObject, T extends JsonValue>(spec: ListToolSpec<F, T>, snapshotTtlSeconds: number): ToolSpec<z.ZodObject> {
  const filterKeys = Object.keys(spec.filters.shape);
  const reserved = [...Object.keys(PAGE_SHAPE), ...(spec.snapshot === true ? Object.keys(SNAPSHOT_SHAPE) : [])].filter((key) => filterKeys.includes(key));
  if (reserved.length > 0) throw new Error(`${spec.name}: filters must not be named ${reserved.join(', ')} (the kit adds them)`);
  const description =
    spec.snapshot === true
      ? `${spec.description} Later pages with the same filters come from the list as first fetched (up to ${snapshotTtlSeconds} s old; refresh true fetches anew).`
      : spec.description;
  return {
    name: spec.name,
    title: spec.title,
    description,
    input: listInput(spec.filters, spec.snapshot === true),
    output: listPageOutput(spec.item ?? ANY_ITEM_SCHEMA),
    run: async (args, ctx): Promise<ToolPayload> => {
      const all: Record<string, unknown> = args;
      const filters = Object.fromEntries(filterKeys.map((key) => [key, all[key]])) as z.output<F>;
      const page: PageRequest = { limit: all.limit as number, offset: all.offset as number, cursor: all.cursor as string | undefined };
      const query = JSON.parse(JSON.stringify(filters)) as JsonValue;
      const load = async (): Promise<LoadedList<T> & { readonly counts: Counts | undefined }> => {
        const loaded = await spec.load(filters, ctx);
        const list: LoadedList<T> = Array.isArray(loaded) ? { items: loaded } : (loaded as LoadedList<T>);
        return { ...list, counts: spec.counts === undefined ? undefined : computeCounts(list.items, spec.counts, undefined, spec.countsTop) };
      };
      if (spec.snapshot === true) {
        return { kind: 'snapshot_list', itemKind: spec.itemKind, page, query, refresh: all.refresh === true, load };
      }
      const list = await load();
      return { kind: 'list', itemKind: spec.itemKind, items: list.items, page, query, counts: list.counts, notes: list.notes, search: list.search };
    },
  };
}

const nextCallOf =
  (tool: string, stored: StoredResultMeta | undefined) =>
  (next: number): string =>
    stored !== undefined
      ? `read_result with result_id "${stored.result_id}" and offset ${next} (a stored snapshot, no new upstream call)`
      : `${tool} with the same filters and offset ${next}`;

/**
 * A whole list: its page, and for a first page over the spill threshold the stored result too. With `snapshotKey`
 * (a snapshot list just loaded) the stored list is also indexed as the query's snapshot, and a list that has
 * more pages than this one is stored for them even below the spill threshold. Each item is stringified once: for
 * the raw-bytes metric, the store and the page alike.
 */
export async function renderList(ctx: RenderContext, tool: string, payload: ListPayload, snapshotKey?: string): Promise<Rendered> {
  const { store, metrics, snapshots } = ctx;
  const fingerprint = queryFingerprint(payload.query);
  const offset = resolveOffset(payload.page, fingerprint);
  const total = payload.items.length;
  const texts = payload.items.map((item) => JSON.stringify(item));
  metrics.toolRawResultBytes.observe({ tool }, textsBytes(texts));
  const notes = [...(payload.notes ?? [])];
  const extras = { notes: payload.notes, search: payload.search };
  const put = (): Promise<StoredResultMeta> =>
    store.put({ tool, item_kind: payload.itemKind, query: payload.query, counts: payload.counts ?? {}, items: payload.items, texts });
  let stored: StoredResultMeta | undefined;
  if (payload.spill !== false && offset === 0 && total > ctx.spillThreshold) {
    try {
      stored = await put();
      metrics.toolSpills.inc({ tool });
      if (snapshotKey !== undefined) await snapshots.remember(snapshotKey, stored, extras);
    } catch (error) {
      if (!isFlotillaError(error) || error.code !== 'payload_too_large') throw error;
      notes.push(`The full result was not stored: ${error.message}. Narrow the filters to page through it.`);
    }
  }
  const source: ItemSource = {
    length: Math.max(0, Math.min(payload.page.limit, total - offset)),
    read: (from, to) => Promise.resolve(texts.slice(offset + from, offset + to)),
  };
  const rendered = await renderPage(ctx, {
    tool,
    itemKind: payload.itemKind,
    total,
    offset,
    limit: payload.page.limit,
    items: stored === undefined ? new PageItems(source, ctx.counter) : storedItems(ctx, stored, source, offset),
    counts: payload.counts,
    notes,
    search: payload.search,
    stored,
    fingerprint,
    nextCall: nextCallOf(tool, stored),
  });
  if (snapshotKey !== undefined && stored === undefined && payload.spill !== false && offset + rendered.returned < total) {
    // More pages to come: keep the list for them. Too large for the store: they fetch again, as without snapshots.
    try {
      await snapshots.remember(snapshotKey, await put(), extras);
    } catch (error) {
      if (!isFlotillaError(error) || error.code !== 'payload_too_large') throw error;
    }
  }
  return rendered;
}

/** A snapshot list: its page from a fresh snapshot of the query, or from a new load (which becomes the snapshot). */
export async function renderSnapshotList(ctx: RenderContext, tool: string, payload: SnapshotListPayload): Promise<Rendered> {
  const { snapshots } = ctx;
  const fingerprint = queryFingerprint(payload.query);
  const offset = resolveOffset(payload.page, fingerprint);
  const key = snapshots.key(tool, payload.query);
  let hit: SnapshotHit | undefined;
  if (payload.refresh === true) snapshots.bypass();
  else hit = await snapshots.find(key);
  if (hit !== undefined) {
    const total = hit.meta.total_items;
    // The first page of a large list points at the stored list, as when it was loaded.
    const stored = offset === 0 && total > ctx.spillThreshold ? hit.meta : undefined;
    const items = storedItems(ctx, hit.meta, storedSource(ctx.store, hit.meta, offset, payload.page.limit), offset);
    try {
      const rendered = await renderPage(ctx, {
        tool,
        itemKind: payload.itemKind,
        total,
        offset,
        limit: payload.page.limit,
        items,
        counts: hit.meta.counts,
        notes: hit.notes,
        search: hit.search,
        stored,
        fingerprint,
        snapshotAgeSeconds: hit.ageSeconds > snapshots.showAgeAfterSeconds ? hit.ageSeconds : undefined,
        nextCall: nextCallOf(tool, stored),
      });
      ctx.metrics.toolRawResultBytes.observe({ tool }, items.bytesRead);
      return rendered;
    } catch (error) {
      // The store let the snapshot go while its page was read (its TTL, or its byte cap): load anew.
      if (!isFlotillaError(error) || (error.code !== 'result_expired' && error.code !== 'not_found')) throw error;
    }
  }
  const loaded = await payload.load();
  return renderList(
    ctx,
    tool,
    { kind: 'list', itemKind: payload.itemKind, items: loaded.items, page: payload.page, query: payload.query, counts: loaded.counts, notes: loaded.notes, search: loaded.search },
    loaded.reusable === false ? undefined : key,
  );
}
