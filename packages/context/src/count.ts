import type { TokenCounter } from '@flotilla/tokens';
import { DEFAULT_SAFETY_MARGIN, type ContextRequest, type JsonValue, type Message, type ToolDefinition } from './model.js';

/** Per-message framing (role, separators), as chat formats add around every message. */
export const MESSAGE_OVERHEAD_TOKENS = 4;
/** Framing of one tool call inside an assistant message. */
export const TOOL_CALL_OVERHEAD_TOKENS = 4;
/** Framing of one tool definition. */
export const TOOL_DEFINITION_OVERHEAD_TOKENS = 8;
/** Tokens that prime the model's reply. */
export const REPLY_PRIMING_TOKENS = 3;

/** The part of a counter the context code uses. */
export type Counter = Pick<TokenCounter, 'count' | 'truncate'>;

/** JSON text of a value; never throws (cycles, BigInt), falling back to String(). */
export function jsonText(value: JsonValue | ToolDefinition | undefined): string {
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    return '';
  }
}

/** A margin clamped to 0..0.5 (non-numbers take the default). */
export function clampMargin(margin: number): number {
  if (typeof margin !== 'number' || !Number.isFinite(margin)) return DEFAULT_SAFETY_MARGIN;
  return Math.min(0.5, Math.max(0, margin));
}

/** Raw tokens of one message, before the margin. */
export function messageTokens(counter: Counter, message: Message): number {
  let total = MESSAGE_OVERHEAD_TOKENS + counter.count(message.text);
  if (message.role === 'assistant') {
    for (const call of message.toolCalls ?? []) {
      total += TOOL_CALL_OVERHEAD_TOKENS + counter.count(call.id) + counter.count(call.name) + counter.count(jsonText(call.args));
    }
  } else if (message.role === 'tool') {
    total += counter.count(message.toolCallId) + counter.count(message.name);
  }
  return total;
}

/** Raw tokens of the system prompt and tool definitions, before the margin. */
export function fixedTokens(counter: Counter, system: string, tools: readonly ToolDefinition[]): number {
  let total = REPLY_PRIMING_TOKENS;
  if (system.length > 0) total += MESSAGE_OVERHEAD_TOKENS + counter.count(system);
  for (const tool of tools) total += TOOL_DEFINITION_OVERHEAD_TOKENS + counter.count(jsonText(tool));
  return total;
}

/** Raw tokens times (1 + margin), rounded up. */
export function withMargin(raw: number, margin: number): number {
  return Math.ceil(raw * (1 + clampMargin(margin)));
}

/**
 * Token-exact size of a request: every message's framing, text and tool call JSON, the system prompt and the
 * tool definitions' JSON, times (1 + margin) for tokenizers that count more than ours.
 */
export function countRequest(counter: Counter, request: ContextRequest, margin: number = DEFAULT_SAFETY_MARGIN): number {
  let raw = fixedTokens(counter, request.system, request.tools);
  for (const message of request.messages) raw += messageTokens(counter, message);
  return withMargin(raw, margin);
}
