import type { Request, Response } from 'express';
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

/** OpenAI's own limit on tool definitions in one request. */
const MAX_TOOLS = 128;

// Request schema: tolerant of fields we do not model (temperature, tool_choice, ...), strict on what we read.
const TextPart = z.looseObject({ type: z.literal('text'), text: z.string() });
const OtherPart = z.looseObject({ type: z.enum(['image_url', 'input_audio', 'file', 'refusal']) });
const TextContent = z.union([z.string(), z.array(TextPart).max(LLM_SIM_LIMITS.parts)]);
const Content = z.union([z.string(), z.array(z.union([TextPart, OtherPart])).max(LLM_SIM_LIMITS.parts)]);
const ToolCall = z.looseObject({
  id: z.string().min(1),
  type: z.literal('function'),
  function: z.looseObject({ name: z.string(), arguments: z.string() }),
});
const Message = z.discriminatedUnion('role', [
  z.looseObject({ role: z.enum(['system', 'developer']), content: TextContent }),
  z.looseObject({ role: z.literal('user'), content: Content }),
  z.looseObject({ role: z.literal('assistant'), content: Content.nullish(), tool_calls: z.array(ToolCall).max(LLM_SIM_LIMITS.parts).nullish() }),
  z.looseObject({ role: z.literal('tool'), content: TextContent, tool_call_id: z.string() }),
]);
const Tool = z.looseObject({
  type: z.literal('function'),
  function: z.looseObject({
    name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, "string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]{1,64}$'."),
    description: z.string().optional(),
    parameters: z.record(z.string(), z.unknown()).optional(),
  }),
});
const Tokens = z.number().int().min(1).nullish();
const ChatRequest = z.looseObject({
  model: z.string(),
  messages: z.array(Message).min(1).max(LLM_SIM_LIMITS.messages),
  tools: z.array(Tool).max(MAX_TOOLS).nullish(),
  max_tokens: Tokens,
  max_completion_tokens: Tokens,
  stream: z.boolean().nullish(),
  stream_options: z.looseObject({ include_usage: z.boolean().optional() }).nullish(),
});
type ChatRequest = z.infer<typeof ChatRequest>;
type ChatMessage = z.infer<typeof Message>;

const FINISH: Record<StopReason, string> = { end: 'stop', tool_use: 'tool_calls', max_tokens: 'length' };

const invalid = (message: string, param?: string, code?: string): LlmError => ({
  kind: 'invalid_request',
  message,
  ...(param === undefined ? {} : { param }),
  ...(code === undefined ? {} : { code }),
});

/** `messages[0].content`, as OpenAI names a parameter. */
const paramName = (path: readonly PropertyKey[]): string =>
  path.map((key, i) => (typeof key === 'number' ? `[${key}]` : `${i === 0 ? '' : '.'}${String(key)}`)).join('');

const typeName = (value: unknown): string =>
  value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value === 'object' ? 'an object' : typeof value === 'number' ? (Number.isInteger(value) ? 'an integer' : 'a decimal') : `a ${typeof value}`;

/** A zod issue in OpenAI's words ("Missing required parameter", "Invalid type for", "array too long"). */
function describeIssue(body: unknown, issue: z.core.$ZodIssue): LlmError {
  const param = paramName(issue.path);
  if (isMissing(body, issue.path)) return invalid(`Missing required parameter: '${param}'.`, param, 'missing_required_parameter');
  let value: unknown = body;
  for (const key of issue.path) value = (value as Record<PropertyKey, unknown>)[key];
  if (issue.code === 'too_big' && Array.isArray(value)) {
    return invalid(`Invalid '${param}': array too long. Expected an array with maximum length ${String(issue.maximum)}, but got an array with length ${value.length} instead.`, param, 'array_above_max_length');
  }
  if (issue.code === 'too_small' && Array.isArray(value) && value.length === 0) {
    return invalid(`Invalid '${param}': empty array. Expected an array with minimum length ${String(issue.minimum)}, but got an empty array instead.`, param, 'empty_array');
  }
  if (issue.code === 'invalid_type') return invalid(`Invalid type for '${param}': expected ${issue.expected}, but got ${typeName(value)} instead.`, param, 'invalid_type');
  return invalid(`Invalid value for '${param}': ${issue.message}`, param, 'invalid_value');
}

/**
 * The API's pairing rules: a tool message answers a tool call of the assistant message before it (tool messages
 * in between), and an assistant message with tool_calls is followed by a tool message for each of its ids.
 */
