import express from 'express';
import { A2A_VERSION_HEADER } from '@a2a-js/sdk';
import { A2A_ERROR_CODE, JsonRpcRequestMalformedError, RestRequestMalformedError, toJsonRpcError, toRestErrorBody } from '@a2a-js/sdk/errors';
import type { Logger } from '@flotilla/core';
import type { A2ARejectReason } from '@flotilla/metrics';

/**
 * The A2A endpoint's protocol limits, checked on the parsed JSON before the SDK decodes a request (its decoding
 * is where a hostile request costs: 60,000 one-character parts held the event loop for seconds). A request past
 * one is refused with a protocol error naming the limit: JSON-RPC -32600 (body, envelope) or -32602 (params);
 * REST HTTP 400 (413 for a body too large) in the SDK's REST error shape.
 */
export const A2A_LIMITS = {
  /** Request bodies above this many bytes are refused before they are read (HTTP 413), on both bindings. */
  bodyMaxBytes: 1024 * 1024,
  /** JSON nested deeper than this is refused: the SDK's decoding recurses, and overflows the stack near 2,000 levels. */
  jsonDepthMax: 64,
  /**
   * Characters (Unicode code points) of a message's contextId, printable only. Every task and conversation memory
   * keeps it (and the supervisor forwards it): 350 conversations with 900 KB contextIds held 1.08 GB.
   */
  contextIdMaxChars: 256,
  /** Characters of the other ids a message carries and the task store keeps (messageId, taskId, each referenced task id), printable only; and of a JSON-RPC request id, which every answer (each streamed event) echoes. */
  idMaxChars: 256,
  /** Parts of one message: the SDK decodes each into objects, and 60,000 one-character parts cost ~120 MB and seconds of CPU. */
  partsMax: 64,
  /** Task ids one message references (the SDK loads each from the task store). */
  referenceTaskIdsMax: 16,
  /** Extension URIs one message names (kept in the task's history). */
  extensionsMax: 16,
} as const;

/** What the bindings need besides the SDK's handler. */
export interface A2AProtocolOptions {
  /** Where unexpected errors (bugs) are logged. */
  readonly logger: Logger;
  /** Told of every request these checks refuse (`invalid_request`). */
  readonly onReject?: ((reason: A2ARejectReason) => void) | undefined;
}

/** A refused request: the JSON-RPC code (its REST status is 400 unless `status` says otherwise) and what to fix. */
interface Refusal {
  readonly code: number;
  readonly message: string;
  /** The HTTP status when the body could not be read at all (413, 415); otherwise JSON-RPC answers 200, REST 400. */
  readonly status?: number;
  readonly field?: string;
  readonly limit?: number;
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const typeName = (value: unknown): string => (value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value);
const invalidRequest = (message: string, limit?: number): Refusal => ({ code: A2A_ERROR_CODE.INVALID_REQUEST, message, ...(limit === undefined ? {} : { limit }) });
const invalidParams = (field: string, message: string, limit?: number): Refusal => ({ code: A2A_ERROR_CODE.INVALID_PARAMS, message, field, ...(limit === undefined ? {} : { limit }) });

/** True when `value` nests objects or arrays more than `max` levels deep (walked without recursion; only containers are queued). */
function nestedDeeperThan(value: unknown, max: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const pending: { value: object; depth: number }[] = [{ value, depth: 0 }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (next.depth >= max) return true;
    for (const child of Object.values(next.value)) if (typeof child === 'object' && child !== null) pending.push({ value: child as object, depth: next.depth + 1 });
  }
  return false;
}

const isHigh = (c: number): boolean => c >= 0xd800 && c <= 0xdbff;
const isLow = (c: number): boolean => c >= 0xdc00 && c <= 0xdfff;

/** Unicode code points of `text` (a surrogate pair is one). */
function codePoints(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i += 1, count += 1) if (isHigh(text.charCodeAt(i)) && isLow(text.charCodeAt(i + 1))) i += 1;
  return count;
}

/**
 * The index of the first character an id may not hold: C0 and C1 controls, DEL, the line and paragraph separators
 * (U+2028, U+2029), a lone surrogate. Any other Unicode is printable here (ids may be non-Latin).
 */
