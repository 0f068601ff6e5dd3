import express, { type NextFunction, type Request, type Response } from 'express';
import { describeError, silentLogger } from '@flotilla/core';
import { loadTokenCounter } from '@flotilla/tokens';
import { listen } from '../http.js';
import { parseOptions } from '../argocd/options.js';
import { FakeLlmOptionsSchema, LLM_SIM_LIMITS, LlmFaultsSchema, type FakeLlmOptions, type LlmFaults } from './options.js';
import { defaultScript, type ScriptedReply, type ScriptedToolCall, type ScriptInput } from './script.js';
import { countPromptTokens, countReplyTokens } from './tokens.js';

export interface RecordedLlmRequest {
  /** e.g. /v1/chat/completions */
  readonly path: string;
  /** The parsed JSON body exactly as received (undefined when none was read, e.g. a 401). */
  readonly body: unknown;
  /** Counted by the simulator itself (`countPromptTokens`); 0 when the body was not a valid request. */
  readonly promptTokens: number;
  /** What was answered. */
  readonly status: number;
}

export interface RunningFakeLlm {
  /** Server root, e.g. http://127.0.0.1:PORT */
  readonly url: string;
  /** What the client is given: `${url}/v1` for OpenAI (ChatOpenAI `configuration.baseURL`), `${url}` for Anthropic (`anthropicApiUrl`). */
  readonly baseUrl: string;
  /** Every request received, oldest first, at most `maxRecorded` (a snapshot). */
  readonly requests: readonly RecordedLlmRequest[];
  setFaults(faults: LlmFaults): void;
  close(): Promise<void>;
}

/** Everything a provider can answer instead of a completion; each provider maps these to its wire in one table. */
export type LlmError =
  | { readonly kind: 'unauthenticated'; readonly presented: string | undefined }
  | { readonly kind: 'invalid_request'; readonly message: string; readonly param?: string; readonly code?: string }
  | { readonly kind: 'invalid_json' }
  | { readonly kind: 'body_too_large' }
  | { readonly kind: 'context_too_long'; readonly promptTokens: number; readonly contextWindow: number }
  | { readonly kind: 'rate_limited'; readonly retryAfterSeconds: number }
  | { readonly kind: 'server_error'; readonly status: 500 | 503 | 529; readonly retryAfterSeconds?: number }
  | { readonly kind: 'not_found'; readonly method: string; readonly path: string };

export interface ErrorReply {
  readonly status: number;
  readonly body: unknown;
}

/** Why the model stopped, provider-neutral. */
export type StopReason = 'end' | 'tool_use' | 'max_tokens';

export interface Completion {
  readonly id: string;
  readonly created: number;
  readonly model: string;
  readonly text: string;
  readonly toolCalls: readonly { readonly id: string; readonly name: string; readonly args: Readonly<Record<string, unknown>> }[];
  readonly stop: StopReason;
  readonly promptTokens: number;
  readonly completionTokens: number;
}

export interface ParsedLlmRequest {
  readonly input: ScriptInput;
  readonly stream: boolean;
  /** OpenAI `stream_options.include_usage`. */
  readonly includeUsage: boolean;
}

/** What differs between the two APIs; the request flow around it is shared. */
export interface LlmProvider {
  readonly name: string;
  readonly defaultContextWindow: number;
  /** Appended to the server root to give `baseUrl`. */
  readonly basePath: string;
  readonly completionPath: string;
  readonly messageIdPrefix: string;
  readonly toolCallIdPrefix: string;
  /** Checks credentials and required headers, before the body is read. */
  admit(req: Request, apiKey: string): LlmError | undefined;
  /** Validates a body (schema, then the provider's own rules) into the neutral view. */
  parse(body: unknown): ParsedLlmRequest | LlmError;
  errorReply(error: LlmError): ErrorReply;
  /** Writes a completion as one JSON body or as Server-Sent Events. */
  send(res: Response, completion: Completion, request: ParsedLlmRequest): void;
  models(): unknown;
}

