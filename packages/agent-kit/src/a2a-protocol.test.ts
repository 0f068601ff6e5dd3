import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { silentLogger } from '@flotilla/core';
import type { A2ARejectReason } from '@flotilla/metrics';
import { A2A_LIMITS, startA2AServer, type AnswerTurn, type RunningA2AServer } from './index.js';

/**
 * The A2A endpoint's protocol errors and limits as the spec says, over real HTTP on 127.0.0.1: JSON-RPC 2.0 codes
 * (-32700 parse, -32600 envelope and body, -32602 params) on the v1.0 and v0.3 methods, the REST binding's 4xx
 * in the SDK's error shape, and no turn ever run for a refused request.
 */
let server: RunningA2AServer;
const asked: string[] = [];
const rejected: A2ARejectReason[] = [];

const answer: AnswerTurn = (question) => {
  asked.push(question);
  return Promise.resolve({ answer: `Got: ${question.slice(0, 40)}`, options: [], metadata: {} });
};

beforeAll(async () => {
  server = await startA2AServer({
    agent: { name: 'protocol', description: 'answers with what it got', version: '0.0.1', skills: [] },
    answer,
    host: '127.0.0.1',
    port: 0,
    logger: silentLogger(),
    onReject: (reason) => rejected.push(reason),
  });
});
afterAll(async () => {
  await server?.close();
});
beforeEach(() => {
  asked.length = 0;
  rejected.length = 0;
});

interface Reply {
  readonly status: number;
  readonly type: string;
  readonly headers: Headers;
  readonly body: Record<string, unknown>;
}

async function send(path: string, body: string | Uint8Array | undefined, headers: Record<string, string> = {}, method = 'POST'): Promise<Reply> {
  const res = await fetch(`${server.url}${path}`, { method, headers, body, signal: AbortSignal.timeout(20_000) });
  const text = await res.text();
  return { status: res.status, type: res.headers.get('content-type') ?? '', headers: res.headers, body: JSON.parse(text) as Record<string, unknown> };
}

const JSON_TYPE = { 'content-type': 'application/json' } as const;
const V1 = { ...JSON_TYPE, 'A2A-Version': '1.0' } as const;
const rpc = (body: unknown, headers: Record<string, string> = V1): Promise<Reply> => send('/a2a/jsonrpc', typeof body === 'string' ? body : JSON.stringify(body), headers);
const rest = (path: string, body: unknown, headers: Record<string, string> = V1): Promise<Reply> => send(`/a2a/rest${path}`, typeof body === 'string' ? body : JSON.stringify(body), headers);

const text = (value: string, n = 1): Record<string, unknown>[] => Array.from({ length: n }, () => ({ text: value }));
const v1Message = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({ messageId: randomUUID(), role: 'ROLE_USER', parts: text('hello'), ...extra });
const v03Message = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({ kind: 'message', messageId: randomUUID(), role: 'user', parts: [{ kind: 'text', text: 'hello' }], ...extra });
const sendRpc = (message: unknown, extra: Record<string, unknown> = {}, method = 'SendMessage', id: unknown = 1) => ({ jsonrpc: '2.0', id, method, params: { message, ...extra } });

interface RpcError {
  readonly code: number;
  readonly message: string;
  readonly data?: { readonly reason?: string; readonly metadata?: Record<string, string> }[];
}
const errorOf = (reply: Reply): RpcError => reply.body.error as RpcError;

/** A JSON-RPC error answer: HTTP status, code, the message (a pattern), the id echoed; no turn was run and the refusal was counted. */
function expectRpcError(reply: Reply, code: number, message: RegExp, options: { status?: number; id?: unknown } = {}): RpcError {
  expect(reply.status).toBe(options.status ?? 200);
  expect(reply.type).toMatch(/json/);
  expect(reply.body).toMatchObject({ jsonrpc: '2.0', id: options.id ?? null });
  const error = errorOf(reply);
  expect(error.code).toBe(code);
  expect(error.message).toMatch(message);
  return error;
}