function unprintableAt(text: string): number | undefined {
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || (c >= 0x7f && c <= 0x9f) || c === 0x2028 || c === 0x2029 || isLow(c)) return i;
    if (isHigh(c)) {
      if (!isLow(text.charCodeAt(i + 1))) return i;
      i += 1;
    }
  }
  return undefined;
}

/** An id the task store keeps: absent, or a string of at most `max` printable characters. */
function idRefusal(value: unknown, field: string, max: number): Refusal | undefined {
  if (value === undefined || value === null) return undefined;
  const rule = `at most ${max} printable characters`;
  if (typeof value !== 'string') return invalidParams(field, `${field} must be a string of ${rule}; got ${typeName(value)}`, max);
  if (value.length > max) {
    const count = codePoints(value);
    if (count > max) return invalidParams(field, `${field} is ${count} characters; ${rule}`, max);
  }
  const at = unprintableAt(value);
  if (at === undefined) return undefined;
  const code = value.charCodeAt(at).toString(16).toUpperCase().padStart(4, '0');
  return invalidParams(field, `${field} has an unprintable character (U+${code}) at index ${at}; ${rule} (no control characters, line separators or lone surrogates)`, max);
}

/** historyLength, when given: an integer ≥ 0 (a number, or its decimal string as proto JSON allows). */
function historyRefusal(holder: Json, prefix: string): Refusal | undefined {
  const value = holder.historyLength ?? holder.history_length;
  if (value === undefined || value === null) return undefined;
  const number = typeof value === 'string' && /^\s*-?\d+\s*$/.test(value) ? Number(value) : value;
  if (typeof number === 'number' && Number.isInteger(number) && number >= 0) return undefined;
  const got = typeof value === 'number' || typeof value === 'string' ? JSON.stringify(value).slice(0, 40) : typeName(value);
  return invalidParams(`${prefix}historyLength`, `${prefix}historyLength must be an integer of 0 or more (0: no history); got ${got}`);
}

/**
 * How a message is spelled: `v1` (A2A 1.0 JSON: `parts`, role and at least one part required, snake_case aliases
 * read by the SDK's decoder), `v0.3` (the legacy JSON-RPC methods: `parts` of `{kind, text}`), `v0.3-rest` (the
 * legacy REST binding's proto JSON: the message in `message` or `request`, its parts in `content`).
 */
type Dialect = 'v1' | 'v0.3' | 'v0.3-rest';

const ROLES: readonly unknown[] = ['ROLE_USER', 'ROLE_AGENT', 1, 2];

/** The message limits; cheap structural checks on the parsed JSON, no walk over user data beyond counting. */
function messageRefusal(message: unknown, dialect: Dialect): Refusal | undefined {
  // Absent: the SDK says the message is required.
  if (message === undefined || message === null) return undefined;
  if (!isObject(message)) return invalidParams('message', `message must be an object; got ${typeName(message)}`);
  const pick = (camel: string, snake: string): unknown => (dialect === 'v0.3' ? message[camel] : (message[camel] ?? message[snake]));
  const partsField = dialect === 'v0.3-rest' && message.content !== undefined ? 'content' : 'parts';
  const parts = message[partsField];
  const max = A2A_LIMITS.partsMax;
  if (parts === undefined || parts === null) {
    if (dialect === 'v1') return invalidParams('message.parts', `message.parts is required: 1 to ${max} parts`, max);
  } else if (!Array.isArray(parts)) {
    return invalidParams(`message.${partsField}`, `message.${partsField} must be an array of at most ${max} parts; got ${typeName(parts)}`, max);
  } else if (parts.length > max) {
    return invalidParams(`message.${partsField}`, `message.${partsField} has ${parts.length} parts; a message takes at most ${max} (join the text into fewer parts)`, max);
  } else if (parts.length === 0 && dialect === 'v1') {
    return invalidParams('message.parts', `message.parts is empty; a message needs at least 1 part (at most ${max})`, max);
  } else {
    const bad = parts.findIndex((part) => !isObject(part));
    if (bad >= 0) return invalidParams(`message.${partsField}`, `message.${partsField}[${bad}] must be an object; got ${typeName(parts[bad])}`);
  }
  if (dialect === 'v1' && !ROLES.includes(message.role)) {
    return invalidParams('message.role', `message.role is required: "ROLE_USER" or "ROLE_AGENT"; got ${typeof message.role === 'string' ? JSON.stringify(message.role.slice(0, 40)) : typeName(message.role)}`);
  }
  const ids = [
    idRefusal(pick('contextId', 'context_id'), 'message.contextId', A2A_LIMITS.contextIdMaxChars),
    idRefusal(pick('taskId', 'task_id'), 'message.taskId', A2A_LIMITS.idMaxChars),
    idRefusal(pick('messageId', 'message_id'), 'message.messageId', A2A_LIMITS.idMaxChars),
  ].find((r) => r !== undefined);
  if (ids !== undefined) return ids;
  return listRefusal(pick('referenceTaskIds', 'reference_task_ids'), 'message.referenceTaskIds', A2A_LIMITS.referenceTaskIdsMax, (id, field) => idRefusal(id, field, A2A_LIMITS.idMaxChars))
    ?? listRefusal(message.extensions, 'message.extensions', A2A_LIMITS.extensionsMax, (uri, field) => (typeof uri === 'string' ? undefined : invalidParams(field, `${field} must be a string; got ${typeName(uri)}`)));
}

