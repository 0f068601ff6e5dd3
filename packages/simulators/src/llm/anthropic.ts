import type { Response } from 'express';
import { z } from 'zod';
import { LLM_SIM_LIMITS, type FakeLlmOptions } from './options.js';
import type { ScriptMessage, ScriptInput } from './script.js';
import {
  isMissing,
  jsonPieces,
  startFakeLlm,
  streamPieces,
  writeSse,
  type Completion,
  type ErrorReply,
  type LlmError,
  type LlmProvider,
  type ParsedLlmRequest,
  type RunningFakeLlm,
  type StopReason,
} from './server.js';

// Request schema: tolerant of fields we do not model (temperature, tool_choice, cache_control, ...), strict on
// what we read.
const ID_PATTERN = /^[a-zA-Z0-9_-]+$/;
const id = z.string().regex(ID_PATTERN, "String should match pattern '^[a-zA-Z0-9_-]+$'");
const TextBlock = z.looseObject({ type: z.literal('text'), text: z.string() });
const ImageBlock = z.looseObject({ type: z.literal('image') });
const ToolUseBlock = z.looseObject({ type: z.literal('tool_use'), id, name: z.string().min(1), input: z.record(z.string(), z.unknown()) });
const ToolResultBlock = z.looseObject({
  type: z.literal('tool_result'),
  tool_use_id: id,
  content: z.union([z.string(), z.array(z.discriminatedUnion('type', [TextBlock, ImageBlock])).max(LLM_SIM_LIMITS.parts)]).optional(),
  is_error: z.boolean().optional(),
});
const OtherBlock = z.looseObject({ type: z.enum(['document', 'thinking', 'redacted_thinking']) });
const Block = z.discriminatedUnion('type', [TextBlock, ImageBlock, ToolUseBlock, ToolResultBlock, OtherBlock]);
const Message = z.looseObject({ role: z.enum(['user', 'assistant']), content: z.union([z.string(), z.array(Block).max(LLM_SIM_LIMITS.parts)]) });
const Tool = z.looseObject({
  name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, "String should match pattern '^[a-zA-Z0-9_-]{1,64}$'"),
  description: z.string().optional(),
  input_schema: z.record(z.string(), z.unknown()),
});
const MessagesRequest = z.looseObject({
  model: z.string(),
  max_tokens: z.number().int().min(1),
  system: z.union([z.string(), z.array(TextBlock).max(LLM_SIM_LIMITS.parts)]).optional(),
  messages: z.array(Message).max(LLM_SIM_LIMITS.messages),
  tools: z.array(Tool).max(LLM_SIM_LIMITS.tools).optional(),
  stream: z.boolean().optional(),
});
type MessagesRequest = z.infer<typeof MessagesRequest>;
type Message = z.infer<typeof Message>;

const STOP: Record<StopReason, string> = { end: 'end_turn', tool_use: 'tool_use', max_tokens: 'max_tokens' };

const invalid = (message: string): LlmError => ({ kind: 'invalid_request', message });

const EXPECTED: Record<string, string> = { string: 'a valid string', array: 'a valid list', object: 'a valid dictionary', number: 'a valid number', boolean: 'a valid boolean' };

/** A zod issue in the API's (pydantic's) words: "max_tokens: Field required", "messages.0.content: Input should be a valid list". */
function describeIssue(body: unknown, issue: z.core.$ZodIssue): LlmError {
  const where = issue.path.map(String).join('.');
  if (isMissing(body, issue.path)) return invalid(`${where}: Field required`);
  if (issue.code === 'invalid_type') return invalid(`${where}: Input should be ${EXPECTED[issue.expected] ?? `a valid ${issue.expected}`}`);
  return invalid(`${where}: ${issue.message}`);
}

const blocks = (message: Message): readonly z.infer<typeof Block>[] => (typeof message.content === 'string' ? [] : message.content);

/** One turn as the API reads it: consecutive messages of one role combined, with the index of the first. */
interface Turn {
  readonly index: number;
  readonly role: Message['role'];
  readonly blocks: readonly z.infer<typeof Block>[];
}

function turnsOf(messages: readonly Message[]): Turn[] {
  const turns: { index: number; role: Message['role']; blocks: z.infer<typeof Block>[] }[] = [];
  for (const [index, message] of messages.entries()) {
    const content = typeof message.content === 'string' ? [{ type: 'text' as const, text: message.content }] : message.content;
    const previous = turns[turns.length - 1];
    if (previous?.role === message.role) previous.blocks.push(...content);
    else turns.push({ index, role: message.role, blocks: [...content] });
  }
  return turns;
}

const blank = (b: z.infer<typeof Block>): boolean => b.type === 'text' && b.text.trim() === '';

