import type { TrimKind } from '@flotilla/metrics';
import { clampMargin, fixedTokens, messageTokens, withMargin, type Counter } from './count.js';
import { CONTEXT_DEFAULTS, type ContextBudget, type ContextRequest, type Message, type ToolCall, type ToolDefinition } from './model.js';

/** The summary of older turns is capped at this many tokens. */
export const SUMMARY_MAX_TOKENS = 400;
/** A message's text is never truncated below this many tokens (plus the truncation note). */
export const MIN_MESSAGE_TEXT_TOKENS = 8;
/** One summary line per older turn is capped at this many characters. */
const SUMMARY_LINE_CHARS = 160;

export const SUMMARY_PREFIX = 'Summary of earlier conversation:';
export const NO_RESULT_TEXT = '[no result recorded]';
export const TRUNCATED_NOTE = '\n[truncated to fit the context]';
export const clearedResultText = (tokens: number): string =>
  `[result cleared to fit the context: ${tokens} tokens; call the tool again if needed]`;
const cappedUserNote = (kept: number, total: number): string =>
  `\n[pasted text truncated to fit the context: kept ${kept} of ${total} tokens]`;

export interface Trim {
  readonly kind: TrimKind;
  readonly tokensSaved: number;
}

export interface FitResult {
  /** The request to send: the system prompt and tools unchanged, the messages trimmed. */
  readonly request: ContextRequest;
  /** Its size by countRequest with the budget's margin. */
  readonly tokens: number;
  /** What was done, at most one entry per kind, in the order first applied. */
  readonly trims: readonly Trim[];
  /** True when even the smallest request does not fit (system + tools + reserved output exceed the window). */
  readonly overBudget: boolean;
}

export interface FitOptions {
  /** Summarises older turns (e.g. an LLM summary made earlier); default extractive. May be called more than once. */
  readonly summarise?: (messages: readonly Message[]) => string;
}

// ---------------------------------------------------------------------------------------------------------------
// Input hygiene: types say what comes in, but a request read from storage may be anything; never throw.

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;
function str(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return value;
    case 'number':
    case 'boolean':
    case 'bigint':
      return `${value}`;
    case 'function':
    case 'object':
    case 'symbol':
    case 'undefined':
      return '';
  }
}

function normaliseCall(call: unknown): ToolCall | undefined {
  if (!isObject(call)) return undefined;
  if (typeof call.id === 'string' && typeof call.name === 'string') return call as unknown as ToolCall;
  return { id: str(call.id), name: str(call.name), args: (call.args ?? null) as ToolCall['args'] };
}

function normaliseMessage(value: unknown): Message | undefined {
  if (!isObject(value)) return undefined;
  const text = value.text;
  switch (value.role) {
    case 'system':
    case 'user':
      return typeof text === 'string' ? (value as unknown as Message) : { role: value.role, text: str(text) };
    case 'assistant': {
      const calls = value.toolCalls;
      if (calls === undefined || calls === null) return typeof text === 'string' ? (value as unknown as Message) : { role: 'assistant', text: str(text) };
      const list = Array.isArray(calls) ? calls.map(normaliseCall).filter((c): c is ToolCall => c !== undefined) : [];
      const same = typeof text === 'string' && Array.isArray(calls) && list.length === calls.length && list.every((c, i) => c === calls[i]);
      return same ? (value as unknown as Message) : { role: 'assistant', text: str(text), toolCalls: list };
    }
    case 'tool':
      return typeof text === 'string' && typeof value.toolCallId === 'string' && typeof value.name === 'string'
        ? (value as unknown as Message)
        : { role: 'tool', toolCallId: str(value.toolCallId), name: str(value.name), text: str(text) };
    default:
      return undefined;
  }
}

function normaliseRequest(request: unknown): ContextRequest {
  const r = isObject(request) ? request : {};
  const tools = Array.isArray(r.tools) ? (r.tools.filter(isObject) as unknown as ToolDefinition[]) : [];
  const messages = Array.isArray(r.messages) ? r.messages.map(normaliseMessage).filter((m): m is Message => m !== undefined) : [];
  return { system: str(r.system), tools, messages };
}

function int(value: unknown, fallback: number, min: number): number {
  return typeof value === 'number' && Number.isFinite(value) ? Math.max(min, Math.floor(value)) : fallback;
}

