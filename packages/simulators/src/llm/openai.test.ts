import { ChatOpenAI } from '@langchain/openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_KEY, describeFakeLlmContract } from './contract.test-util.js';
import { startFakeOpenAi } from './openai.js';
import type { RunningFakeLlm } from './server.js';

interface WireMessage {
  role: string;
  content?: unknown;
  tool_call_id?: string;
}

describeFakeLlmContract({
  name: 'OpenAI',
  start: startFakeOpenAi,
  client: (sim, apiKey = API_KEY) => new ChatOpenAI({ apiKey, model: 'gpt-4o-mini', configuration: { baseURL: sim.baseUrl }, maxRetries: 0, useResponsesApi: false }),
  toolNames: (body) => ((body as { tools?: { function: { name: string } }[] }).tools ?? []).map((t) => t.function.name),
  toolResults: (body) =>
    (body as { messages: WireMessage[] }).messages.filter((m) => m.role === 'tool').map((m) => ({ id: m.tool_call_id ?? '', text: String(m.content) })),
});

describe('OpenAI wire format', () => {
  let sim: RunningFakeLlm;
  beforeAll(async () => {
    sim = await startFakeOpenAi({ apiKey: API_KEY, contextWindow: 1_000 });
  });
  afterAll(async () => sim.close());

  const post = async (body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; body: Record<string, unknown> & { error?: Record<string, unknown> } }> => {
    const response = await fetch(`${sim.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
    return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, unknown> };
  };
  const user = (content: string): WireMessage => ({ role: 'user', content });
  const assistantCall = (id: string): Record<string, unknown> => ({ role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name: 'f', arguments: '{}' } }] });

  it('ChatOpenAI sends chat completions with a bearer key (not the Responses API), stream:false on invoke and include_usage on stream', async () => {
    const model = new ChatOpenAI({ apiKey: API_KEY, model: 'gpt-4o-mini', configuration: { baseURL: sim.baseUrl }, maxRetries: 0 });
    await model.invoke('hi');
    for await (const _chunk of await model.stream('hi'));
    const [invoked, streamed] = sim.requests.slice(-2);
    expect(invoked).toMatchObject({ path: '/v1/chat/completions', status: 200, body: { model: 'gpt-4o-mini', stream: false, messages: [{ role: 'user', content: 'hi' }] } });
    expect(streamed?.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });

  it('answers the real response shape with the simulator own usage', async () => {
    const answer = await post({ model: 'gpt-4o-mini', messages: [{ role: 'developer', content: [{ type: 'text', text: 'Be brief.' }] }, user('hello')] });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('x-request-id')).toMatch(/^req_/);
    expect(answer.body).toMatchObject({
      id: expect.stringMatching(/^chatcmpl-/) as unknown,
      object: 'chat.completion',
      model: 'gpt-4o-mini',
      choices: [{ index: 0, message: { role: 'assistant', content: 'I have no tools for that.', refusal: null }, finish_reason: 'stop', logprobs: null }],
    });
    const usage = answer.body.usage as { prompt_tokens: number; completion_tokens: number; total_tokens: number };
    expect(usage.prompt_tokens).toBe(sim.requests.at(-1)?.promptTokens);
    expect(usage.total_tokens).toBe(usage.prompt_tokens + usage.completion_tokens);
  });

  it('cuts a reply at max_completion_tokens with finish_reason length', async () => {
    const answer = await post({ model: 'm', max_completion_tokens: 2, messages: [user('hello')] });
    const choice = (answer.body.choices as { message: { content: string }; finish_reason: string }[])[0];
    expect(choice?.finish_reason).toBe('length');
    expect(choice?.message.content).toBe('I have');
  });

  it('refuses a missing key and a wrong one with 401', async () => {
    const missing = await post({ model: 'm', messages: [user('x')] }, { authorization: '' });
    expect(missing.status).toBe(401);
    expect(missing.body.error).toMatchObject({ type: 'invalid_request_error', code: null, message: expect.stringContaining("You didn't provide an API key") as unknown });
    const wrong = await post({ model: 'm', messages: [user('x')] }, { authorization: 'Bearer sk-wrong-key-1234' });
    expect(wrong.body.error).toMatchObject({ code: 'invalid_api_key', message: expect.stringContaining('Incorrect API key provided: sk-**********1234') as unknown });
  });

  it('answers context_length_exceeded with the real message', async () => {
    const answer = await post({ model: 'm', messages: [user('word '.repeat(1_200))] });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toEqual({
      message: `This model's maximum context length is 1000 tokens. However, your messages resulted in ${sim.requests.at(-1)?.promptTokens} tokens. Please reduce the length of the messages.`,
      type: 'invalid_request_error',
      param: 'messages',
      code: 'context_length_exceeded',
    });
  });

  it('answers 429 with retry-after, and 503, from faults', async () => {
    sim.setFaults({ failNext: { status: 429, count: 1, retryAfterSeconds: 3 } });
    const limited = await post({ model: 'm', messages: [user('x')] });
    expect([limited.status, limited.headers.get('retry-after')]).toEqual([429, '3']);
    expect(limited.body.error).toMatchObject({ code: 'rate_limit_exceeded' });
    sim.setFaults({ failNext: { status: 503, count: 1 } });
    expect((await post({ model: 'm', messages: [user('x')] })).body.error).toMatchObject({ type: 'server_error' });
    expect((await post({ model: 'm', messages: [user('x')] })).status).toBe(200);
  });

  it('refuses malformed bodies with invalid_request_error', async () => {
    const missing = await post({ model: 'm' });
    expect([missing.status, missing.body.error]).toEqual([400, { message: "Missing required parameter: 'messages'.", type: 'invalid_request_error', param: 'messages', code: 'missing_required_parameter' }]);
    const wrongType = await post({ model: 'm', messages: [{ role: 'user', content: 5 }] });
    expect(wrongType.body.error).toMatchObject({ param: 'messages[0].content' });
    const empty = await post({ model: 'm', messages: [] });
    expect(empty.body.error).toMatchObject({ code: 'empty_array', param: 'messages' });
    const badRole = await post({ model: 'm', messages: [{ role: 'robot', content: 'x' }] });
    expect(badRole.body.error).toMatchObject({ param: 'messages[0].role', code: 'invalid_value' });
    const notJson = await post('{"model": ');
    expect([notJson.status, notJson.body.error?.message]).toEqual([400, expect.stringContaining('We could not parse the JSON body') as unknown]);
    const tools = Array.from({ length: 129 }, (_, i) => ({ type: 'function', function: { name: `t${i}` } }));
    expect((await post({ model: 'm', messages: [user('x')], tools })).body.error).toMatchObject({ code: 'array_above_max_length', param: 'tools' });
  });

  it('refuses orphan tool messages and unanswered tool calls, as the real API does', async () => {
    const orphan = await post({ model: 'm', messages: [user('x'), { role: 'tool', tool_call_id: 'call_1', content: 'r' }] });
    expect([orphan.status, orphan.body.error]).toEqual([
      400,
      { message: "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.", type: 'invalid_request_error', param: 'messages.[1].role', code: null },
    ]);
    const wrongId = await post({ model: 'm', messages: [user('x'), assistantCall('call_1'), { role: 'tool', tool_call_id: 'call_2', content: 'r' }] });
    expect(wrongId.body.error).toMatchObject({ param: 'messages.[2].tool_call_id' });
    const unanswered = await post({ model: 'm', messages: [user('x'), assistantCall('call_1'), user('y')] });
    expect(unanswered.body.error).toMatchObject({ param: 'messages.[1].role', message: expect.stringContaining('did not have response messages: call_1') as unknown });
    const answered = await post({ model: 'm', messages: [user('x'), assistantCall('call_1'), { role: 'tool', tool_call_id: 'call_1', content: [{ type: 'text', text: 'r' }] }] });
    expect(answered.status).toBe(200);
  });

  it('refuses bodies over 8 MiB with 413, and unknown paths with 404', async () => {
    const big = await post({ model: 'm', messages: [user('x'.repeat(8 * 1024 * 1024))] });
    expect([big.status, big.body.error?.code]).toEqual([413, 'request_too_large']);
    const response = await fetch(`${sim.baseUrl}/responses`, { method: 'POST', headers: { authorization: `Bearer ${API_KEY}` } });
    expect([response.status, ((await response.json()) as { error: { message: string } }).error.message]).toEqual([404, 'Invalid URL (POST /v1/responses)']);
  });

  it('streams chunks with indexed tool call deltas, the usage chunk and [DONE]', async () => {
    const scripted = await startFakeOpenAi({ apiKey: API_KEY, script: () => ({ text: '', toolCalls: [{ name: 'a', args: { x: 'y'.repeat(40) } }, { name: 'b', args: {} }] }) });
    try {
      const response = await fetch(`${scripted.baseUrl}/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'm', stream: true, stream_options: { include_usage: true }, messages: [user('x')] }),
      });
      expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
      const datas = (await response.text()).split('\n\n').filter((e) => e !== '').map((e) => e.replace(/^data: /, ''));
      expect(datas.at(-1)).toBe('[DONE]');
      const chunks = datas.slice(0, -1).map((d) => JSON.parse(d) as { object: string; choices: { delta: { tool_calls?: { index: number; id?: string; function: { arguments: string } }[] }; finish_reason: string | null }[]; usage: unknown });
      expect(chunks.every((c) => c.object === 'chat.completion.chunk')).toBe(true);
      const deltas = chunks.flatMap((c) => c.choices.flatMap((choice) => choice.delta.tool_calls ?? []));
      expect(deltas.filter((d) => d.id !== undefined).map((d) => d.index)).toEqual([0, 1]);
      expect(deltas.filter((d) => d.index === 0).map((d) => d.function.arguments).join('')).toBe(JSON.stringify({ x: 'y'.repeat(40) }));
      expect(chunks.at(-2)?.choices[0]?.finish_reason).toBe('tool_calls');
      expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: scripted.requests[0]?.promptTokens } });
    } finally {
      await scripted.close();
    }
  });

  it('lists models', async () => {
    const response = await fetch(`${sim.baseUrl}/models`, { headers: { authorization: `Bearer ${API_KEY}` } });
    expect(await response.json()).toMatchObject({ object: 'list', data: expect.arrayContaining([expect.objectContaining({ id: 'gpt-4o-mini', object: 'model' })]) as unknown });
  });
});
