import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { harness, type Harness } from './testing/harness.test-util.js';
import { measureToolResult } from './measure.js';
import { computeCounts } from './paging.js';
import { LIMITS } from './limits.js';

/**
 * For random datasets, budgets and arguments: no result exceeds the budget, pages concatenate to exactly the
 * filtered set (no item twice, none missing), and counts equal counts computed from the full filtered data.
 */
type Row = { id: number; name: string; group: string; health: string; blob: string };

const rowArb = fc.record({
  name: fc.string({ minLength: 1, maxLength: 40 }),
  group: fc.constantFrom('alpha', 'beta', 'gamma', 'delta', 'ε-unicode', 'zeta'),
  health: fc.constantFrom('Healthy', 'Degraded', 'Progressing', 'Missing'),
  blob: fc.string({ maxLength: 600, size: 'max' }),
});

let data: Row[] = [];
const budgets = [256, 400, 700, 2000];
const harnesses = new Map<number, Harness>();

beforeAll(async () => {
  for (const budget of budgets) {
    harnesses.set(
      budget,
      await harness(
        (kit) => {
          kit.registerList({
            name: 'list_rows',
            description: 'rows',
            itemKind: 'rows',
            filters: z.strictObject({ group: z.string().optional(), health: z.string().optional() }),
            load: (f) => Promise.resolve(data.filter((r) => (f.group === undefined || r.group === f.group) && (f.health === undefined || r.health === f.health))),
            counts: { by_group: (r) => r.group, by_health: (r) => r.health },
          });
          kit.registerReadResult();
        },
        { budgetTokens: budget },
      ),
    );
  }
});
afterAll(async () => {
  for (const h of harnesses.values()) await h.close();
});

describe('bounded list tools (property)', () => {
  it('never exceed the budget; pages are consistent; counts cover the filtered set', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(rowArb, { maxLength: 260, size: 'max' }),
        fc.constantFrom(...budgets),
        fc.option(fc.constantFrom('alpha', 'beta', 'ε-unicode', 'nope'), { nil: undefined }),
        fc.option(fc.constantFrom('Healthy', 'Degraded'), { nil: undefined }),
        fc.integer({ min: 1, max: 100 }),
        async (rows, budget, group, health, limit) => {
          data = rows.map((row, id) => ({ id, ...row }));
          const h = harnesses.get(budget)!;
          const expected = data.filter((r) => (group === undefined || r.group === group) && (health === undefined || r.health === health));
          const filters = { ...(group === undefined ? {} : { group }), ...(health === undefined ? {} : { health }) };
          const seen: number[] = [];
          let offset = 0;
          let resultId: string | undefined;
          for (let guard = 0; guard <= expected.length + 1; guard += 1) {
            const result = resultId === undefined || offset === 0
              ? await h.call('list_rows', { ...filters, limit, offset })
              : await h.call('read_result', { result_id: resultId, limit, offset });
            expect(result.isError).not.toBe(true);
            expect(measureToolResult(result, h.counter).tokens).toBeLessThanOrEqual(budget);
            const body = h.json(result);
            if (offset === 0) {
              resultId = body.result_id as string | undefined;
              // Counts are exact, or (only when the budget cannot carry them beside an item) said to be omitted.
              if (body.counts_omitted === true) expect(body.counts).toBeUndefined();
              else expect(body.counts).toEqual(computeCounts(expected, { by_group: (r) => r.group, by_health: (r) => r.health }));
            }
            expect(body.total).toBe(expected.length);
            const page = body.items as Array<Row | { _clipped: true }>;
            expect(body.returned).toBe(page.length);
            for (const item of page) {
              // A clipped item (alone larger than the budget) stands for the item at its position.
              seen.push('_clipped' in item ? (expected[seen.length]?.id ?? -1) : item.id);
            }
            if (body.has_more !== true) break;
            expect(body.next_offset).toBe(offset + page.length);
            expect(page.length).toBeGreaterThan(0);
            offset = body.next_offset as number;
          }
          expect(seen).toEqual(expected.map((r) => r.id));
        },
      ),
      // A failure is reported within a minute, shrinking included, rather than hanging CI.
      { numRuns: 60, interruptAfterTimeLimit: 60_000, markInterruptAsFailure: true },
    );
  });
});

describe('computeCounts: a dimension may show more values, never more than the cap', () => {
  const items = Array.from({ length: 130 }, (_, i) => ({ cluster: `c${i % 13}`, project: `p${i % 65}` }));
  const keys = { by_cluster: (r: { cluster: string }) => r.cluster, by_project: (r: { project: string }) => r.project };

  it('folds past the default 10, shows a raised dimension whole, and caps a raise at countsTopValuesMax', () => {
    const counts = computeCounts(items, keys, undefined, { by_cluster: 30, by_project: 1_000 });
    expect(Object.keys(counts.by_cluster ?? {})).toHaveLength(13);
    expect(Object.keys(counts.by_project ?? {})).toHaveLength(LIMITS.countsTopValuesMax + 1);
    expect(counts.by_project?.[`(${65 - LIMITS.countsTopValuesMax} others)`]).toBe((65 - LIMITS.countsTopValuesMax) * 2);
    const plain = computeCounts(items, keys);
    expect(Object.keys(plain.by_cluster ?? {})).toHaveLength(LIMITS.countsTopValues + 1);
  });
});
