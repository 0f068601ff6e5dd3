import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { FlotillaError } from '@flotilla/core';
import { METRIC } from '@flotilla/metrics';
import { loadTokenCounter, type TokenCounter } from '@flotilla/tokens';
import { READ_AHEAD_ITEMS } from './fit.js';
import { createMemoryResultStore } from './store/memory-store.js';
import type { ResultStore } from './store/types.js';
import { harness, type Harness } from './testing/harness.test-util.js';
import { measureToolResult, type BoundedToolResult } from './measure.js';
import { listPageOutput, objectOutput, READ_RESULT_OUTPUT, TRUNCATED_OBJECT_SCHEMA } from './output.js';
import { SEARCH_SHAPE, searchItems } from './search.js';
import type { BoundedTools } from './kit.js';

type Item = { name: string; team: string; status: string; note: string };
const items: Item[] = Array.from({ length: 250 }, (_, i) => ({
  name: `app-${String(i).padStart(3, '0')}`,
  team: `team-${i % 12}`,
  status: i % 5 === 0 ? 'OutOfSync' : 'Synced',
  note: 'x'.repeat(i % 7 === 0 ? 400 : 20),
}));

function setup(kit: BoundedTools): void {
  kit.registerList({
    name: 'list_things',
    description: 'List things.',
    itemKind: 'things',
    filters: z.strictObject({ status: z.enum(['Synced', 'OutOfSync']).optional() }),
    load: (filters) => Promise.resolve(items.filter((item) => filters.status === undefined || item.status === filters.status)),
    counts: { by_status: (item) => item.status, by_team: (item) => item.team },
  });
  kit.registerList({
    name: 'search_things',
    description: 'Search things.',
    itemKind: 'things',
    filters: z.strictObject(SEARCH_SHAPE),
    load: (args) => {
      const outcome = searchItems(items, (item) => [['name', item.name], ['team', item.team]], { ...args, cap: 30 });
      return Promise.resolve({ items: outcome.matches.map((m) => m.item), search: outcome });
    },
  });
  kit.register({
    name: 'explode',
    description: 'Always fails.',
    input: z.strictObject({ how: z.enum(['bug', 'upstream']) }),
    run: (args) =>
      Promise.reject(args.how === 'bug' ? new TypeError('boom') : new FlotillaError('upstream_unavailable', 'upstream is down', { remedy: 'Try later.' })),
  });
  kit.registerReadResult();
}

let h: Harness;
afterEach(async () => h.close());

describe('list tools', () => {
  it('pages with the default limit and reports truthful metadata and whole-set counts', async () => {
    h = await harness(setup);
    const body = h.json(await h.call('list_things', {}));
    expect(body).toMatchObject({ item_kind: 'things', total: 250, offset: 0, limit: 20, has_more: true });
    expect(body.returned).toBe((body.items as unknown[]).length);
    expect(body.next_offset).toBe(body.returned);
    expect((body.counts as Record<string, Record<string, number>>).by_status).toEqual({ Synced: 200, OutOfSync: 50 });
    expect(Object.values((body.counts as Record<string, Record<string, number>>).by_team ?? {}).reduce((a, b) => a + b, 0)).toBe(250);
  });

  it('rejects out-of-range arguments with an isError result that names the valid range', async () => {
    h = await harness(setup);
    for (const args of [{ limit: 0 }, { limit: 10_000 }, { offset: -1 }, { limit: 'ten' }, { status: 'Broken' }, { nope: 1 }]) {
      const result = await h.call('list_things', args);
      expect(result.isError).toBe(true);
      const body = h.json(result);
      expect(body.error).toBe('invalid_argument');
      expect(String(body.message)).toMatch(/limit must be a whole number from 1 to 100|offset must be|status|unknown argument/);
    }
    const metrics = await h.metrics.registry.getSingleMetricAsString(METRIC.toolCalls);
    expect(metrics).toContain('outcome="tool_error"');
  });

  it('cuts a page to the token budget and says where to continue', async () => {
    h = await harness(setup, { budgetTokens: 400 });
    const result = await h.call('list_things', { limit: 100 });
    const size = measureToolResult(result, h.counter);
    expect(size.tokens).toBeLessThanOrEqual(400);
    const body = h.json(result);
    expect(body.truncated_by_budget).toBe(true);
    expect(body.returned as number).toBeLessThan(100);
    expect(body.next_offset).toBe(body.returned);
  });

  it('spills a large first page to the store and pages it back with read_result', async () => {
    h = await harness(setup);
    const first = await h.call('list_things', {});
    const link = first.content.find((block) => block.type === 'resource_link');
    expect(link).toMatchObject({ type: 'resource_link', mimeType: 'application/json' });
    expect(link?.type === 'resource_link' && (link.size ?? 0) > 0).toBe(true);
    const body = h.json(first);
    const id = body.result_id as string;
    expect(body.stored_items).toBe(250);
    const names: string[] = [];
    let offset = 0;
    for (let guard = 0; guard < 100; guard += 1) {
      const page = h.json(await h.call('read_result', { result_id: id, offset, limit: 500 }));
      names.push(...(page.items as Item[]).map((item) => item.name));
      if (page.has_more !== true) break;
      offset = page.next_offset as number;
    }
    expect(names).toEqual(items.map((item) => item.name));
    const filtered = h.json(await h.call('read_result', { result_id: id, filter: 'status=outofsync', limit: 5 }));
    expect(filtered.total).toBe(50);
    const summary = h.json(await h.call('read_result', { result_id: id, summary_only: true }));
    expect(summary).toMatchObject({ total: 250, item_kind: 'things' });
  });

  it('does not spill small results', async () => {
    h = await harness(setup);
    const result = await h.call('list_things', { status: 'OutOfSync' });
    expect(result.content.some((block) => block.type === 'resource_link')).toBe(false);
    expect(h.json(result).result_id).toBeUndefined();
  });

  it('continues with an opaque cursor and refuses it for another query', async () => {
    h = await harness(setup);
    const first = h.json(await h.call('list_things', { status: 'Synced', limit: 5 }));
    const second = h.json(await h.call('list_things', { status: 'Synced', limit: 5, cursor: first.next_cursor }));
    expect(second.offset).toBe(5);
    const wrong = await h.call('list_things', { status: 'OutOfSync', cursor: first.next_cursor });
    expect(wrong.isError).toBe(true);
    expect(h.json(wrong).message).toMatch(/different query/);
    const garbage = await h.call('list_things', { cursor: 'not-a-cursor' });
    expect(garbage.isError).toBe(true);
  });
});

