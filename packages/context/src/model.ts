/** A JSON value (tool call arguments, tool input schemas). */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** One tool call an assistant message makes. */
export interface ToolCall {
  readonly id: string;
  readonly name: string;
  readonly args: JsonValue;
}

/** A provider-neutral chat message. */
export type Message =
  | { readonly role: 'system'; readonly text: string }
  | { readonly role: 'user'; readonly text: string }
  | { readonly role: 'assistant'; readonly text: string; readonly toolCalls?: readonly ToolCall[] }
  | { readonly role: 'tool'; readonly toolCallId: string; readonly name: string; readonly text: string };

/** A tool offered to the model, sent with every request. */
export interface ToolDefinition {
  readonly name: string;
  readonly description?: string;
  readonly inputSchema?: JsonValue;
}

/** What is sent to the model: the system prompt, the tools and the conversation. */
export interface ContextRequest {
  readonly system: string;
  readonly tools: readonly ToolDefinition[];
  readonly messages: readonly Message[];
}

export interface ContextBudget {
  /** The model's context window, in tokens. */
  readonly maxContextTokens: number;
  /** Tokens kept free for the model's answer. */
  readonly reservedOutputTokens: number;
  /** The most recent messages kept verbatim whenever they fit (the window widens to keep tool call pairs). */
  readonly minMessagesToKeep: number;
  /** 0..0.5, share added to every count for tokenizers that differ from ours. */
  readonly safetyMargin: number;
  /** The latest user text (a pasted log) is capped at this many tokens when the request does not fit. */
  readonly userTextMaxTokens: number;
  /** The most recent tool results kept intact when older ones are cleared. */
  readonly toolResultKeepRecent: number;
}

export const DEFAULT_SAFETY_MARGIN = 0.1;

/**
 * Per-provider defaults. Anthropic's tokenizer is not ours (cl100k) and counts noticeably more for code and
 * JSON, hence its larger margin. `rules` is the offline rule-based agent (no model), with the design note's
 * small MAX_CONTEXT_TOKENS of 20,000.
 */
export const CONTEXT_DEFAULTS: Readonly<Record<'openai' | 'anthropic' | 'rules', ContextBudget>> = {
  openai: {
    maxContextTokens: 128_000,
    reservedOutputTokens: 4096,
    minMessagesToKeep: 2,
    safetyMargin: DEFAULT_SAFETY_MARGIN,
    userTextMaxTokens: 8000,
    toolResultKeepRecent: 2,
  },
  anthropic: {
    maxContextTokens: 200_000,
    reservedOutputTokens: 4096,
    minMessagesToKeep: 2,
    safetyMargin: 0.2,
    userTextMaxTokens: 8000,
    toolResultKeepRecent: 2,
  },
  rules: {
    maxContextTokens: 20_000,
    reservedOutputTokens: 1024,
    minMessagesToKeep: 2,
    safetyMargin: DEFAULT_SAFETY_MARGIN,
    userTextMaxTokens: 4000,
    toolResultKeepRecent: 2,
  },
};
