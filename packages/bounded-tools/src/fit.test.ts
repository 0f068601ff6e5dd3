import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadTokenCounter, TOKEN_ENCODINGS, type TokenCounter, type TokenEncoding } from '@flotilla/tokens';
import { ENVELOPE_CACHE, fitItems, PageItems, pageText, PRICED_ITEM_MAX_CHARS, READ_AHEAD_ITEMS, type ItemSource, type PageEnvelope } from './fit.js';
import type { JsonObject, JsonValue } from './json.js';
import { COST_MEMO_LIMITS, CostMemo } from './memo.js';

/**
 * Pages priced from their parts: the envelope's two lines and each item's remembered cost. The price must be the
 * exact count of the text (never under it: the budget is a hard bound), and no item is tokenized twice.
 */
const counters = new Map<TokenEncoding, TokenCounter>();
beforeAll(async () => {
  for (const encoding of TOKEN_ENCODINGS) counters.set(encoding, await loadTokenCounter(encoding));
});
const counterOf = (encoding: TokenEncoding): TokenCounter => {
  const counter = counters.get(encoding);
  if (counter === undefined) throw new Error(`no ${encoding} counter`);
  return counter;
};

/** A counter that remembers every text it was asked to count. */
function recording(counter: TokenCounter): TokenCounter & { readonly texts: string[] } {
  const texts: string[] = [];
  return { encoding: counter.encoding, texts, count: (text) => (texts.push(text), counter.count(text)), truncate: (text, max) => counter.truncate(text, max) };
}

const source = (texts: readonly string[], onRead: (from: number, to: number) => void = () => undefined): ItemSource => ({
  length: texts.length,
  read: (from, to) => {
    onRead(from, to);
    return Promise.resolve(texts.slice(from, to));
  },
});

const envelopeOf =
  (list: JsonObject, offset: number) =>
  (returned: number, truncated: boolean): PageEnvelope => ({
    list,
    page: { returned, offset, has_more: true, next_offset: offset + returned, ...(truncated ? { truncated_by_budget: true } : {}), next_step: `More: call read_result with offset ${offset + returned}.` },
  });

// Text that stresses the pre-tokenizer at line ends: spaces, newlines and slashes inside strings, punctuation runs,
// digits, letters of every script, emoji, quotes and backslashes.
const text = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 60 }),
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.constantFrom('', ' ', '  ', '\n', '/', '//x', '},{', '"]', '\\', "'s", '123456', 'é', '日本語', '😀', ' \n '),
);
const item: fc.Arbitrary<JsonValue> = fc.letrec<{ value: JsonValue }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    text,
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(text, tie('value'), { maxKeys: 5 }),
  ),
})).value;

