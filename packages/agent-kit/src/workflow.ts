import { Annotation, END, START, StateGraph, type BaseCheckpointSaver } from '@langchain/langgraph';
import { describeError, isFlotillaError } from '@flotilla/core';
import type { TokenCounter } from '@flotilla/tokens';
import type { Handling } from '@flotilla/limitations';
import { CONFIDENCE_THRESHOLD, MEANING_CHANGERS, type Classification } from './rules.js';
import { reasoningNote, reasoningWords } from './reasoning.js';
import type { CapabilityIndex } from './capabilities.js';
import { boundedMemoryStore } from './memory-store.js';
import { withAnswerCache, type AnswerCacheStore } from './answer-cache.js';
import type {
  AgentDomain,
  AgentModel,
  AskTurn,
  CachedTurn,
  CallTool,
  Limitation,
  MemoryStore,
  RunTurn,
  Strategy,
  ToolCall,
  ToolResult,
  TurnResult,
  Unanswered,
  WorkflowError,
} from './domain.js';

// The domain contract moved to domain.ts; these names stay importable from here for the package's own modules.
export type { CallTool, ToolResult } from './domain.js';

/** Workflow limits; each is enforced below. */
export const WORKFLOW_LIMITS = {
  /** Tool calls one question may make. */
  maxToolCalls: 6,
  /** Rounds of follow-up calls after the plan. */
  followUpRounds: 2,
  /** Tokens of one answer (a 50-row table fits); longer answers are cut with a note. */
  answerMaxTokens: 4_000,
} as const;

export interface WorkflowOptions<I extends string, M> {
  readonly model: AgentModel<I>;
  readonly domain: AgentDomain<I, M>;
  readonly callTool: CallTool;
  readonly counter: TokenCounter;
  /**
   * LangGraph checkpoints keyed by the A2A contextId, when wanted (time travel, debugging). None by default: a
   * checkpointer keeps every step of every conversation, so memory would grow without bound; what the next turn
   * needs goes through `memoryStore` instead.
   */
  readonly checkpointer?: BaseCheckpointSaver;
  /** What the next turn of a conversation needs; in memory (bounded, least recently used dropped) by default. */
  readonly memoryStore?: MemoryStore<M> | undefined;
  readonly answerMaxTokens?: number;
  /** The tools' capability index (name and one line per tool), for answers that say what the agent can do. */
  readonly capabilities?: CapabilityIndex | undefined;
  /** Multiplies the answer budget per turn (the memory guard's 0.5 when memory is tight). */
  readonly budgetFactor?: (() => number) | undefined;
  /**
   * Reuses answers to the same intent and entities for a short time (0 upstream calls). Only intents listed in
   * `cacheableIntents` (standalone questions, never continuations such as "next page") and never questions that ask
   * for fresh data. The cache may be shared by replicas (`redisAnswerCache`); a cache that fails is a miss (and
   * keeps nothing), never a failed turn. It wraps the turn (`withAnswerCache`): the graph does not know it.
   */
  readonly answerCache?: { readonly cache: AnswerCacheStore<CachedTurn<I, M>>; readonly cacheableIntents: readonly I[] } | undefined;
}

/** Tokens of a turn's answer: as counted when it was written, or counted now if the answer is another text. */
export function answerTokens(turn: Pick<TurnResult<string>, 'answer' | 'counted'>, counter: Pick<TokenCounter, 'count'>): number {
  return turn.counted !== undefined && turn.counted.text === turn.answer ? turn.counted.tokens : counter.count(turn.answer);
}

/**
 * What every answer says it did not do, whatever the domain: the words of the question the rules did not
 * understand (so never applied), and the typos it read as other words.
 */
export function accountingNote<I extends string>(c: Classification<I> | undefined): string {
  if (c === undefined) return '';
  const parts: string[] = [];
  const unused = c.unused ?? [];
  const changers = unused.filter((w) => MEANING_CHANGERS.has(w));
  if (changers.length > 0) {
    parts.push(`I did not understand ${unused.map((w) => `"${w}"`).join(', ')} in your question, and without ${changers.map((w) => `"${w}"`).join(', ')} an answer would be the opposite or only part of what you asked, so I did not run it.`);
  } else if (unused.length > 0) {
    parts.push(`I did not understand ${unused.map((w) => `"${w}"`).join(', ')} in your question, so this answer does not take ${unused.length === 1 ? 'it' : 'them'} into account.`);
  }
  const corrected = c.corrected ?? [];
  if (corrected.length > 0) parts.push(`(Read ${corrected.map((t) => `"${t.from}" as "${t.to}"`).join(', ')}.)`);
  return parts.join(' ');
}

