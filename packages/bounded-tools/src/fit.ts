import { LRUCache } from 'lru-cache';
import { REGEX_WINDOW_CHARS, type TokenCounter } from '@flotilla/tokens';
import type { JsonObject } from './json.js';

/** Marker that replaces one item too large to fit the budget on its own: a clipped preview of its JSON. */
export interface ClippedItem {
  readonly _clipped: true;
  readonly _tokens: number;
  readonly preview: string;
}

export interface FitOutcome {
  readonly text: string;
  readonly tokens: number;
  /** Items the text carries. */
  readonly returned: number;
  /** True when fewer items than requested were returned, or an item was clipped, because of the budget. */
  readonly truncated: boolean;
}

/**
 * How a page is written: what describes the whole list, a line break, what this page holds, `"items":[`, one item
 * per line, `]}`:
 *
 *     {"item_kind":"apps","total":10000,"counts":{…},
 *     "returned":2,"offset":40,…,"next_step":"…","items":[
 *     {"name":"a",…},
 *     {"name":"b",…}
 *     ]}
 *
 * The line breaks make a page's tokens the sum of its parts: the pre-tokenizer of cl100k and o200k ends a run of
 * punctuation with the line breaks after it (`,\n`, `[\n`, `},\n`), and no line starts with a line break or a
 * slash, so no token spans two lines, and each line is tokenized as it is on its own. A page is then priced as
 * tokens(list part) + tokens(page part) + tokens(item + `,\n`) for each item but the last + tokens(last item +
 * `\n]}`), exactly: the list part counted once per list (`ENVELOPE_CACHE`), the items' costs once per stored list
 * (`CostMemo`), never again per page; only the few tokens of the page part are counted per page.
 */
export const ITEM_SEPARATOR = ',\n';
const PAGE_END = '\n]}';
const ITEMS_START = '"items":[';

/**
 * An item whose JSON (or a part of the envelope) is this long or longer may hold one pre-tokenized piece that the
 * counter cuts at a regex window, where it lies in the text (and so differently on a page than on its own): such
 * a page is counted whole instead of from its parts. Far above any real item.
 */
export const PRICED_ITEM_MAX_CHARS = REGEX_WINDOW_CHARS / 2;

/** Items read from their source at once, at first, when their costs are not known yet; each later read doubles. */
export const READ_AHEAD_ITEMS = 32;

/**
 * Counts of list parts remembered (the same on every page of a list), per encoding: entries, and the longest part
 * remembered (longer ones are counted per page). At most entries × maxChars characters per encoding (2 MiB).
 */
export const ENVELOPE_CACHE = { entries: 128, maxChars: 16_384 } as const;

/** The envelope of a page: what describes the whole list (the same on each of its pages), and what this page holds. */
export interface PageEnvelope {
  readonly list: JsonObject;
  readonly page: JsonObject;
}

/** `{"a":1}` → `"a":1`. */
const inner = (object: JsonObject): string => JSON.stringify(object).slice(1, -1);

/**
 * The envelope's text, in two lines: `{` list part `,\n`, then the page part up to `"items":[` (no line break).
 * `lists` remembers list parts already written (a page's candidates share theirs).
 */
function envelopeParts(envelope: PageEnvelope, lists?: Map<JsonObject, string>): { readonly list: string; readonly page: string } {
  let list = lists?.get(envelope.list);
  if (list === undefined) {
    list = inner(envelope.list);
    lists?.set(envelope.list, list);
  }
  const page = inner(envelope.page);
  if (list === '') return { list: '', page: `{${page === '' ? '' : `${page},`}${ITEMS_START}` };
  return { list: `{${list},\n`, page: `${page === '' ? '' : `${page},`}${ITEMS_START}` };
}

/** A page's text: the envelope, then the items' JSON one per line (see ITEM_SEPARATOR). */
export function pageText(envelope: PageEnvelope, items: readonly string[], lists?: Map<JsonObject, string>): string {
  const { list, page } = envelopeParts(envelope, lists);
  return items.length === 0 ? `${list}${page}]}` : `${list}${page}\n${items.join(ITEM_SEPARATOR)}${PAGE_END}`;
}

/** Counts of list parts by encoding, keyed by the part itself (a string keeps its hash: a page's lookups are cheap). */
const listCounts = new Map<string, LRUCache<string, number>>();

/** Tokens of a list part, remembered: every page of a list (and every candidate of a page) has the same one. */
function listTokens(counter: TokenCounter, list: string): number {
  if (list === '') return 0;
  if (list.length > ENVELOPE_CACHE.maxChars) return counter.count(list);
  let counts = listCounts.get(counter.encoding);
  if (counts === undefined) {
    counts = new LRUCache<string, number>({ max: ENVELOPE_CACHE.entries });
    listCounts.set(counter.encoding, counts);
  }
  const known = counts.get(list);
  if (known !== undefined) return known;
  const tokens = counter.count(list);
  counts.set(list, tokens);
  return tokens;
}