function checkToolPairing(messages: readonly ChatMessage[]): LlmError | undefined {
  let open: { index: number; ids: string[]; answered: Set<string> } | undefined;
  const unanswered = (): LlmError | undefined => {
    const missing = open?.ids.filter((id) => !open?.answered.has(id)) ?? [];
    if (open === undefined || missing.length === 0) return undefined;
    return invalid(
      `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${missing.join(', ')}`,
      `messages.[${open.index}].role`,
    );
  };
  for (const [index, message] of messages.entries()) {
    if (message.role === 'tool') {
      if (open === undefined) return invalid("Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.", `messages.[${index}].role`);
      if (!open.ids.includes(message.tool_call_id)) {
        return invalid(`Invalid parameter: 'tool_call_id' of '${message.tool_call_id}' not found in 'tool_calls' of previous message.`, `messages.[${index}].tool_call_id`);
      }
      open.answered.add(message.tool_call_id);
      continue;
    }
    const error = unanswered();
    if (error !== undefined) return error;
    const ids = message.role === 'assistant' ? (message.tool_calls ?? []).map((c) => c.id) : [];
    open = ids.length > 0 ? { index, ids, answered: new Set() } : undefined;
  }
  return unanswered();
}

function textOf(content: ChatMessage['content'] | null | undefined): string {
  if (content === null || content === undefined) return '';
  if (typeof content === 'string') return content;
  return content.flatMap((part) => (part.type === 'text' && typeof part.text === 'string' ? [part.text] : [])).join('\n');
}

function parseArguments(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text; // the API passes arguments through unparsed; so does the neutral view when they are not JSON
  }
}

function toInput(request: ChatRequest): ScriptInput {
  const system: string[] = [];
  const messages: ScriptMessage[] = [];
  for (const message of request.messages) {
    switch (message.role) {
      case 'system':
      case 'developer':
        system.push(textOf(message.content));
        break;
      case 'user':
        messages.push({ role: 'user', text: textOf(message.content) });
        break;
      case 'assistant':
        messages.push({
          role: 'assistant',
          text: textOf(message.content),
          toolCalls: (message.tool_calls ?? []).map((c) => ({ id: c.id, name: c.function.name, args: parseArguments(c.function.arguments) })),
        });
        break;
      case 'tool':
        messages.push({ role: 'tool', toolCallId: message.tool_call_id, text: textOf(message.content) });
        break;
    }
  }
  return {
    model: request.model,
    system: system.join('\n'),
    messages,
    tools: (request.tools ?? []).map((t) => ({ name: t.function.name, description: t.function.description ?? '', parameters: t.function.parameters })),
    maxTokens: request.max_completion_tokens ?? request.max_tokens ?? undefined,
  };
}

const error = (message: string, type: string, param: string | null = null, code: string | null = null): { error: Record<string, unknown> } => ({
  error: { message, type, param, code },
});

/** How OpenAI shows a wrong key: its first 3 and last 4 characters. */
const masked = (key: string): string => (key.length > 8 ? `${key.slice(0, 3)}${'*'.repeat(key.length - 7)}${key.slice(-4)}` : '*'.repeat(key.length));

/** The one table from neutral errors to OpenAI's statuses and bodies. */
function errorReply(e: LlmError): ErrorReply {
  switch (e.kind) {
    case 'unauthenticated':
      return e.presented === undefined
        ? {
            status: 401,
            body: error(
              "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY), or as the password field (with blank username) if you're accessing the API from your browser and are prompted for a username and password. You can obtain an API key from https://platform.openai.com/account/api-keys.",
              'invalid_request_error',
            ),
          }
        : { status: 401, body: error(`Incorrect API key provided: ${masked(e.presented)}. You can find your API key at https://platform.openai.com/account/api-keys.`, 'invalid_request_error', null, 'invalid_api_key') };
    case 'invalid_request':
      return { status: 400, body: error(e.message, 'invalid_request_error', e.param ?? null, e.code ?? null) };
    case 'invalid_json':
      return {
        status: 400,
        body: error(
          "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON. If you have trouble figuring out how to fix this, please contact us through our help center at help.openai.com.)",
          'invalid_request_error',
        ),
      };
    case 'body_too_large':
      return { status: 413, body: error(`Request too large: the body exceeds ${LLM_SIM_LIMITS.bodyBytes} bytes.`, 'invalid_request_error', null, 'request_too_large') };
    case 'context_too_long':
      return {
        status: 400,
        body: error(
          `This model's maximum context length is ${e.contextWindow} tokens. However, your messages resulted in ${e.promptTokens} tokens. Please reduce the length of the messages.`,
          'invalid_request_error',
          'messages',
          'context_length_exceeded',
        ),
      };
    case 'rate_limited':
      return {
        status: 429,
        body: error(`Rate limit reached for requests. Please try again in ${e.retryAfterSeconds}s. Visit https://platform.openai.com/account/rate-limits to learn more.`, 'requests', null, 'rate_limit_exceeded'),
      };
    case 'server_error':
      return e.status === 500
        ? { status: 500, body: error('The server had an error while processing your request. Sorry about that!', 'server_error') }
        : { status: e.status, body: error('The server is overloaded or not ready yet.', 'server_error') };
    case 'not_found':
      return { status: 404, body: error(`Invalid URL (${e.method} ${e.path})`, 'invalid_request_error') };
  }
}

