import { z } from 'zod';
import { FlotillaError, type SettingsSpec } from '@flotilla/core';
import { CONFIDENCE_THRESHOLD, EDITS_LAST_ENTITY, reasoningWords, type AnswerTurn, type Classification, type TurnResult } from '@flotilla/agent-kit';
import { HYBRID_ROUTE_REASONS, type FlotillaMetrics, type HybridRoute, type HybridRouteReason } from '@flotilla/metrics';
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

/** Why hybrid mode sent a question where it did (the `route_reason` of the answer's metadata, the metric's `reason`). */
export const ROUTE_REASONS: readonly HybridRouteReason[] = Object.values(HYBRID_ROUTE_REASONS).flat();
export type RouteReason = HybridRouteReason;

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
export function fastPathFailed<I extends string>(turn: Pick<TurnResult<I>, 'error' | 'limitations' | 'toolErrors' | 'unanswered'>): boolean {
  // "next page" with no list remembered by the rules: the model may have produced the list.
  if (turn.unanswered !== undefined) return true;
  return turn.error !== undefined || turn.toolErrors > 0 || turn.limitations.some((l) => l.kind === 'low_confidence' || l.kind === 'unsupported');
}

/** Which path produced a conversation's last list, the one "next page" continues. */
export type ListOwner = 'rules' | 'model';

/**
 * The conversation record both paths of hybrid mode share (the model's history store, in Redis when configured):
 * the turns the rules answered go into it as compact summaries, so the model reads the whole conversation, and it
 * remembers which path produced the last list.
 */
export interface SharedConversation {
  /** Who produced the conversation's last list; undefined when neither did (or the record is gone). */
  lastList(contextId: string): Promise<ListOwner | undefined>;
  /** Records a turn the rules answered: its question, a compact summary of its answer, and whether it listed. */
  recordRulesTurn(contextId: string, turn: { readonly question: string; readonly answer: string; readonly listed: boolean }): Promise<void>;
}

export interface HybridOptions<I extends string> {
  readonly agent: string;
  /** The agent's reading of the question (its typed query or its rules), in its conversation. */
  readonly classify: (question: string, contextId: string) => Classification<I> | Promise<Classification<I>>;
  /**
   * The rules workflow's answer, with its turn (to see whether it really answered, and whether it listed). In hybrid
   * mode it is given the router's classification of the question (by `classify`, the workflow's rules): pass it on to
   * the workflow's `ask`, so the question is not classified again.
   */
  readonly fast: (
    question: string,
    contextId: string,
    progress: (note: string) => void,
    signal?: AbortSignal,
    classification?: Classification<I>,
  ) => Promise<{ readonly reply: Awaited<ReturnType<AnswerTurn>>; readonly failed: boolean; readonly listed?: boolean | undefined }>;
  /** The model's answer (the discovery path). */
  readonly discovery: AnswerTurn;
  /**
   * The intents whose plan the domain's rules execute completely (NetBox's complex, limitation-aware plans too): the
   * only ones the fast path takes. Every intent but `unknown` when not given.
   */
  readonly fullyExecuted?: readonly I[] | undefined;
  /** The intents that act on the last list ("next page", "only the degraded ones"): the model's list is the model's to go on with. */
  readonly continuations?: readonly I[] | undefined;
  /** The record both paths share; without it the model sees only its own turns. */
  readonly conversation?: SharedConversation | undefined;
  readonly metrics: Pick<FlotillaMetrics, 'hybridRoutes'>;
}

/** Told to the person when a rules answer could not be written into the shared record (Redis away, say). */
const NOT_RECORDED = (reason: string): string =>
  `\n\n(I could not keep this answer in the conversation's record (${reason.slice(0, 200)}): if you ask about it next, say what you mean in full.)`;

/**
 * The hybrid router of ADR-0003: the fast path (rules plan and rendering, no model call) for the questions the rules
 * answer completely (`routeDecision`); the discovery path (the model with the capability index) for the rest, for a
 * "next page" of a list the model produced, and once more for a fast path that failed (a continuation with nothing to
 * continue included). Both paths write one conversation record (`conversation`): a fast answer goes into it as a
 * compact summary, so a later model turn reads "these" with what they were. The answer does not mention the switch;
 * the route and why (`route_reason`, and `route_words` when words decided it) are in the metadata and the metrics.
 */
export function hybridAnswerTurn<I extends string>(options: HybridOptions<I>): AnswerTurn {
  const count = (route: HybridRoute, reason: RouteReason): void => options.metrics.hybridRoutes.inc({ agent: options.agent, route, reason });
  const fullyExecuted = options.fullyExecuted === undefined ? undefined : new Set(options.fullyExecuted);
  const continuations = new Set(options.continuations ?? []);
  const { conversation } = options;
  /** Who listed last; a record that cannot be read (Redis away) leaves it to the rules, whose own memory decides. */
  const lastList = async (contextId: string): Promise<ListOwner | undefined> => {
    try {
      return await conversation?.lastList(contextId);
    } catch {
      return undefined;
    }
  };
  return async (question, contextId, progress, signal) => {
    const classification = await options.classify(question, contextId);
    let decision = routeDecision(question, classification, fullyExecuted);
    // A continuation of the model's list is the model's, however sure the rules are of it.
    const continues = continuations.has(classification.intent) || classification.entities[EDITS_LAST_ENTITY] !== undefined;
    if (continues && (await lastList(contextId)) === 'model') {
      decision = { route: 'model', reason: 'continues_model_list', words: [] };
    }
    if (decision.route === 'fast') {
      const fast = await options.fast(question, contextId, progress, signal, classification);
      if (!fast.failed) {
        count('fast', decision.reason);
        let answer = fast.reply.answer;
        try {
          await conversation?.recordRulesTurn(contextId, { question, answer, listed: fast.listed === true });
        } catch (error) {
          answer += NOT_RECORDED(error instanceof Error ? error.message : String(error));
        }
        return { ...fast.reply, answer, metadata: { ...fast.reply.metadata, route: 'fast', route_reason: decision.reason } };
      }
      // A fast path cut short by the turn's deadline is not retried by the model: the turn is over.
      signal?.throwIfAborted();
      count('fallback', 'fast_path_failed');
      const reply = await options.discovery(question, contextId, progress, signal);
      return { ...reply, metadata: { ...reply.metadata, route: 'fallback', route_reason: 'fast_path_failed' satisfies RouteReason } };
    }
    count('discovery', decision.reason);
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
