import type { FlotillaMetrics } from '@flotilla/metrics';
import type { FitResult } from './fit.js';

export type ContextMetrics = Pick<FlotillaMetrics, 'contextRequests' | 'contextRequestTokens' | 'contextTrims' | 'contextTokensSaved'>;

/** Records one fitted request: a request, its size as sent, and each kind of trimming with the tokens it saved. */
export function recordFit(metrics: ContextMetrics, agent: string, result: Pick<FitResult, 'tokens' | 'trims'>): void {
  metrics.contextRequests.inc({ agent });
  metrics.contextRequestTokens.observe({ agent }, result.tokens);
  for (const trim of result.trims) {
    metrics.contextTrims.inc({ agent, kind: trim.kind });
    if (trim.tokensSaved > 0) metrics.contextTokensSaved.inc({ agent, kind: trim.kind }, trim.tokensSaved);
  }
}
