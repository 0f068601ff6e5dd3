import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { ContextOverflowError } from '@langchain/core/errors';
import { AIMessage, type AIMessageChunk, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { afterEach, describe, expect, it } from 'vitest';
import type { FakeLlmOptions } from './options.js';
import { defaultScript, type ChatScript, type ScriptInput } from './script.js';
import type { RunningFakeLlm } from './server.js';

export const API_KEY = 'sk-test-0123456789abcdef';

/** How the contract suite drives one provider's simulator with that provider's real LangChain client. */
export interface FakeLlmDriver {
  readonly name: string;
  start(options: FakeLlmOptions): Promise<RunningFakeLlm>;
  /** The real client, pointed at the simulator, retries off. */
  client(sim: RunningFakeLlm, apiKey?: string): BaseChatModel;
  /** Tool names defined in a recorded request body. */
  toolNames(body: unknown): string[];
  /** Tool results (id, text) in a recorded request body. */
  toolResults(body: unknown): { id: string; text: string }[];
}

export const weatherTool = {
  name: 'get_weather',
  description: 'Current weather of a city',
  schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

/** Calls get_weather for the user's city, then answers with the tool result. */
export const weatherScript: ChatScript = (input) => {
  const last = input.messages.at(-1);
  if (last?.role === 'tool') return { text: `The weather: ${last.text}` };
  return { text: 'Let me check.', toolCalls: [{ name: 'get_weather', args: { city: 'Paris', units: { temperature: 'C' } } }] };
};

const toolCallsOf = (message: BaseMessage): { id?: string; name: string; args: unknown }[] => (AIMessage.isInstance(message) ? (message.tool_calls ?? []) : []);

async function streamed(model: { stream(input: BaseMessage[]): Promise<AsyncIterable<AIMessageChunk>> }, input: BaseMessage[]): Promise<{ message: AIMessageChunk; chunks: number }> {
  let message: AIMessageChunk | undefined;
  let chunks = 0;
  for await (const chunk of await model.stream(input)) {
    message = message === undefined ? chunk : message.concat(chunk);
    chunks += 1;
  }
  if (message === undefined) throw new Error('no chunks');
  return { message, chunks };
}

/** What the SDKs throw: the HTTP status, or a LangChain error wrapping the SDK's as `cause`. */
type ClientError = Error & { status?: number; cause?: { status?: number } };

async function failure(promise: Promise<unknown>): Promise<ClientError> {
  try {
    await promise;
  } catch (error) {
    return error as ClientError;
  }
  throw new Error('expected a rejection');
}

/** The behaviour both simulators share, checked through each provider's real client. */
export function describeFakeLlmContract(driver: FakeLlmDriver): void {
  describe(`${driver.name} simulator contract (real LangChain client)`, () => {
    const running: RunningFakeLlm[] = [];
    const start = async (options: Partial<FakeLlmOptions> = {}): Promise<RunningFakeLlm> => {
      const sim = await driver.start({ apiKey: API_KEY, ...options });
      running.push(sim);
      return sim;
    };
    afterEach(async () => {
      await Promise.all(running.splice(0).map((sim) => sim.close()));
    });

    it('round-trips a tool call: parsed args, the tool result sent back, the final text; every body recorded', async () => {
      const inputs: ScriptInput[] = [];
      const sim = await start({ script: (input) => (inputs.push(input), weatherScript(input)) });
      const model = driver.client(sim).bindTools?.([weatherTool]);
      if (model === undefined) throw new Error('bindTools missing');
      const history: BaseMessage[] = [new SystemMessage('You are terse.'), new HumanMessage('Weather in Paris?')];
      const first = await model.invoke(history);
      const calls = toolCallsOf(first);
      expect(calls).toHaveLength(1);
      expect(calls[0]).toMatchObject({ name: 'get_weather', args: { city: 'Paris', units: { temperature: 'C' } } });
      expect(calls[0]?.id).toMatch(/^(call|toolu)_\d+$/);
      expect(first.usage_metadata?.input_tokens).toBe(sim.requests[0]?.promptTokens);

      const second = await model.invoke([...history, first, new ToolMessage({ tool_call_id: calls[0]?.id ?? '', content: '18C and sunny' })]);
      expect(second.text).toBe('The weather: 18C and sunny');
      expect(toolCallsOf(second)).toEqual([]);

      const [one, two] = sim.requests;
      expect(sim.requests.map((r) => r.status)).toEqual([200, 200]);
      expect(driver.toolNames(one?.body)).toEqual(['get_weather']);
      expect(driver.toolResults(two?.body)).toEqual([{ id: calls[0]?.id, text: '18C and sunny' }]);
      expect(two?.promptTokens).toBeGreaterThan(one?.promptTokens ?? Infinity);
      // The neutral view the script saw.
      expect(inputs[1]?.system).toBe('You are terse.');
      expect(inputs[1]?.tools.map((t) => t.name)).toEqual(['get_weather']);
      expect(inputs[1]?.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
    });

    it('streams text and tool calls', async () => {
      const text = 'One two three four five six seven eight nine ten eleven twelve. Ünïcødé 🚀 done.';
      const sim = await start({ script: (input) => (input.tools.length > 0 ? weatherScript(input) : { text }) });
      const plain = await streamed(driver.client(sim), [new HumanMessage('Say something long')]);
      expect(plain.message.text).toBe(text);
      expect(plain.chunks).toBeGreaterThan(3);
      expect(plain.message.usage_metadata?.input_tokens).toBe(sim.requests[0]?.promptTokens);

      const bound = driver.client(sim).bindTools?.([weatherTool]);
      if (bound === undefined) throw new Error('bindTools missing');
      const withTool = await streamed(bound, [new HumanMessage('Weather in Paris?')]);
      expect(withTool.message.tool_calls).toMatchObject([{ name: 'get_weather', args: { city: 'Paris', units: { temperature: 'C' } } }]);
      expect(sim.requests.map((r) => (r.body as { stream?: unknown }).stream)).toEqual([true, true]);
    });

    it('refuses a wrong key with 401', async () => {
      const sim = await start();
      const error = await failure(driver.client(sim, 'wrong-key-000000').invoke('hi'));
      expect(error.status).toBe(401);
      expect(sim.requests).toEqual([{ path: expect.stringMatching(/^\/v1\//) as unknown, body: undefined, promptTokens: 0, status: 401 }]);
    });

    it('answers a prompt over the context window with the provider 400 the client reads as a context overflow', async () => {
      const sim = await start({ contextWindow: 50 });
      const error = await failure(driver.client(sim).invoke('word '.repeat(100)));
      expect(ContextOverflowError.isInstance(error)).toBe(true);
      expect(error.cause?.status).toBe(400);
      expect(error.message).toMatch(/maximum context length is 50 tokens|prompt is too long: \d+ tokens > 50 maximum/);
      expect(sim.requests[0]).toMatchObject({ status: 400 });
      expect(sim.requests[0]?.promptTokens).toBeGreaterThan(100);
    });

    it('fails the next N requests as set, then answers again', async () => {
      const sim = await start({ faults: { failNext: { status: 500, count: 1 } } });
      expect((await failure(driver.client(sim).invoke('hi'))).status).toBe(500);
      sim.setFaults({ failNext: { status: 429, count: 2, retryAfterSeconds: 7 } });
      const limited = await failure(driver.client(sim).invoke('hi'));
      expect(limited.status).toBe(429);
      expect((await failure(driver.client(sim).invoke('hi'))).status).toBe(429);
      const ok = await driver.client(sim).invoke('hi');
      expect(ok.text).toBe('I have no tools for that.');
      expect(sim.requests.map((r) => r.status)).toEqual([500, 429, 429, 200]);
      expect(() => sim.setFaults({ failNext: { status: 404 as 500, count: 1 } })).toThrow(/must be 429, 500, 503 or 529/);
    });

    it('drives find_tools, load_tools, the tool, then text with the default script', async () => {
      const sim = await start({ script: defaultScript });
      const meta = [
        { name: 'find_tools', description: 'Search the tool catalogue', schema: { type: 'object', properties: { query: { type: 'string' } } } },
        { name: 'load_tools', description: 'Load tools by name', schema: { type: 'object', properties: { names: { type: 'array', items: { type: 'string' } } } } },
      ];
      const real = [
        { name: 'list_sites', description: 'List NetBox sites', schema: { type: 'object', properties: {} } },
        { name: 'list_applications', description: 'List Argo CD applications and their sync status', schema: { type: 'object', properties: {} } },
      ];
      const history: BaseMessage[] = [new HumanMessage('which applications are out of sync?')];
      const step = async (tools: object[], result: string): Promise<{ name: string; args: unknown }> => {
        const bound = driver.client(sim).bindTools?.(tools as never);
        if (bound === undefined) throw new Error('bindTools missing');
        const ai = await bound.invoke(history);
        const call = toolCallsOf(ai)[0];
        if (call === undefined) throw new Error(`no tool call: ${ai.text}`);
        history.push(ai, new ToolMessage({ tool_call_id: call.id ?? '', content: result }));
        return call;
      };
      expect(await step(meta, JSON.stringify({ matches: [{ name: 'list_applications', description: 'List Argo CD applications' }] }))).toMatchObject({
        name: 'find_tools',
        args: { query: 'which applications are out of sync?' },
      });
      expect(await step(meta, 'loaded list_applications')).toMatchObject({ name: 'load_tools', args: { names: ['list_applications'] } });
      expect(await step([...meta, ...real], '{"items":[{"name":"payments","sync":"OutOfSync"}]}')).toMatchObject({ name: 'list_applications', args: {} });
      const final = await driver.client(sim).bindTools?.([...meta, ...real] as never).invoke(history);
      expect(final?.text).toBe('From list_applications:\n{"items":[{"name":"payments","sync":"OutOfSync"}]}');
      expect(sim.requests.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    });

    it('keeps at most maxRecorded requests, the newest', async () => {
      const sim = await start({ maxRecorded: 2, script: (input) => ({ text: input.messages.at(-1)?.text ?? '' }) });
      for (const text of ['one', 'two', 'three']) await driver.client(sim).invoke(text);
      expect(sim.requests).toHaveLength(2);
      expect(sim.requests.map((r) => JSON.stringify(r.body))).toEqual([expect.stringContaining('two'), expect.stringContaining('three')]);
    });
  });
}