/** A budget with every field usable (non-numbers take the OpenAI defaults). */
export function normaliseBudget(budget: Partial<ContextBudget> | undefined): ContextBudget {
  const d = CONTEXT_DEFAULTS.openai;
  const b = budget ?? {};
  return {
    maxContextTokens: int(b.maxContextTokens, d.maxContextTokens, 0),
    reservedOutputTokens: int(b.reservedOutputTokens, d.reservedOutputTokens, 0),
    minMessagesToKeep: int(b.minMessagesToKeep, d.minMessagesToKeep, 1),
    safetyMargin: clampMargin(b.safetyMargin ?? d.safetyMargin),
    userTextMaxTokens: int(b.userTextMaxTokens, d.userTextMaxTokens, MIN_MESSAGE_TEXT_TOKENS),
    toolResultKeepRecent: int(b.toolResultKeepRecent, d.toolResultKeepRecent, 0),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Tool call pairs.

const callsOf = (message: Message): readonly ToolCall[] => (message.role === 'assistant' ? (message.toolCalls ?? []) : []);

/**
 * Every tool call answered by a tool result right after its assistant message, every tool result answering a
 * call: orphan results are dropped, a call without result gets a synthetic "[no result recorded]" result.
 */
export function repairToolPairs(messages: readonly Message[]): { messages: Message[]; repaired: number } {
  const out: Message[] = [];
  let repaired = 0;
  let i = 0;
  while (i < messages.length) {
    const message = messages[i] as Message;
    i += 1;
    if (message.role === 'tool') {
      repaired += 1; // a result with no call before it
      continue;
    }
    out.push(message);
    const calls = callsOf(message);
    if (calls.length === 0) continue;
    const pending = new Map<string, string>();
    for (const call of calls) if (!pending.has(call.id)) pending.set(call.id, call.name);
    while (i < messages.length && (messages[i] as Message).role === 'tool') {
      const result = messages[i] as Extract<Message, { role: 'tool' }>;
      i += 1;
      if (pending.has(result.toolCallId)) {
        pending.delete(result.toolCallId);
        out.push(result);
      } else repaired += 1;
    }
    for (const [id, name] of pending) {
      out.push({ role: 'tool', toolCallId: id, name, text: NO_RESULT_TEXT });
      repaired += 1;
    }
  }
  return { messages: out, repaired };
}

const withText = (message: Message, text: string): Message => ({ ...message, text });

/** Whether an assistant turn carries nothing: no text (or only whitespace) and no tool call. */
export const isEmptyTurn = (message: Message): boolean => message.role === 'assistant' && message.text.trim() === '' && (message.toolCalls?.length ?? 0) === 0;

/**
 * The conversation without empty assistant turns, and without whitespace-only text beside tool calls. Anthropic
 * refuses every request that carries one (400 invalid_request_error: "all messages must have non-empty content
 * except for the optional final assistant message", "text content blocks must contain non-whitespace text"), so
 * one kept in a history fails every later turn; and it tells no model anything. Dropping one never splits a tool
 * call from its result, and the consecutive user turns it may leave are accepted by both APIs (Anthropic combines
 * consecutive same-role turns into one, OpenAI takes them as they are): nothing needs filling in its place.
 */
export function dropEmptyTurns(messages: readonly Message[]): { messages: readonly Message[]; dropped: number } {
  const blank = (m: Message): boolean => m.role === 'assistant' && m.text !== '' && m.text.trim() === '';
  if (!messages.some((m) => isEmptyTurn(m) || blank(m))) return { messages, dropped: 0 };
  const out: Message[] = [];
  for (const message of messages) {
    if (isEmptyTurn(message)) continue;
    // LangChain sends an assistant turn with text '' and tool calls as tool_use blocks alone; any other text as a block.
    out.push(blank(message) ? withText(message, '') : message);
  }
  return { messages: out, dropped: messages.length - out.length };
}

/** Whether a kept window may start at index i (never between a tool call and its results). */
const isBoundary = (messages: readonly Message[], i: number): boolean => i >= messages.length || (messages[i] as Message).role !== 'tool';

// ---------------------------------------------------------------------------------------------------------------
// Summaries.

function firstSentence(text: string): string {
  const line = text.trim().split('\n', 1)[0]?.trim() ?? '';
  const sentence = /^.*?[.!?](?=\s|$)/u.exec(line)?.[0] ?? line;
  return sentence.length > SUMMARY_LINE_CHARS ? `${sentence.slice(0, SUMMARY_LINE_CHARS - 1)}…` : sentence;
}

/**
 * The default summariser: extractive, offline; the first sentence of each older turn. Tool results are left out:
 * the summary is a user message, and upstream data must reach the model only as a tool result, never as user text
 * (it may carry instructions). What they said survives in the assistant's answers, and which tools were called.
 */
export function extractiveSummary(messages: readonly Message[]): string {
  const lines: string[] = [];
  for (const message of messages) {
    const gist = firstSentence(message.text);
    switch (message.role) {
      case 'system':
      case 'user':
        if (gist) lines.push(`- ${message.role}: ${gist}`);
        break;
      case 'assistant': {
        const calls = (message.toolCalls ?? []).map((c) => c.name);
        const called = calls.length > 0 ? ` (called ${calls.join(', ')})` : '';
        if (gist || called) lines.push(`- assistant: ${gist}${called}`);
        break;
      }
      case 'tool':
        break;
    }
  }
  return lines.join('\n');
}

// ---------------------------------------------------------------------------------------------------------------
// Fitting.

/** A counter that remembers counts of texts it has seen (a fit recounts the same texts many times). */
function memoCounter(counter: Counter): Counter {
  const seen = new Map<string, number>();
  return {
    count(text) {
      let n = seen.get(text);
      if (n === undefined) {
        n = counter.count(text);
        seen.set(text, n);
      }
      return n;
    },
    truncate: (text, maxTokens) => counter.truncate(text, maxTokens),
  };
}

/** Largest n in [lo, hi] with ok(n), assuming ok is monotone; undefined when ok(lo) fails. */
function largest(lo: number, hi: number, ok: (n: number) => boolean): number | undefined {
  if (hi < lo || !ok(lo)) return undefined;
  let good = lo;
  let bad = hi + 1;
  while (bad - good > 1) {
    const mid = Math.floor((good + bad) / 2);
    if (ok(mid)) good = mid;
    else bad = mid;
  }
  return good;
}

/**
 * Trims a request until system + tool definitions + history + reserved output fit the context window:
 * (1) cap the latest user text; (2) clear old tool results, keeping the most recent ones; (3) compress older
 * turns into one summary, keeping at least the newest `minMessagesToKeep` messages verbatim; (4) tool calls and
 * their results always stay together (orphans are repaired first); (5) truncate the largest remaining texts,
 * then drop the oldest turns. Never throws; when nothing fits, returns the smallest request with `overBudget`.
 */
export function fitRequest(counter: Counter, request: ContextRequest, budget: ContextBudget, options: FitOptions = {}): FitResult {
  const c = memoCounter(counter);
  const input = normaliseRequest(request);
  const b = normaliseBudget(budget);
  const available = b.maxContextTokens - b.reservedOutputTokens;
  const fixed = fixedTokens(c, input.system, input.tools);
  const sizeOf = (messages: readonly Message[]): number => {
    let raw = fixed;
    for (const m of messages) raw += messageTokens(c, m);
    return withMargin(raw, b.safetyMargin);
  };
  const fits = (messages: readonly Message[]): boolean => sizeOf(messages) <= available;

  const saved = new Map<TrimKind, number>();
  const note = (kind: TrimKind, before: readonly Message[], after: readonly Message[]): void => {
    saved.set(kind, (saved.get(kind) ?? 0) + Math.max(0, sizeOf(before) - sizeOf(after)));
  };

  // (4) first: a request with broken pairs (or an empty turn) is rejected by a provider, whatever its size.
  const empty = dropEmptyTurns(input.messages);
  if (empty.messages !== input.messages) note('empty_turns_dropped', input.messages, empty.messages);
  const repair = repairToolPairs(empty.messages);
  let messages = repair.messages;
  if (repair.repaired > 0) note('orphans_repaired', empty.messages, messages);

  // (1) the latest user text, typically a pasted log.
  if (!fits(messages)) {
    const last = messages.findLastIndex((m) => m.role === 'user');
    const target = messages[last];
    const total = target === undefined ? 0 : c.count(target.text);
    if (target !== undefined && total > b.userTextMaxTokens) {
      const capped = c.truncate(target.text, b.userTextMaxTokens);
      const next = messages.with(last, withText(target, capped + cappedUserNote(c.count(capped), total)));
      note('user_text_capped', messages, next);
      messages = next;
    }
  }

  // The protected window: the newest minMessagesToKeep messages, widened to a pair boundary.
  const protectedStart = (list: readonly Message[]): number => {
    let start = Math.max(0, list.length - b.minMessagesToKeep);
    while (start > 0 && !isBoundary(list, start)) start -= 1;
    return start;
  };

  // (2) old tool results, oldest first, keeping the most recent ones and the protected window.
  if (!fits(messages)) {
    const start = protectedStart(messages);
    const results = messages.flatMap((m, i) => (m.role === 'tool' ? [i] : []));
    const clearable = results.slice(0, Math.max(0, results.length - b.toolResultKeepRecent)).filter((i) => i < start);
    const before = messages;
    for (const i of clearable) {
      if (fits(messages)) break;
      const result = messages[i] as Message;
      const tokens = c.count(result.text);
      const cleared = clearedResultText(tokens);
      if (c.count(cleared) >= tokens) continue;
      messages = messages.with(i, withText(result, cleared));
    }
    if (messages !== before) note('tool_results_cleared', before, messages);
  }

  // (3) older turns into one summary; the kept window starts at a pair boundary no later than the protected one.
  if (!fits(messages)) {
    const start = protectedStart(messages);
    const summarise = options.summarise ?? extractiveSummary;
    const summaryOf = (older: readonly Message[], maxTokens: number): Message => {
      let body: string;
      try {
        body = str(summarise(older));
      } catch {
        body = extractiveSummary(older);
      }
      return { role: 'user', text: `${SUMMARY_PREFIX}\n${c.truncate(body, maxTokens)}` };
    };
    let next: Message[] | undefined;
    for (let cut = 1; cut <= start && next === undefined; cut += 1) {
      if (!isBoundary(messages, cut)) continue;
      const candidate = [summaryOf(messages.slice(0, cut), SUMMARY_MAX_TOKENS), ...messages.slice(cut)];
      if (fits(candidate)) next = candidate;
    }
    if (next === undefined && start > 0) {
      const kept = messages.slice(start);
      const older = messages.slice(0, start);
      const size = largest(MIN_MESSAGE_TEXT_TOKENS, SUMMARY_MAX_TOKENS, (n) => fits([summaryOf(older, n), ...kept]));
      next = size === undefined ? kept : [summaryOf(older, size), ...kept];
    }
    if (next !== undefined) {
      note('turns_summarised', messages, next);
      messages = next;
    }
  }

  // (5) still over (one huge recent message): truncate the largest texts, never below a minimal message.
  const noteTokens = c.count(TRUNCATED_NOTE);
  for (let guard = messages.length * 2 + 2; guard > 0 && !fits(messages); guard -= 1) {
    let index = -1;
    let most = MIN_MESSAGE_TEXT_TOKENS + noteTokens;
    messages.forEach((m, i) => {
      const n = c.count(m.text);
      if (n > most) {
        most = n;
        index = i;
      }
    });
    const target = messages[index];
    if (target === undefined) break;
    const current = messages;
    const cut = (n: number): Message[] => current.with(index, withText(target, c.truncate(target.text, n) + TRUNCATED_NOTE));
    const size = largest(MIN_MESSAGE_TEXT_TOKENS, most - noteTokens - 1, (n) => fits(cut(n))) ?? MIN_MESSAGE_TEXT_TOKENS;
    const next = cut(size);
    note(kindOfText(target), messages, next);
    messages = next;
  }

  // Last resort: drop the oldest turns (whole pairs), keeping the newest.
  if (!fits(messages)) {
    const before = messages;
    while (!fits(messages)) {
      let cut = 1;
      while (cut < messages.length && !isBoundary(messages, cut)) cut += 1;
      if (cut >= messages.length) break;
      messages = messages.slice(cut);
    }
    if (messages !== before) note('turns_summarised', before, messages);
  }

  const tokens = sizeOf(messages);
  return {
    request: { system: input.system, tools: input.tools, messages },
    tokens,
    trims: [...saved].map(([kind, tokensSaved]) => ({ kind, tokensSaved })),
    overBudget: tokens > available,
  };
}

/** The trim kind a truncated message counts as. */
function kindOfText(message: Message): TrimKind {
  switch (message.role) {
    case 'tool':
      return 'tool_results_cleared';
    case 'user':
      return 'user_text_capped';
    case 'system':
    case 'assistant':
      return 'turns_summarised';
  }
}