/** Where the items of a page come from: an array in memory, or a stored result read a few items at a time. */
export interface ItemSource {
  /** Items the page may carry at most (the request's limit, or fewer left). */
  readonly length: number;
  /** The JSON of items [from, to) of the page (to ≤ length), each exactly as JSON.stringify writes it. */
  read(from: number, to: number): Promise<readonly string[]>;
}

/** Known token costs of items, by index from the page's first item (0: not known yet). */
export interface ItemCosts {
  /** Tokens of each item's JSON plus ITEM_SEPARATOR. */
  readonly costs: Int32Array;
  /** Tokens of each item's JSON plus the page's end (`\n]}`), for the item that ends a page. */
  readonly tails: Int32Array;
}

/**
 * The items of one page with their token costs, each read and counted at most once however many times the page is
 * fitted. `memo` (a stored list's costs from the page's first item on: `CostMemo`) carries costs from page to page
 * and from caller to caller; without it they last this page.
 */
export class PageItems {
  private readonly texts: (string | undefined)[] = [];
  private readonly known: ItemCosts;
  private readAhead = READ_AHEAD_ITEMS;
  /** UTF-8 bytes of the JSON read from the source, plus a comma per item and the brackets: what the tool read. */
  bytesRead = 2;

  constructor(
    private readonly source: ItemSource,
    private readonly counter: TokenCounter,
    memo?: ItemCosts,
  ) {
    const fits = memo !== undefined && memo.costs.length >= source.length && memo.tails.length >= source.length;
    this.known = fits ? memo : { costs: new Int32Array(source.length), tails: new Int32Array(source.length) };
  }

  get length(): number {
    return this.source.length;
  }

  /** Tokens of item i's JSON plus its separator; read ahead from the source when it is not known. */
  async cost(i: number): Promise<number> {
    const known = this.known.costs[i] ?? 0;
    if (known > 0) return known;
    if (this.texts[i] === undefined) {
      // A page is a prefix: the items before i are on it too if i is priced, so one read takes them with the rest.
      await this.load(0, Math.min(this.length, i + this.readAhead));
      this.readAhead *= 2;
    }
    const cost = this.counter.count(`${this.text(i)}${ITEM_SEPARATOR}`);
    this.known.costs[i] = cost;
    return cost;
  }

  /** Tokens of item i's JSON plus the page's end, when it is the last item of a page (read already). */
  tail(i: number): number {
    const known = this.known.tails[i] ?? 0;
    if (known > 0) return known;
    const tokens = this.counter.count(`${this.text(i)}${PAGE_END}`);
    this.known.tails[i] = tokens;
    return tokens;
  }

  /** Makes sure items [from, to) are read (one read of the span from the first missing to the last missing). */
  async load(from: number, to: number): Promise<void> {
    let first = from;
    while (first < to && this.texts[first] !== undefined) first += 1;
    let last = to;
    while (last > first && this.texts[last - 1] !== undefined) last -= 1;
    if (first >= last) return;
    const texts = await this.source.read(first, last);
    if (texts.length !== last - first) throw new Error(`item source returned ${texts.length} items for ${last - first}`);
    texts.forEach((text, k) => {
      if (this.texts[first + k] === undefined) this.bytesRead += Buffer.byteLength(text, 'utf8') + 1;
      this.texts[first + k] = text;
    });
  }

  /** Item i's JSON (read already). */
  text(i: number): string {
    const text = this.texts[i];
    if (text === undefined) throw new Error(`item ${i} of the page was not read`);
    return text;
  }
}

/** Renders tried before giving up on convergence and stepping down one item at a time. */
const FIT_ROUNDS = 4;

/**
 * The largest prefix of the page's items whose rendering fits `budget` tokens. `build(returned, truncated)`
 * renders the envelope (everything but the items) for a candidate page: its metadata depends on how many items it
 * carries. The items' costs give the estimate; each candidate is then priced exactly from its parts (see
 * ITEM_SEPARATOR), and an overshoot drops as many trailing items as it costs, so a page converges in one to three
 * candidates and no item is tokenized twice. Only as many items are read as the budget can hold. When not even the
 * first item fits, it is clipped to a preview so a page always makes progress; when not even the envelope fits,
 * `returned` is 0 and the caller degrades the envelope.
 */
