import { Annotation, END, START, StateGraph } from '@langchain/langgraph';
import { HumanMessage, SystemMessage, type AIMessage } from '@langchain/core/messages';
import type { Client } from '@modelcontextprotocol/client';
import { describeError, FlotillaError, isFlotillaError, silentLogger, type Logger } from '@flotilla/core';
import { dropEmptyTurns, extractiveSummary, fitRequest, isEmptyTurn, SUMMARY_PREFIX, recordFit, type ContextBudget, type ContextMetrics, type FitResult, type JsonValue, type Message, type ToolDefinition } from '@flotilla/context';
import { cachingCounter, type TokenCounter } from '@flotilla/tokens';
import type { ChatModelHandle } from './chat.js';
import { fromAiMessage, toBindable, toLangChain } from './convert.js';
import { FIND_TOOLS, freshLoaded, LOAD_TOOLS, META_TOOLS, runMetaTool, type LoadedTool } from './discovery.js';
import { boundedMemoryStore, type CapabilityIndex, type MemoryStore, type StoreMetrics, type WorkflowError } from '@flotilla/agent-kit';
import { systemPrompt } from './prompts.js';
import { contextTokensNeeded, LLM_LIMITS, type ToolDiscoveryMode } from './settings.js';
import type { ListOwner, SharedConversation } from './hybrid.js';

/**
 * What LLM mode keeps of a conversation between turns: the (already fitted) history and the loaded tools. In hybrid
 * mode it is the conversation's one record: the turns the rules answered are in `messages` too (a compact summary of
 * each answer), and `lastList` says which path produced the last list.
 */
export interface LlmMemory {
  readonly messages: readonly Message[];
  readonly loaded: readonly LoadedTool[];
  readonly lastList?: ListOwner | undefined;
}

/** A turn the rules answered, as the model later reads it: the question, then the answer's first tokens. */
export const RULES_TURN_LIMITS = {
  /** Tokens of a rules answer kept in the record (its note included): a list's head and totals, not its rows. */
  answerMaxTokens: 300,
} as const;

/** A tool result with more to page: the model listed something "next page" continues (bounded tools' `has_more`). */
const MORE_TO_PAGE = /"has_more":\s*true/;

export type LlmLimits = { readonly [K in keyof typeof LLM_LIMITS]: number };

/**
 * The model histories kept between turns (the `model_history` store, LLM_LIMITS.conversationsMax of them). A history
 * is fitted to the context window before every request (128,000-200,000 tokens by default: ~0.5-0.8 MiB of text), so
 * one conversation keeps at most `maxEntryBytes` (its JSON and contextId): past it the oldest turns go first, as
 * the next request's fit would drop or summarise them anyway (half the Redis memory store's per-value cap, so it is
 * never refused there either). In memory, all histories together keep at most `maxBytes`: 64 full histories, or
 * the ~1,000 conversations of typical ones (tens of KiB), least recently used evicted first; beside the agent's
 * other stores in a heap of ~384 MiB.
 */
export const MODEL_HISTORY_LIMITS = {
  maxBytes: 64 * 1024 * 1024,
  maxEntryBytes: 1024 * 1024,
} as const;

/**
 * A conversation's memory within `maxBytes` (its JSON and contextId, UTF-8; each message sized once): the oldest
 * turns go first, whole (a turn starts at a user message, so a tool call never loses its result); when the newest
 * turn alone is over, only its question and answer stay; nothing (undefined) when even they do not fit.
 * `dropped` is how many messages went.
 */
