import { ChatAnthropic } from '@langchain/anthropic';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeAnthropic } from './anthropic.js';
import { API_KEY, describeFakeLlmContract } from './contract.test-util.js';
import type { RunningFakeLlm } from './server.js';

interface WireBlock {
  type: string;
  tool_use_id?: string;
  content?: unknown;
}
interface WireMessage {
  role: string;
  content: string | WireBlock[];
}

const resultText = (content: unknown): string =>
  typeof content === 'string' ? content : (content as { text: string }[]).map((b) => b.text).join('');

describeFakeLlmContract({
  name: 'Anthropic',
  start: startFakeAnthropic,
  client: (sim, apiKey = API_KEY) => new ChatAnthropic({ apiKey, model: 'claude-sonnet-4-5', anthropicApiUrl: sim.baseUrl, maxRetries: 0 }),
  toolNames: (body) => ((body as { tools?: { name: string }[] }).tools ?? []).map((t) => t.name),
  toolResults: (body) =>
    (body as { messages: WireMessage[] }).messages.flatMap((m) =>
      typeof m.content === 'string' ? [] : m.content.filter((b) => b.type === 'tool_result').map((b) => ({ id: b.tool_use_id ?? '', text: resultText(b.content) })),
    ),
});

describe('Anthropic wire format', () => {
  let sim: RunningFakeLlm;
  beforeAll(async () => {
    sim = await startFakeAnthropic({ apiKey: API_KEY, contextWindow: 1_000 });
  });
  afterAll(async () => sim.close());

  const HEADERS = { 'x-api-key': API_KEY, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' };
  const post = async (body: unknown, headers: Record<string, string> = HEADERS): Promise<{ status: number; headers: Headers; body: Record<string, unknown> & { error?: Record<string, unknown> } }> => {
    const response = await fetch(`${sim.baseUrl}/v1/messages`, { method: 'POST', headers, body: typeof body === 'string' ? body : JSON.stringify(body) });
    return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, unknown> };
  };
  const request = (messages: unknown[], extra: Record<string, unknown> = {}): Record<string, unknown> => ({ model: 'claude-sonnet-4-5', max_tokens: 1024, messages, ...extra });
  const user = (content: unknown): Record<string, unknown> => ({ role: 'user', content });
  const toolUse = (id: string): Record<string, unknown> => ({ role: 'assistant', content: [{ type: 'tool_use', id, name: 'f', input: {} }] });
  const toolResult = (id: string): Record<string, unknown> => ({ type: 'tool_result', tool_use_id: id, content: 'r' });

  it('ChatAnthropic sends x-api-key and anthropic-version, max_tokens, system apart, and does not stream on invoke', async () => {
    const model = new ChatAnthropic({ apiKey: API_KEY, model: 'claude-sonnet-4-5', anthropicApiUrl: sim.baseUrl, maxRetries: 0 });
    await model.invoke([
      ['system', 'Be brief.'],
      ['human', 'hi'],
    ]);
    expect(sim.requests.at(-1)).toMatchObject({
      path: '/v1/messages',
      status: 200,
      body: { model: 'claude-sonnet-4-5', stream: false, system: 'Be brief.', messages: [{ role: 'user', content: 'hi' }] },
    });
    expect((sim.requests.at(-1)?.body as { max_tokens: unknown }).max_tokens).toEqual(expect.any(Number));
  });

  it('answers the real message shape with the simulator own usage', async () => {
    const answer = await post(request([user([{ type: 'text', text: 'hello' }])], { system: [{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } }] }));
    expect(answer.status).toBe(200);
    expect(answer.headers.get('request-id')).toMatch(/^req_/);
    expect(answer.body).toMatchObject({
      id: expect.stringMatching(/^msg_/) as unknown,
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      content: [{ type: 'text', text: 'I have no tools for that.' }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: sim.requests.at(-1)?.promptTokens },
    });
  });

  it('cuts a reply at max_tokens with stop_reason max_tokens', async () => {
    const answer = await post(request([user('hello')], { max_tokens: 2 }));
    expect(answer.body).toMatchObject({ stop_reason: 'max_tokens', content: [{ type: 'text', text: 'I have' }], usage: { output_tokens: 2 } });
  });

  it('refuses a missing or wrong key with 401 and a missing anthropic-version with 400', async () => {
    const { 'x-api-key': _key, ...noKey } = HEADERS;
    expect(await post(request([user('x')]), noKey)).toMatchObject({ status: 401, body: { type: 'error', error: { type: 'authentication_error', message: 'x-api-key header is required' } } });
    expect(await post(request([user('x')]), { ...HEADERS, 'x-api-key': 'nope' })).toMatchObject({ status: 401, body: { error: { message: 'invalid x-api-key' } } });
    const { 'anthropic-version': _version, ...noVersion } = HEADERS;
    expect(await post(request([user('x')]), noVersion)).toMatchObject({ status: 400, body: { error: { type: 'invalid_request_error', message: 'anthropic-version: header is required' } } });
  });

  it('answers a too-long prompt with the real message', async () => {
    const answer = await post(request([user('word '.repeat(1_200))]));
    expect([answer.status, answer.body]).toEqual([
      400,
      { type: 'error', error: { type: 'invalid_request_error', message: `prompt is too long: ${sim.requests.at(-1)?.promptTokens} tokens > 1000 maximum` } },
    ]);
  });

  it('answers 429 with retry-after, 529 overloaded and 500 api_error from faults', async () => {
    sim.setFaults({ failNext: { status: 429, count: 1, retryAfterSeconds: 4 } });
    const limited = await post(request([user('x')]));
    expect([limited.status, limited.headers.get('retry-after'), limited.body.error?.type]).toEqual([429, '4', 'rate_limit_error']);
    sim.setFaults({ failNext: { status: 529, count: 1 } });
    expect(await post(request([user('x')]))).toMatchObject({ status: 529, body: { error: { type: 'overloaded_error', message: 'Overloaded' } } });
    sim.setFaults({ failNext: { status: 500, count: 1 } });
    expect(await post(request([user('x')]))).toMatchObject({ status: 500, body: { error: { type: 'api_error' } } });
    expect((await post(request([user('x')]))).status).toBe(200);
  });

  it('refuses malformed bodies with invalid_request_error', async () => {
    const { max_tokens: _max, ...noMax } = request([user('x')]);
    expect(await post(noMax)).toMatchObject({ status: 400, body: { error: { type: 'invalid_request_error', message: 'max_tokens: Field required' } } });
    expect((await post(request([user(5)]))).body.error).toMatchObject({ message: expect.stringMatching(/^messages\.0\.content: /) as unknown });
    expect((await post(request([]))).body.error).toMatchObject({ message: 'messages: at least one message is required' });
    expect((await post(request([user('')]))).body.error).toMatchObject({ message: expect.stringContaining('must have non-empty content') as unknown });
    expect((await post(request([user([{ type: 'text', text: '' }])]))).body.error).toMatchObject({ message: 'messages: text content blocks must be non-empty' });
    expect((await post(request([user([{ type: 'video' }])]))).status).toBe(400);
    expect(await post('{"model":')).toMatchObject({ status: 400, body: { type: 'error', error: { type: 'invalid_request_error' } } });
  });

  it('refuses a tool_result without its tool_use and a tool_use without its tool_result', async () => {
    const orphan = await post(request([user('x'), { role: 'assistant', content: 'ok' }, user([toolResult('toolu_9')])]));
    expect([orphan.status, orphan.body.error?.message]).toEqual([
      400,
      'messages.2.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_9. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.',
    ]);
    const unanswered = await post(request([user('x'), toolUse('toolu_1'), user('y')]));
    expect(unanswered.body.error?.message).toBe(
      'messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_1. Each `tool_use` block must have a corresponding `tool_result` block in the next message.',
    );
    expect((await post(request([user('x'), toolUse('toolu_1'), user([toolResult('toolu_1'), { type: 'text', text: 'and?' }])]))).status).toBe(200);
  });

  it('refuses whitespace-only text, and reads consecutive messages of one role as one turn, as the real API does', async () => {
    const refuse = 'messages: text content blocks must contain non-whitespace text';
    expect((await post(request([user('x'), { role: 'assistant', content: ' \n' }, user('y')]))).body.error?.message).toBe(refuse);
    expect((await post(request([user([{ type: 'text', text: '\t' }])]))).body.error?.message).toBe(refuse);
    expect((await post(request([user([{ type: 'text', text: ' ' }, { type: 'text', text: 'real' }])]))).status).toBe(200);
    // An empty assistant message anywhere but last is refused: the one a history must never keep.
    expect((await post(request([user('x'), { role: 'assistant', content: '' }, user('y')]))).body.error?.message).toBe(
      'messages.1: all messages must have non-empty content except for the optional final assistant message',
    );
    // Consecutive same-role messages are combined: two user messages, and a tool_use answered after a second assistant message.
    expect((await post(request([user('x'), user('y')]))).status).toBe(200);
    expect((await post(request([user('x'), toolUse('toolu_1'), { role: 'assistant', content: 'checking' }, user([toolResult('toolu_1')])]))).status).toBe(200);
    expect((await post(request([user('x'), toolUse('toolu_1'), user([toolResult('toolu_1')]), user('and?')]))).status).toBe(200);
    // Anthropic's own API accepts a first message from the assistant.
    expect((await post(request([{ role: 'assistant', content: 'Hello.' }, user('x')]))).status).toBe(200);
  });

  it('refuses bodies over 8 MiB with 413 request_too_large', async () => {
    const big = await post(request([user('x'.repeat(8 * 1024 * 1024))]));
    expect([big.status, big.body.error?.type]).toEqual([413, 'request_too_large']);
  });

  it('streams the real event sequence', async () => {
    const scripted = await startFakeAnthropic({ apiKey: API_KEY, script: () => ({ text: 'Checking now.', toolCalls: [{ name: 'a', args: { x: 'y'.repeat(40) } }] }) });
    try {
      const response = await fetch(`${scripted.baseUrl}/v1/messages`, { method: 'POST', headers: HEADERS, body: JSON.stringify(request([user('x')], { stream: true })) });
      expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
      const events = (await response.text())
        .split('\n\n')
        .filter((e) => e !== '')
        .map((e) => {
          const [event, data] = e.split('\n');
          return { event: event?.replace(/^event: /, ''), data: JSON.parse(data?.replace(/^data: /, '') ?? '') as { type: string; delta?: { partial_json?: string } } };
        });
      expect(events.every((e) => e.event === e.data.type)).toBe(true);
      const kinds = events.map((e) => e.event).filter((k, i, all) => k !== all[i - 1]);
      expect(kinds).toEqual(['message_start', 'content_block_start', 'ping', 'content_block_delta', 'content_block_stop', 'content_block_start', 'content_block_delta', 'content_block_stop', 'message_delta', 'message_stop']);
      const json = events.filter((e) => e.data.delta?.partial_json !== undefined).map((e) => e.data.delta?.partial_json).join('');
      expect(JSON.parse(json)).toEqual({ x: 'y'.repeat(40) });
      expect(events.find((e) => e.event === 'message_delta')?.data).toMatchObject({ delta: { stop_reason: 'tool_use' } });
    } finally {
      await scripted.close();
    }
  });

  it('lists models', async () => {
    const response = await fetch(`${sim.baseUrl}/v1/models`, { headers: HEADERS });
    expect(await response.json()).toMatchObject({ data: expect.arrayContaining([expect.objectContaining({ type: 'model', id: 'claude-sonnet-4-5' })]) as unknown, has_more: false });
  });
});