function usage(c: Completion): Record<string, unknown> {
  return {
    prompt_tokens: c.promptTokens,
    completion_tokens: c.completionTokens,
    total_tokens: c.promptTokens + c.completionTokens,
    prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
  };
}

const wireToolCall = (c: Completion['toolCalls'][number]): Record<string, unknown> => ({ id: c.id, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.args) } });

function send(res: Response, c: Completion, request: ParsedLlmRequest): void {
  const base = { id: c.id, created: c.created, model: c.model, service_tier: 'default', system_fingerprint: null };
  if (!request.stream) {
    res.status(200).json({
      ...base,
      object: 'chat.completion',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: c.text === '' && c.toolCalls.length > 0 ? null : c.text,
            refusal: null,
            annotations: [],
            ...(c.toolCalls.length > 0 ? { tool_calls: c.toolCalls.map(wireToolCall) } : {}),
          },
          logprobs: null,
          finish_reason: FINISH[c.stop],
        },
      ],
      usage: usage(c),
    });
    return;
  }
  const chunk = (delta: Record<string, unknown>, finish: string | null = null): { data: unknown } => ({
    data: { ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], ...(request.includeUsage ? { usage: null } : {}) },
  });
  const events = [chunk({ role: 'assistant', content: c.text === '' && c.toolCalls.length > 0 ? null : '', refusal: null })];
  for (const piece of streamPieces(c.text)) events.push(chunk({ content: piece }));
  for (const [index, call] of c.toolCalls.entries()) {
    events.push(chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] }));
    for (const piece of jsonPieces(JSON.stringify(call.args))) events.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
  }
  events.push(chunk({}, FINISH[c.stop]));
  if (request.includeUsage) events.push({ data: { ...base, object: 'chat.completion.chunk', choices: [], usage: usage(c) } });
  events.push({ data: '[DONE]' });
  writeSse(res, events);
}

/** The key from `Authorization: Bearer <key>`; undefined when none is presented. */
function bearer(req: Request): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
  return match?.[1];
}

const MODELS = ['gpt-4o', 'gpt-4o-mini', 'gpt-4.1', 'gpt-4.1-mini', 'gpt-5-mini'];

export const openAiProvider: LlmProvider = {
  name: 'openai',
  defaultContextWindow: 128_000,
  basePath: '/v1',
  completionPath: '/v1/chat/completions',
  messageIdPrefix: 'chatcmpl-sim',
  toolCallIdPrefix: 'call_',
  admit(req, apiKey) {
    const presented = bearer(req);
    return presented === apiKey ? undefined : { kind: 'unauthenticated', presented };
  },
  parse(body) {
    if (body === null || typeof body !== 'object' || Array.isArray(body)) return { kind: 'invalid_json' };
    const parsed = ChatRequest.safeParse(body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return issue === undefined ? invalid('Invalid request.') : describeIssue(body, issue);
    }
    const pairing = checkToolPairing(parsed.data.messages);
    if (pairing !== undefined) return pairing;
    return { input: toInput(parsed.data), stream: parsed.data.stream === true, includeUsage: parsed.data.stream_options?.include_usage === true };
  },
  errorReply,
  send,
  models: () => ({ object: 'list', data: MODELS.map((id) => ({ id, object: 'model', created: 1_715_367_049, owned_by: 'system' })) }),
};

/**
 * A fake OpenAI Chat Completions API (`POST /v1/chat/completions`, `GET /v1/models`) on loopback, answering
 * from `options.script` and recording every request. Give ChatOpenAI `configuration: { baseURL: sim.baseUrl }`.
 */
export function startFakeOpenAi(options: FakeLlmOptions): Promise<RunningFakeLlm> {
  return startFakeLlm(openAiProvider, options);
}
