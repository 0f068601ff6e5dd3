import type { TokenCounter } from '@flotilla/tokens';
import type { ScriptedToolCall, ScriptInput } from './script.js';

/** Tokens added for each message (the system text counts as one message when there is any). */
export const TOKENS_PER_MESSAGE = 4;

const json = (value: unknown): string => JSON.stringify(value) ?? '';

/**
 * The simulator's own count of a prompt, independent of whatever the client believes it sent: every system
 * text, every message's text, every tool call's name and JSON arguments, every tool result text and every tool
 * definition as JSON (`{name, description, parameters}`), plus TOKENS_PER_MESSAGE per message. The same for
 * both providers, since it is taken over the provider-neutral view.
 */
export function countPromptTokens(counter: TokenCounter, input: Pick<ScriptInput, 'system' | 'messages' | 'tools'>): number {
  let total = input.system.length > 0 ? TOKENS_PER_MESSAGE + counter.count(input.system) : 0;
  for (const message of input.messages) {
    total += TOKENS_PER_MESSAGE + counter.count(message.text);
    if (message.role === 'assistant') {
      for (const call of message.toolCalls) total += counter.count(call.name) + counter.count(json(call.args));
    }
  }
  for (const tool of input.tools) total += counter.count(json({ name: tool.name, description: tool.description, parameters: tool.parameters }));
  return total;
}

/** Tokens of a reply: its text, and each tool call's name and JSON arguments. */
export function countReplyTokens(counter: TokenCounter, text: string, toolCalls: readonly ScriptedToolCall[]): number {
  let total = counter.count(text);
  for (const call of toolCalls) total += counter.count(call.name) + counter.count(json(call.args));
  return total;
}
