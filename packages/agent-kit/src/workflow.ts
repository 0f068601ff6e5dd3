import { Annotation, END, START, StateGraph, type BaseCheckpointSaver } from '@langchain/langgraph';
import { describeError, isFlotillaError } from '@flotilla/core';
import type { TokenCounter } from '@flotilla/tokens';
import type { DetectedLimitation, Handling } from '@flotilla/limitations';
import { CONFIDENCE_THRESHOLD, MEANING_CHANGERS, type Classification, type Entities } from './rules.js';
import type { CapabilityIndex } from './capabilities.js';
import { boundedMemoryStore } from './memory-store.js';
import { answerKey, asksForFreshData, type AnswerCacheStore } from './answer-cache.js';

/** How a question is handled, as in the workflow design note. */
export const STRATEGIES = ['direct', 'complex', 'limitation_aware'] as const;
export type Strategy = (typeof STRATEGIES)[number];

export interface ToolCall {
  readonly tool: string;
  readonly args: Readonly<Record<string, unknown>>;
}

export interface ToolResult {
  readonly call: ToolCall;
  readonly isError: boolean;
  /** The tool's JSON text, parsed (bounded by the tool's token budget). */
  readonly body: Readonly<Record<string, unknown>>;
}

/** Why a question took the limitation-aware path: the rules were unsure, or detection found a constraint. */
export type Limitation = { readonly kind: 'low_confidence' | 'unsupported'; readonly detail: string } | DetectedLimitation;

/** What detection before execution found, and the plan adjusted to the chosen handling. */
export interface Assessment {
  readonly limitations: readonly DetectedLimitation[];
  readonly handling: Handling | undefined;
  /** The plan to execute (batched, sampled or a first batch); empty when nothing fits (fallback). */
  readonly plan: readonly ToolCall[];
  /** Results of the count queries detection made (the answer may quote them). */
  readonly probes: readonly ToolResult[];
  /** CPU time of the detection itself, count queries excluded. */
  readonly detectSeconds: number;
}

export interface WorkflowError {
  readonly code: string;
  readonly message: string;
  readonly remedy?: string | undefined;
}

/** The model seam: the workflow does not care whether rules or an LLM classify. */
export interface AgentModel<I extends string> {
  readonly kind: 'rules' | 'llm';
  classify(question: string): Promise<Classification<I>>;
}

export interface Answer<M> {
  readonly text: string;
  /** Follow-ups a person can pick (buttons in Slack). */
  readonly options: readonly string[];
  /** What the next turn of this conversation needs (e.g. the paged query to continue). */
  readonly memory: M | undefined;
  /** Structured data for clients (limitation options as buttons); sent as an A2A data part. */
  readonly data?: Readonly<Record<string, unknown>>;
}

/** Keeps a conversation's memory outside the process (files, Redis), so a restarted agent continues it. */
export interface MemoryStore<M> {
  load(contextId: string): Promise<M | undefined>;
  save(contextId: string, memory: M | undefined): Promise<void>;
}

/** A domain agent's part: which tools answer an intent, and how results read as an answer. */
export interface AgentDomain<I extends string, M> {
  /**
   * Entities that filter what is read. One of them asked for but found in no tool call the turn made is named in
   * the answer ("I did not apply …"), so a filter is never dropped silently. Domains that account for their own
   * filters (per intent) leave this out.
   */
  readonly filterEntities?: readonly string[];
  plan(classification: Classification<I>, memory: M | undefined): readonly ToolCall[];
  /** Calls that depend on what came back (e.g. the rest of a short list); asked at most FOLLOW_UP_ROUNDS times. */
  followUp?(classification: Classification<I>, results: readonly ToolResult[]): readonly ToolCall[];
  /**
   * Detection before execution: cheap count queries (through `callTool`) and the limitation handler's decision.
   * Domains without it run their plans as they are.
   */
  assess?(input: {
    readonly classification: Classification<I>;
    readonly plan: readonly ToolCall[];
    readonly memory: M | undefined;
    readonly contextId: string;
    readonly callTool: CallTool;
  }): Promise<Assessment>;
  respond(input: {
    readonly question: string;
    readonly classification: Classification<I> | undefined;
    readonly results: readonly ToolResult[];
    readonly limitations: readonly Limitation[];
    readonly handling: Handling | undefined;
    readonly probes: readonly ToolResult[];
    readonly memory: M | undefined;
    readonly contextId: string;
    /** The tools' capability index, when the agent built one: drives the "what can you do" answer. */
    readonly capabilities: CapabilityIndex | undefined;
  }): Answer<M>;
}

export type CallTool = (call: ToolCall, signal?: AbortSignal) => Promise<ToolResult>;

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
   * keeps nothing), never a failed turn.
   */
  readonly answerCache?: { readonly cache: AnswerCacheStore<CachedTurn<I, M>>; readonly cacheableIntents: readonly I[] } | undefined;
}