/** Filter entities of the question whose values are in no tool call the turn made (exact values, any argument). */
export function unappliedEntities<I extends string>(c: Classification<I> | undefined, names: readonly string[], results: readonly ToolResult[]): string[] {
  if (c === undefined || names.length === 0 || results.length === 0) return [];
  const used = new Set<string>();
  const collect = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(collect);
    else if (value !== null && typeof value === 'object') {
      for (const [key, v] of Object.entries(value)) {
        collect(v);
        // {cabled: false} applies "cabled=false".
        if (v !== null && typeof v !== 'object') used.add(`${key}=${String(v)}`.toLowerCase());
      }
    }
    else if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
      const text = String(value).toLowerCase();
      used.add(text);
      // A read_result filter ("status=offline") applies its value.
      for (const part of text.split(/[,&]/)) used.add(part.slice(part.indexOf('=') + 1));
    }
  };
  for (const r of results) collect(r.call.args);
  const out: string[] = [];
  for (const name of names) {
    const value = c.entities[name];
    if (value === undefined) continue;
    const values = typeof value === 'string' ? [value] : value;
    if (values.some((v) => !used.has(v.toLowerCase()))) out.push(`${name.replace(/_/g, ' ')} ${values.join(', ')}`);
  }
  return out;
}

/** A2A metadata of a partial answer: `partial` and what it did not do (≤ 500 characters), from its `not_applied`. */
export function partialMetadata(data: Readonly<Record<string, unknown>> | undefined): { readonly partial: boolean; readonly not_applied?: string } {
  const missing = notApplied(data);
  return missing.length === 0 ? { partial: false } : { partial: true, not_applied: missing.join('; ').slice(0, 500) };
}

/** The `not_applied` list a domain put in its answer's data, if any. */
export function notApplied(data: Readonly<Record<string, unknown>> | undefined): string[] {
  const value = data?.not_applied;
  return Array.isArray(value) ? value.map(String) : [];
}

/** One answer of several parts ("…, and which are unhealthy?"): each numbered, the counts summed, the last part's follow-ups. */
export function combineTurns<I extends string>(turns: readonly TurnResult<I>[]): TurnResult<I> {
  const [first] = turns;
  const last = turns[turns.length - 1];
  if (first === undefined || last === undefined) throw new Error('combineTurns needs at least one turn');
  return {
    ...first,
    answer: turns.map((t, i) => `${i + 1}. ${t.answer}`).join('\n\n'),
    options: last.options,
    entities: Object.assign({}, ...turns.map((t) => t.entities)) as TurnResult<I>['entities'],
    confidence: Math.min(...turns.map((t) => t.confidence)),
    toolCalls: turns.reduce((n, t) => n + t.toolCalls, 0),
    toolErrors: turns.reduce((n, t) => n + t.toolErrors, 0),
    error: turns.find((t) => t.error !== undefined)?.error,
    limitations: turns.flatMap((t) => t.limitations),
    data: {
      ...(Object.assign({}, ...turns.map((t) => t.data ?? {})) as Record<string, unknown>),
      // What each part did not do, said per part.
      not_applied: turns.flatMap((t, i) => notApplied(t.data).map((n) => `part ${i + 1}: ${n}`)),
    },
    cached: turns.every((t) => t.cached),
  };
}

function toError(error: unknown): WorkflowError {
  if (isFlotillaError(error)) return { code: error.code, message: error.message, remedy: error.remedy };
  return { code: 'internal', message: `the agent failed unexpectedly (${describeError(error)})`, remedy: 'Ask again; if it keeps failing, the error is in the logs.' };
}