interface RestError {
  readonly code: number;
  readonly status: string;
  readonly message: string;
  readonly details: { readonly metadata?: Record<string, string> }[];
}
function expectRestError(reply: Reply, status: number, message: RegExp): RestError {
  expect(reply.status).toBe(status);
  expect(reply.type).toMatch(/json/);
  const error = reply.body.error as RestError;
  expect(error).toMatchObject({ code: status });
  expect(error.message).toMatch(message);
  return error;
}

/** Nothing was asked of the agent, and each refusal was counted as invalid_request. */
function expectRefusedWithoutWork(count: number): void {
  expect(asked).toEqual([]);
  expect(rejected).toEqual(Array.from({ length: count }, () => 'invalid_request'));
}

const taskOf = (reply: Reply): { id: string; contextId: string; status: { state: string; timestamp: string } } =>
  ((reply.body.result as { task?: unknown } | undefined)?.task ?? reply.body.task ?? reply.body.result) as never;

describe('JSON-RPC binding: body and envelope', () => {
  it('answers malformed JSON with -32700 (id null), on the v1.0 and the v0.3 dialect', async () => {
    expectRpcError(await rpc('{"jsonrpc": "2.0", "id": 2, "method": '), -32700, /^The request body is not valid JSON/);
    const legacy = expectRpcError(await rpc('{"jsonrpc":', JSON_TYPE), -32700, /not valid JSON/);
    expect(legacy.data).toBeUndefined();
    expectRefusedWithoutWork(2);
  });

  it('answers a body over 1 MiB with 413 and -32600 naming the limit', async () => {
    const huge = JSON.stringify(sendRpc(v1Message({ parts: text('x'.repeat(A2A_LIMITS.bodyMaxBytes)) })));
    const error = expectRpcError(await rpc(huge), -32600, /over the limit of 1048576 bytes/, { status: 413 });
    expect(error.message).toContain(String(A2A_LIMITS.bodyMaxBytes));
    expectRefusedWithoutWork(1);
  });

  it('answers JSON nested deeper than 64 levels with -32600 naming the limit, before the SDK decodes it', async () => {
    const deep = `{"a":`.repeat(70) + '1' + '}'.repeat(70);
    expectRpcError(await rpc(sendRpc(v1Message({ metadata: JSON.parse(deep) as unknown }))), -32600, /more than 64 levels/, { id: 1 });
    // 60 levels is a normal request.
    const fine = `{"a":`.repeat(55) + '1' + '}'.repeat(55);
    expect(taskOf(await rpc(sendRpc(v1Message({ metadata: JSON.parse(fine) as unknown })))).status.state).toBe('TASK_STATE_COMPLETED');
    expect(asked).toEqual(['hello']);
    expect(rejected).toEqual(['invalid_request']);
  });

  it('answers an invalid envelope with -32600 (not the SDK\'s -32602) before the SDK sees it, echoing a valid id', async () => {
    const cases: [unknown, RegExp, unknown][] = [
      [5, /must be a JSON-RPC 2.0 request object.*got number/, null],
      ['"SendMessage"', /got string/, null],
      ['null', /got null/, null],
      [[], /Batch requests are not supported/, null],
      [[sendRpc(v1Message())], /Batch requests are not supported/, null],
      [{ id: 3, method: 'SendMessage', params: {} }, /"jsonrpc" must be "2.0"/, 3],
      [{ jsonrpc: '1.0', id: 'a', method: 'SendMessage', params: {} }, /"jsonrpc" must be "2.0"/, 'a'],
      [{ jsonrpc: 2, id: 4, method: 'SendMessage' }, /"jsonrpc" must be "2.0"/, 4],
      [{ jsonrpc: '2.0', id: 5 }, /"method" must be a non-empty string/, 5],
      [{ jsonrpc: '2.0', id: 6, method: 42 }, /"method" must be a non-empty string/, 6],
      [{ jsonrpc: '2.0', id: 7, method: '' }, /"method" must be a non-empty string/, 7],
      [{ jsonrpc: '2.0', id: { x: 1 }, method: 'GetTask', params: { id: 't' } }, /"id" must be a string of at most 256 characters, an integer or null/, null],
      [{ jsonrpc: '2.0', id: 1.5, method: 'GetTask', params: { id: 't' } }, /"id" must be/, null],
      [{ jsonrpc: '2.0', id: 'i'.repeat(A2A_LIMITS.idMaxChars + 1), method: 'GetTask', params: { id: 't' } }, /"id" must be a string of at most 256/, null],
    ];
    for (const [body, message, id] of cases) {
      for (const headers of [V1, JSON_TYPE]) expectRpcError(await rpc(typeof body === 'string' ? body : JSON.stringify(body), headers), -32600, message, { id });
    }
    // No Content-Type at all (fetch sets none for bytes): the request is not read as JSON.
    expectRpcError(await send('/a2a/jsonrpc', Buffer.from(JSON.stringify(sendRpc(v1Message()))), { 'A2A-Version': '1.0' }), -32600, /Content-Type: application\/json/);
    expectRefusedWithoutWork(cases.length * 2 + 1);
    // Params of the wrong shape stay the SDK's -32602; an unknown method its -32601.
    expectRpcError(await rpc({ jsonrpc: '2.0', id: 8, method: 'SendMessage', params: [1] }), -32602, /Invalid method parameters/, { id: 8 });
    expectRpcError(await rpc({ jsonrpc: '2.0', id: 9, method: 'NoSuchMethod', params: {} }), -32601, /./, { id: 9 });
  });

  it('answers other methods and paths as JSON-RPC errors, never an HTML page', async () => {
    const get = await send('/a2a/jsonrpc', undefined, {}, 'GET');
    expectRpcError(get, -32600, /POSTed to this URL; GET is not served/, { status: 405 });
    expect(get.headers.get('allow')).toBe('POST');
    expectRpcError(await send('/a2a/jsonrpc/extra', '{}', V1), -32600, /No JSON-RPC endpoint/, { status: 404 });
    // Another content type is the SDK's to refuse, as JSON.
    expectRpcError(await send('/a2a/jsonrpc', 'hello', { 'content-type': 'text/plain', 'A2A-Version': '1.0' }), -32005, /Content-Type/);
    expect(asked).toEqual([]);
  });
});