describe('a page priced from its parts', () => {
  it('is exactly the count of its text, in both encodings, whatever its items and envelope', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...TOKEN_ENCODINGS),
        fc.array(item, { minLength: 1, maxLength: 12 }),
        fc.dictionary(text, item, { maxKeys: 4 }),
        fc.integer({ min: 60, max: 1_500 }),
        async (encoding, items, list, budget) => {
          const counter = counterOf(encoding);
          const page = new PageItems(source(items.map((i) => JSON.stringify(i))), counter);
          const fitted = await fitItems(page, envelopeOf(list, 7), budget, counter);
          expect(fitted.tokens).toBe(counter.count(fitted.text));
          expect(JSON.parse(fitted.text)).toMatchObject({ returned: fitted.returned });
          if (fitted.returned > 0) expect(fitted.tokens).toBeLessThanOrEqual(budget);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('writes the envelope in two lines and one item per line, and parses back to the same values', () => {
    const items = [{ a: 1 }, 'two', [3]];
    const text = pageText({ list: { item_kind: 'x', total: 3 }, page: { returned: 3 } }, items.map((i) => JSON.stringify(i)));
    expect(text).toBe('{"item_kind":"x","total":3,\n"returned":3,"items":[\n{"a":1},\n"two",\n[3]\n]}');
    expect(JSON.parse(text)).toEqual({ item_kind: 'x', total: 3, returned: 3, items });
    expect(JSON.parse(pageText({ list: {}, page: { returned: 0 } }, []))).toEqual({ returned: 0, items: [] });
  });

  it('counts an item too long to price apart (a piece the counter cuts at a regex window) with its page', async () => {
    const counter = counterOf('cl100k_base');
    const long = { blob: 'A'.repeat(PRICED_ITEM_MAX_CHARS + 10) };
    const page = new PageItems(source([JSON.stringify({ n: 1 }), JSON.stringify(long)]), counter);
    const fitted = await fitItems(page, envelopeOf({ item_kind: 'x' }, 0), 100_000, counter);
    expect(fitted.returned).toBe(2);
    expect(fitted.tokens).toBe(counter.count(fitted.text));
  });
});

describe('item costs remembered per stored list', () => {
  const texts = Array.from({ length: 400 }, (_, i) => JSON.stringify({ name: `app-${i}-payments-api-prod`, project: `team-${i % 9}`, sync: i % 3 === 0 ? 'OutOfSync' : 'Synced', note: 'x'.repeat(i % 40) }));
  const list: JsonObject = { item_kind: 'apps', total: texts.length, counts: { by_sync: { Synced: 266, OutOfSync: 134 } } };

  it('price every page from costs counted once: a second reader of a page counts only its page line', async () => {
    const memo = new CostMemo();
    const first = recording(counterOf('cl100k_base'));
    const view = (counter: TokenCounter, offset: number): PageItems =>
      new PageItems(source(texts.slice(offset, offset + 500)), counter, memo.of(counter.encoding, 'r_1', texts.length, offset, Math.min(500, texts.length - offset)));
    const one = await fitItems(view(first, 0), envelopeOf(list, 0), 2_000, first);
    expect(one.returned).toBeGreaterThan(5);
    const itemsCounted = first.texts.filter((t) => t.startsWith('{"name"'));
    // Each item of the page (and the one that did not fit) was counted once, as a line.
    expect(new Set(itemsCounted).size).toBe(itemsCounted.length);

    const second = recording(counterOf('cl100k_base'));
    const again = await fitItems(view(second, 0), envelopeOf(list, 0), 2_000, second);
    expect(again).toEqual(one);
    // Nothing but the page's own line: no item, and not the list line (the same on every page of the list).
    expect(second.texts).toHaveLength(second.texts.filter((t) => t.startsWith('"returned"')).length);
    expect(second.texts.join('').length).toBeLessThan(one.text.length / 5);
  });

  it('read only what the budget can hold, not the whole requested page', async () => {
    const counter = counterOf('cl100k_base');
    let read = 0;
    const page = new PageItems(
      source(texts.slice(0, 500), (from, to) => (read += to - from)),
      counter,
    );
    const fitted = await fitItems(page, envelopeOf(list, 0), 700, counter);
    expect(fitted.returned).toBeGreaterThan(5);
    expect(fitted.returned).toBeLessThan(READ_AHEAD_ITEMS);
    // One read ahead of READ_AHEAD_ITEMS covered the page (and the item that did not fit): 500 were asked for.
    expect(read).toBe(READ_AHEAD_ITEMS);
    expect(page.bytesRead).toBeLessThan(texts.slice(0, 500).join(',').length / 4);
  });

  it('forget the list paged least recently past maxItems, and keep nothing for a list larger than the memo', () => {
    const memo = new CostMemo(1_000);
    memo.of('cl100k_base', 'r_a', 600, 0, 10)?.costs.fill(7);
    memo.of('cl100k_base', 'r_b', 300, 0, 10);
    expect(memo.items).toBe(900);
    // A third list: the first (least recently paged) goes.
    memo.of('cl100k_base', 'r_c', 300, 0, 10);
    expect(memo.items).toBe(600);
    expect(memo.of('cl100k_base', 'r_a', 600, 0, 10)?.costs[0]).toBe(0);
    expect(memo.of('cl100k_base', 'r_big', 1_001, 0, 10)).toBeUndefined();
    // Costs are per encoding: another encoding never reads them.
    memo.of('cl100k_base', 'r_b', 300, 0, 10)?.costs.fill(5);
    expect(memo.of('o200k_base', 'r_b', 300, 0, 10)?.costs[0]).toBe(0);
    expect(COST_MEMO_LIMITS.maxItems).toBeGreaterThanOrEqual(100_000);
  });

  it('count a list line again once ENVELOPE_CACHE.entries other lists were priced since', async () => {
    const counter = recording(counterOf('cl100k_base'));
    const price = (listPart: JsonObject): Promise<unknown> => fitItems(new PageItems(source(texts.slice(0, 2)), counter), envelopeOf(listPart, 0), 2_000, counter);
    const listLines = (): number => counter.texts.filter((t) => t.startsWith('{"item_kind":"kept"')).length;
    await price({ item_kind: 'kept' });
    await price({ item_kind: 'kept' });
    expect(listLines()).toBe(1);
    for (let i = 0; i < ENVELOPE_CACHE.entries; i += 1) await price({ item_kind: `other-${i}` });
    await price({ item_kind: 'kept' });
    expect(listLines()).toBe(2);
  });
});
