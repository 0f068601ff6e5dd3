import { describe, expect, it } from 'vitest';
import { CostMemo } from './memo.js';

describe('CostMemo', () => {
  it('holds at most maxItems costs, forgetting the list paged least recently first', () => {
    const memo = new CostMemo(100);
    memo.of('cl100k_base', 'r_a', 40, 0, 20)?.costs.fill(7);
    memo.of('cl100k_base', 'r_b', 40, 0, 20)?.costs.fill(8);
    // Paging a again makes b the least recently paged: c takes its place.
    memo.of('cl100k_base', 'r_a', 40, 20, 20);
    memo.of('cl100k_base', 'r_c', 40, 0, 20);
    expect(memo.items).toBe(80);
    expect(memo.of('cl100k_base', 'r_a', 40, 0, 1)?.costs[0]).toBe(7);
    // b was forgotten: its costs start again from unknown (0), and c (now the least recently paged) goes for it.
    expect(memo.of('cl100k_base', 'r_b', 40, 0, 1)?.costs[0]).toBe(0);
    expect(memo.items).toBeLessThanOrEqual(100);
  });

  it('remembers nothing for a list larger than itself, and keeps encodings apart', () => {
    const memo = new CostMemo(100);
    expect(memo.of('cl100k_base', 'r_big', 101, 0, 10)).toBeUndefined();
    expect(memo.items).toBe(0);
    memo.of('cl100k_base', 'r_a', 10, 0, 10)?.costs.fill(3);
    expect(memo.of('o200k_base', 'r_a', 10, 0, 10)?.costs[0]).toBe(0);
    expect(memo.of('cl100k_base', 'r_a', 10, 2, 3)).toMatchObject({ costs: new Int32Array([3, 3, 3]) });
  });
});