describe('JSON-RPC binding: message limits (-32602 naming the limit), v1.0 and v0.3', () => {
  it('refuses a contextId over 256 characters, or with unprintable characters; takes 256 printable Unicode ones', async () => {
    const long = await rpc(sendRpc(v1Message({ contextId: 'c'.repeat(900_000) })));
    const error = expectRpcError(long, -32602, /^message\.contextId is 900000 characters; at most 256 printable characters$/, { id: 1 });
    expect(error.data?.[0]).toMatchObject({ reason: 'INVALID_PARAMS', metadata: { field: 'message.contextId', limit: '256' } });
    for (const bad of ['ctx\u0000', 'ctx\u001b[31m', 'ctx\u007f', 'ctx\u0085', 'a\u2028b', 'a\u2029b', 'lone\ud800', '\udc00x', 'tab\there']) {
      expectRpcError(await rpc(sendRpc(v1Message({ contextId: bad }))), -32602, /^message\.contextId has an unprintable character \(U\+[0-9A-F]{4}\) at index \d+; at most 256 printable characters/, { id: 1 });
    }
    expectRpcError(await rpc(sendRpc(v1Message({ contextId: 42 }))), -32602, /message\.contextId must be a string of at most 256 printable characters; got number/, { id: 1 });
    expectRpcError(await rpc(sendRpc(v1Message({ contextId: '🚀'.repeat(257) }))), -32602, /is 257 characters; at most 256/, { id: 1 });
    expectRefusedWithoutWork(12);
    // 256 characters of printable Unicode (512 UTF-16 units of emoji) and non-Latin ids are fine.
    for (const contextId of ['🚀'.repeat(256), 'c'.repeat(256), 'Zürich · 東京 · مرحبا', '\u202Egnp.exe']) {
      const reply = await rpc(sendRpc(v1Message({ contextId })));
      expect(taskOf(reply).contextId).toBe(contextId);
    }
    expect(asked).toHaveLength(4);
  });

  it('applies the id rules to taskId, messageId and referenceTaskIds (at most 16), snake_case spellings included', async () => {
    expectRpcError(await rpc(sendRpc(v1Message({ taskId: 't'.repeat(300) }))), -32602, /^message\.taskId is 300 characters; at most 256 printable characters$/, { id: 1 });
    expectRpcError(await rpc(sendRpc(v1Message({ context_id: 'x'.repeat(257) }))), -32602, /^message\.contextId is 257 characters/, { id: 1 });
    expectRpcError(await rpc(sendRpc(v1Message({ messageId: `m\n${randomUUID()}` }))), -32602, /^message\.messageId has an unprintable character \(U\+000A\)/, { id: 1 });
    expectRpcError(await rpc(sendRpc(v1Message({ referenceTaskIds: Array.from({ length: 17 }, (_, i) => `t${i}`) }))), -32602, /^message\.referenceTaskIds has 17 entries; at most 16$/, { id: 1 });
    expectRpcError(await rpc(sendRpc(v1Message({ referenceTaskIds: ['ok', 'bad\u0000'] }))), -32602, /^message\.referenceTaskIds\[1\] has an unprintable character/, { id: 1 });
    expectRpcError(await rpc(sendRpc(v1Message({ extensions: 'x'.repeat(1000) }))), -32602, /^message\.extensions must be an array of at most 16 entries; got string$/, { id: 1 });
    expectRefusedWithoutWork(6);
  });

  it('refuses a message of more than 64 parts, with no parts, or without a role; takes 64 parts', async () => {
    const error = expectRpcError(await rpc(sendRpc(v1Message({ parts: text('w', 65) }))), -32602, /^message\.parts has 65 parts; a message takes at most 64/, { id: 1 });
    expect(error.data?.[0]?.metadata).toEqual({ field: 'message.parts', limit: '64' });
    expectRpcError(await rpc(sendRpc(v1Message({ parts: [] }))), -32602, /^message\.parts is empty; a message needs at least 1 part \(at most 64\)$/, { id: 1 });
    expectRpcError(await rpc(sendRpc(v1Message({ parts: undefined }))), -32602, /^message\.parts is required: 1 to 64 parts$/, { id: 1 });
    expectRpcError(await rpc(sendRpc(v1Message({ parts: 'hello' }))), -32602, /^message\.parts must be an array of at most 64 parts; got string$/, { id: 1 });
    expectRpcError(await rpc(sendRpc(v1Message({ parts: [{ text: 'a' }, 7] }))), -32602, /^message\.parts\[1\] must be an object; got number$/, { id: 1 });
    expectRpcError(await rpc(sendRpc(v1Message({ role: undefined }))), -32602, /^message\.role is required: "ROLE_USER" or "ROLE_AGENT"; got undefined$/, { id: 1 });
    expectRpcError(await rpc(sendRpc(v1Message({ role: 'ROLE_UNSPECIFIED' }))), -32602, /^message\.role is required.*got "ROLE_UNSPECIFIED"$/, { id: 1 });
    expectRpcError(await rpc(sendRpc('not a message')), -32602, /^message must be an object; got string$/, { id: 1 });
    // The streaming method is checked the same way, answered before any stream starts.
    expectRpcError(await rpc(sendRpc(v1Message({ parts: text('w', 65) }), {}, 'SendStreamingMessage', 'stream-1')), -32602, /at most 64/, { id: 'stream-1' });
    expectRefusedWithoutWork(9);
    expect(taskOf(await rpc(sendRpc(v1Message({ parts: text('w', 64) })))).status.state).toBe('TASK_STATE_COMPLETED');
    expect(asked).toEqual([Array.from({ length: 64 }, () => 'w').join(' ')]);
  });

  it('refuses a request of 60,000 one-character parts, naming the limit, without running a turn', async () => {
    const body = JSON.stringify(sendRpc(v1Message({ parts: text('a', 60_000) })));
    expect(Buffer.byteLength(body)).toBeLessThan(A2A_LIMITS.bodyMaxBytes);
    const reply = await rpc(body);
    expectRpcError(reply, -32602, /^message\.parts has 60000 parts; a message takes at most 64/, { id: 1 });
    expectRefusedWithoutWork(1);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });

  it('refuses a negative (or non-integer) historyLength in SendMessage, GetTask and ListTasks', async () => {
    expectRpcError(await rpc(sendRpc(v1Message(), { configuration: { historyLength: -1 } })), -32602, /^configuration\.historyLength must be an integer of 0 or more \(0: no history\); got -1$/, { id: 1 });
    expectRpcError(await rpc(sendRpc(v1Message(), { configuration: { history_length: '-3' } })), -32602, /configuration\.historyLength .* got "-3"/, { id: 1 });
    expectRpcError(await rpc({ jsonrpc: '2.0', id: 2, method: 'GetTask', params: { id: 'some-task', historyLength: -5 } }), -32602, /^historyLength must be an integer of 0 or more.*got -5$/, { id: 2 });
    expectRpcError(await rpc({ jsonrpc: '2.0', id: 3, method: 'GetTask', params: { id: 'some-task', historyLength: 1.5 } }), -32602, /got 1\.5/, { id: 3 });
    expectRpcError(await rpc({ jsonrpc: '2.0', id: 4, method: 'ListTasks', params: { historyLength: -1 } }), -32602, /^historyLength must be an integer of 0 or more/, { id: 4 });
    expectRefusedWithoutWork(5);
    // 0 and a decimal string are fine.
    expect(taskOf(await rpc(sendRpc(v1Message(), { configuration: { historyLength: 0 } }))).status.state).toBe('TASK_STATE_COMPLETED');
    expect((await rpc({ jsonrpc: '2.0', id: 5, method: 'ListTasks', params: { historyLength: '2' } })).body.result).toMatchObject({ nextPageToken: '' });
  });

  it('applies the same limits to the v0.3 methods (message/send, message/stream, tasks/get), in v0.3 error shape', async () => {
    const long = expectRpcError(await rpc(sendRpc(v03Message({ contextId: 'c'.repeat(900_000) }), {}, 'message/send'), JSON_TYPE), -32602, /^message\.contextId is 900000 characters; at most 256 printable characters$/, { id: 1 });
    expect(long.data).toBeUndefined();
    expectRpcError(await rpc(sendRpc(v03Message({ parts: Array.from({ length: 65 }, () => ({ kind: 'text', text: 'w' })) }), {}, 'message/stream', 9), JSON_TYPE), -32602, /^message\.parts has 65 parts; a message takes at most 64/, { id: 9 });
    expectRpcError(await rpc(sendRpc(v03Message({ contextId: 'bell\u0007' }), {}, 'message/send'), { ...JSON_TYPE, 'A2A-Version': '0.3' }), -32602, /unprintable character \(U\+0007\)/, { id: 1 });
    // The v0.3 layer spreads a string of task ids into one per character: refused.
    expectRpcError(await rpc(sendRpc(v03Message({ referenceTaskIds: 'r'.repeat(10_000) }), {}, 'message/send'), JSON_TYPE), -32602, /^message\.referenceTaskIds must be an array of at most 16 entries; got string$/, { id: 1 });
    expectRpcError(await rpc(sendRpc(v03Message(), { configuration: { historyLength: -1 } }, 'message/send'), JSON_TYPE), -32602, /configuration\.historyLength/, { id: 1 });
    expectRpcError(await rpc({ jsonrpc: '2.0', id: 6, method: 'tasks/get', params: { id: 'x', historyLength: -1 } }, JSON_TYPE), -32602, /^historyLength must be/, { id: 6 });
    expectRefusedWithoutWork(6);
    // A v0.3 message of up to 64 parts is answered.
    const ok = await rpc(sendRpc(v03Message({ contextId: 'legacy-ctx', parts: Array.from({ length: 64 }, () => ({ kind: 'text', text: 'w' })) }), {}, 'message/send'), JSON_TYPE);
    expect((ok.body.result as { status: { state: string } }).status.state).toBe('completed');
    expect(asked).toHaveLength(1);
  });
});