export function fitMemory(contextId: string, memory: LlmMemory, maxBytes: number): { readonly memory: LlmMemory | undefined; readonly dropped: number } {
  const bytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value), 'utf8');
  // {"messages":[…],"loaded":…} around the parts, and the key; a comma per message (one too many) keeps it an upper bound.
  const fixed = 32 + Buffer.byteLength(contextId, 'utf8') + bytes(memory.loaded);
  const { messages } = memory;
  const sizes = messages.map((m) => bytes(m) + 1);
  let total = fixed + sizes.reduce((a, b) => a + b, 0);
  let start = 0;
  for (let i = 1; i < messages.length && total > maxBytes; i += 1) {
    if (messages[i]?.role !== 'user') continue;
    for (let j = start; j < i; j += 1) total -= sizes[j] ?? 0;
    start = i;
  }
  if (total <= maxBytes) return { memory: start === 0 ? memory : { ...memory, messages: messages.slice(start) }, dropped: start };
  const question = messages[start];
  const answer = messages[messages.length - 1];
  const short: Message[] = [
    ...(question?.role === 'user' ? [question] : []),
    ...(answer?.role === 'assistant' && answer !== question ? [{ role: 'assistant' as const, text: answer.text }] : []),
  ];
  if (fixed + short.reduce((sum, m) => sum + bytes(m) + 1, 0) <= maxBytes) return { memory: { ...memory, messages: short }, dropped: messages.length - short.length };
  return { memory: undefined, dropped: messages.length };
}

/** How the tools were bound in a question: the index and loaded tools, the full catalog, or the index first then the catalog. */
export type DiscoveryOutcome = 'index' | 'full' | 'fallback';

export interface LlmAgentOptions {
  /** The agent's name (metric label, logs). */
  readonly agent: string;
  readonly chat: ChatModelHandle;
  /** The MCP client of the agent's tools. */
  readonly mcp: Client;
  /** The tools' capability index; it also holds their full definitions. */
  readonly index: CapabilityIndex;
  /** The agent's own part of the system prompt (what it knows, which tools to start from). */
  readonly prompt: string;
  readonly discovery: ToolDiscoveryMode;
  readonly budget: ContextBudget;
  readonly counter: TokenCounter;
  readonly metrics?: ContextMetrics | undefined;
  /** Conversations kept between turns; bounded in memory (entries and bytes) by default. */
  readonly memoryStore?: MemoryStore<LlmMemory> | undefined;
  /** Entries, bytes and evictions of the default in-memory store (store="model_history"). */
  readonly storeMetrics?: StoreMetrics | undefined;
  /** Bytes of one conversation's history (trimmed past it, whatever the store) and of the in-memory store's. */
  readonly historyLimits?: Partial<{ readonly [K in keyof typeof MODEL_HISTORY_LIMITS]: number }> | undefined;
  readonly logger?: Logger | undefined;
  readonly limits?: Partial<LlmLimits> | undefined;
  /** Clock for loaded-tool expiry. */
  readonly now?: () => number;
  /** Multiplies the context window and the tool message cap per call (the memory guard's 0.5 when memory is tight). */
  readonly budgetFactor?: (() => number) | undefined;
}

export interface LlmTurn {
  readonly answer: string;
  readonly options: readonly string[];
  readonly modelCalls: number;
  readonly toolCalls: number;
  readonly discovery: DiscoveryOutcome;
  /** The largest request sent to the model in this turn, in tokens (with the budget's margin). */
  readonly maxRequestTokens: number;
  readonly error: WorkflowError | undefined;
}

