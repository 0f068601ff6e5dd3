import type { TokenCounter } from '@flotilla/tokens';
import type { JsonObject, JsonValue } from './json.js';

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

/** Per-item token costs, computed lazily and at most once per item, shared by every attempt to fit one page. */
export class ItemCosts {
  private readonly costs: number[] = [];
  constructor(
    private readonly items: readonly JsonValue[],
    private readonly counter: TokenCounter,
  ) {}
  /** Tokens of item i's JSON plus one for its separator. */
  cost(i: number): number {
    let cost = this.costs[i];
    if (cost === undefined) {
      cost = this.counter.count(JSON.stringify(this.items[i])) + 1;
      this.costs[i] = cost;
    }
    return cost;
  }
}

/** Renders tried before giving up on convergence and stepping down one item at a time. */
const FIT_ROUNDS = 4;

/**
 * The largest prefix of `items` whose rendering fits `budget` tokens. `build(items, truncated)` renders the
 * whole envelope for a candidate page (its metadata depends on how many items it carries, so it is rebuilt).
 * Estimates from per-item counts (never tokenizing much more than one budget's worth of items, however long the
 * requested page), then renders and counts exactly; an overshoot drops as many trailing items as it costs, so a
 * page converges in one to three renders. The bound is exact. When not even the first item fits, it is clipped
 * to a preview so a page always makes progress; when not even the envelope fits, `returned` is 0 and the caller
 * degrades the envelope.
 */
export function fitItems(
  items: readonly JsonValue[],
  build: (page: readonly JsonValue[], truncated: boolean) => JsonObject,
  budget: number,
  counter: TokenCounter,
  costs: ItemCosts = new ItemCosts(items, counter),
): FitOutcome {
  const render = (page: readonly JsonValue[], truncated: boolean): { text: string; tokens: number } => {
    const text = JSON.stringify(build(page, truncated));
    return { text, tokens: counter.count(text) };
  };
  const empty = render([], true);
  let n = 0;
  let estimate = empty.tokens;
  while (n < items.length) {
    const cost = costs.cost(n);
    if (estimate + cost > budget) break;
    estimate += cost;
    n += 1;
  }
  if (n === items.length) {
    const whole = render(items, false);
    if (whole.tokens <= budget) return { ...whole, returned: items.length, truncated: false };
  }
  for (let round = 0; n > 0; round += 1) {
    const candidate = render(items.slice(0, n), true);
    if (candidate.tokens <= budget) return { ...candidate, returned: n, truncated: true };
    if (round >= FIT_ROUNDS) {
      n -= 1;
      continue;
    }
    // Drop trailing items until their costs cover the overshoot (at least one).
    let over = candidate.tokens - budget;
    do {
      n -= 1;
      over -= costs.cost(n);
    } while (over > 0 && n > 0);
  }
  if (items.length === 0 || empty.tokens >= budget) return { ...empty, returned: 0, truncated: true };

  // Not even one item fits: clip the first one so the caller still moves forward by one.
  const json = JSON.stringify(items[0]);
  const itemTokens = costs.cost(0) - 1;
  let allowance = budget - empty.tokens - 24;
  while (allowance > 8) {
    const clipped: ClippedItem = { _clipped: true, _tokens: itemTokens, preview: counter.truncate(json, allowance) };
    const candidate = render([clipped as unknown as JsonValue], true);
    if (candidate.tokens <= budget) return { ...candidate, returned: 1, truncated: true };
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
