import type { McpServer } from '@modelcontextprotocol/server';
import type { z } from 'zod';
import { FlotillaError, type Logger } from '@flotilla/core';
import type { FlotillaMetrics } from '@flotilla/metrics';
import type { TokenCounter } from '@flotilla/tokens';
import { PageItems } from './fit.js';
import type { JsonValue } from './json.js';
import { LIMITS } from './limits.js';
import { listTool, renderList, renderSnapshotList } from './list.js';
import type { BoundedToolResult } from './measure.js';
import { renderObject, renderPage, storedItems, storedSource, textsBytes, type RenderContext, type Rendered } from './page.js';
import { readResultTool } from './read-result.js';
import { registerTool } from './register.js';
import { snapshotCacheFor, type SnapshotCache } from './snapshot.js';
import type { ResultStore } from './store/types.js';
import type { ListToolSpec, ToolPayload, ToolSpec } from './types.js';

export type { ToolCallContext, ToolPayload, ObjectPayload, ListPayload, PagePayload, StoredPagePayload, ToolSpec, ListToolSpec, LoadedList } from './types.js';
export { READ_RESULT_TOOL, compileFilter } from './read-result.js';

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

export interface BoundedTools {
  readonly budgetTokens: number;
  register<S extends z.ZodObject>(spec: ToolSpec<S>): void;
  registerList<F extends z.ZodObject, T extends JsonValue>(spec: ListToolSpec<F, T>): void;
  /** The companion reader of spilled results (registered through `register`); every server that spills registers it once. */
  registerReadResult(): void;
  /** Render a payload into a bounded result (what registered tools do); exposed for in-process callers. */
  render(tool: string, payload: ToolPayload): Promise<BoundedToolResult>;
}

/**
 * The only way a Flotilla tool is registered. Registration (validation → isError, metrics) is `register.ts`,
 * page rendering (fit to the budget, envelopes) `page.ts`, list tools (paging, aggregates, snapshots, spill)
 * `list.ts`, the reader of stored results `read-result.ts`; this composes them over one server's options.
 */
export function createBoundedTools(options: BoundedToolsOptions): BoundedTools {
  const configured = options.budgetTokens ?? LIMITS.budgetDefault;
  if (!Number.isInteger(configured) || configured < LIMITS.budgetMin || configured > LIMITS.budgetMax) {
    throw new FlotillaError('config_invalid', `token budget must be a whole number from ${LIMITS.budgetMin} to ${LIMITS.budgetMax}`);
  }
  const { counter, store, metrics, server, logger } = options;
  const snapshots = options.snapshots ?? snapshotCacheFor(store, metrics);
  if (snapshots.store !== store) {
    throw new FlotillaError('config_invalid', 'the snapshot cache must be built on the result store the kit uses');
  }
  const ctx: RenderContext = {
    counter,
    store,
    metrics,
    snapshots,
    spillThreshold: options.spillThresholdItems ?? LIMITS.spillThresholdItems,
    // The budget of this call: the configured one times the memory guard's factor (0.5 when memory is tight).
    budgetNow: () => {
      const factor = options.budgetFactor?.() ?? 1;
      return factor >= 1 ? configured : Math.max(LIMITS.budgetMin, Math.floor(configured * Math.max(0, factor)));
    },
  };

  async function render(tool: string, payload: ToolPayload): Promise<Rendered> {
    switch (payload.kind) {
      case 'object':
        return renderObject(ctx, tool, payload);
      // A list and a snapshot list measure what they read themselves: the loaded list, or what a page read of the snapshot.
      case 'list':
        return renderList(ctx, tool, payload);
      case 'snapshot_list':
        return renderSnapshotList(ctx, tool, payload);
      case 'page': {
        const texts = payload.items.map((item) => JSON.stringify(item));
        metrics.toolRawResultBytes.observe({ tool }, textsBytes(texts));
        return renderPage(ctx, {
          tool,
          itemKind: payload.itemKind,
          total: payload.total,
          offset: payload.offset,
          limit: payload.limit,
          items: new PageItems({ length: texts.length, read: (from, to) => Promise.resolve(texts.slice(from, to)) }, counter),
          counts: payload.counts,
          notes: payload.notes ?? [],
          nextCall: payload.nextCall,
        });
      }
      case 'stored_page': {
        const items = storedItems(ctx, payload.meta, storedSource(store, payload.meta, payload.offset, payload.limit), payload.offset);
        const rendered = await renderPage(ctx, {
          tool,
          itemKind: payload.meta.item_kind,
          total: payload.meta.total_items,
          offset: payload.offset,
          limit: payload.limit,
          items,
          counts: payload.meta.counts,
          notes: payload.notes ?? [],
          nextCall: payload.nextCall,
        });
        metrics.toolRawResultBytes.observe({ tool }, items.bytesRead);
        return rendered;
      }
    }
  }

  function register<S extends z.ZodObject>(spec: ToolSpec<S>): void {
    registerTool(server, ctx, logger, spec, render);
  }

  return {
    budgetTokens: configured,
    register,
    registerList: (spec) => register(listTool(spec, snapshots.ttlSeconds)),
    registerReadResult: () => register(readResultTool(store)),
    render: async (tool, payload) => (await render(tool, payload)).result,
  };
}
