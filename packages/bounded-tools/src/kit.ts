import { performance } from 'node:perf_hooks';
import type { McpServer, StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { FlotillaError, describeError, isFlotillaError, type Logger } from '@flotilla/core';
import { zeroToolSeries, type FlotillaMetrics, type ToolOutcome } from '@flotilla/metrics';
import type { TokenCounter } from '@flotilla/tokens';
import { fitItems, fitObject, PageItems, type ItemSource, type PageEnvelope } from './fit.js';
import type { JsonObject, JsonValue } from './json.js';
import { LIMITS } from './limits.js';
import { costMemoFor } from './memo.js';
import { measureToolResult, type BoundedToolResult, type ResourceLinkBlock, type ResultSize } from './measure.js';
import { computeCounts, encodeCursor, PAGE_SHAPE, queryFingerprint, resolveOffset, type CountKey, type Counts, type PageRequest } from './paging.js';
import type { SearchOutcome } from './search.js';
import { SNAPSHOT_SHAPE, snapshotCacheFor, type SnapshotCache, type SnapshotHit, type SnapshotListPayload } from './snapshot.js';
import { RESULT_ID_PATTERN, type ResultStore, type StoredResultMeta } from './store/types.js';

export interface BoundedToolsOptions {
  readonly server: McpServer;
  readonly counter: TokenCounter;
  readonly store: ResultStore;
  readonly metrics: FlotillaMetrics;
  readonly logger: Logger;
  /** Inline token budget per tool result (LIMITS.budgetMin..budgetMax, default LIMITS.budgetDefault). */
  readonly budgetTokens?: number;
  /** Multiplies the budget per call (the memory guard's 0.5 when memory is tight); never below LIMITS.budgetMin. */
  readonly budgetFactor?: () => number;
  /** First pages of lists larger than this are also spilled to the store (default LIMITS.spillThresholdItems). */
  readonly spillThresholdItems?: number;
  /**
   * Snapshots of upstream lists (tools that opt in page them without another upstream request); built on `store`.
   * Default: one cache per store with SNAPSHOT_DEFAULTS, shared by every kit on that store.
   */
  readonly snapshots?: SnapshotCache | undefined;
}

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
  /** Filter arguments (page arguments are added by the kit). */
  readonly filters: F;
  readonly itemKind: string;
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

export interface BoundedTools {
  readonly budgetTokens: number;
  register<S extends z.ZodObject>(spec: ToolSpec<S>): void;
  registerList<F extends z.ZodObject, T extends JsonValue>(spec: ListToolSpec<F, T>): void;
  /** The companion reader of spilled results; every server that spills registers it once. */
  registerReadResult(): void;
  /** Render a payload into a bounded result (what registered tools do); exposed for in-process callers. */
  render(tool: string, payload: ToolPayload): Promise<BoundedToolResult>;
}

export const READ_RESULT_TOOL = 'read_result';

/**
 * The SDK validates tool input before the handler runs and answers a bare protocol message. We let the SDK use
 * the zod schema only for `tools/list` and validate in the handler ourselves, so a bad argument becomes an
 * isError result that names the valid range, and is counted like every other call.
 */
function advertiseOnly(schema: z.ZodObject): StandardSchemaWithJSON {
  let advertised = advertisedSchemas.get(schema);
  if (advertised === undefined) {
    const std = schema['~standard'];
    advertised = { '~standard': { version: 1, vendor: 'flotilla', validate: (value: unknown) => ({ value }), jsonSchema: std.jsonSchema } };
    advertisedSchemas.set(schema, advertised);
  }
  return advertised;
}

/**
 * Schemas built once per process, not once per MCP server: the HTTP server keeps a server per request in flight
 * (`mcpServerPool`), and each one's schemas were most of its ~300 KiB. Keyed by the tool's own schema object, so
 * a tool whose filters are a module constant shares them across servers.
 */
const advertisedSchemas = new WeakMap<z.ZodObject, StandardSchemaWithJSON>();
const listInputs = new WeakMap<z.ZodObject, { plain?: z.ZodObject; snapshot?: z.ZodObject }>();

/** A list tool's arguments: its filters and the kit's page (and snapshot) arguments, built once per filters object. */
function listInput(filters: z.ZodObject, snapshot: boolean): z.ZodObject {
  const known = listInputs.get(filters) ?? {};
  listInputs.set(filters, known);
  if (snapshot) return (known.snapshot ??= filters.extend(PAGE_SHAPE).extend(SNAPSHOT_SHAPE));
  return (known.plain ??= filters.extend(PAGE_SHAPE));
}

/** read_result's arguments (the same for every server). */
function buildReadResultInput() {
  const idMessage = 'result_id must be an id a tool returned, like r_0123456789abcdef01234567';
  const readLimit = `limit must be a whole number from 1 to ${LIMITS.readMax} (default ${LIMITS.readDefault})`;
  return z.strictObject({
    result_id: z.string({ message: idMessage }).regex(RESULT_ID_PATTERN, idMessage).describe('The result_id a tool returned.'),
    limit: z.number({ message: readLimit }).int(readLimit).min(1, readLimit).max(LIMITS.readMax, readLimit).default(LIMITS.readDefault)
      .describe(`Items to return, 1-${LIMITS.readMax} (default ${LIMITS.readDefault}); the token budget may return fewer.`),
    offset: PAGE_SHAPE.offset,
    summary_only: z.boolean({ message: 'summary_only must be true or false' }).default(false)
      .describe('Only totals and counts, no items.'),
    filter: z.string().min(1).max(LIMITS.filterMaxLength, `filter must be at most ${LIMITS.filterMaxLength} characters`).optional()
      .describe('Keep items matching it: "text" matches any value (case-insensitive); "field=value" matches one field exactly (dotted paths allowed).'),
  });
}
let readResultInput: ReturnType<typeof buildReadResultInput> | undefined;

function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const path = issue.path.join('.');
      if (issue.code === 'unrecognized_keys') return `unknown argument(s): ${issue.keys.join(', ')}`;
      return path.length > 0 && !issue.message.startsWith(path) ? `${path}: ${issue.message}` : issue.message;
    })
    .join('; ');
}