/** A list field, when given: an array of at most `max` entries, each passing `check` (the v0.3 layer spreads a string into one entry per character). */
function listRefusal(value: unknown, field: string, max: number, check: (entry: unknown, field: string) => Refusal | undefined): Refusal | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) return invalidParams(field, `${field} must be an array of at most ${max} entries; got ${typeName(value)}`, max);
  if (value.length > max) return invalidParams(field, `${field} has ${value.length} entries; at most ${max}`, max);
  for (const [i, entry] of value.entries()) {
    const refusal = check(entry, `${field}[${i}]`);
    if (refusal !== undefined) return refusal;
  }
  return undefined;
}

/** SendMessage's request (JSON-RPC params or REST body): its message and its configuration's historyLength. */
function sendRefusal(request: Json, dialect: Dialect): Refusal | undefined {
  const message = dialect === 'v0.3-rest' ? (request.message ?? request.request) : request.message;
  const configuration = request.configuration;
  return messageRefusal(message, dialect) ?? (isObject(configuration) ? historyRefusal(configuration, 'configuration.') : undefined);
}

const V1_SEND = new Set(['SendMessage', 'SendStreamingMessage']);
const V1_HISTORY = new Set(['GetTask', 'ListTasks']);
const LEGACY_SEND = new Set(['message/send', 'message/stream']);
const LEGACY_HISTORY = new Set(['tasks/get']);

/** A JSON-RPC id the SDK accepts (a string, an integer, null), a string no longer than the id limit. */
const validId = (id: unknown): boolean => id === null || (typeof id === 'number' && Number.isInteger(id)) || (typeof id === 'string' && id.length <= A2A_LIMITS.idMaxChars);

/** The JSON-RPC 2.0 envelope (-32600), then the limits of the method's params (-32602). */
function jsonRpcRefusal(body: unknown, contentType: string | undefined, legacy: boolean): Refusal | undefined {
  if (Array.isArray(body)) return invalidRequest('Batch requests are not supported: send one JSON-RPC request object per HTTP request.');
  if (!isObject(body)) {
    return invalidRequest(
      contentType === undefined
        ? 'Send the JSON-RPC request as a JSON body with Content-Type: application/json.'
        : `The request body must be a JSON-RPC 2.0 request object ({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {...}}); got ${typeName(body)}.`,
    );
  }
  if (body.jsonrpc !== '2.0') return invalidRequest('"jsonrpc" must be "2.0".');
  if (typeof body.method !== 'string' || body.method === '') return invalidRequest('"method" must be a non-empty string.');
  if ('id' in body && !validId(body.id)) return invalidRequest(`"id" must be a string of at most ${A2A_LIMITS.idMaxChars} characters, an integer or null.`, A2A_LIMITS.idMaxChars);
  // Params of the wrong shape are the SDK's to refuse (-32602); only methods of the dialect being served are checked.
  const params = body.params;
  if (!isObject(params)) return undefined;
  if ((legacy ? LEGACY_SEND : V1_SEND).has(body.method)) return sendRefusal(params, legacy ? 'v0.3' : 'v1');
  if ((legacy ? LEGACY_HISTORY : V1_HISTORY).has(body.method)) return historyRefusal(params, '');
  return undefined;
}