/** Added to the system prompt while the memory guard has halved the budgets. */
export const TIGHT_MEMORY_NOTE = '\n\nMemory is tight on this agent right now: search or count first, ask for small filtered pages, never full lists.';

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A model-facing reason for an error (the model API's own message, never a stack), naming the settings in force. */
function modelError(error: unknown, maxContextTokens: number, chat: ChatModelHandle): WorkflowError {
  if (isFlotillaError(error)) return { code: error.code, message: error.message, remedy: error.remedy };
  // LangChain wraps some provider errors (a context overflow) with the SDK's error as the cause.
  const cause = isRecord(error) && isRecord(error.cause) ? error.cause : undefined;
  const status = isRecord(error) && typeof error.status === 'number' ? error.status : typeof cause?.status === 'number' ? cause.status : undefined;
  if (isRecord(error) && error.name === 'ContextOverflowError') {
    return { code: 'upstream_rejected', message: 'the model refused the request as longer than its context window', remedy: `MAX_CONTEXT_TOKENS is ${maxContextTokens}: set it to the model's real window (or lower); then ask again.` };
  }
  const detail = describeError(error).slice(0, 300);
  if (status === 401 || status === 403) return { code: 'upstream_auth', message: `the model API refused the credentials (${status})`, remedy: 'Check --llm-api-key.' };
  if (status === 429) return { code: 'rate_limited', message: 'the model API is rate limiting us', remedy: 'Ask again in a minute.' };
  if (status !== undefined && status >= 400 && status < 500) return { code: 'upstream_rejected', message: `the model API rejected the request (${status}: ${detail})`, remedy: 'Ask again; if it keeps failing, the error is in the logs.' };
  if (isRecord(error) && (error.name === 'AbortError' || /timed? ?out/i.test(detail))) return { code: 'upstream_timeout', message: 'the model did not answer in time', remedy: 'Ask again.' };
  // --llm-base-url is named only when it is set: otherwise the provider's own API was called.
  const where = chat.baseUrl === undefined ? `that this agent can reach the ${chat.provider} API (network, proxy)` : 'that the model server --llm-base-url names is up';
  return { code: 'upstream_unavailable', message: `the model API could not be reached (${detail})`, remedy: `Check ${where}; then ask again.` };
}

/**
 * The agent in LLM mode: a LangGraph loop in which the model classifies the question and plans (its tool calls),
 * the tools run through MCP, and the model responds. Every model request is fitted to the context budget first
 * (token-exact, trimmed when needed, metered); model calls, tool calls and each tool message are capped.
 */
export function createLlmAgent(options: LlmAgentOptions) {
  const limits: LlmLimits = { ...LLM_LIMITS, ...options.limits };
  const logger = options.logger ?? silentLogger();
  const now = options.now ?? Date.now;
  const history = { ...MODEL_HISTORY_LIMITS, ...options.historyLimits };
  const store =
    options.memoryStore ??
    boundedMemoryStore<LlmMemory>({
      store: 'model_history',
      what: 'model history',
      maxEntries: limits.conversationsMax,
      maxBytes: history.maxBytes,
      maxEntryBytes: history.maxEntryBytes,
      metrics: options.storeMetrics,
    });
  // Histories are re-sent on every model call: count each message's text once, not once per call.
  const counter = cachingCounter(options.counter);
  const { index } = options;
  const factor = (): number => Math.min(1, Math.max(0.1, options.budgetFactor?.() ?? 1));
  /** The context budget of this call: halved while memory is tight (never below what a reply needs). */
  const budgetNow = (): ContextBudget => {
    const f = factor();
    if (f >= 1) return options.budget;
    return { ...options.budget, maxContextTokens: Math.max(options.budget.reservedOutputTokens * 2, Math.floor(options.budget.maxContextTokens * f)) };
  };
  const budget = options.budget;
  const prompts = { index: systemPrompt(options.prompt, index), full: systemPrompt(options.prompt, undefined) };
  // MCP input schemas are JSON Schema objects: JSON values.
  const catalogTools: readonly ToolDefinition[] = index.definitions.map((d) => ({ name: d.name, description: d.description, inputSchema: d.inputSchema as JsonValue }));
  const truncatedNote = (kept: number, total: number): string => `\n[cut to ${kept} of ${total} tokens; ask the tool for a smaller page or read_result]`;

  const State = Annotation.Root({
    contextId: Annotation<string>,
    messages: Annotation<readonly Message[]>,
    loaded: Annotation<readonly LoadedTool[]>,
    fullCatalog: Annotation<boolean>,
    discoveryFailures: Annotation<number>,
    modelCalls: Annotation<number>,
    toolCalls: Annotation<number>,
    summaries: Annotation<number>,
    maxRequestTokens: Annotation<number>,
    /** The model's last reply had no text and no tool call (not kept as a turn). */
    emptyReply: Annotation<boolean>,
    error: Annotation<WorkflowError | undefined>,
  });
  type S = typeof State.State;
  type U = typeof State.Update;

  /**
   * One LLM summary of older turns (bounded input and output); the extractive summary past the per-question cap. Tool
   * results are not in its transcript: it is sent as user text, and upstream data reaches a model only as a tool result.
   */
  async function llmSummary(older: readonly Message[], signal: AbortSignal | undefined): Promise<string> {
    const transcript = older
      .filter((m) => m.role !== 'tool')
      .map((m) => `${m.role}: ${m.text}${m.role === 'assistant' && (m.toolCalls?.length ?? 0) > 0 ? ` (called ${(m.toolCalls ?? []).map((c) => c.name).join(', ')})` : ''}`)
      .join('\n');
    const now = budgetNow();
    const room = Math.max(200, Math.min(limits.summaryInputMaxTokens, Math.floor((now.maxContextTokens - now.reservedOutputTokens) / 2)));
    const reply = (await options.chat.chat.invoke(
      [
        new SystemMessage('Summarise the conversation below in at most 120 words for the assistant that continues it. Keep names, numbers, filters and open questions.'),
        new HumanMessage(counter.truncate(transcript, room)),
      ],
      { signal },
    )) as AIMessage;
    return fromAiMessage(reply).text;
  }

  async function fit(state: S, system: string, tools: readonly ToolDefinition[], signal: AbortSignal | undefined): Promise<{ result: FitResult; summarised: boolean }> {
    const request = { system, tools, messages: state.messages };
    const budget = budgetNow();
    let older: readonly Message[] | undefined;
    const first = fitRequest(counter, request, budget, {
      summarise: (messages) => {
        older = messages;
        return extractiveSummary(messages);
      },
    });
    // Only when the request carries a summary of older turns (not for a truncation counted as one).
    const summarisedTurns = first.request.messages[0]?.text.startsWith(SUMMARY_PREFIX) === true;
    if (!summarisedTurns || older === undefined || older.length === 0 || state.summaries >= limits.summariesPerQuestion) return { result: first, summarised: false };
    const used = older;
    let text: string;
    try {
      text = await llmSummary(used, signal);
    } catch (error) {
      logger.warn({ err: describeError(error) }, 'LLM summary failed; the extractive summary stays');
      return { result: first, summarised: true };
    }
    const second = fitRequest(counter, request, budget, { summarise: (messages) => (messages.length === used.length && text.length > 0 ? text : extractiveSummary(messages)) });
    return { result: second.overBudget ? first : second, summarised: true };
  }

  async function runTool(name: string, args: unknown, signal: AbortSignal | undefined): Promise<{ text: string; isError: boolean }> {
    try {
      const raw = await options.mcp.callTool({ name, arguments: isRecord(args) ? args : {} }, { signal });
      const content = (raw as { content?: unknown }).content;
      const text = Array.isArray(content)
        ? content.map((part) => (isRecord(part) && part.type === 'text' && typeof part.text === 'string' ? part.text : '')).join('\n')
        : '';
      return { text, isError: (raw as { isError?: boolean }).isError === true };
    } catch (error) {
      return { text: `The ${name} tool could not be reached (${describeError(error).slice(0, 200)}). Try again later or answer with what you have.`, isError: true };
    }
  }

  /** A tool message within toolMessageMaxTokens, note included (token boundaries can merge: checked, not assumed). */
  function capText(text: string): string {
    const total = counter.count(text);
    const max = Math.max(256, Math.floor(limits.toolMessageMaxTokens * factor()));
    if (total <= max) return text;
    let room = Math.max(1, max - counter.count(truncatedNote(total, total)));
    for (;;) {
      const kept = counter.truncate(text, room);
      const capped = kept + truncatedNote(counter.count(kept), total);
      if (counter.count(capped) <= max || room <= 1) return capped;
      room = Math.max(1, room - 8);
    }
  }

  /** A turn whose last allowed model call still gave no answer: the step limit was really reached. */
  const stepLimitError = (): WorkflowError => ({
    code: 'upstream_bad_response',
    message: `the model did not finish within ${limits.maxModelCalls} model steps`,
    remedy: 'Ask a narrower question, or ask again to continue from the tool results found so far.',
  });

  /** A turn the model ended with an empty reply before the step limit: said as it is, with what it had found. */
  function emptyReplyError(steps: number, messages: readonly Message[]): WorkflowError {
    const question = messages.findLastIndex((m) => m.role === 'user');
    const called = [...new Set(messages.slice(question + 1).flatMap((m) => (m.role === 'tool' && index.has(m.name) ? [m.name] : [])))];
    return {
      code: 'upstream_bad_response',
      message: `the model returned an empty reply after ${steps} model step${steps === 1 ? '' : 's'}${called.length > 0 ? `, having called ${called.join(', ')}` : ''}`,
      remedy: called.length > 0 ? 'Ask again: the tool results found so far are kept in this conversation.' : 'Ask again, or rephrase the question.',
    };
  }

  /**
   * The error of a request that cannot fit even trimmed to its minimum, naming what would change that under the
   * settings in force: the window that would hold it, and index discovery only when it is not already on.
   */
  function overBudget(tokens: number, catalog: boolean, loaded: number): FlotillaError {
    const f = factor();
    const window = budgetNow().maxContextTokens;
    // While the memory guard shrinks the window, the setting must cover the request at that factor.
    const needed = contextTokensNeeded(tokens / f);
    const ways = [`raise MAX_CONTEXT_TOKENS (now ${budget.maxContextTokens}) to at least ${needed}`];
    if (options.discovery === 'full') ways.push('use --tool-discovery index (the model then starts with an index of the tools, not all their definitions)');
    else if (catalog) ways.push('ask a narrower question (index discovery is on, but this question fell back to every tool definition after discovery failed)');
    else if (loaded > 0) ways.push(`start a new conversation (this one has ${loaded} tool definition${loaded === 1 ? '' : 's'} loaded)`);
    const tight = f < 1 ? ` Memory is tight on this agent, so the window is cut to ${window} tokens for now; later it may fit as it is.` : '';
    return new FlotillaError('config_invalid', `the context budget (${window} tokens) cannot hold the system prompt, tools and a reply (${tokens} tokens)`, {
      remedy: `${ways.join(', or ').replace(/^r/, 'R')}.${tight}`,
      details: { maxContextTokens: budget.maxContextTokens, window, requestTokens: tokens, neededContextTokens: needed, toolDiscovery: options.discovery, fullCatalog: catalog },
    });
  }

  const graph = new StateGraph(State)
    .addNode('call_model', async (state: S, config): Promise<U> => {
      const signal = config.signal;
      try {
        const last = state.modelCalls + 1 >= limits.maxModelCalls;
        const loaded = freshLoaded(state.loaded, now());
        const catalog = state.fullCatalog || options.discovery === 'full';
        const tools: readonly ToolDefinition[] = last
          ? []
          : catalog
            ? catalogTools
            : [...META_TOOLS, ...loaded.flatMap((t) => catalogTools.filter((d) => d.name === t.name))];
        const system = (catalog ? prompts.full : prompts.index) + (factor() < 1 ? TIGHT_MEMORY_NOTE : '');
        const { result, summarised } = await fit(state, system, tools, signal);
        if (result.overBudget) throw overBudget(result.tokens, catalog, loaded.length);
        if (options.metrics !== undefined) recordFit(options.metrics, options.agent, result);
        const model = tools.length === 0 ? options.chat.chat : options.chat.chat.bindTools!(tools.map(toBindable));
        const reply = (await model.invoke(toLangChain(result.request), { signal })) as AIMessage;
        const assistant = fromAiMessage(reply);
        // With no tools bound the model cannot call one; a reply that does anyway is answered as text only.
        const message = last ? { role: 'assistant' as const, text: assistant.text } : assistant;
        // An empty reply is no turn: kept, it would make Anthropic refuse every later request of the conversation.
        const empty = isEmptyTurn(message);
        return {
          messages: empty ? result.request.messages : [...result.request.messages, message],
          emptyReply: empty,
          loaded,
          modelCalls: state.modelCalls + 1,
          summaries: state.summaries + (summarised ? 1 : 0),
          maxRequestTokens: Math.max(state.maxRequestTokens, result.tokens),
        };
      } catch (error) {
        logger.warn({ err: describeError(error), agent: options.agent }, 'model call failed');
        return { error: modelError(error, budget.maxContextTokens, options.chat), modelCalls: state.modelCalls + 1 };
      }
    })
    .addNode('execute_tools', async (state: S, config): Promise<U> => {
      const reply = state.messages[state.messages.length - 1];
      const calls = reply?.role === 'assistant' ? (reply.toolCalls ?? []) : [];
      let loaded = state.loaded;
      let fullCatalog = state.fullCatalog || options.discovery === 'full';
      let failures = state.discoveryFailures;
      let used = state.toolCalls;
      const results: Message[] = [];
      for (const [i, call] of calls.entries()) {
        let outcome: { text: string; isError: boolean };
        if (i >= limits.maxToolCallsPerReply || used >= limits.maxToolCalls) {
          const which = used >= limits.maxToolCalls ? `${limits.maxToolCalls} per question` : `${limits.maxToolCallsPerReply} per step`;
          outcome = { text: `Not run: the tool call budget (${which}) is used up. Answer with what you have, and say what is missing.`, isError: true };
        } else if (call.name === FIND_TOOLS || call.name === LOAD_TOOLS) {
          used += 1;
          const meta = runMetaTool(index, call.name, call.args, loaded, now());
          loaded = meta.loaded;
          if (meta.isError) failures += 1;
          outcome = meta;
        } else if (index.has(call.name)) {
          used += 1;
          // Calling a tool that was never loaded means discovery failed the model: bind the whole catalog from now on.
          if (!fullCatalog && !freshLoaded(loaded, now()).some((t) => t.name === call.name)) fullCatalog = true;
          outcome = await runTool(call.name, call.args, config.signal);
        } else {
          failures += 1;
          outcome = { text: `Unknown tool "${call.name}". Use find_tools to search the index, then load_tools.`, isError: true };
        }
        results.push({ role: 'tool', toolCallId: call.id, name: call.name, text: capText(outcome.isError ? `Error: ${outcome.text}` : outcome.text) });
      }
      // Two failed discovery steps in a question: stop making the model search; bind the full catalog.
      if (failures >= 2) fullCatalog = true;
      if (fullCatalog && !state.fullCatalog && options.discovery === 'index') logger.info({ agent: options.agent, contextId: state.contextId }, 'tool discovery fell back to the full catalog');
      return { messages: [...state.messages, ...results], loaded, fullCatalog: fullCatalog && options.discovery === 'index' ? true : state.fullCatalog, discoveryFailures: failures, toolCalls: used };
    })
    .addEdge(START, 'call_model')
    .addConditionalEdges(
      'call_model',
      (state: S) => {
        const last = state.messages[state.messages.length - 1];
        return state.error === undefined && last?.role === 'assistant' && (last.toolCalls?.length ?? 0) > 0 ? 'tools' : 'done';
      },
      { tools: 'execute_tools', done: END },
    )
    .addEdge('execute_tools', 'call_model')
    .compile();

  /** Incoming text (a pasted log, a long thread) is capped on arrival, to at most half of the usable window. */
  const userText = (question: string): string => {
    const cap = Math.max(64, Math.min(budget.userTextMaxTokens, Math.floor((budget.maxContextTokens - budget.reservedOutputTokens) / 2)));
    const total = counter.count(question);
    return total <= cap ? question : `${counter.truncate(question, cap)}\n[message cut to ${cap} of ${total} tokens]`;
  };
  /** Saves a history within its byte cap: past it the oldest turns go, so no store has to refuse it. */
  const saveFitted = async (contextId: string, memory: LlmMemory): Promise<void> => {
    const fitted = fitMemory(contextId, memory, history.maxEntryBytes);
    if (fitted.dropped > 0) logger.info({ agent: options.agent, dropped: fitted.dropped, kept: fitted.memory?.messages.length ?? 0 }, 'conversation history over its byte cap: the oldest messages dropped');
    await store.save(contextId, fitted.memory);
  };
  /** A rules answer as the record keeps it: whole when short, else its first tokens and how much there was. */
  const rulesSummary = (answer: string): string => {
    const max = RULES_TURN_LIMITS.answerMaxTokens;
    const total = counter.count(answer);
    if (total <= max) return answer;
    const note = `\n[the first part of a ${total}-token answer]`;
    return counter.truncate(answer, Math.max(1, max - counter.count(note))) + note;
  };
  const conversation: SharedConversation = {
    lastList: async (contextId) => (await store.load(contextId))?.lastList,
    async recordRulesTurn(contextId, turn) {
      const memory = await store.load(contextId);
      const messages: Message[] = [...(memory?.messages ?? []), { role: 'user', text: userText(turn.question) }, { role: 'assistant', text: rulesSummary(turn.answer) }];
      await saveFitted(contextId, { messages, loaded: memory?.loaded ?? [], lastList: turn.listed ? 'rules' : memory?.lastList });
    },
  };

  return {
    graph,
    /** The conversation record hybrid mode shares with the rules (this agent's history store). */
    conversation,
    /** One question of the conversation `contextId`. */
    async ask(question: string, contextId: string, signal?: AbortSignal): Promise<LlmTurn> {
      const memory = await store.load(contextId);
      const text = userText(question);
      const state = await graph.invoke(
        {
          contextId,
          messages: [...(memory?.messages ?? []), { role: 'user', text }],
          loaded: memory?.loaded ?? [],
          fullCatalog: false,
          discoveryFailures: 0,
          modelCalls: 0,
          toolCalls: 0,
          summaries: 0,
          maxRequestTokens: 0,
          emptyReply: false,
          error: undefined,
        },
        // Each model step is two graph steps (model, tools); the loop is bounded by maxModelCalls, this is a backstop.
        { signal, recursionLimit: limits.maxModelCalls * 2 + 2 },
      );
      const last = state.messages[state.messages.length - 1];
      // The step limit was reached only when the last allowed call was made and still gave no answer.
      const error: WorkflowError | undefined =
        state.error ?? (state.emptyReply ? (state.modelCalls >= limits.maxModelCalls ? stepLimitError() : emptyReplyError(state.modelCalls, state.messages)) : undefined);
      let answer: string;
      if (error !== undefined) {
        answer = `I could not answer that: ${error.message}.${error.remedy === undefined ? '' : ` ${error.remedy}`}`;
      } else {
        answer = last?.role === 'assistant' ? last.text : `I could not answer that: the model gave no answer.`;
      }
      if (counter.count(answer) > limits.answerMaxTokens) {
        const note = '\n… (cut to the answer budget; ask for a narrower view or the next page)';
        answer = counter.truncate(answer, limits.answerMaxTokens - counter.count(note)) + note;
      }
      // A failed turn keeps the question (so "try again" has context) but not a half-made exchange; a turn the model
      // left without text keeps its tool results (what was found so far) and says so as its answer.
      const kept =
        state.error !== undefined
          ? [...(memory?.messages ?? []), { role: 'user' as const, text }, { role: 'assistant' as const, text: answer }]
          : error !== undefined
            ? [...dropEmptyTurns(state.messages).messages, { role: 'assistant' as const, text: answer }]
            : dropEmptyTurns(state.messages).messages;
      // This turn's tool results with more to page: the model's list is now the one "next page" continues.
      const asked = state.messages.findLastIndex((m) => m.role === 'user');
      const listed = state.error === undefined && state.messages.slice(asked + 1).some((m) => m.role === 'tool' && MORE_TO_PAGE.test(m.text));
      await saveFitted(contextId, { messages: kept, loaded: state.loaded, lastList: listed ? 'model' : memory?.lastList });
      const discovery: DiscoveryOutcome = options.discovery === 'full' ? 'full' : state.fullCatalog ? 'fallback' : 'index';
      return { answer, options: [], modelCalls: state.modelCalls, toolCalls: state.toolCalls, discovery, maxRequestTokens: state.maxRequestTokens, error };
    },
  };
}