/**
 * The API's rules beyond the schema, as it answers them (400 invalid_request_error): every message but an optional
 * final assistant one has content, no text block is empty, a message whose text is only whitespace is refused, and
 * each `tool_use` is answered by a `tool_result` in the turn right after it (and every `tool_result` answers one in
 * the turn before). What it does not refuse, the fake does not either: consecutive messages of one role are combined
 * into one turn (the SDK's documentation of `messages`), and a first message from the assistant is accepted by
 * Anthropic's own API (Bedrock's refuses it: "first message must use the \"user\" role").
 */
function checkMessages(messages: readonly Message[]): LlmError | undefined {
  if (messages.length === 0) return invalid('messages: at least one message is required');
  for (const [index, message] of messages.entries()) {
    const final = index === messages.length - 1 && message.role === 'assistant';
    if (!final && message.content.length === 0) return invalid(`messages.${index}: all messages must have non-empty content except for the optional final assistant message`);
    if (blocks(message).some((b) => b.type === 'text' && b.text === '')) return invalid('messages: text content blocks must be non-empty');
    const content = typeof message.content === 'string' ? [{ type: 'text' as const, text: message.content }] : message.content;
    if (!final && content.length > 0 && content.every(blank)) return invalid('messages: text content blocks must contain non-whitespace text');
  }
  const turns = turnsOf(messages);
  for (const [t, turn] of turns.entries()) {
    const next = turns[t + 1];
    const results = new Set(next?.role === 'user' ? next.blocks.flatMap((b) => (b.type === 'tool_result' ? [b.tool_use_id] : [])) : []);
    const unanswered = turn.role === 'assistant' ? turn.blocks.flatMap((b) => (b.type === 'tool_use' && !results.has(b.id) ? [b.id] : [])) : [];
    if (unanswered.length > 0) {
      return invalid(
        `messages.${turn.index}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${unanswered.join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`,
      );
    }
    const previous = turns[t - 1];
    const uses = new Set(previous?.role === 'assistant' ? previous.blocks.flatMap((b) => (b.type === 'tool_use' ? [b.id] : [])) : []);
    for (const [j, block] of turn.blocks.entries()) {
      if (turn.role === 'user' && block.type === 'tool_result' && !uses.has(block.tool_use_id)) {
        return invalid(
          `messages.${turn.index}.content.${j}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${block.tool_use_id}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`,
        );
      }
    }
  }
  return undefined;
}

const texts = (content: string | readonly { type: string; text?: unknown }[] | undefined): string =>
  content === undefined ? '' : typeof content === 'string' ? content : content.flatMap((b) => (b.type === 'text' && typeof b.text === 'string' ? [b.text] : [])).join('\n');

function toInput(request: MessagesRequest): ScriptInput {
  const messages: ScriptMessage[] = [];
  for (const message of request.messages) {
    if (message.role === 'assistant') {
      const toolCalls = blocks(message).flatMap((b) => (b.type === 'tool_use' ? [{ id: b.id, name: b.name, args: b.input }] : []));
      messages.push({ role: 'assistant', text: texts(message.content), toolCalls });
      continue;
    }
    // A user message's tool results become tool messages; its text (if any) a user message after them.
    for (const block of blocks(message)) {
      if (block.type === 'tool_result') messages.push({ role: 'tool', toolCallId: block.tool_use_id, text: texts(block.content) });
    }
    const text = texts(message.content);
    if (typeof message.content === 'string' || blocks(message).some((b) => b.type === 'text')) messages.push({ role: 'user', text });
  }
  return {
    model: request.model,
    system: texts(request.system),
    messages,
    tools: (request.tools ?? []).map((t) => ({ name: t.name, description: t.description ?? '', parameters: t.input_schema })),
    maxTokens: request.max_tokens,
  };
}

const error = (type: string, message: string): { type: 'error'; error: { type: string; message: string } } => ({ type: 'error', error: { type, message } });

/** The one table from neutral errors to Anthropic's statuses and bodies. */
function errorReply(e: LlmError): ErrorReply {
  switch (e.kind) {
    case 'unauthenticated':
      return { status: 401, body: error('authentication_error', e.presented === undefined ? 'x-api-key header is required' : 'invalid x-api-key') };
    case 'invalid_request':
      return { status: 400, body: error('invalid_request_error', e.message) };
    case 'invalid_json':
      return { status: 400, body: error('invalid_request_error', 'There was an issue with the JSON body of your request: it is not valid JSON.') };
    case 'body_too_large':
      return { status: 413, body: error('request_too_large', 'Request exceeds the maximum allowed number of bytes.') };
    case 'context_too_long':
      return { status: 400, body: error('invalid_request_error', `prompt is too long: ${e.promptTokens} tokens > ${e.contextWindow} maximum`) };
    case 'rate_limited':
      return {
        status: 429,
        body: error(
          'rate_limit_error',
          'This request would exceed the rate limit for your organization of requests per minute. For details, refer to: https://docs.claude.com/en/api/rate-limits. You can see the response headers for current usage.',
        ),
      };
    case 'server_error':
      if (e.status === 529) return { status: 529, body: error('overloaded_error', 'Overloaded') };
      return { status: e.status, body: error('api_error', e.status === 500 ? 'Internal server error' : 'Service unavailable') };
    case 'not_found':
      return { status: 404, body: error('not_found_error', 'Not Found') };
  }
}