export function createBoundedTools(options: BoundedToolsOptions): BoundedTools {
  const configured = options.budgetTokens ?? LIMITS.budgetDefault;
  if (!Number.isInteger(configured) || configured < LIMITS.budgetMin || configured > LIMITS.budgetMax) {
    throw new FlotillaError('config_invalid', `token budget must be a whole number from ${LIMITS.budgetMin} to ${LIMITS.budgetMax}`);
  }
  /** The budget of this call: the configured one times the memory guard's factor (0.5 when memory is tight). */
  const budgetNow = (): number => {
    const factor = options.budgetFactor?.() ?? 1;
    return factor >= 1 ? configured : Math.max(LIMITS.budgetMin, Math.floor(configured * Math.max(0, factor)));
  };
  const spillThreshold = options.spillThresholdItems ?? LIMITS.spillThresholdItems;
  /**
   * A result with its exact size, counted while fitting, so it is not tokenized a second time for metrics. Carried
   * beside the result, not in a WeakMap: a long-lived WeakMap keeps every result (and its text) until a major GC.
   */
  interface Rendered {
    readonly result: BoundedToolResult;
    readonly size: ResultSize;
  }
  const { counter, store, metrics, server, logger } = options;
  const snapshots = options.snapshots ?? snapshotCacheFor(store, metrics);
  if (snapshots.store !== store) {
    throw new FlotillaError('config_invalid', 'the snapshot cache must be built on the result store the kit uses');
  }

  const errorResult = (error: FlotillaError): BoundedToolResult => {
    const budget = budgetNow();
    const body: JsonObject = { error: error.code, message: counter.truncate(error.message, Math.floor(budget / 2)) };
    if (error.remedy !== undefined) body.remedy = error.remedy;
    if (Object.keys(error.details).length > 0) body.details = { ...error.details };
    const fitted = fitObject(body, budget, counter, error.remedy ?? 'Correct the arguments and call again.');
    return { content: [{ type: 'text', text: fitted.text }], isError: true };
  };

  const linkFor = (meta: StoredResultMeta): ResourceLinkBlock => ({
    type: 'resource_link',
    uri: meta.uri,
    name: meta.result_id,
    title: `${meta.total_items} ${meta.item_kind} from ${meta.tool}`,
    mimeType: 'application/json',
    size: meta.bytes,
  });

  /** The texts of items [from, to) of a stored result, as a page source. */
  const storedSource = (meta: StoredResultMeta, offset: number, limit: number): ItemSource => ({
    length: Math.max(0, Math.min(limit, meta.total_items - offset)),
    read: async (from, to) =>
      store.readTexts === undefined
        ? (await store.read(meta.result_id, { offset: offset + from, limit: to - from })).items.map((item) => JSON.stringify(item))
        : (await store.readTexts(meta.result_id, offset + from, to - from)).texts,
  });
  /** The items of a page of a stored result, priced from the costs remembered for that result. */
  const storedItems = (meta: StoredResultMeta, source: ItemSource, offset: number): PageItems =>
    new PageItems(source, counter, costMemoFor(store).of(counter.encoding, meta.result_id, meta.total_items, offset, source.length));

  /**
   * A whole list: its page, and for a first page over the spill threshold the stored result too. With `snapshotKey`
   * (a snapshot list just loaded) the stored list is also indexed as the query's snapshot, and a list that has
   * more pages than this one is stored for them even below the spill threshold. Each item is stringified once: for
   * the raw-bytes metric, the store and the page alike.
   */
  async function renderList(tool: string, payload: ListPayload, snapshotKey?: string): Promise<Rendered> {
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
    if (payload.spill !== false && offset === 0 && total > spillThreshold) {
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
    const rendered = await renderPage({
      tool,
      itemKind: payload.itemKind,
      total,
      offset,
      limit: payload.page.limit,
      items: stored === undefined ? new PageItems(source, counter) : storedItems(stored, source, offset),
      counts: payload.counts,
      notes,
      search: payload.search,
      stored,
      fingerprint,
      snapshotAgeSeconds: undefined,
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

  const nextCallOf =
    (tool: string, stored: StoredResultMeta | undefined) =>
    (next: number): string =>
      stored !== undefined
        ? `read_result with result_id "${stored.result_id}" and offset ${next} (a stored snapshot, no new upstream call)`
        : `${tool} with the same filters and offset ${next}`;

  /** A snapshot list: its page from a fresh snapshot of the query, or from a new load (which becomes the snapshot). */
  async function renderSnapshotList(tool: string, payload: SnapshotListPayload): Promise<Rendered> {
    const fingerprint = queryFingerprint(payload.query);
    const offset = resolveOffset(payload.page, fingerprint);
    const key = snapshots.key(tool, payload.query);
    let hit: SnapshotHit | undefined;
    if (payload.refresh === true) snapshots.bypass();
    else hit = await snapshots.find(key);
    if (hit !== undefined) {
      const total = hit.meta.total_items;
      // The first page of a large list points at the stored list, as when it was loaded.
      const stored = offset === 0 && total > spillThreshold ? hit.meta : undefined;
      const items = storedItems(hit.meta, storedSource(hit.meta, offset, payload.page.limit), offset);
      try {
        const rendered = await renderPage({
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
        metrics.toolRawResultBytes.observe({ tool }, items.bytesRead);
        return rendered;
      } catch (error) {
        // The store let the snapshot go while its page was read (its TTL, or its byte cap): load anew.
        if (!isFlotillaError(error) || (error.code !== 'result_expired' && error.code !== 'not_found')) throw error;
      }
    }
    const loaded = await payload.load();
    return renderList(
      tool,
      {
        kind: 'list',
        itemKind: payload.itemKind,
        items: loaded.items,
        page: payload.page,
        query: payload.query,
        counts: loaded.counts,
        notes: loaded.notes,
        search: loaded.search,
      },
      loaded.reusable === false ? undefined : key,
    );
  }

  interface PageView {
    readonly tool: string;
    readonly itemKind: string;
    readonly total: number;
    readonly offset: number;
    readonly limit: number;
    /** The items the page may carry (at most `limit`), read and priced as the budget needs them. */
    readonly items: PageItems;
    readonly counts: Counts | undefined;
    readonly notes: readonly string[];
    readonly search: ListPayload['search'];
    readonly stored: StoredResultMeta | undefined;
    readonly fingerprint: string | undefined;
    /** Set when the page came from a snapshot older than SnapshotCache.showAgeAfterSeconds. */
    readonly snapshotAgeSeconds: number | undefined;
    readonly nextCall: (nextOffset: number) => string;
  }

  async function renderPage(view: PageView): Promise<Rendered & { readonly returned: number }> {
    const budget = budgetNow();
    const link = view.stored === undefined ? undefined : linkFor(view.stored);
    const linkJson = link === undefined ? undefined : JSON.stringify(link);
    const reserve = linkJson === undefined ? 0 : counter.count(linkJson);
    const textBudget = budget - reserve;

    /**
     * Envelope levels, tried in order until a page carries at least one item: 0 everything; 1 without notes;
     * 2 without counts (said to be omitted) and with brief steps; 3 only what paging needs.
     */
    const LEVELS = [0, 1, 2, 3] as const;
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
    if (fitted.truncated) metrics.toolBudgetTruncations.inc({ tool: view.tool });
    const result: BoundedToolResult = { content: link === undefined ? [{ type: 'text', text: fitted.text }] : [{ type: 'text', text: fitted.text }, link] };
    const size = { tokens: fitted.tokens + reserve, bytes: Buffer.byteLength(fitted.text, 'utf8') + (linkJson === undefined ? 0 : Buffer.byteLength(linkJson, 'utf8')) };
    return { result, size, returned: fitted.returned };
  }

  async function render(tool: string, payload: ToolPayload): Promise<Rendered> {
    const budget = budgetNow();
    switch (payload.kind) {
      case 'object': {
        metrics.toolRawResultBytes.observe({ tool }, Buffer.byteLength(JSON.stringify(payload.data), 'utf8'));
        const fitted = fitObject(payload.data, budget, counter, payload.overflowHint ?? 'Ask for less: a section or a filter.');
        if (fitted.truncated) metrics.toolBudgetTruncations.inc({ tool });
        return { result: { content: [{ type: 'text', text: fitted.text }] }, size: { tokens: fitted.tokens, bytes: Buffer.byteLength(fitted.text, 'utf8') } };
      }
      // A list and a snapshot list measure what they read themselves: the loaded list, or what a page read of the snapshot.
      case 'list':
        return renderList(tool, payload);
      case 'snapshot_list':
        return renderSnapshotList(tool, payload);
      case 'page': {
        const texts = payload.items.map((item) => JSON.stringify(item));
        metrics.toolRawResultBytes.observe({ tool }, textsBytes(texts));
        return renderPage({
          tool,
          itemKind: payload.itemKind,
          total: payload.total,
          offset: payload.offset,
          limit: payload.limit,
          items: new PageItems({ length: texts.length, read: (from, to) => Promise.resolve(texts.slice(from, to)) }, counter),
          counts: payload.counts,
          notes: payload.notes ?? [],
          search: undefined,
          stored: undefined,
          fingerprint: undefined,
          snapshotAgeSeconds: undefined,
          nextCall: payload.nextCall,
        });
      }
      case 'stored_page': {
        const items = storedItems(payload.meta, storedSource(payload.meta, payload.offset, payload.limit), payload.offset);
        const rendered = await renderPage({
          tool,
          itemKind: payload.meta.item_kind,
          total: payload.meta.total_items,
          offset: payload.offset,
          limit: payload.limit,
          items,
          counts: payload.meta.counts,
          notes: payload.notes ?? [],
          search: undefined,
          stored: undefined,
          fingerprint: undefined,
          snapshotAgeSeconds: undefined,
          nextCall: payload.nextCall,
        });
        metrics.toolRawResultBytes.observe({ tool }, items.bytesRead);
        return rendered;
      }
    }
  }

  function register<S extends z.ZodObject>(spec: ToolSpec<S>): void {
    // Its series at zero now, so the first large read or error after a start reaches the alerts.
    zeroToolSeries(metrics, spec.name);
    // One child logger per tool, not per call: pino builds its bindings (and redaction) on each child.
    const log = logger.child({ tool: spec.name });
    server.registerTool(
      spec.name,
      { title: spec.title, description: spec.description, inputSchema: advertiseOnly(spec.input), annotations: { readOnlyHint: true } },
      async (rawArgs: unknown, sdkCtx) => {
        const started = performance.now();
        let outcome: ToolOutcome = 'ok';
        let result: BoundedToolResult;
        let size: ResultSize | undefined;
        try {
          const parsed = spec.input.safeParse(rawArgs ?? {});
          if (!parsed.success) {
            throw new FlotillaError('invalid_argument', `invalid arguments for ${spec.name}: ${describeIssues(parsed.error)}`, {
              remedy: 'Correct the arguments named above and call again; tools/list shows the schema.',
            });
          }
          const payload = await spec.run(parsed.data, { tool: spec.name, logger: log, signal: sdkCtx.mcpReq.signal });
          ({ result, size } = await render(spec.name, payload));
        } catch (error) {
          if (isFlotillaError(error)) {
            outcome = 'tool_error';
            log.info({ code: error.code, err: describeError(error) }, 'tool call failed');
            result = errorResult(error);
          } else {
            // A bug: logged with its stack and counted; the caller gets a stable message, the server stays up.
            outcome = 'exception';
            log.error({ err: error }, 'tool call raised an unexpected error');
            result = errorResult(new FlotillaError('internal', `${spec.name} failed unexpectedly; the error was logged`));
          }
        }
        // Sizes were counted while fitting; anything rendered elsewhere (errors) is measured here.
        size ??= measureToolResult(result, counter);
        metrics.toolCalls.inc({ tool: spec.name, outcome });
        metrics.toolResultBytes.observe({ tool: spec.name }, size.bytes);
        metrics.toolResultTokens.observe({ tool: spec.name }, size.tokens);
        metrics.toolDuration.observe({ tool: spec.name }, (performance.now() - started) / 1000);
        return result;
      },
    );
  }

  function registerList<F extends z.ZodObject, T extends JsonValue>(spec: ListToolSpec<F, T>): void {
    const filterKeys = Object.keys(spec.filters.shape);
    const reserved = [...Object.keys(PAGE_SHAPE), ...(spec.snapshot === true ? Object.keys(SNAPSHOT_SHAPE) : [])].filter((key) => filterKeys.includes(key));
    if (reserved.length > 0) throw new Error(`${spec.name}: filters must not be named ${reserved.join(', ')} (the kit adds them)`);
    const input = listInput(spec.filters, spec.snapshot === true);
    const description =
      spec.snapshot === true
        ? `${spec.description} Later pages with the same filters come from the list as first fetched (up to ${snapshots.ttlSeconds} s old; refresh true fetches anew).`
        : spec.description;
    register({
      name: spec.name,
      title: spec.title,
      description,
      input,
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
    });
  }

  function registerReadResult(): void {
    const input = (readResultInput ??= buildReadResultInput());
    register({
      name: READ_RESULT_TOOL,
      title: 'Read a stored result',
      description:
        'Page through a result that a tool stored because it was too large to return whole (it gave you a result_id). ' +
        'Returns totals and counts of the full result, and items within the token budget. Results expire.',
      input,
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
    });
  }

  return {
    budgetTokens: configured,
    register,
    registerList,
    registerReadResult,
    render: async (tool, payload) => (await render(tool, payload)).result,
  };
}

/** What a tool read, in bytes of JSON, before any budget: its items' JSON as a list (never the whole list as one string). */
function textsBytes(texts: readonly string[]): number {
  let bytes = 2;
  for (const text of texts) bytes += Buffer.byteLength(text, 'utf8') + 1;
  return bytes;
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