export async function fitItems(items: PageItems, build: (returned: number, truncated: boolean) => PageEnvelope, budget: number, counter: TokenCounter): Promise<FitOutcome> {
  // The candidates of a page share one list part (`build` hands the same object back): written once.
  // A Map, not a WeakMap: it lives for this page only, and a WeakMap's table is allocated in the old generation.
  const lists = new Map<JsonObject, string>();
  const whole = (envelope: PageEnvelope, texts: readonly string[]): { text: string; tokens: number } => {
    const text = pageText(envelope, texts, lists);
    return { text, tokens: counter.count(text) };
  };
  /** The exact tokens of an envelope's two parts (a part too long to price apart: undefined, count the page whole). */
  const envelopeTokens = (envelope: PageEnvelope): number | undefined => {
    const parts = envelopeParts(envelope, lists);
    if (parts.list.length >= PRICED_ITEM_MAX_CHARS || parts.page.length >= PRICED_ITEM_MAX_CHARS) return undefined;
    return listTokens(counter, parts.list) + counter.count(`${parts.page}\n`);
  };
  /** A candidate of n ≥ 1 items: its exact tokens; its text only once it is taken. */
  const price = async (n: number, truncated: boolean): Promise<{ tokens: number; text: () => string }> => {
    await items.load(0, n);
    const envelope = build(n, truncated);
    const texts: string[] = [];
    for (let i = 0; i < n; i += 1) texts.push(items.text(i));
    const head = envelopeTokens(envelope);
    if (head === undefined || texts.some((t) => t.length >= PRICED_ITEM_MAX_CHARS)) {
      const page = whole(envelope, texts);
      return { tokens: page.tokens, text: () => page.text };
    }
    let tokens = head + items.tail(n - 1);
    for (let i = 0; i < n - 1; i += 1) tokens += await items.cost(i);
    return { tokens, text: () => pageText(envelope, texts, lists) };
  };
  if (items.length === 0) return { ...whole(build(0, false), []), returned: 0, truncated: false };
  // The estimate starts from the envelope of an empty page (its `]}` aside): near enough, the candidates are exact.
  let estimate = envelopeTokens(build(0, true)) ?? whole(build(0, true), []).tokens;
  let n = 0;
  while (n < items.length) {
    const cost = await items.cost(n);
    if (estimate + cost > budget) break;
    estimate += cost;
    n += 1;
  }
  if (n === items.length) {
    const all = await price(n, false);
    if (all.tokens <= budget) return { text: all.text(), tokens: all.tokens, returned: n, truncated: false };
  }
  for (let round = 0; n > 0; round += 1) {
    const candidate = await price(n, true);
    if (candidate.tokens <= budget) return { text: candidate.text(), tokens: candidate.tokens, returned: n, truncated: true };
    if (round >= FIT_ROUNDS) {
      n -= 1;
      continue;
    }
    // Drop trailing items until their costs cover the overshoot (at least one).
    let over = candidate.tokens - budget;
    do {
      n -= 1;
      over -= await items.cost(n);
    } while (over > 0 && n > 0);
  }
  const empty = whole(build(0, true), []);
  if (empty.tokens >= budget) return { ...empty, returned: 0, truncated: true };

  // Not even one item fits: clip the first one so the caller still moves forward by one.
  await items.load(0, 1);
  const json = items.text(0);
  const itemTokens = counter.count(json);
  let allowance = budget - empty.tokens - 24;
  while (allowance > 8) {
    const clipped: ClippedItem = { _clipped: true, _tokens: itemTokens, preview: counter.truncate(json, allowance) };
    const page = whole(build(1, true), [JSON.stringify(clipped)]);
    if (page.tokens <= budget) return { ...page, returned: 1, truncated: true };
    // Escaping inside the preview string costs extra tokens: shrink and try again (a few rounds at most).
    allowance = Math.floor(allowance * 0.75);
  }
  return { ...empty, returned: 0, truncated: true };
}

/**
 * An object that does not fit: a clipped preview of its JSON inside a small envelope, within the budget.
 */
export function fitObject(
  data: JsonObject,
  budget: number,
  counter: TokenCounter,
  hint: string,
): { text: string; tokens: number; truncated: boolean } {
  const text = JSON.stringify(data);
  const tokens = counter.count(text);
  if (tokens <= budget) return { text, tokens, truncated: false };
  let allowance = budget - 80 - counter.count(hint);
  while (allowance > 8) {
    const wrapped = JSON.stringify({
      truncated_by_budget: true,
      tokens_full: tokens,
      budget,
      preview: counter.truncate(text, allowance),
      next_step: hint,
    });
    const wrappedTokens = counter.count(wrapped);
    if (wrappedTokens <= budget) return { text: wrapped, tokens: wrappedTokens, truncated: true };
    allowance = Math.floor(allowance * 0.75);
  }
  const minimal = JSON.stringify({ truncated_by_budget: true, tokens_full: tokens, budget, next_step: counter.truncate(hint, 60) });
  return { text: minimal, tokens: counter.count(minimal), truncated: true };
}