const MESSAGE_ROUTE = /^(?:\/[^/]+)?\/message:(?:send|stream)$/;

/** True for the A2A versions the SDK's v0.3 compat layer serves (none given, or 0.3 ≤ v < 1.0), as its routers decide. */
function isLegacyVersion(version: string | undefined): boolean {
  if (version === undefined || version.trim() === '') return true;
  const [major = '', minor = '0'] = version.trim().split('.');
  const [a, b] = [Number.parseInt(major, 10), Number.parseInt(minor, 10)];
  if (!Number.isFinite(a) || !Number.isFinite(b) || a < 0 || b < 0) return false;
  return a === 0 && b >= 3;
}

/** The media type of a Content-Type header, as the SDK compares it. */
const mediaType = (header: string): string => (header.split(';', 1)[0] ?? '').trim().toLowerCase();

/** The JSON-RPC handler serves the v0.3 methods when A2A-Version is absent or exactly 0.3 (the SDK's own test). */
const jsonRpcLegacy = (req: express.Request): boolean => (req.header(A2A_VERSION_HEADER) || '0.3') === '0.3';
/** The REST binding's v0.3 routes live under /v1/ and serve legacy versions; the rest is A2A 1.0. */
const restLegacy = (req: express.Request): boolean => req.path.startsWith('/v1/') && isLegacyVersion(req.header(A2A_VERSION_HEADER));

const metadataOf = (refusal: Refusal): Record<string, string> | undefined =>
  refusal.field === undefined && refusal.limit === undefined
    ? undefined
    : { ...(refusal.field === undefined ? {} : { field: refusal.field }), ...(refusal.limit === undefined ? {} : { limit: String(refusal.limit) }) };

/**
 * A JSON-RPC error answer. HTTP 200 as the SDK answers every JSON-RPC error it raises itself (the A2A JSON-RPC
 * binding carries errors in the response object), except a body that could not be read at all (413, 415).
 * -32602 carries the SDK's google.rpc.ErrorInfo (`data`, with the field and limit); v0.3 clients get `{code, message}`.
 */
function answerJsonRpc(res: express.Response, refusal: Refusal, id: unknown, legacy: boolean): void {
  const metadata = metadataOf(refusal);
  const error =
    legacy || refusal.code !== A2A_ERROR_CODE.INVALID_PARAMS
      ? { code: refusal.code, message: refusal.message }
      : toJsonRpcError(new JsonRpcRequestMalformedError({ message: refusal.message, envelopeCode: refusal.code, ...(metadata === undefined ? {} : { metadata }) }));
  res.status(refusal.status ?? 200).json({ jsonrpc: '2.0', id: validId(id) ? id : null, error });
}

/** A REST error answer in the SDK's shape: `{error: {code, status, message, details}}` (v0.3 routes: `{code, message}`). */
function answerRest(res: express.Response, refusal: Refusal, legacy: boolean): void {
  const status = refusal.status ?? 400;
  const metadata = metadataOf(refusal);
  res
    .status(status)
    .json(
      legacy
        ? { code: refusal.code, message: refusal.message }
        : toRestErrorBody(new RestRequestMalformedError({ message: refusal.message, statusCode: status, ...(metadata === undefined ? {} : { metadata }) }), status),
    );
}

type Binding = 'jsonrpc' | 'rest';

function refuse(req: express.Request, res: express.Response, binding: Binding, refusal: Refusal, options: A2AProtocolOptions): void {
  options.onReject?.('invalid_request');
  if (binding === 'jsonrpc') answerJsonRpc(res, refusal, isObject(req.body) ? req.body.id : null, jsonRpcLegacy(req));
  else answerRest(res, refusal, restLegacy(req));
}

