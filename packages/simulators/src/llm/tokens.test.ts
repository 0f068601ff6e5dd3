import { loadTokenCounter } from '@flotilla/tokens';
import { describe, expect, it } from 'vitest';
import type { ScriptInput } from './script.js';
import { countPromptTokens, countReplyTokens, TOKENS_PER_MESSAGE } from './tokens.js';

describe('countPromptTokens', () => {
  it('counts system, texts, tool calls, tool results and tool definitions, plus 4 per message', async () => {
    const counter = await loadTokenCounter();
    const parameters = { type: 'object', properties: { city: { type: 'string' } } };
    const input: Pick<ScriptInput, 'system' | 'messages' | 'tools'> = {
      system: 'You are terse.',
      messages: [
        { role: 'user', text: 'Weather in Paris?' },
        { role: 'assistant', text: 'Checking.', toolCalls: [{ id: 'call_1', name: 'get_weather', args: { city: 'Paris' } }] },
        { role: 'tool', toolCallId: 'call_1', text: '18C and sunny' },
      ],
      tools: [{ name: 'get_weather', description: 'Weather of a city', parameters }],
    };
    const expected =
      4 * TOKENS_PER_MESSAGE +
      counter.count('You are terse.') +
      counter.count('Weather in Paris?') +
      counter.count('Checking.') +
      counter.count('get_weather') +
      counter.count('{"city":"Paris"}') +
      counter.count('18C and sunny') +
      counter.count(JSON.stringify({ name: 'get_weather', description: 'Weather of a city', parameters }));
    expect(countPromptTokens(counter, input)).toBe(expected);
    expect(countPromptTokens(counter, { system: '', messages: [], tools: [] })).toBe(0);
    expect(countPromptTokens(counter, { system: '', messages: [{ role: 'user', text: '' }], tools: [] })).toBe(TOKENS_PER_MESSAGE);
  });

  it('counts a reply as its text plus each tool call name and JSON arguments', async () => {
    const counter = await loadTokenCounter();
    expect(countReplyTokens(counter, 'Hello there', [{ name: 'f', args: { a: 1 } }])).toBe(counter.count('Hello there') + counter.count('f') + counter.count('{"a":1}'));
  });
});
