import { z } from 'zod';
import { FlotillaError, type SettingsSpec } from '@flotilla/core';
import { CONFIDENCE_THRESHOLD, type AnswerTurn, type Classification, type TurnResult } from '@flotilla/agent-kit';
import type { FlotillaMetrics, HybridRoute } from '@flotilla/metrics';
import type { LlmProvider } from './settings.js';

/**
 * How an agent answers (the design note's feature flags): `rules` never calls a model; `llm` sends every question
 * to the model; `hybrid` answers by the rules (no model call) what they execute completely, and the rest by the model.
 */
export const EXECUTION_MODES = ['rules', 'llm', 'hybrid'] as const;
export type ExecutionMode = (typeof EXECUTION_MODES)[number];


export const MODE_SETTINGS = {
  mode: {
    flag: 'mode',
    env: 'FLOTILLA_MODE',
    schema: z.enum(EXECUTION_MODES, { message: `must be one of ${EXECUTION_MODES.join(', ')}` }).optional(),
    help: 'rules (no model), llm (every question to the model) or hybrid (what the rules answer completely by the rules, the rest by the model); default: hybrid with a model, rules without',
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

/**
 * Words that ask for reasoning the rules do not do: a cause, a comparison, a plan, a judgement or a recommendation.
 * A question with one goes to the model even when the rules read it confidently: they would answer it with a plain
 * list ("which team has the worst deployment hygiene, and why?" → page 1 of every application). Whole words,
 * case-insensitive; a multi-word entry matches across any run of spaces.
 */
export const REASONING_WORDS = [
  'why', 'how come', 'what if', 'root cause', 'cause', 'caused',
  'compare', 'compared', 'comparing', 'comparison', 'versus', 'vs', 'vs.', 'differ', 'differs', 'difference', 'differences',
  'plan', 'plans', 'planning', 'schedule',
  'worst', 'best', 'better', 'worse', 'riskiest', 'risk', 'risks', 'risky', 'safe', 'safely', 'unsafe',
  'should', 'ought', 'recommend', 'recommendation', 'recommendations', 'suggest', 'suggestion', 'advise', 'advice',
  'prioritise', 'prioritize', 'prioritised', 'prioritized', 'priorities',
  'explain', 'explanation', 'analyse', 'analyze', 'assess', 'evaluate', 'judge', 'impact', 'predict', 'forecast', 'trend', 'trends',
] as const;

const REASONING_RE = new RegExp(
  `(?<![\\w'-])(?:${[...REASONING_WORDS]
    .sort((a, b) => b.length - a.length)
    .map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/ /g, '\\s+'))
    .join('|')})(?![\\w'-])`,
  'gi',
);

/** The reasoning words of a question, lower-cased, in order, each once. */
export function reasoningWords(question: string): string[] {
  return [...new Set([...question.matchAll(REASONING_RE)].map((m) => m[0].toLowerCase().replace(/\s+/g, ' ')))];
}

/** Why hybrid mode sent a question where it did (the `route_reason` of the answer's metadata). */
export const ROUTE_REASONS = ['rules_execute_fully', 'reasoning_words', 'unused_words', 'low_confidence', 'unknown_intent', 'intent_not_fully_executed', 'fast_path_failed'] as const;
export type RouteReason = (typeof ROUTE_REASONS)[number];

export interface RouteDecision {
  readonly route: 'fast' | 'model';
  readonly reason: RouteReason;
  /** The words behind a `reasoning_words` or `unused_words` decision. */
  readonly words: readonly string[];
}

/**
 * Where hybrid mode sends a question: `fast` (the rules, no model call) when the rules classified it with confidence,
 * as an intent whose plan they execute completely (`fullyExecuted`: every intent but `unknown` when not given), with
 * every word used and no reasoning word (`REASONING_WORDS`); the model otherwise. The first failed condition is the
 * reason, in this order: reasoning words, unused words, confidence, unknown intent, intent not fully executed.
 */
export function routeDecision<I extends string>(question: string, classification: Classification<I>, fullyExecuted?: ReadonlySet<I>): RouteDecision {
  const reasoning = reasoningWords(question);
  if (reasoning.length > 0) return { route: 'model', reason: 'reasoning_words', words: reasoning };
  // Words the rules did not understand go to the model, which may: the rules would only say what they ignored.
  const unused = classification.unused ?? [];
  if (unused.length > 0) return { route: 'model', reason: 'unused_words', words: unused };
  if (classification.confidence < CONFIDENCE_THRESHOLD) return { route: 'model', reason: 'low_confidence', words: [] };
  if (classification.intent === 'unknown') return { route: 'model', reason: 'unknown_intent', words: [] };
  if (fullyExecuted !== undefined && !fullyExecuted.has(classification.intent)) return { route: 'model', reason: 'intent_not_fully_executed', words: [] };
  return { route: 'fast', reason: 'rules_execute_fully', words: [] };
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
  /**
   * The intents whose plan the domain's rules execute completely (NetBox's complex, limitation-aware plans too): the
   * only ones the fast path takes. Every intent but `unknown` when not given.
   */
  readonly fullyExecuted?: readonly I[] | undefined;
  readonly metrics: Pick<FlotillaMetrics, 'hybridRoutes'>;
}

/**
 * The hybrid router of ADR-0003: the fast path (rules plan and rendering, no model call) for the questions the rules
 * answer completely (`routeDecision`); the discovery path (the model with the capability index) for the rest, and
 * once more for a fast path that failed. The answer does not mention the switch; the route and why
 * (`route_reason`, and `route_words` when words decided it) are in the metadata, the route in the metrics.
 */
export function hybridAnswerTurn<I extends string>(options: HybridOptions<I>): AnswerTurn {
  const count = (route: HybridRoute): void => options.metrics.hybridRoutes.inc({ agent: options.agent, route });
  const fullyExecuted = options.fullyExecuted === undefined ? undefined : new Set(options.fullyExecuted);
  return async (question, contextId, progress, signal) => {
    const classification = options.classify(question);
    const decision = routeDecision(question, classification, fullyExecuted);
    if (decision.route === 'fast') {
      const fast = await options.fast(question, contextId, progress, signal, classification);
      if (!fast.failed) {
        count('fast');
        return { ...fast.reply, metadata: { ...fast.reply.metadata, route: 'fast', route_reason: decision.reason } };
      }
      // A fast path cut short by the turn's deadline is not retried by the model: the turn is over.
      signal?.throwIfAborted();
      count('fallback');
      const reply = await options.discovery(question, contextId, progress, signal);
      return { ...reply, metadata: { ...reply.metadata, route: 'fallback', route_reason: 'fast_path_failed' satisfies RouteReason } };
    }
    count('discovery');
    const reply = await options.discovery(question, contextId, progress, signal);
    const words: Record<string, string> = decision.words.length === 0 ? {} : { route_words: decision.words.join(',') };
    return { ...reply, metadata: { ...reply.metadata, route: 'discovery', route_reason: decision.reason, ...words } };
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