/** What a cached answer keeps: the turn as answered, and the memory it left (so "next page" works after a hit). */
export interface CachedTurn<I extends string, M> {
  readonly turn: Omit<TurnResult<I>, 'cached' | 'counted'>;
  readonly memory: M | undefined;
  /** Tokens of the turn's answer, counted when it was written: a hit is not counted again. */
  readonly answerTokens?: number | undefined;
}

/** Tokens of an answer text, counted once: `text` is the answer they were counted for. */
export interface CountedAnswer {
  readonly text: string;
  readonly tokens: number;
}

export interface TurnResult<I extends string> {
  readonly answer: string;
  readonly options: readonly string[];
  readonly intent: I | undefined;
  readonly entities: Entities;
  readonly confidence: number;
  readonly strategy: Strategy | undefined;
  readonly toolCalls: number;
  /** Tool calls that came back as isError results (a not-found name, an upstream failure). */
  readonly toolErrors: number;
  readonly error: WorkflowError | undefined;
  readonly limitations: readonly Limitation[];
  readonly handling: Handling | undefined;
  readonly detectSeconds: number | undefined;
  readonly data: Readonly<Record<string, unknown>> | undefined;
  /** True when the answer came from the answer cache (no tool call made). */
  readonly cached: boolean;
  /**
   * The answer's tokens, counted while it was written (or when it was cached): read them with `answerTokens`, which
   * counts only an answer they are not for (one a caller rebuilt from turns).
   */
  readonly counted?: CountedAnswer | undefined;
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
  /**
   * The answer cache key of a question, when it may be cached at all, with the classification it was read from (the
   * turn reuses it: a question is classified once).
   */
  const cacheKeyOf = async (question: string): Promise<{ readonly key: string | undefined; readonly classification: Classification<I> | undefined }> => {
    const cache = options.answerCache;
    if (cache === undefined || asksForFreshData(question)) return { key: undefined, classification: undefined };
    const classification = await options.model.classify(question);
    if (classification.confidence < CONFIDENCE_THRESHOLD || !cache.cacheableIntents.includes(classification.intent)) return { key: undefined, classification };
    // Words the rules did not understand, and typos, are not in the key: such a question must never get another one's answer.
    if ((classification.unused ?? []).length > 0 || (classification.corrected ?? []).length > 0) return { key: undefined, classification };
    return { key: answerKey(classification), classification };
  };
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
        // Classified already when the answer cache was asked (the same model, the same question): not again.
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
        const note = [accountingNote(state.classification), unapplied.length === 0 ? '' : `I did not apply ${unapplied.join('; ')}: this answer is not filtered by ${unapplied.length === 1 ? 'it' : 'them'}.`]
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
        const data = unused.length + unapplied.length === 0 ? answer.data : { ...(answer.data ?? {}), not_applied: [...unused.map((w) => `"${w}"`), ...unapplied, ...notApplied(answer.data)] };
        return { response: text, responseTokens: tokens, userOptions: [...answer.options], memory: answer.memory, data };
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

  return {
    graph,
    /** One turn of the conversation `contextId`; earlier turns' memory is restored from the checkpoint. */
    async ask(question: string, contextId: string, signal?: AbortSignal): Promise<TurnResult<I>> {
      const { key: cacheKey, classification } = await cacheKeyOf(question);
      if (cacheKey !== undefined) {
        const hit = await options.answerCache?.cache.get(cacheKey).catch(() => undefined);
        if (hit !== undefined) {
          await memoryStore.save(contextId, hit.memory);
          const counted = hit.answerTokens === undefined ? undefined : { text: hit.turn.answer, tokens: hit.answerTokens };
          return { ...hit.turn, toolCalls: 0, cached: true, counted };
        }
      }
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
      const turn: Omit<TurnResult<I>, 'cached' | 'counted'> = {
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
      };
      const answerTokens = forgotten === '' ? state.responseTokens : undefined;
      const clean = turn.error === undefined && turn.toolErrors === 0 && turn.limitations.length === 0 && forgotten === '';
      if (cacheKey !== undefined && clean) await options.answerCache?.cache.set(cacheKey, { turn, memory: state.memory, answerTokens }).catch(() => 0);
      return { ...turn, cached: false, counted: answerTokens === undefined ? undefined : { text: turn.answer, tokens: answerTokens } };
    },
  };
}

/** The embedded model: the rules classifier behind the model seam. */
export function rulesModel<I extends string>(classifier: { classify(question: string): Classification<I> }): AgentModel<I> {
  return { kind: 'rules', classify: (question) => Promise.resolve(classifier.classify(question)) };
}