describe('read_result errors', () => {
  it('explains unknown ids and malformed ids', async () => {
    h = await harness(setup);
    const unknown = await h.call('read_result', { result_id: 'r_000000000000000000000000' });
    expect(unknown.isError).toBe(true);
    expect(h.json(unknown)).toMatchObject({ error: 'not_found' });
    const malformed = await h.call('read_result', { result_id: '../../etc/passwd' });
    expect(h.json(malformed).message).toMatch(/result_id must be an id a tool returned/);
    const tooMany = await h.call('read_result', { result_id: 'r_000000000000000000000000', limit: 501 });
    expect(h.json(tooMany).message).toMatch(/from 1 to 500/);
  });
});

describe('search', () => {
  it('stops at the match cap and says how to narrow', async () => {
    h = await harness(setup);
    const body = h.json(await h.call('search_things', { query: 'app-' }));
    expect(body.search).toMatchObject({ capped: true, match_cap: 30 });
    expect(body.total).toBe(30);
    expect(String(body.next_step)).toMatch(/narrow/);
  });

  it('turns a bad regex into an isError result', async () => {
    h = await harness(setup);
    const result = await h.call('search_things', { query: '([a-z', mode: 'regex' });
    expect(result.isError).toBe(true);
    expect(h.json(result)).toMatchObject({ error: 'invalid_argument' });
    expect(String(h.json(result).remedy)).toMatch(/substring/);
    const ok = h.json(await h.call('search_things', { query: '^app-00[0-4]$', mode: 'regex' }));
    expect(ok.total).toBe(5);
  });
});

describe('failures', () => {
  it('reports upstream failures and bugs as tool errors and keeps serving', async () => {
    h = await harness(setup);
    const upstream = await h.call('explode', { how: 'upstream' });
    expect(h.json(upstream)).toMatchObject({ error: 'upstream_unavailable', remedy: 'Try later.' });
    const bug = await h.call('explode', { how: 'bug' });
    expect(h.json(bug)).toMatchObject({ error: 'internal' });
    expect(JSON.stringify(h.json(bug))).not.toContain('boom');
    expect(h.json(await h.call('list_things', { limit: 1 })).returned).toBe(1);
    const metrics = await h.metrics.registry.getSingleMetricAsString(METRIC.toolCalls);
    expect(metrics).toContain('outcome="exception"');
  });
});

