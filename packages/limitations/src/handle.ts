import type { DetectedLimitation } from './detect.js';

/** A follow-up a person can pick: a button in Slack, a chip in a UI. `prompt` is what picking it sends. */
export interface LimitationOption {
  readonly id: 'next_batch' | 'apply_filter' | 'summary' | 'show_all' | 'quick_look' | 'narrow_scope' | 'retry_later';
  readonly label: string;
  readonly prompt: string;
}

export const OPTIONS = {
  nextBatch: { id: 'next_batch', label: 'Next batch', prompt: 'next batch' },
  summary: { id: 'summary', label: 'Summary instead', prompt: 'summary instead' },
  showAll: { id: 'show_all', label: 'Get all (exact)', prompt: 'get all of them' },
  quickLook: { id: 'quick_look', label: 'Quick look (sample)', prompt: 'just a quick look' },
  retryLater: { id: 'retry_later', label: 'Try again later', prompt: 'try again' },
} as const satisfies Record<string, LimitationOption>;

/** An "apply a filter" option with a concrete example the domain supplies (e.g. `only role switch`). */
export function filterOption(example: string): LimitationOption {
  return { id: 'apply_filter', label: `Filter: ${example}`, prompt: example };
}

export function narrowOption(example: string): LimitationOption {
  return { id: 'narrow_scope', label: `Narrow: ${example}`, prompt: example };
}

/** How a question with limitations is handled; the workflow executes `fetch` and the domain presents `present`. */
export interface Handling {
  /** exact: every item read (batched when the plan has N+1); sampled: a spread sample; none: nothing fits. */
  readonly fetch: 'exact' | 'sampled' | 'none';
  /** whole: the answer holds everything; progressive: one batch now, the rest on request. */
  readonly present: 'whole' | 'progressive';
  /** Every strategy applied, for metrics and the answer's metadata. */
  readonly strategies: readonly ('batched' | 'progressive' | 'sampled' | 'fallback' | 'throttled')[];
  readonly options: readonly LimitationOption[];
}

export interface HandlingRequest {
  /** The person asked for a quick look / a sample. */
  readonly quickLook: boolean;
  /** The person asked for everything explicitly ("all of them", "full analysis"). */
  readonly wantsAll: boolean;
  /** The person asked for a summary only. */
  readonly summaryOnly: boolean;
}

/**
 * The design note's decision, done with exact batching first: N+1 is batched (exact), token overflow and large
 * sets are disclosed progressively, sampling only on request or when the call budget would be exceeded, and the
 * graceful fallback when nothing fits (rate limit too tight to finish within its wait bound).
 */
export function chooseHandling(limitations: readonly DetectedLimitation[], request: HandlingRequest, maxWaitMs: number): Handling {
  const has = (kind: DetectedLimitation['kind']) => limitations.find((l) => l.kind === kind);
  const strategies: Handling['strategies'][number][] = [];
  const overBudget = has('call_budget');
  const pressure = has('rate_limit_pressure');
  const nPlusOne = has('n_plus_one');
  const big = has('token_overflow') ?? has('large_result_set');

  if (pressure !== undefined && pressure.kind === 'rate_limit_pressure' && pressure.estimatedWaitMs > maxWaitMs && !request.quickLook) {
    return { fetch: 'none', present: 'whole', strategies: ['fallback'], options: [OPTIONS.quickLook, OPTIONS.summary, OPTIONS.retryLater] };
  }
  let fetch: Handling['fetch'] = 'exact';
  if (nPlusOne !== undefined && (request.quickLook || (overBudget !== undefined && !request.wantsAll))) fetch = 'sampled';
  else if (overBudget !== undefined && nPlusOne === undefined && request.quickLook) fetch = 'sampled';
  if (fetch === 'sampled') strategies.push('sampled');
  else if (nPlusOne !== undefined) strategies.push('batched');
  if (pressure !== undefined) strategies.push('throttled');
  const progressive = big !== undefined && !request.summaryOnly;
  if (progressive) strategies.push('progressive');
  const options: LimitationOption[] = [];
  if (progressive) options.push(OPTIONS.nextBatch);
  if (!request.summaryOnly && big !== undefined) options.push(OPTIONS.summary);
  if (fetch === 'sampled') options.push(OPTIONS.showAll);
  return { fetch, present: progressive ? 'progressive' : 'whole', strategies, options };
}

/** One sentence per limitation, for the answer: what was detected and what was done about it. */
export function explain(limitation: DetectedLimitation): string {
  switch (limitation.kind) {
    case 'token_overflow':
      return `${limitation.items.toLocaleString('en-US')} items would take about ${limitation.estimatedTokens.toLocaleString('en-US')} tokens, over the ${limitation.budgetTokens.toLocaleString('en-US')}-token budget`;
    case 'large_result_set':
      return `${limitation.items.toLocaleString('en-US')} items is more than ${limitation.threshold} to read at once`;
    case 'n_plus_one':
      return `one request per device would take ${limitation.naiveCalls} calls; batched it takes ${limitation.batchedCalls}`;
    case 'rate_limit_pressure':
      return `${limitation.plannedCalls} calls against a rate limit with ${limitation.available} available now (about ${Math.ceil(limitation.estimatedWaitMs / 1000)} s of waiting)`;
    case 'call_budget':
      return `reading it all would take ${limitation.plannedCalls} upstream calls, over the budget of ${limitation.budget} per question`;
  }
}
