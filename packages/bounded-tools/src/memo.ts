import { LRUCache } from 'lru-cache';
import type { ItemCosts } from './fit.js';
import type { ResultStore } from './store/types.js';

/** Bounds of the remembered item costs: 8 bytes per item of a stored list (its cost, and its cost ending a page). */
export const COST_MEMO_LIMITS = {
  /** Items whose costs are remembered, over all stored lists (8 MiB); the list paged least recently goes first. */
  maxItems: 1_048_576,
} as const;

/**
 * The token costs of stored lists' items (see `PageItems`), remembered per stored result and encoding, so every
 * page of a list, whoever asks for it, is priced from costs counted once. A stored result never changes (a new
 * list gets a new id), so a cost never goes stale; the memo only forgets, least recently paged first.
 */
export class CostMemo {
  /** Sized in items (an empty list counts as one: lru-cache sizes are positive). */
  private readonly lists: LRUCache<string, ItemCosts>;

  constructor(maxItems: number = COST_MEMO_LIMITS.maxItems) {
    this.lists = new LRUCache({ maxSize: maxItems, sizeCalculation: (list) => Math.max(1, list.costs.length) });
  }

  /** Items whose costs are held now (known or not yet). */
  get items(): number {
    return this.lists.calculatedSize;
  }

  /**
   * The costs of items [from, from + length) of a stored list of `total` items (0 where not known yet), views that
   * fill the memo as a page is priced; undefined for a list larger than the memo.
   */
  of(encoding: string, resultId: string, total: number, from: number, length: number): ItemCosts | undefined {
    if (total > this.lists.maxSize) return undefined;
    const key = `${encoding}\n${resultId}`;
    // `get` makes the list the most recently paged; the least recently paged go first when a new one needs room.
    let list = this.lists.get(key);
    if (list === undefined) {
      list = { costs: new Int32Array(total), tails: new Int32Array(total) };
      this.lists.set(key, list);
    }
    const start = Math.min(total, from);
    const end = Math.min(total, start + length);
    return { costs: list.costs.subarray(start, end), tails: list.tails.subarray(start, end) };
  }
}

/** One memo per result store, shared by every kit on it (the HTTP server's servers, in-process callers). */
const perStore = new WeakMap<ResultStore, CostMemo>();

export function costMemoFor(store: ResultStore): CostMemo {
  let memo = perStore.get(store);
  if (memo === undefined) {
    memo = new CostMemo();
    perStore.set(store, memo);
  }
  return memo;
}
