import type { ContextBudget } from '@flotilla/context';
import type { RecordedLlmRequest } from '@flotilla/simulators';
import type { TokenCounter } from '@flotilla/tokens';

/**
 * What a conversation's model requests must hold on the wire, read from the bodies a fake OpenAI or Anthropic server
 * RECEIVED (and its own token counts), not from our accounting: the list-everything conversation's acceptance
 * properties, checked by test/llm/conversation.test.ts on a short conversation and by `pnpm bench -- --suites llm`
 * on the 50-turn ones.
 */
export interface WireCheck {
  /** Tool result texts in one recorded body. */
  toolTexts(body: unknown): string[];
  /** True when every tool call in the body has its result and every result its call. */
  pairsIntact(body: unknown): boolean;
}

type OpenAiBody = { messages: { role: string; content: unknown; tool_calls?: { id: string }[]; tool_call_id?: string }[] };
type AnthropicBlock = { type: string; id?: string; tool_use_id?: string; content?: unknown; text?: string };
type AnthropicBody = { messages: { role: string; content: string | AnthropicBlock[] }[] };

const text = (content: unknown): string =>
  typeof content === 'string' ? content : Array.isArray(content) ? content.map((b) => (b as { text?: string }).text ?? '').join('') : '';

export const openAiWire: WireCheck = {
  toolTexts: (body) => (body as OpenAiBody).messages.filter((m) => m.role === 'tool').map((m) => text(m.content)),
  pairsIntact: (body) => {
    const messages = (body as OpenAiBody).messages;
    return messages.every((m, i) => {
      const answered = (m.tool_calls ?? []).every((c) => messages.slice(i + 1).some((r) => r.role === 'tool' && r.tool_call_id === c.id));
      const asked = m.role !== 'tool' || messages.slice(0, i).some((p) => p.tool_calls?.some((c) => c.id === m.tool_call_id));
      return answered && asked;
    });
  },
};

const blocks = (content: string | AnthropicBlock[]): AnthropicBlock[] => (typeof content === 'string' ? [] : content);
export const anthropicWire: WireCheck = {
  toolTexts: (body) => (body as AnthropicBody).messages.flatMap((m) => blocks(m.content).filter((b) => b.type === 'tool_result').map((b) => text(b.content))),
  pairsIntact: (body) => {
    const messages = (body as AnthropicBody).messages;
    return messages.every((m, i) => {
      const uses = blocks(m.content).filter((b) => b.type === 'tool_use');
      const next = blocks(messages[i + 1]?.content ?? []);
      const answered = uses.every((u) => next.some((b) => b.type === 'tool_result' && b.tool_use_id === u.id));
      const prior = blocks(messages[i - 1]?.content ?? []);
      const asked = blocks(m.content)
        .filter((b) => b.type === 'tool_result')
        .every((r) => prior.some((b) => b.type === 'tool_use' && b.id === r.tool_use_id));
      return answered && asked;
    });
  },
};

export const WIRE: Readonly<Record<'openai' | 'anthropic', WireCheck>> = { openai: openAiWire, anthropic: anthropicWire };

/** Tools bound to a request (both wires name the list `tools`): the agent's turns bind at least the meta-tools. */
const toolsBound = (body: unknown): number => {
  const tools = (body as { tools?: unknown }).tools;
  return Array.isArray(tools) ? tools.length : 0;
};

/** The wire properties of a conversation's requests, counted: the counts of what must not happen are 0. */
export interface WireFindings {
  readonly requests: number;
  /** Requests the server answered with anything but 200. */
  readonly failedRequests: number;
  /** Requests whose prompt (the server's count) passed the window less the reserved output. */
  readonly requestsOverBudget: number;
  readonly largestPromptTokens: number;
  readonly toolMessages: number;
  /** Tool messages over the tool budget (`toolBudgetTokens`, our counter). */
  readonly toolMessagesOverBudget: number;
  readonly largestToolMessageTokens: number;
  /** Requests with a tool call without its result, or a result without its call. */
  readonly requestsWithBrokenPairs: number;
  /**
   * Requests with no tools bound: the agent's LLM summaries of older turns (or a question's last model call, past
   * LLM_LIMITS.maxModelCalls, which the list-everything script never reaches); the rest are the turns' own.
   */
  readonly summaryRequests: number;
  /** Summary requests carrying a tool result (upstream data reaches a model only as a tool result of its turn). */
  readonly summaryRequestsWithToolResults: number;
}

export function checkWire(
  requests: readonly RecordedLlmRequest[],
  wire: WireCheck,
  options: { readonly counter: TokenCounter; readonly budget: Pick<ContextBudget, 'maxContextTokens' | 'reservedOutputTokens'>; readonly toolBudgetTokens: number },
): WireFindings {
  const promptMax = options.budget.maxContextTokens - options.budget.reservedOutputTokens;
  let toolMessages = 0;
  let toolMessagesOverBudget = 0;
  let largestToolMessageTokens = 0;
  for (const request of requests) {
    for (const t of wire.toolTexts(request.body)) {
      const tokens = options.counter.count(t);
      toolMessages += 1;
      if (tokens > options.toolBudgetTokens) toolMessagesOverBudget += 1;
      largestToolMessageTokens = Math.max(largestToolMessageTokens, tokens);
    }
  }
  return {
    requests: requests.length,
    failedRequests: requests.filter((r) => r.status !== 200).length,
    requestsOverBudget: requests.filter((r) => r.promptTokens > promptMax).length,
    largestPromptTokens: Math.max(0, ...requests.map((r) => r.promptTokens)),
    toolMessages,
    toolMessagesOverBudget,
    largestToolMessageTokens,
    requestsWithBrokenPairs: requests.filter((r) => !wire.pairsIntact(r.body)).length,
    summaryRequests: requests.filter((r) => toolsBound(r.body) === 0).length,
    summaryRequestsWithToolResults: requests.filter((r) => toolsBound(r.body) === 0 && wire.toolTexts(r.body).length > 0).length,
  };
}