/**
 * The shared LangGraph workflow: classify_intent → (direct → detect_limitations) | (complex → plan_coordination →
 * detect_limitations) | (limitation_aware → handle_limitations); detect_limitations → execute_tools, or
 * handle_limitations when it found constraints; handle_limitations → execute_tools (batched, sampled, a first
 * batch) or straight to generate_response (fallback, low confidence). Errors in any node land in `error` and
 * become a clear answer. What the next turn needs (memory) is kept per conversation in the memory store.
 */
export function createWorkflow<I extends string, M>(options: WorkflowOptions<I, M>) {
  const memoryStore = options.memoryStore ?? boundedMemoryStore<M>();
  const answerBudget = options.answerMaxTokens ?? WORKFLOW_LIMITS.answerMaxTokens;
  const answerMaxNow = (): number => Math.max(256, Math.floor(answerBudget * Math.min(1, options.budgetFactor?.() ?? 1)));
  const State = Annotation.Root({
    question: Annotation<string>,
    classification: Annotation<Classification<I> | undefined>,
    strategy: Annotation<Strategy | undefined>,
    plan: Annotation<readonly ToolCall[]>,
    toolResults: Annotation<readonly ToolResult[]>,
    limitations: Annotation<readonly Limitation[]>,
    handling: Annotation<Handling | undefined>,
    probes: Annotation<readonly ToolResult[]>,
    detectSeconds: Annotation<number | undefined>,
    contextId: Annotation<string>,
    data: Annotation<Readonly<Record<string, unknown>> | undefined>,
    response: Annotation<string>,
    /** Tokens of `response`, counted while it was written. */
    responseTokens: Annotation<number | undefined>,
    userOptions: Annotation<readonly string[]>,
    unanswered: Annotation<Unanswered | undefined>,
    error: Annotation<WorkflowError | undefined>,
    memory: Annotation<M | undefined>,
  });
  type S = typeof State.State;
  type U = typeof State.Update;

  // A node gets the turn's signal (LangGraph passes the invoke config), so tool calls stop with an aborted turn.
  const guarded =
    (node: (state: S, signal: AbortSignal | undefined) => Promise<U> | U) =>
    async (state: S, config?: { readonly signal?: AbortSignal | undefined }): Promise<U> => {
      if (state.error !== undefined) return {};
      try {
        return await node(state, config?.signal);
      } catch (error) {
        return { error: toError(error) };
      }
    };

  const graph = new StateGraph(State)
    .addNode(
      'classify_intent',
      guarded(async (state) => {
        // Classified already by the caller or the answer cache (the same model, the same question): not again.
        const classification = state.classification ?? (await options.model.classify(state.question));
        // "apps not in X", "A or B" with the "not"/"or" not understood: answering the rest would answer its opposite.
        const changers = (classification.unused ?? []).filter((w) => MEANING_CHANGERS.has(w));
        if (changers.length > 0) return { classification, strategy: 'limitation_aware' as const, limitations: [{ kind: 'unsupported' as const, detail: `not understood: ${changers.join(', ')}` }] };
        const strategy: Strategy =
          classification.confidence < CONFIDENCE_THRESHOLD ? 'limitation_aware' : classification.complexity === 'simple' ? 'direct' : 'complex';
        return { classification, strategy };
      }),
    )
    .addNode(
      'plan_coordination',
      guarded((state) => ({ plan: state.classification === undefined ? [] : options.domain.plan(state.classification, state.memory) })),
    )
    .addNode(
      'detect_limitations',
      guarded(async (state, signal) => {
        const c = state.classification;
        if (c === undefined) return {};
        const plan = state.plan.length > 0 ? state.plan : options.domain.plan(c, state.memory);
        if (options.domain.assess === undefined || plan.length === 0) return { plan };
        const callTool: CallTool = (call, own) => options.callTool(call, own ?? signal);
        const assessment = await options.domain.assess({ classification: c, plan, memory: state.memory, contextId: state.contextId, callTool });
        return {
          plan: assessment.plan,
          limitations: assessment.limitations,
          handling: assessment.handling,
          probes: assessment.probes,
          detectSeconds: assessment.detectSeconds,
          // Detected constraints route the question to the limitation-aware path.
          ...(assessment.limitations.length > 0 ? { strategy: 'limitation_aware' as const } : {}),
        };
      }),
    )
    .addNode(
      'execute_tools',
      guarded(async (state, signal) => {
        const plan = state.plan;
        const calls = plan.slice(0, WORKFLOW_LIMITS.maxToolCalls);
        // Complex plans are independent reads: run them together. A single call is just awaited.
        const toolResults = await Promise.all(calls.map((call) => options.callTool(call, signal)));
        const classification = state.classification;
        for (let round = 0; round < WORKFLOW_LIMITS.followUpRounds && classification !== undefined; round += 1) {
          const room = WORKFLOW_LIMITS.maxToolCalls - toolResults.length;
          const more = (options.domain.followUp?.(classification, toolResults) ?? []).slice(0, room);
          if (more.length === 0) break;
          toolResults.push(...(await Promise.all(more.map((call) => options.callTool(call, signal)))));
        }
        return { plan: calls, toolResults };
      }),
    )
    .addNode(
      'handle_limitations',
      guarded((state) => {
        const c = state.classification;
        // Detected limitations were handled by the assessment: its plan runs (batched, sampled, a first batch) or,
        // when nothing fits, the answer explains the options.
        if (state.limitations.length > 0) return { plan: state.handling?.fetch === 'none' ? [] : state.plan };
        const limitation: Limitation =
          c === undefined || c.confidence === 0
            ? { kind: 'unsupported', detail: 'no intent matched' }
            : { kind: 'low_confidence', detail: `best guess ${c.intent} at ${c.confidence}` };
        return { limitations: [limitation] };
      }),
    )
    .addNode('generate_response', (state) => {
      const answerMax = answerMaxNow();
      if (state.error !== undefined) {
        const text = `I could not answer that: ${state.error.message}.${state.error.remedy === undefined ? '' : ` ${state.error.remedy}`}`;
        return { response: options.counter.truncate(text, answerMax), responseTokens: undefined, userOptions: [] };
      }
      try {
        const answer = options.domain.respond({
          question: state.question,
          classification: state.classification,
          results: state.toolResults,
          limitations: state.limitations,
          handling: state.handling,
          probes: state.probes,
          memory: state.memory,
          contextId: state.contextId,
          capabilities: options.capabilities,
        });
        const unapplied = unappliedEntities(state.classification, options.domain.filterEntities ?? [], state.toolResults);
        // Reasoning asked for ("why", "worst", "what to do") of an answer that shows data: the rules say they did no more.
        const shown = state.toolResults.length > 0;
        const reasoning = shown ? reasoningWords(state.question) : [];
        const note = [
          accountingNote(state.classification),
          unapplied.length === 0 ? '' : `I did not apply ${unapplied.join('; ')}: this answer is not filtered by ${unapplied.length === 1 ? 'it' : 'them'}.`,
          reasoningNote(reasoning),
        ]
          .filter((n) => n !== '')
          .join(' ');
        let text = note === '' ? answer.text : `${note}\n${answer.text}`;
        // Counted once: the budget check's count is the answer's (a cut answer is counted as cut).
        let tokens = options.counter.count(text);
        if (tokens > answerMax) {
          const note = '\n… (cut to the answer budget; ask for a narrower view or the next page)';
          text = options.counter.truncate(text, answerMax - options.counter.count(note)) + note;
          tokens = options.counter.count(text);
        }
        const unused = state.classification?.unused ?? [];
        const skipped = [...unused.map((w) => `"${w}"`), ...unapplied, ...reasoning.map((w) => `reasoning "${w}"`)];
        const data = skipped.length === 0 ? answer.data : { ...(answer.data ?? {}), not_applied: [...skipped, ...notApplied(answer.data)] };
        return { response: text, responseTokens: tokens, userOptions: [...answer.options], memory: answer.memory, data, unanswered: answer.unanswered };
      } catch (error) {
        const e = toError(error);
        return { response: `I could not answer that: ${e.message}.`, responseTokens: undefined, userOptions: [], error: e };
      }
    })
    .addEdge(START, 'classify_intent')
    .addConditionalEdges('classify_intent', (state: S) => (state.error !== undefined ? 'failed' : (state.strategy ?? 'limitation_aware')), {
      direct: 'detect_limitations',
      complex: 'plan_coordination',
      limitation_aware: 'handle_limitations',
      failed: 'generate_response',
    })
    .addEdge('plan_coordination', 'detect_limitations')
    .addConditionalEdges('detect_limitations', (state: S) => (state.error !== undefined ? 'failed' : state.limitations.length > 0 ? 'limited' : 'clear'), {
      clear: 'execute_tools',
      limited: 'handle_limitations',
      failed: 'generate_response',
    })
    .addEdge('execute_tools', 'generate_response')
    .addConditionalEdges('handle_limitations', (state: S) => (state.error === undefined && state.plan.length > 0 ? 'execute' : 'respond'), {
      execute: 'execute_tools',
      respond: 'generate_response',
    })
    .addEdge('generate_response', END)
    .compile(options.checkpointer === undefined ? {} : { checkpointer: options.checkpointer });

  /**
   * One turn through the graph, no cache: the conversation's memory is loaded from the memory store before and the
   * memory the answer leaves saved after. A `classification` given is used instead of classifying again.
   */
  const run: RunTurn<I, M> = async (question, contextId, signal, classification) => {
    const memory = await memoryStore.load(contextId);
    const state = await graph.invoke(
      {
        question,
        contextId,
        classification,
        strategy: undefined,
        plan: [],
        toolResults: [],
        limitations: [],
        handling: undefined,
        probes: [],
        detectSeconds: undefined,
        data: undefined,
        response: '',
        responseTokens: undefined,
        userOptions: [],
        unanswered: undefined,
        error: undefined,
        memory,
      },
      { configurable: { thread_id: contextId }, signal },
    );
    // A memory the store refuses (over its per-conversation cap) loses the follow-ups, not the answer: it says so.
    let forgotten = '';
    try {
      await memoryStore.save(contextId, state.memory);
    } catch (error) {
      if (!isFlotillaError(error) || error.code !== 'payload_too_large') throw error;
      // The earlier memory goes too: "next page" must not silently continue the question before this one.
      await memoryStore.save(contextId, undefined);
      forgotten = `\n\n(I could not keep this conversation's state for follow-ups such as "next page": ${error.message}. Ask your next question in full.)`;
    }
    const turn: CachedTurn<I, M>['turn'] = {
      answer: state.response + forgotten,
      options: state.userOptions,
      intent: state.classification?.intent,
      entities: state.classification?.entities ?? {},
      confidence: state.classification?.confidence ?? 0,
      strategy: state.strategy,
      toolCalls: state.toolResults.length,
      toolErrors: state.toolResults.filter((r) => r.isError).length,
      error: state.error,
      limitations: state.limitations,
      handling: state.handling,
      detectSeconds: state.detectSeconds,
      data: state.data,
      // A memory the answer made anew (a list, its next page) is a list "next page" continues; one kept is not.
      listed: state.error === undefined && forgotten === '' && state.memory !== undefined && state.memory !== memory,
      unanswered: state.unanswered,
    };
    const cacheable = turn.error === undefined && turn.toolErrors === 0 && turn.limitations.length === 0 && forgotten === '';
    return { turn, memory: state.memory, answerTokens: forgotten === '' ? state.responseTokens : undefined, cacheable };
  };
  const uncached: AskTurn<I> = async (question, contextId, signal, classification) => {
    const { turn, answerTokens } = await run(question, contextId, signal, classification);
    return { ...turn, cached: false, counted: answerTokens === undefined ? undefined : { text: turn.answer, tokens: answerTokens } };
  };
  const cache = options.answerCache;

  return {
    graph,
    /** The turn without the answer cache, for a caller that decorates it itself (`withAnswerCache`). */
    run,
    /**
     * One turn of the conversation `contextId`: through the answer cache when the workflow has one (`withAnswerCache`),
     * else the graph. The conversation's earlier memory comes from the memory store (never a checkpoint).
     * `classification`: the workflow model's reading of this very question, when the caller made it already.
     */
    ask: cache === undefined ? uncached : withAnswerCache(run, { ...cache, classify: (question) => options.model.classify(question), memoryStore }),
  };
}

/** The embedded model: the rules classifier behind the model seam. */
export function rulesModel<I extends string>(classifier: { classify(question: string): Classification<I> }): AgentModel<I> {
  return { kind: 'rules', classify: (question) => Promise.resolve(classifier.classify(question)) };
}
