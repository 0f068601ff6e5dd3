import { z } from 'zod';
import { FlotillaError, type SettingsSpec } from '@flotilla/core';
import { CONFIDENCE_THRESHOLD, type AnswerTurn, type Classification, type TurnResult } from '@flotilla/agent-kit';
import type { FlotillaMetrics, HybridRoute } from '@flotilla/metrics';
import type { LlmProvider } from './settings.js';

/**
 * How an agent answers (the design note's feature flags): `rules` never calls a model; `llm` sends every question
 * to the model; `hybrid` answers simple, known questions by the rules (no model call) and the rest by the model.
 */
export const EXECUTION_MODES = ['rules', 'llm', 'hybrid'] as const;
export type ExecutionMode = (typeof EXECUTION_MODES)[number];


export const MODE_SETTINGS = {
  mode: {
    flag: 'mode',
    env: 'FLOTILLA_MODE',
    schema: z.enum(EXECUTION_MODES, { message: `must be one of ${EXECUTION_MODES.join(', ')}` }).optional(),
    help: 'rules (no model), llm (every question to the model) or hybrid (simple questions by the rules, the rest by the model); default: hybrid with a model, rules without',
  },
} as const satisfies SettingsSpec;

/** The mode the settings ask for, checked against the provider (a model mode needs one). */
export function executionMode(mode: ExecutionMode | undefined, provider: LlmProvider): ExecutionMode {
  const chosen = mode ?? (provider === 'none' ? 'rules' : 'hybrid');
  if (chosen !== 'rules' && provider === 'none') {
    throw new FlotillaError('config_invalid', `--mode ${chosen} needs a model: set --llm-provider`, { remedy: 'Set --llm-provider openai|anthropic (and its key), or --mode rules.' });
  }
  return chosen;
}

/** True when the rules can answer without a model: a simple, known intent, classified with confidence, every word used. */
export function isFastPath<I extends string>(classification: Classification<I>): boolean {
  // Words the rules did not understand go to the model, which may: the rules would only say what they ignored.
  return classification.confidence >= CONFIDENCE_THRESHOLD && classification.complexity === 'simple' && classification.intent !== 'unknown' && (classification.unused ?? []).length === 0;
}

/** True when a rules turn did not really answer (an error, an unsure or unsupported question, a tool that failed). */
export function fastPathFailed<I extends string>(turn: Pick<TurnResult<I>, 'error' | 'limitations' | 'toolErrors'>): boolean {
  return turn.error !== undefined || turn.toolErrors > 0 || turn.limitations.some((l) => l.kind === 'low_confidence' || l.kind === 'unsupported');
}

export interface HybridOptions<I extends string> {
  readonly agent: string;
  readonly classify: (question: string) => Classification<I>;
  /**
   * The rules workflow's answer, with its turn (to see whether it really answered). In hybrid mode it is given the
   * router's classification of the question (by `classify`, the workflow's rules): pass it on to the workflow's
   * `ask`, so the question is not classified again.
   */
  readonly fast: (
    question: string,
    contextId: string,
    progress: (note: string) => void,
    signal?: AbortSignal,
    classification?: Classification<I>,
  ) => Promise<{ readonly reply: Awaited<ReturnType<AnswerTurn>>; readonly failed: boolean }>;
  /** The model's answer (the discovery path). */
  readonly discovery: AnswerTurn;
  readonly metrics: Pick<FlotillaMetrics, 'hybridRoutes'>;
}

/**
 * The hybrid router of ADR-0003: the fast path (rules plan and rendering, no model call) for simple, confident
 * questions; the discovery path (the model with the capability index) for the rest, and once more for a fast path
 * that failed. The answer does not mention the switch; the route is in the metadata and the metrics.
 */
export function hybridAnswerTurn<I extends string>(options: HybridOptions<I>): AnswerTurn {
  const count = (route: HybridRoute): void => options.metrics.hybridRoutes.inc({ agent: options.agent, route });
  return async (question, contextId, progress, signal) => {
    const classification = options.classify(question);
    if (isFastPath(classification)) {
      const fast = await options.fast(question, contextId, progress, signal, classification);
      if (!fast.failed) {
        count('fast');
        return { ...fast.reply, metadata: { ...fast.reply.metadata, route: 'fast' } };
      }
      // A fast path cut short by the turn's deadline is not retried by the model: the turn is over.
      signal?.throwIfAborted();
      count('fallback');
      const reply = await options.discovery(question, contextId, progress, signal);
      return { ...reply, metadata: { ...reply.metadata, route: 'fallback' } };
    }
    count('discovery');
    const reply = await options.discovery(question, contextId, progress, signal);
    return { ...reply, metadata: { ...reply.metadata, route: 'discovery' } };
  };
}

/**
 * An agent's A2A answer for its execution mode: the rules workflow (`fast`) alone, the model alone, or the hybrid
 * router between them. Without a model (`discovery` undefined) only the rules can answer.
 */
export function modeAnswerTurn<I extends string>(
  mode: ExecutionMode,
  options: Omit<HybridOptions<I>, 'discovery'> & { readonly discovery: AnswerTurn | undefined },
): AnswerTurn {
  const { discovery } = options;
  if (discovery === undefined || mode === 'rules') return async (question, contextId, progress, signal) => (await options.fast(question, contextId, progress, signal)).reply;
  if (mode === 'llm') return discovery;
  return hybridAnswerTurn({ ...options, discovery });
}