/** Body reading: at most bodyMaxBytes of JSON; the SDK's own parsers then skip the body. */
const readBody = (binding: Binding): express.RequestHandler =>
  express.json({ limit: A2A_LIMITS.bodyMaxBytes, strict: false, type: binding === 'jsonrpc' ? ['application/json'] : ['application/json', 'application/a2a+json'] });

/** A body that could not be read (too large, not JSON, an unsupported charset or encoding) as a protocol error; anything else goes on. */
function bodyErrors(binding: Binding, options: A2AProtocolOptions): express.ErrorRequestHandler {
  return (error: unknown, req, res, next) => {
    const { status, type, expose, message } = (isObject(error) ? error : {}) as Record<string, unknown>;
    if (res.headersSent || typeof status !== 'number' || status < 400 || status >= 500) return next(error);
    const detail = expose === true && typeof message === 'string' ? message.slice(0, 200) : 'the request body could not be read';
    const refusal: Refusal =
      type === 'entity.too.large'
        ? { ...invalidRequest(`The request body is over the limit of ${A2A_LIMITS.bodyMaxBytes} bytes (${A2A_LIMITS.bodyMaxBytes / 1024 / 1024} MiB); send a smaller one.`, A2A_LIMITS.bodyMaxBytes), status: 413 }
        : type === 'entity.parse.failed'
          ? { code: A2A_ERROR_CODE.PARSE_ERROR, message: `The request body is not valid JSON: ${detail}` }
          : { ...invalidRequest(`The request body could not be read: ${detail}. Send UTF-8 JSON.`), ...(status === 400 ? {} : { status }) };
    refuse(req, res, binding, refusal, options);
  };
}

/** The checks both bindings share: JSON nesting. */
function depthRefusal(body: unknown): Refusal | undefined {
  return nestedDeeperThan(body, A2A_LIMITS.jsonDepthMax)
    ? invalidRequest(`The request body nests JSON more than ${A2A_LIMITS.jsonDepthMax} levels deep; send a flatter one.`, A2A_LIMITS.jsonDepthMax)
    : undefined;
}

/** Unexpected errors (a bug): logged, and a stable 500 in the binding's error shape. */
function answerBugs(binding: Binding, logger: Logger): express.ErrorRequestHandler {
  return (error: unknown, _req, res, next) => {
    if (res.headersSent) return next(error);
    logger.error({ err: error }, 'A2A request failed');
    const message = 'The agent failed to handle the request; the error is in its logs.';
    if (binding === 'jsonrpc') res.status(500).json({ jsonrpc: '2.0', id: null, error: { code: A2A_ERROR_CODE.INTERNAL_ERROR, message } });
    else res.status(500).json(toRestErrorBody(new Error(message), 500));
  };
}

const shown = (path: string): string => (path.length > 120 ? `${path.slice(0, 120)}…` : path);

/**
 * The JSON-RPC binding: the body read (1 MB, 64 levels), the JSON-RPC 2.0 envelope (-32600) and the message
 * limits (-32602) checked, then the SDK's handler; any other method or path answered as JSON-RPC errors too.
 */
export function jsonRpcBinding(sdk: express.RequestHandler, options: A2AProtocolOptions): express.Router {
  const router = express.Router();
  const check: express.RequestHandler = (req, res, next) => {
    const type = req.headers['content-type'];
    // Another content type: the SDK answers it (-32005 Content type not supported).
    if (type !== undefined && mediaType(type) !== 'application/json') return next();
    const refusal = depthRefusal(req.body) ?? jsonRpcRefusal(req.body, type, jsonRpcLegacy(req));
    if (refusal === undefined) return next();
    refuse(req, res, 'jsonrpc', refusal, options);
  };
  router.post('/', readBody('jsonrpc'), bodyErrors('jsonrpc', options), check);
  router.use(sdk);
  router.use((req, res) => {
    const onEndpoint = req.path === '/';
    if (onEndpoint) res.set('Allow', 'POST');
    const message = onEndpoint ? `JSON-RPC requests are POSTed to this URL; ${req.method} is not served.` : `No JSON-RPC endpoint at ${shown(req.originalUrl)}; POST to the interface URL in the agent card.`;
    answerJsonRpc(res, { code: A2A_ERROR_CODE.INVALID_REQUEST, message, status: onEndpoint ? 405 : 404 }, null, jsonRpcLegacy(req));
  });
  router.use(answerBugs('jsonrpc', options.logger));
  return router;
}