export const isLlmError = (value: ParsedLlmRequest | LlmError): value is LlmError => 'kind' in value;

/** Request id headers: x-request-id (OpenAI) and request-id (Anthropic). */
const requestIdHeaders = (n: number): Record<string, string> => ({ 'x-request-id': `req_sim${n}`, 'request-id': `req_sim${n}` });

/** Splits `text` into stream pieces of about `words` words, whole code points each. */
export function streamPieces(text: string, words = 4): string[] {
  const tokens = text.match(/\s*\S+\s*/gu) ?? (text.length > 0 ? [text] : []);
  const pieces: string[] = [];
  for (let i = 0; i < tokens.length; i += words) pieces.push(tokens.slice(i, i + words).join(''));
  return pieces;
}

/** Splits JSON text into pieces of `size` code points (what clients must reassemble). */
export function jsonPieces(text: string, size = 16): string[] {
  const points = Array.from(text);
  const pieces: string[] = [];
  for (let i = 0; i < points.length; i += size) pieces.push(points.slice(i, i + size).join(''));
  return pieces;
}

export function writeSse(res: Response, events: readonly { event?: string; data: unknown }[]): void {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive' });
  for (const { event, data } of events) {
    res.write(`${event === undefined ? '' : `event: ${event}\n`}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
  }
  res.end();
}

/**
 * Serves `provider`'s API: authentication, body limits, faults, validation, the prompt count and the context
 * window, the script, then the answer. Every request is recorded before it is answered, so a client that has
 * its answer always finds its request in `requests`.
 */
export async function startFakeLlm(provider: LlmProvider, options: FakeLlmOptions): Promise<RunningFakeLlm> {
  const what = `fake ${provider.name} options`;
  const parsed = parseOptions(FakeLlmOptionsSchema, options, what);
  const logger = options.logger ?? silentLogger();
  const script = options.script ?? defaultScript;
  const contextWindow = parsed.contextWindow ?? provider.defaultContextWindow;
  const counter = await loadTokenCounter('cl100k_base');
  const recorded: RecordedLlmRequest[] = [];
  let failNext = parsed.faults.failNext === undefined ? undefined : { ...parsed.faults.failNext };
  let sequence = 0;
  const nextId = (): number => (sequence += 1);

  const record = (req: Request, status: number, promptTokens = 0): void => {
    if (parsed.maxRecorded === 0) return;
    recorded.push({ path: req.path, body: req.body as unknown, promptTokens, status });
    if (recorded.length > parsed.maxRecorded) recorded.splice(0, recorded.length - parsed.maxRecorded);
  };
  const fail = (req: Request, res: Response, error: LlmError, promptTokens = 0): void => {
    const reply = provider.errorReply(error);
    record(req, reply.status, promptTokens);
    const retryAfter = error.kind === 'rate_limited' ? error.retryAfterSeconds : error.kind === 'server_error' ? error.retryAfterSeconds : undefined;
    if (retryAfter !== undefined) res.setHeader('retry-after', String(retryAfter));
    res.status(reply.status).json(reply.body);
  };
  const takeFault = (): LlmError | undefined => {
    if (failNext === undefined || failNext.count <= 0) return undefined;
    failNext.count -= 1;
    const { status, retryAfterSeconds } = failNext;
    return status === 429 ? { kind: 'rate_limited', retryAfterSeconds: retryAfterSeconds ?? 1 } : { kind: 'server_error', status, ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }) };
  };

  const complete = async (req: Request, res: Response): Promise<void> => {
    const request = provider.parse(req.body);
    const promptTokens = isLlmError(request) ? 0 : countPromptTokens(counter, request.input);
    const fault = takeFault(); // rate limits and outages come before validation, as upstream
    if (fault !== undefined) return fail(req, res, fault, promptTokens);
    if (isLlmError(request)) return fail(req, res, request);
    if (promptTokens > contextWindow) return fail(req, res, { kind: 'context_too_long', promptTokens, contextWindow }, promptTokens);
    let reply: ScriptedReply;
    try {
      reply = await script(request.input);
    } catch (error) {
      logger.error({ err: describeError(error) }, `fake ${provider.name}: the script threw`);
      return fail(req, res, { kind: 'server_error', status: 500 }, promptTokens);
    }
    // A reply over max_tokens is cut to it, its tool calls dropped, as a model stopped by the limit.
    let text = reply.text;
    let toolCalls: readonly ScriptedToolCall[] = (reply.toolCalls ?? []).slice(0, LLM_SIM_LIMITS.replyToolCalls);
    let completionTokens = countReplyTokens(counter, text, toolCalls);
    let stop: Completion['stop'] = toolCalls.length > 0 ? 'tool_use' : 'end';
    const { maxTokens } = request.input;
    if (maxTokens !== undefined && completionTokens > maxTokens) {
      text = counter.truncate(text, maxTokens);
      toolCalls = [];
      completionTokens = counter.count(text);
      stop = 'max_tokens';
    }
    const n = nextId();
    const completion: Completion = {
      id: `${provider.messageIdPrefix}${n}`,
      created: Math.floor(Date.now() / 1000),
      model: request.input.model,
      text,
      toolCalls: toolCalls.map((c) => ({ id: `${provider.toolCallIdPrefix}${nextId()}`, name: c.name, args: c.args })),
      stop,
      promptTokens,
      completionTokens,
    };
    record(req, 200, promptTokens);
    res.set(requestIdHeaders(n));
    provider.send(res, completion, request);
  };

  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  app.use((req, res, next) => {
    res.on('close', () => logger.debug({ method: req.method, url: req.originalUrl, status: res.statusCode }, `fake ${provider.name} request`));
    // Credentials are checked before the body is read.
    const error = provider.admit(req, parsed.apiKey);
    if (error === undefined) next();
    else fail(req, res, error);
  });
  // Any content type is read as JSON (as upstream does), up to the body limit.
  app.use(express.json({ limit: LLM_SIM_LIMITS.bodyBytes, type: () => true }));
  app.post(provider.completionPath, complete);
  app.get('/v1/models', (req, res) => {
    record(req, 200);
    res.json(provider.models());
  });
  app.use((req, res) => fail(req, res, { kind: 'not_found', method: req.method, path: req.path }));
  app.use((error: unknown, req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) return next(error);
    const type = (error as { type?: unknown } | null)?.type;
    if (type === 'entity.too.large') return fail(req, res, { kind: 'body_too_large' });
    if (type === 'entity.parse.failed') return fail(req, res, { kind: 'invalid_json' });
    if (typeof type === 'string') return fail(req, res, { kind: 'invalid_request', message: describeError(error) });
    logger.error({ err: describeError(error), url: req.originalUrl }, `fake ${provider.name} handler failed`);
    fail(req, res, { kind: 'server_error', status: 500 });
  });

  const listening = await listen(app, parsed.host, parsed.port);
  logger.info({ url: listening.url }, `fake ${provider.name} listening`);
  return {
    url: listening.url,
    baseUrl: `${listening.url}${provider.basePath}`,
    get requests() {
      return recorded.slice();
    },
    setFaults(faults) {
      const next = parseOptions(LlmFaultsSchema, faults, `fake ${provider.name} faults`);
      failNext = next.failNext === undefined ? undefined : { ...next.failNext };
    },
    close: () => listening.close(),
  };
}

/** Whether the value at `path` in `body` is absent (a zod issue about it then means "missing", not "wrong"). */
export function isMissing(body: unknown, path: readonly PropertyKey[]): boolean {
  let value: unknown = body;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return true;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value === undefined;
}
