import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { batchedCalls, detectLimitations, DETECTION_DEFAULTS, type PlanStep } from './detect.js';
import { chooseHandling, explain } from './handle.js';
import { batches, optimalBatchSize, representativeSample, sampleSize } from './batch.js';

const interfacesOfSite = (parents: number, total: number, pushdown = false): PlanStep => ({ kind: 'relation', step: 'list_interfaces', parents, total, itemTokens: 45, pushdown });

describe('detectLimitations', () => {
  it('finds nothing for a small list', () => {
    expect(detectLimitations([{ kind: 'list', step: 'list_sites', total: 12, itemTokens: 40 }], DETECTION_DEFAULTS)).toEqual([]);
  });

  it('flags token overflow and a large set for a big list, with impact by ratio', () => {
    const found = detectLimitations([{ kind: 'list', step: 'list_devices', total: 600, itemTokens: 50 }], DETECTION_DEFAULTS);
    expect(found.map((l) => l.kind).sort()).toEqual(['large_result_set', 'token_overflow']);
    const overflow = found.find((l) => l.kind === 'token_overflow');
    expect(overflow).toMatchObject({ items: 600, estimatedTokens: 30_000, impact: 'high' });
  });

  it('sees the N+1 shape of interfaces of 200 devices and what batching saves', () => {
    const found = detectLimitations([interfacesOfSite(200, 8_000)], DETECTION_DEFAULTS);
    const n1 = found.find((l) => l.kind === 'n_plus_one');
    expect(n1).toMatchObject({ parents: 200, naiveCalls: 201 });
    // One page of ids, two batches of 100 devices (4,000 interfaces each, four pages of 1,000).
    expect(n1?.kind === 'n_plus_one' && n1.batchedCalls).toBe(1 + 2 * 4);
    expect(found.some((l) => l.kind === 'call_budget')).toBe(false);
  });

  it('flags the call budget when even batching would take too many calls', () => {
    const found = detectLimitations([interfacesOfSite(6_000, 240_000)], DETECTION_DEFAULTS);
    expect(found.find((l) => l.kind === 'call_budget')).toMatchObject({ budget: 40 });
  });

  it('flags rate-limit pressure from the limiter state', () => {
    const found = detectLimitations([interfacesOfSite(200, 8_000)], DETECTION_DEFAULTS, { available: 2, ratePerSecond: 1 });
    expect(found.find((l) => l.kind === 'rate_limit_pressure')).toMatchObject({ plannedCalls: 9, available: 2, estimatedWaitMs: 7_000 });
  });

  it('batched calls never exceed naive calls for any real shape, and pushdown is just pages', () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 5_000 }), fc.integer({ min: 0, max: 60 }), (parents, per) => {
        const children = parents * per;
        const batched = batchedCalls(parents, children, false, DETECTION_DEFAULTS);
        expect(batched).toBeLessThanOrEqual(1 + parents + Math.ceil(parents / 1_000));
        expect(batchedCalls(parents, children, true, DETECTION_DEFAULTS)).toBe(Math.max(1, Math.ceil(children / 1_000)));
      }),
    );
  });
});

describe('chooseHandling', () => {
  const plain = { quickLook: false, wantsAll: false, summaryOnly: false };
  it('batches N+1 exactly and discloses a big result progressively', () => {
    const h = chooseHandling(detectLimitations([interfacesOfSite(200, 8_000)], DETECTION_DEFAULTS), plain, 30_000);
    expect(h).toMatchObject({ fetch: 'exact', present: 'progressive' });
    expect(h.strategies).toEqual(['batched', 'progressive']);
    expect(h.options.map((o) => o.id)).toEqual(['next_batch', 'summary']);
  });
  it('samples only on request, or when the call budget would be exceeded', () => {
    const small = detectLimitations([interfacesOfSite(200, 8_000)], DETECTION_DEFAULTS);
    expect(chooseHandling(small, { ...plain, quickLook: true }, 30_000).fetch).toBe('sampled');
    const huge = detectLimitations([interfacesOfSite(6_000, 240_000)], DETECTION_DEFAULTS);
    const h = chooseHandling(huge, plain, 30_000);
    expect(h.fetch).toBe('sampled');
    expect(h.options.some((o) => o.id === 'show_all')).toBe(true);
    expect(chooseHandling(huge, { ...plain, wantsAll: true }, 30_000).fetch).toBe('exact');
  });
  it('falls back when the rate limit cannot be waited out', () => {
    const found = detectLimitations([interfacesOfSite(200, 8_000)], DETECTION_DEFAULTS, { available: 0, ratePerSecond: 0.1 });
    const h = chooseHandling(found, plain, 30_000);
    expect(h).toMatchObject({ fetch: 'none', strategies: ['fallback'] });
    expect(h.options.length).toBeGreaterThan(1);
  });
  it('explains every kind in one sentence', () => {
    for (const l of detectLimitations([interfacesOfSite(6_000, 240_000)], DETECTION_DEFAULTS, { available: 0, ratePerSecond: 5 })) {
      expect(explain(l)).toMatch(/\d/);
    }
  });
});

describe('batches and samples', () => {
  it('batches keep order and cover everything once', () => {
    fc.assert(
      fc.property(fc.array(fc.integer(), { maxLength: 500 }), fc.integer({ min: 1, max: 120 }), (items, size) => {
        const out = batches(items, size);
        expect(out.flat()).toEqual(items);
        expect(out.every((b) => b.length >= 1 && b.length <= size)).toBe(true);
      }),
    );
    expect(() => batches([1], 0)).toThrow(RangeError);
  });
  it('sample sizes follow the design note', () => {
    expect(sampleSize(200, 'interfaces')).toBe(8);
    expect(sampleSize(40, 'interfaces')).toBe(4);
    expect(sampleSize(10, 'cables')).toBe(3);
    expect(sampleSize(2, 'cables')).toBe(2);
    expect(sampleSize(200, 'other')).toBe(10);
    expect(sampleSize(0, 'other')).toBe(0);
  });
  it('a representative sample is spread across the list, distinct and in order', () => {
    const items = Array.from({ length: 200 }, (_, i) => i);
    const sample = representativeSample(items, 8);
    expect(sample).toEqual([12, 37, 62, 87, 112, 137, 162, 187]);
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 300 }), fc.integer({ min: 0, max: 50 }), (n, k) => {
        const s = representativeSample(Array.from({ length: n }, (_, i) => i), k);
        expect(s.length).toBe(Math.min(n, k));
        expect(new Set(s).size).toBe(s.length);
        expect([...s].sort((a, b) => a - b)).toEqual(s);
      }),
    );
  });
  it('batch sizes follow the optimiser', () => {
    expect(optimalBatchSize('devices', 50)).toBe(25);
    expect(optimalBatchSize('devices', 10)).toBe(10);
    expect(optimalBatchSize('vlans', 400)).toBe(50);
    expect(optimalBatchSize('interfaces', 8_000)).toBe(45);
  });
});
