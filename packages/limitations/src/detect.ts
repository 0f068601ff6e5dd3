/**
 * Limitation detection before execution (ADR-0019): from a plan's steps and the totals cheap count queries gave
 * (`limit=1` answers `count`), find what would go wrong if the plan ran as asked: a result that overflows the
 * token budget, N+1 relationship queries, rate-limit pressure, result sets too large to read whole, a plan that
 * would exceed the upstream call budget. Pure arithmetic over a handful of numbers: microseconds, no I/O.
 */

export type Impact = 'low' | 'medium' | 'high';

export type DetectedLimitation =
  | {
      readonly kind: 'token_overflow';
      readonly step: string;
      readonly items: number;
      readonly estimatedTokens: number;
      readonly budgetTokens: number;
      readonly impact: Impact;
    }
  | { readonly kind: 'large_result_set'; readonly step: string; readonly items: number; readonly threshold: number; readonly impact: Impact }
  | {
      readonly kind: 'n_plus_one';
      readonly step: string;
      /** Parent objects (devices) the relation (interfaces) is asked for. */
      readonly parents: number;
      /** One list of parents, then one request per parent. */
      readonly naiveCalls: number;
      /** Repeated-id batches (or a pushed-down filter), paged at the upstream's page size. */
      readonly batchedCalls: number;
      readonly impact: Impact;
    }
  | {
      readonly kind: 'rate_limit_pressure';
      readonly plannedCalls: number;
      /** Requests the shared rate limiter lets through now without waiting. */
      readonly available: number;
      readonly estimatedWaitMs: number;
      readonly impact: Impact;
    }
  | { readonly kind: 'call_budget'; readonly step: string; readonly plannedCalls: number; readonly budget: number; readonly impact: Impact };

export type LimitationKindName = DetectedLimitation['kind'];

/** One step of a plan, as detection sees it. */
export type PlanStep =
  | {
      /** A list read from the upstream. */
      readonly kind: 'list';
      readonly step: string;
      /** Items the whole answer would hold (from a count query). */
      readonly total: number;
      /** Estimated tokens of one item as a tool returns it. */
      readonly itemTokens: number;
    }
  | {
      /** Children of many parents: interfaces of devices, cables of a site. */
      readonly kind: 'relation';
      readonly step: string;
      readonly parents: number;
      /** Children in all (from a count query), or an estimate (parents x children per parent). */
      readonly total: number;
      readonly itemTokens: number;
      /** True when the upstream can filter the children by the parents' own filter (no ids needed). */
      readonly pushdown: boolean;
    }
  | { readonly kind: 'object'; readonly step: string; readonly itemTokens: number };

export interface DetectionLimits {
  /** Inline token budget of one tool result / answer section. */
  readonly budgetTokens: number;
  /** Items above which a result is "large": read it page by page, never whole. */
  readonly largeResultThreshold: number;
  /** Upstream calls one question may make. */
  readonly callBudget: number;
  /** The upstream's largest page (NetBox MAX_PAGE_SIZE). */
  readonly maxPageSize: number;
  /** Parent ids in one repeated-id request (bounded by URL length). */
  readonly idsPerBatch: number;
}

export interface RateState {
  /** Tokens the shared limiter has now. */
  readonly available: number;
  readonly ratePerSecond: number;
}

export const DETECTION_DEFAULTS: DetectionLimits = {
  budgetTokens: 2_000,
  largeResultThreshold: 100,
  callBudget: 40,
  maxPageSize: 1_000,
  idsPerBatch: 100,
};

const impactOf = (ratio: number): Impact => (ratio >= 10 ? 'high' : ratio >= 2 ? 'medium' : 'low');

/** Upstream calls to read `children` of `parents` exactly, batching ids (or pushing the filter down), paged. */
export function batchedCalls(parents: number, children: number, pushdown: boolean, limits: Pick<DetectionLimits, 'maxPageSize' | 'idsPerBatch'>): number {
  const page = Math.max(1, limits.maxPageSize);
  if (pushdown) return Math.max(1, Math.ceil(children / page));
  const idPages = Math.max(1, Math.ceil(parents / page));
  const batches = Math.max(1, Math.ceil(parents / Math.max(1, limits.idsPerBatch)));
  const perBatch = children / batches;
  return idPages + batches * Math.max(1, Math.ceil(perBatch / page));
}

/** Every limitation the plan would run into, most severe first. */
export function detectLimitations(steps: readonly PlanStep[], limits: DetectionLimits, rate?: RateState): DetectedLimitation[] {
  const found: DetectedLimitation[] = [];
  let plannedCalls = 0;
  for (const s of steps) {
    if (s.kind === 'object') {
      plannedCalls += 1;
      continue;
    }
    const tokens = s.total * s.itemTokens;
    if (tokens > limits.budgetTokens) {
      found.push({ kind: 'token_overflow', step: s.step, items: s.total, estimatedTokens: Math.round(tokens), budgetTokens: limits.budgetTokens, impact: impactOf(tokens / limits.budgetTokens) });
    }
    if (s.total > limits.largeResultThreshold) {
      found.push({ kind: 'large_result_set', step: s.step, items: s.total, threshold: limits.largeResultThreshold, impact: impactOf(s.total / limits.largeResultThreshold) });
    }
    if (s.kind === 'list') {
      plannedCalls += 1;
      continue;
    }
    const naive = 1 + s.parents;
    const batched = batchedCalls(s.parents, s.total, s.pushdown, limits);
    plannedCalls += batched;
    if (s.parents > 1) {
      found.push({ kind: 'n_plus_one', step: s.step, parents: s.parents, naiveCalls: naive, batchedCalls: batched, impact: impactOf(naive / Math.max(1, batched)) });
    }
    if (batched > limits.callBudget) {
      found.push({ kind: 'call_budget', step: s.step, plannedCalls: batched, budget: limits.callBudget, impact: impactOf(batched / limits.callBudget) });
    }
  }
  if (rate !== undefined && plannedCalls > Math.max(0, rate.available)) {
    const waitMs = ((plannedCalls - Math.max(0, rate.available)) / rate.ratePerSecond) * 1000;
    found.push({ kind: 'rate_limit_pressure', plannedCalls, available: Math.floor(rate.available), estimatedWaitMs: Math.round(waitMs), impact: waitMs > 10_000 ? 'high' : waitMs > 2_000 ? 'medium' : 'low' });
  }
  const rank: Record<Impact, number> = { high: 0, medium: 1, low: 2 };
  return found.sort((a, b) => rank[a.impact] - rank[b.impact]);
}