describe('pages of a stored result', () => {
  it('read only what the budget holds, and price a page another reader paged already without counting an item again', async () => {
    const real = await loadTokenCounter();
    const counted: string[] = [];
    const counter: TokenCounter = { encoding: real.encoding, count: (text) => (counted.push(text), real.count(text)), truncate: (text, max) => real.truncate(text, max) };
    const store = createMemoryResultStore();
    let itemsRead = 0;
    const readTexts = store.readTexts?.bind(store);
    const read = store.read.bind(store);
    // Every way a store hands out items is counted.
    const counting: ResultStore = {
      ...store,
      read: (id, request) => read(id, request).then((r) => ((itemsRead += r.items.length), r)),
      readTexts: (id, offset, limit) => readTexts!(id, offset, limit).then((r) => ((itemsRead += r.texts.length), r)),
    };
    const many = Array.from({ length: 1_000 }, (_, i) => ({ ...items[i % items.length], name: `app-${i}` }));
    const meta = await store.put({ tool: 'list_things', item_kind: 'things', query: {}, counts: {}, items: many });
    // Two kits on one store, as the HTTP server's servers are.
    h = await harness((kit) => kit.registerReadResult(), { store: counting, counter });
    const other = await harness((kit) => kit.registerReadResult(), { store: counting, counter });
    try {
      const first = h.json(await h.call('read_result', { result_id: meta.result_id, offset: 100, limit: 500 }));
      expect(first.returned).toBeGreaterThan(5);
      // Asked for 500: read the page and what the read ahead (doubling from READ_AHEAD_ITEMS) took beyond it.
      expect(itemsRead).toBeLessThanOrEqual(2 * Number(first.returned) + READ_AHEAD_ITEMS);
      expect(itemsRead).toBeLessThan(500);
      const before = counted.length;
      const again = other.json(await other.call('read_result', { result_id: meta.result_id, offset: 100, limit: 500 }));
      expect(again).toEqual(first);
      // Only the page's own line (returned, next_offset…) was counted: every item's cost was known.
      expect(counted.slice(before).every((text) => text.startsWith('{"returned"') || text.startsWith('"returned"'))).toBe(true);
    } finally {
      await other.close();
    }
  });
});

describe('typed outputs', () => {
  const Thing = z.strictObject({ name: z.string(), team: z.string(), status: z.enum(['Synced', 'OutOfSync']), note: z.string() });
  const Report = z.strictObject({ title: z.string(), lines: z.array(z.string()) });
  const REPORT_OUTPUT = objectOutput(Report);
  const typed = (kit: BoundedTools): void => {
    kit.registerList({
      name: 'list_things',
      description: 'List things.',
      itemKind: 'things',
      filters: z.strictObject({}),
      item: Thing,
      load: () => Promise.resolve(items),
      counts: { by_team: (item) => item.team },
    });
    kit.register({
      name: 'report',
      description: 'A report of some lines.',
      input: z.strictObject({ lines: z.number().int().min(0).max(2_000) }),
      output: REPORT_OUTPUT,
      run: (args) => Promise.resolve({ kind: 'object', data: { title: 'report', lines: Array.from({ length: args.lines }, (_, i) => `line ${i} of the report`) } }),
    });
    kit.registerReadResult();
  };
  /** The structured content is the object the text carries, and matches the tool's schema. */
  const structured = (result: BoundedToolResult, schema: z.ZodType): Record<string, unknown> => {
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent).toEqual(h.json(result));
    expect(schema.safeParse(result.structuredContent).success).toBe(true);
    return result.structuredContent as Record<string, unknown>;
  };

  it('advertise an outputSchema and return structuredContent equal to the JSON text, validated by the MCP client', async () => {
    h = await harness(typed, { budgetTokens: 600 });
    // Listing the tools makes the SDK client validate every later result against its outputSchema.
    const { tools } = await h.client.listTools();
    for (const name of ['list_things', 'report', 'read_result']) expect(tools.find((t) => t.name === name)?.outputSchema?.type).toBe('object');

    const first = structured(await h.call('list_things', {}), listPageOutput(Thing));
    expect(first).toMatchObject({ item_kind: 'things', total: items.length, has_more: true, truncated_by_budget: true });
    const id = first.result_id as string;
    structured(await h.call('read_result', { result_id: id, offset: 5 }), READ_RESULT_OUTPUT);
    structured(await h.call('read_result', { result_id: id, filter: 'team=team-3' }), READ_RESULT_OUTPUT);
    expect(structured(await h.call('read_result', { result_id: id, summary_only: true }), READ_RESULT_OUTPUT)).toMatchObject({ total: items.length });

    expect(structured(await h.call('report', { lines: 3 }), REPORT_OUTPUT)).toEqual({ title: 'report', lines: ['line 0 of the report', 'line 1 of the report', 'line 2 of the report'] });
    // Cut to the budget, the object is its preview envelope: the same in the text and the structured content.
    const cut = structured(await h.call('report', { lines: 1_000 }), REPORT_OUTPUT);
    expect(TRUNCATED_OBJECT_SCHEMA.safeParse(cut).success).toBe(true);
    expect(measureToolResult(await h.call('report', { lines: 1_000 }), h.counter).tokens).toBeLessThanOrEqual(600);
  });

  it('carry no structuredContent on error results', async () => {
    h = await harness(typed);
    await h.client.listTools();
    const bad = await h.call('report', { lines: -1 });
    expect(bad.isError).toBe(true);
    expect(bad.structuredContent).toBeUndefined();
    expect(h.json(bad)).toMatchObject({ error: 'invalid_argument' });
  });
});
