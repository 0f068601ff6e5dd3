import { z } from 'zod';

/** One tool call a scripted model makes; the simulator gives it an id. */
export interface ScriptedToolCall {
  readonly name: string;
  readonly args: Readonly<Record<string, unknown>>;
}

/** What a scripted model answers: text, and optionally tool calls. */
export interface ScriptedReply {
  readonly text: string;
  readonly toolCalls?: readonly ScriptedToolCall[];
}

/** Provider-neutral view of what the model was sent. */
export type ScriptMessage =
  | { readonly role: 'user'; readonly text: string }
  | { readonly role: 'assistant'; readonly text: string; readonly toolCalls: readonly { id: string; name: string; args: unknown }[] }
  | { readonly role: 'tool'; readonly toolCallId: string; readonly text: string };

export interface ScriptTool {
  name: string;
  description: string;
  parameters: unknown;
}

export interface ScriptInput {
  readonly model: string;
  /** All system text joined with '\n' (OpenAI system/developer messages; Anthropic `system`). */
  readonly system: string;
  readonly messages: readonly ScriptMessage[];
  readonly tools: readonly ScriptTool[];
  readonly maxTokens: number | undefined;
}

/** The "model": given what was sent, what to answer. */
export type ChatScript = (input: ScriptInput) => ScriptedReply | Promise<ScriptedReply>;

/** Tool names of progressive capability discovery: search the catalogue, then load what was found. */
export const FIND_TOOLS = 'find_tools';
export const LOAD_TOOLS = 'load_tools';

/** Characters of the user text sent as the `find_tools` query. */
const QUERY_CHARS = 200;
/** Characters of a tool result quoted in the final answer. */
const QUOTE_CHARS = 1_500;
/** Characters of any text read for word matching (bounds the work on huge prompts). */
const MATCH_CHARS = 10_000;

export const NO_TOOLS_TEXT = 'I have no tools for that.';

const STOPWORDS = new Set(
  'a an and are as at be by do does for from get give how i in is it me my of on or please show tell that the this to what which who with you'.split(' '),
);

/** Distinct lower-case words of `text` (its first MATCH_CHARS characters), a trailing plural 's' dropped. */
function words(text: string): Set<string> {
  const out = new Set<string>();
  for (const word of text.slice(0, MATCH_CHARS).toLowerCase().split(/[^a-z0-9]+/)) {
    if (word.length < 2 || STOPWORDS.has(word)) continue;
    out.add(word.length > 3 && word.endsWith('s') && !word.endsWith('ss') ? word.slice(0, -1) : word);
  }
  return out;
}

/** The tool whose name and description share the most words with `text`; ties go to the first offered. */
export function bestTool(tools: readonly ScriptTool[], text: string): ScriptTool | undefined {
  const wanted = words(text);
  let best: ScriptTool | undefined;
  let bestScore = -1;
  for (const tool of tools) {
    let score = 0;
    for (const word of words(`${tool.name} ${tool.description}`)) if (wanted.has(word)) score += 1;
    if (score > bestScore) {
      best = tool;
      bestScore = score;
    }
  }
  return best;
}

/** The name of the tool call `id` answers, from the assistant messages before it. */
export function toolNameOf(messages: readonly ScriptMessage[], id: string): string | undefined {
  for (let i = messages.length - 1; i >= 0; i -= 1) {
    const message = messages[i];
    if (message?.role !== 'assistant') continue;
    const call = message.toolCalls.find((c) => c.id === id);
    if (call !== undefined) return call.name;
  }
  return undefined;
}

function latestUserText(messages: readonly ScriptMessage[]): string {
  for (let i = messages.length - 1; i >= 0; i -= 1) {
    const message = messages[i];
    if (message?.role === 'user') return message.text;
  }
  return '';
}

const FoundTools = z.looseObject({ matches: z.array(z.looseObject({ name: z.string() })).max(10_000) });

function parseMatches(text: string): string[] {
  try {
    const parsed = FoundTools.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data.matches.map((m) => m.name) : [];
  } catch {
    return [];
  }
}

const offers = (input: ScriptInput, name: string): boolean => input.tools.some((t) => t.name === name);
const call = (name: string, args: Record<string, unknown>): ScriptedReply => ({ text: '', toolCalls: [{ name, args }] });

function answerUser(input: ScriptInput, text: string): ScriptedReply {
  if (offers(input, FIND_TOOLS)) return call(FIND_TOOLS, { query: text.slice(0, QUERY_CHARS) });
  const tool = bestTool(input.tools, text);
  return tool === undefined ? { text: NO_TOOLS_TEXT } : call(tool.name, {});
}

function answerFound(input: ScriptInput, resultText: string): ScriptedReply {
  const names = parseMatches(resultText);
  const first = names[0];
  if (first === undefined) return { text: 'No tools matched the request.' };
  if (offers(input, LOAD_TOOLS)) return call(LOAD_TOOLS, { names: [first] });
  return { text: `Matching tools: ${names.slice(0, 10).join(', ')}.` };
}

function answerLoaded(input: ScriptInput): ScriptedReply {
  const real = input.tools.filter((t) => t.name !== FIND_TOOLS && t.name !== LOAD_TOOLS);
  const tool = bestTool(real, latestUserText(input.messages));
  return tool === undefined ? { text: 'No tools were loaded.' } : call(tool.name, {});
}

/**
 * A deterministic "model", so LLM mode can run offline end to end:
 * 1. after a user message: `find_tools` with the user text when offered, else the offered tool sharing the most
 *    words with the text (args `{}`), else "I have no tools for that.";
 * 2. after a `find_tools` result (`{"matches":[{"name":…},…]}`): `load_tools` with the first match's name;
 * 3. after a `load_tools` result: the offered real tool best matching the latest user text;
 * 4. after any other tool result: `From <tool>:\n<the result, first 1,500 characters>`.
 * It only ever calls tools the request offers.
 */
export const defaultScript: ChatScript = (input) => {
  const last = input.messages.at(-1);
  if (last === undefined) return { text: NO_TOOLS_TEXT };
  switch (last.role) {
    case 'user':
      return answerUser(input, last.text);
    case 'assistant':
      return { text: 'I have nothing to add.' };
    case 'tool': {
      const name = toolNameOf(input.messages, last.toolCallId);
      if (name === FIND_TOOLS) return answerFound(input, last.text);
      if (name === LOAD_TOOLS) return answerLoaded(input);
      return { text: `From ${name ?? 'the tool'}:\n${last.text.slice(0, QUOTE_CHARS)}` };
    }
  }
};