describe('REST binding: 4xx in the SDK\'s REST error shape, always JSON', () => {
  it('refuses the message limits with 400 INVALID_ARGUMENT naming the limit', async () => {
    const long = expectRestError(await rest('/message:send', { message: v1Message({ contextId: 'c'.repeat(900_000) }) }), 400, /^message\.contextId is 900000 characters; at most 256 printable characters$/);
    expect(long).toMatchObject({ status: 'INVALID_ARGUMENT', details: [{ metadata: { field: 'message.contextId', limit: '256' } }] });
    expectRestError(await rest('/message:send', { message: v1Message({ parts: text('a', 60_000) }) }), 400, /^message\.parts has 60000 parts; a message takes at most 64/);
    expectRestError(await rest('/message:stream', { message: v1Message({ parts: [] }) }), 400, /message\.parts is empty/);
    expectRestError(await rest('/message:send', { message: v1Message({ role: undefined }) }), 400, /message\.role is required/);
    expectRestError(await rest('/my-tenant/message:send', { message: v1Message({ contextId: 'nul\u0000' }) }), 400, /unprintable character \(U\+0000\)/);
    expectRestError(await rest('/message:send', { message: v1Message(), configuration: { historyLength: -2 } }), 400, /configuration\.historyLength must be an integer of 0 or more/);
    expectRefusedWithoutWork(6);
    const ok = await rest('/message:send', { message: v1Message({ contextId: 'rest-ctx' }) });
    expect(ok.status).toBe(200);
    expect(taskOf(ok).status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('refuses the limits on the v0.3 REST routes too, in their error shape', async () => {
    const legacy = await rest('/v1/message:send', { message: { messageId: randomUUID(), role: 'ROLE_USER', content: text('w', 65) } }, JSON_TYPE);
    expect(legacy.status).toBe(400);
    expect(legacy.body).toEqual({ code: -32602, message: 'message.content has 65 parts; a message takes at most 64 (join the text into fewer parts)' });
    const long = await rest('/v1/message:send', { request: { messageId: randomUUID(), contextId: 'c'.repeat(1_000), content: text('hi') } }, JSON_TYPE);
    expect(long.body).toEqual({ code: -32602, message: 'message.contextId is 1000 characters; at most 256 printable characters' });
    expectRefusedWithoutWork(2);
    // Within the limits the v0.3 REST route answers.
    const ok = await rest('/v1/message:send', { message: { messageId: randomUUID(), role: 'ROLE_USER', contextId: 'legacy-rest', content: text('hi', 64) } }, JSON_TYPE);
    expect(ok.status).toBe(201);
    expect(asked).toHaveLength(1);
  });

  it('answers bad, too large and too deep bodies, unknown paths, wrong methods and content types as JSON', async () => {
    expectRestError(await rest('/message:send', '{"message": '), 400, /^The request body is not valid JSON/);
    const huge = JSON.stringify({ message: v1Message({ parts: text('x'.repeat(A2A_LIMITS.bodyMaxBytes)) }) });
    expectRestError(await rest('/message:send', huge), 413, /over the limit of 1048576 bytes/);
    const deep = JSON.parse(`{"a":`.repeat(70) + '1' + '}'.repeat(70)) as unknown;
    expectRestError(await rest('/message:send', { message: v1Message({ metadata: deep }) }), 400, /more than 64 levels/);
    expectRestError(await send('/a2a/rest/message:send', 'x', { 'content-type': 'application/json; charset=latin1', 'A2A-Version': '1.0' }), 415, /could not be read: unsupported charset/);
    expectRefusedWithoutWork(4);

    expectRestError(await rest('/no/such/operation', {}), 404, /No A2A operation at POST \/a2a\/rest\/no\/such\/operation/);
    const wrongMethod = await send('/a2a/rest/message:send', undefined, { 'A2A-Version': '1.0' }, 'GET');
    expectRestError(wrongMethod, 405, /GET is not served at \/a2a\/rest\/message:send; use POST/);
    expect(wrongMethod.headers.get('allow')).toBe('POST');
    expectRestError(await send('/a2a/rest/tasks/some-id', undefined, { 'A2A-Version': '1.0' }, 'DELETE'), 405, /use GET/);
    expectRestError(await rest('/message:send', 'hello', { 'content-type': 'text/plain', 'A2A-Version': '1.0' }), 400, /Unsupported Content-Type/);
    expectRestError(await send('/a2a/rest/tasks?historyLength=-1', undefined, { 'A2A-Version': '1.0' }, 'GET'), 400, /historyLength must be non-negative/);
    const outside = await send('/a2a/elsewhere', '{}', V1);
    expect(outside.status).toBe(404);
    expect(outside.body).toMatchObject({ error: 'not_found' });
    expect(asked).toEqual([]);
  });
});

describe('ListTasks', () => {
  it('honours statusTimestampAfter, pages by cursor, and refuses a pageToken it did not issue', async () => {
    const contextId = `list-${randomUUID()}`;
    const first = taskOf(await rpc(sendRpc(v1Message({ contextId }))));
    // The next task's status must be stamped later than the first's: wait for the clock to move past it.
    const stamp = Date.parse(first.status.timestamp);
    while (Date.now() <= stamp + 1) await new Promise((done) => setTimeout(done, 2));
    const second = taskOf(await rpc(sendRpc(v1Message({ contextId }))));
    const list = async (params: Record<string, unknown>) => (await rpc({ jsonrpc: '2.0', id: 'l', method: 'ListTasks', params: { contextId, ...params } })).body;

    const all = (await list({})).result as { tasks: { id: string }[]; totalSize: number };
    expect(all.tasks.map((t) => t.id)).toEqual([second.id, first.id]);
    const after = (await list({ statusTimestampAfter: first.status.timestamp })).result as { tasks: { id: string }[]; totalSize: number };
    expect(after.tasks.map((t) => t.id)).toEqual([second.id]);
    expect(after.totalSize).toBe(1);
    expect(((await list({ statusTimestampAfter: new Date(Date.now() + 60_000).toISOString() })).result as { tasks: unknown[] }).tasks).toEqual([]);

    const page1 = (await list({ pageSize: 1 })).result as { tasks: { id: string }[]; nextPageToken: string };
    expect(page1.tasks.map((t) => t.id)).toEqual([second.id]);
    const page2 = (await list({ pageSize: 1, pageToken: page1.nextPageToken })).result as { tasks: { id: string }[]; nextPageToken: string };
    expect(page2).toMatchObject({ tasks: [{ id: first.id }], nextPageToken: '' });

    for (const token of ['garbage', '-1', '0', '99999999999', 'MTIzfGFiYw==']) {
      const error = (await list({ pageToken: token })).error as RpcError;
      expect(error.code).toBe(-32602);
      expect(error.message).toMatch(/^pageToken ".*" was not issued by this agent; list again without a pageToken/);
    }
    const rested = await send(`/a2a/rest/tasks?contextId=${contextId}&pageToken=garbage`, undefined, { 'A2A-Version': '1.0' }, 'GET');
    expectRestError(rested, 400, /pageToken "garbage" was not issued by this agent/);
  });
});