const usage = (c: Completion, outputTokens: number): Record<string, unknown> => ({
  input_tokens: c.promptTokens,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 0,
  output_tokens: outputTokens,
  service_tier: 'standard',
});

function send(res: Response, c: Completion, request: ParsedLlmRequest): void {
  const withText = c.text !== '' || c.toolCalls.length === 0;
  const message = { id: c.id, type: 'message', role: 'assistant', model: c.model };
  if (!request.stream) {
    const content = [
      ...(withText ? [{ type: 'text', text: c.text }] : []),
      ...c.toolCalls.map((call) => ({ type: 'tool_use', id: call.id, name: call.name, input: call.args })),
    ];
    res.status(200).json({ ...message, content, stop_reason: STOP[c.stop], stop_sequence: null, usage: usage(c, c.completionTokens) });
    return;
  }
  const events: { event: string; data: unknown }[] = [];
  const add = (event: string, data: Record<string, unknown>): void => void events.push({ event, data: { type: event, ...data } });
  // Like the API, message_start already reports an output token or so; message_delta gives the final count.
  add('message_start', { message: { ...message, content: [], stop_reason: null, stop_sequence: null, usage: usage(c, 1) } });
  let index = 0;
  if (withText) {
    add('content_block_start', { index, content_block: { type: 'text', text: '' } });
    add('ping', {});
    for (const text of streamPieces(c.text)) add('content_block_delta', { index, delta: { type: 'text_delta', text } });
    add('content_block_stop', { index });
    index += 1;
  }
  for (const call of c.toolCalls) {
    add('content_block_start', { index, content_block: { type: 'tool_use', id: call.id, name: call.name, input: {} } });
    add('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: '' } });
    for (const partial_json of jsonPieces(JSON.stringify(call.args))) add('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json } });
    add('content_block_stop', { index });
    index += 1;
  }
  add('message_delta', { delta: { stop_reason: STOP[c.stop], stop_sequence: null }, usage: { output_tokens: c.completionTokens } });
  add('message_stop', {});
  writeSse(res, events);
}

const MODELS = [
  ['claude-sonnet-4-5', 'Claude Sonnet 4.5', '2025-09-29T00:00:00Z'],
  ['claude-haiku-4-5', 'Claude Haiku 4.5', '2025-10-01T00:00:00Z'],
  ['claude-opus-4-1', 'Claude Opus 4.1', '2025-08-05T00:00:00Z'],
] as const;

export const anthropicProvider: LlmProvider = {
  name: 'anthropic',
  defaultContextWindow: 200_000,
  basePath: '',
  completionPath: '/v1/messages',
  messageIdPrefix: 'msg_sim',
  toolCallIdPrefix: 'toolu_',
  admit(req, apiKey) {
    const presented = req.headers['x-api-key'];
    const key = typeof presented === 'string' && presented !== '' ? presented : undefined;
    if (key !== apiKey) return { kind: 'unauthenticated', presented: key };
    if (req.headers['anthropic-version'] === undefined) return invalid('anthropic-version: header is required');
    return undefined;
  },
  parse(body) {
    if (body === null || typeof body !== 'object' || Array.isArray(body)) return { kind: 'invalid_json' };
    const parsed = MessagesRequest.safeParse(body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return issue === undefined ? invalid('Invalid request.') : describeIssue(body, issue);
    }
    const problem = checkMessages(parsed.data.messages);
    if (problem !== undefined) return problem;
    return { input: toInput(parsed.data), stream: parsed.data.stream === true, includeUsage: true };
  },
  errorReply,
  send,
  models: () => ({
    data: MODELS.map(([id, display_name, created_at]) => ({ type: 'model', id, display_name, created_at })),
    has_more: false,
    first_id: MODELS[0][0],
    last_id: MODELS[MODELS.length - 1]?.[0] ?? null,
  }),
};

/**
 * A fake Anthropic Messages API (`POST /v1/messages`, `GET /v1/models`) on loopback, answering from
 * `options.script` and recording every request. Give ChatAnthropic `anthropicApiUrl: sim.baseUrl`.
 */
export function startFakeAnthropic(options: FakeLlmOptions): Promise<RunningFakeLlm> {
  return startFakeLlm(anthropicProvider, options);
}