/** The REST operations by path (an optional tenant segment first), for 405 + Allow on a known path with another method. */
const REST_ROUTES: readonly (readonly [RegExp, string])[] = [
  [MESSAGE_ROUTE, 'POST'],
  [/^(?:\/[^/]+)?\/tasks$/, 'GET'],
  [/^(?:\/[^/]+)?\/tasks\/[^/]+:cancel$/, 'POST'],
  [/^(?:\/[^/]+)?\/tasks\/[^/]+:subscribe$/, 'GET, POST'],
  [/^(?:\/[^/]+)?\/tasks\/[^/:]+$/, 'GET'],
  [/^(?:\/[^/]+)?\/tasks\/[^/]+\/pushNotificationConfigs$/, 'GET, POST'],
  [/^(?:\/[^/]+)?\/tasks\/[^/]+\/pushNotificationConfigs\/[^/]+$/, 'GET, DELETE'],
  [/^(?:\/[^/]+)?\/extendedAgentCard$/, 'GET'],
  [/^\/v1\/card$/, 'GET'],
];

/**
 * The REST binding: the body read (1 MB, 64 levels), the message limits of message:send and message:stream
 * (HTTP 400), then the SDK's handler; unknown paths and methods answered 404 / 405 in the REST error shape.
 */
export function restBinding(sdk: express.RequestHandler, options: A2AProtocolOptions): express.Router {
  const router = express.Router();
  const check: express.RequestHandler = (req, res, next) => {
    const body: unknown = req.body;
    const refusal = depthRefusal(body) ?? (req.method === 'POST' && MESSAGE_ROUTE.test(req.path) && isObject(body) ? sendRefusal(body, restLegacy(req) ? 'v0.3-rest' : 'v1') : undefined);
    if (refusal === undefined) return next();
    refuse(req, res, 'rest', refusal, options);
  };
  router.use(readBody('rest'), bodyErrors('rest', options), check);
  router.use(sdk);
  router.use((req, res) => {
    const allow = REST_ROUTES.find(([pattern]) => pattern.test(req.path))?.[1];
    if (allow !== undefined) res.set('Allow', allow);
    const status = allow === undefined ? 404 : 405;
    const message = allow === undefined ? `No A2A operation at ${req.method} ${shown(req.originalUrl)}; see the REST interface in the agent card.` : `${req.method} is not served at ${shown(req.originalUrl)}; use ${allow}.`;
    res.status(status).json(toRestErrorBody(new Error(message), status));
  });
  router.use(answerBugs('rest', options.logger));
  return router;
}

/**
 * The end of the app: any other path answered 404 as JSON, and errors outside the bindings (the card) logged and
 * answered with a stable JSON 500, never Express's HTML page with a stack.
 */
export function answerUnmatched(logger: Logger): [express.RequestHandler, express.ErrorRequestHandler] {
  return [
    (req, res) => {
      res.status(404).json({ error: 'not_found', message: `Nothing at ${req.method} ${shown(req.originalUrl)}; the agent card lists this agent's interfaces.` });
    },
    (error: unknown, _req, res, next) => {
      if (res.headersSent) return next(error);
      const { status } = (isObject(error) ? error : {}) as Record<string, unknown>;
      if (typeof status === 'number' && status >= 400 && status < 500) {
        res.status(status).json({ error: 'bad_request', message: 'The request could not be read.' });
        return;
      }
      logger.error({ err: error }, 'request failed');
      res.status(500).json({ error: 'internal', message: 'The agent failed to handle the request; the error is in its logs.' });
    },
  ];
}
