import type { DetectedLimitation, Handling } from '@flotilla/limitations';
import type { Classification, Entities } from './rules.js';
import type { CapabilityIndex } from './capabilities.js';

/**
 * The contract between the shared workflow and a domain agent: what the agent plans and presents, what the workflow
 * answers with, and where a conversation's memory lives. Types only; the graph is in `workflow.ts`.
 */

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

export type CallTool = (call: ToolCall, signal?: AbortSignal) => Promise<ToolResult>;

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
  /**
   * Set when the text is no answer to the question: `nothing_to_continue` ("next page", "only the active ones" or
   * "summary instead" with no list remembered). In hybrid mode such a turn is a failed fast path: the model, which
   * may have listed something itself, answers instead.
   */
  readonly unanswered?: Unanswered | undefined;
}

/** Why a rules answer did not answer (see `Answer.unanswered`). */
export type Unanswered = 'nothing_to_continue';

/** Keeps a conversation's memory outside the process (files, Redis), so a restarted agent continues it. */
export interface MemoryStore<M> {
  load(contextId: string): Promise<M | undefined>;
  save(contextId: string, memory: M | undefined): Promise<void>;
}

/** What `AgentDomain.assess` is given: the question as read, its plan, and a tool caller bound to the turn. */
export interface AssessInput<I extends string, M> {
  readonly classification: Classification<I>;
  readonly plan: readonly ToolCall[];
  readonly memory: M | undefined;
  readonly contextId: string;
  readonly callTool: CallTool;
}

/** What `AgentDomain.respond` is given: everything the turn found. */
export interface RespondInput<I extends string, M> {
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
  assess?(input: AssessInput<I, M>): Promise<Assessment>;
  respond(input: RespondInput<I, M>): Answer<M>;
}

/** Tokens of an answer text, counted once: `text` is the answer they were counted for. */
export interface CountedAnswer {
  readonly text: string;
  readonly tokens: number;
}

/** What the workflow answers one turn with. */
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
  /**
   * The turn left a new list (or the next page of one) that "next page" continues: its memory is a new one. The
   * hybrid router records which path produced the conversation's last list from it.
   */
  readonly listed?: boolean | undefined;
  /** The answer did not answer (see `Answer.unanswered`). */
  readonly unanswered?: Unanswered | undefined;
  /** True when the answer came from the answer cache (no tool call made). */
  readonly cached: boolean;
  /**
   * The answer's tokens, counted while it was written (or when it was cached): read them with `answerTokens`, which
   * counts only an answer they are not for (one a caller rebuilt from turns).
   */
  readonly counted?: CountedAnswer | undefined;
}

/**
 * A turn as the graph ran it, before any cache: the turn without `cached`/`counted`, the memory it left for the next
 * turn, and its answer's tokens. This is what the answer cache keeps (so "next page" works after a hit).
 */
export interface CachedTurn<I extends string, M> {
  readonly turn: Omit<TurnResult<I>, 'cached' | 'counted'>;
  readonly memory: M | undefined;
  /** Tokens of the turn's answer, counted when it was written: a hit is not counted again. */
  readonly answerTokens?: number | undefined;
}

/**
 * One turn of a conversation. `classification` is the workflow model's reading of `question` when the caller made
 * it already (the hybrid router, a several-part split): the turn uses it instead of classifying again.
 */
export type AskTurn<I extends string> = (question: string, contextId: string, signal?: AbortSignal, classification?: Classification<I>) => Promise<TurnResult<I>>;

/** A turn as the graph ran it, and whether the answer cache may keep it (no error, tool error or limitation; memory kept). */
export interface RanTurn<I extends string, M> extends CachedTurn<I, M> {
  readonly cacheable: boolean;
}

/** The workflow's turn without any cache, for a decorator (`withAnswerCache`) to wrap. */
export type RunTurn<I extends string, M> = (question: string, contextId: string, signal?: AbortSignal, classification?: Classification<I>) => Promise<RanTurn<I, M>>;
