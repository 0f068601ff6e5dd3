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

/**
 * The largest prefix of `items` whose rendering fits `budget` tokens. `build(items, truncated)` renders the
 * whole envelope for a candidate page (its metadata depends on how many items it carries, so it is rebuilt).
 * Estimates from per-item counts first, then verifies exactly and steps down: the bound is exact, the cost is a
 * handful of tokenizations. When not even the first item fits, it is clipped to a preview so a page always
 * makes progress; when not even the envelope fits, `returned` is 0 and the caller degrades the envelope.
 */
export function fitItems(
  items: readonly JsonValue[],
  build: (page: readonly JsonValue[], truncated: boolean) => JsonObject,
  budget: number,
  counter: TokenCounter,
): FitOutcome {
  const render = (page: readonly JsonValue[], truncated: boolean): { text: string; tokens: number } => {
    const text = JSON.stringify(build(page, truncated));
    return { text, tokens: counter.count(text) };
  };
  // Estimate from per-item counts, stopping as soon as the budget is spent: never tokenizes much more than
  // one budget's worth of items, however long the requested page.
  const empty = render([], true);
  let n = 0;
  let estimate = empty.tokens;
  while (n < items.length) {
    const cost = counter.count(JSON.stringify(items[n])) + 1;
    if (estimate + cost > budget) break;
    estimate += cost;
    n += 1;
  }
  if (n === items.length) {
    const whole = render(items, false);
    if (whole.tokens <= budget) return { ...whole, returned: items.length, truncated: false };
  }
  while (n > 0) {
    const candidate = render(items.slice(0, n), true);
    if (candidate.tokens <= budget) return { ...candidate, returned: n, truncated: true };
    n -= 1;
  }
  if (items.length === 0 || empty.tokens >= budget) return { ...empty, returned: 0, truncated: true };

  // Not even one item fits: clip the first one so the caller still moves forward by one.
  const json = JSON.stringify(items[0]);
  const itemTokens = counter.count(json);
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
