import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { McpServer } from '@modelcontextprotocol/server';
import { CapabilityIndex, REDIS_MEMORY_DEFAULTS } from '@flotilla/agent-kit';
import { connectInProcess } from '@flotilla/bounded-tools';
import { CONTEXT_DEFAULTS, type ContextBudget } from '@flotilla/context';
import { createMetrics } from '@flotilla/metrics';
import { startFakeAnthropic, startFakeOpenAi, defaultScript, type ChatScript, type RunningFakeLlm } from '@flotilla/simulators';
import { loadTokenCounter, type TokenCounter } from '@flotilla/tokens';
import { fitMemory, MODEL_HISTORY_LIMITS } from './agent.js';
import { createChatModel, createLlmAgent, FIND_TOOLS, LOAD_TOOLS, type LlmAgentOptions, type LlmMemory } from './index.js';

const KEY = 'sk-test-llm-agent';
let counter: TokenCounter;
let tools: Awaited<ReturnType<typeof connectInProcess>>;
let index: CapabilityIndex;
let script: ChatScript = defaultScript;
let llm: RunningFakeLlm;

/** A small MCP server: a list whose size the arguments choose (to overflow anything), and one item by name. */
function toyServer(): McpServer {
  const server = new McpServer({ name: 'toy', version: '0.0.1' });
  server.registerTool(
    'list_widgets',
    { description: 'List widgets in the warehouse. Returns every widget with its colour.', inputSchema: z.object({ count: z.number().int().min(0).max(100_000).optional() }) },
    ({ count }) => ({ content: [{ type: 'text', text: JSON.stringify(Array.from({ length: count ?? 30 }, (_, i) => ({ name: `widget-${i}`, colour: i % 2 === 0 ? 'red' : 'blue' }))) }] }),
  );
  server.registerTool(
    'get_widget',
    { description: 'One widget by name, with its full record.', inputSchema: z.object({ name: z.string() }) },
    ({ name }) => ({ content: [{ type: 'text', text: JSON.stringify({ name, colour: 'red', weight: 3 }) }] }),
  );
  server.registerTool('count_gadgets', { description: 'Count gadgets by kind.', inputSchema: z.object({}) }, () => ({ content: [{ type: 'text', text: '{"total": 7}' }] }));
  return server;
}

beforeAll(async () => {
  counter = await loadTokenCounter();
  tools = await connectInProcess(toyServer(), '0.0.1');
  index = await CapabilityIndex.fromClient(tools.client);
  llm = await startFakeOpenAi({ apiKey: KEY, script: (input) => script(input) });
});
afterAll(async () => {
  await tools.close();
  await llm.close();
});

const budget: ContextBudget = { ...CONTEXT_DEFAULTS.openai, maxContextTokens: 6_000, reservedOutputTokens: 500 };

function agent(overrides: Partial<LlmAgentOptions> = {}) {
  const chat = createChatModel({ llmProvider: 'openai', llmModel: 'gpt-4o-mini', llmBaseUrl: llm.baseUrl, llmApiKey: KEY }, { maxOutputTokens: 500, maxRetries: 0 });
  if (chat === undefined) throw new Error('no chat model');
  return createLlmAgent({ agent: 'toy', chat, mcp: tools.client, index, prompt: 'You are the toy agent.', discovery: 'index', budget, counter, ...overrides });
}

/** Tool names offered in a recorded OpenAI request. */
function offered(body: unknown): string[] {
  const tools = (body as { tools?: { function: { name: string } }[] }).tools ?? [];
  return tools.map((t) => t.function.name);
}

function recordedSince(start: number) {
  return llm.requests.slice(start);
}

/** Every assistant tool call in a recorded request is answered by a tool message with its id, in order. */
function pairsIntact(body: unknown): boolean {
  const messages = (body as { messages: { role: string; tool_calls?: { id: string }[]; tool_call_id?: string }[] }).messages;
  for (const [i, m] of messages.entries()) {
    if (m.role === 'tool' && !messages.slice(0, i).some((p) => p.tool_calls?.some((c) => c.id === m.tool_call_id))) return false;
    for (const call of m.tool_calls ?? []) if (!messages.slice(i + 1).some((r) => r.role === 'tool' && r.tool_call_id === call.id)) return false;
  }
  return true;
}

describe('LLM agent (fake OpenAI server, real ChatOpenAI client, tools over MCP)', () => {
  it('starts with the capability index and two meta-tools, loads what it needs, calls it and answers', async () => {
    script = defaultScript;
    const start = llm.requests.length;
    const turn = await agent().ask('list the widgets in the warehouse', 'c-discovery');
    const sent = recordedSince(start);
    expect(turn.error).toBeUndefined();
    expect(turn.discovery).toBe('index');
    // find_tools → load_tools → list_widgets → answer: four model calls.
    expect(sent).toHaveLength(4);
    expect(offered(sent[0]?.body)).toEqual([FIND_TOOLS, LOAD_TOOLS]);
    expect(JSON.stringify(sent[0]?.body)).toContain('- list_widgets: List widgets in the warehouse');
    expect(offered(sent[2]?.body)).toEqual([FIND_TOOLS, LOAD_TOOLS, 'list_widgets']);
    expect(turn.answer).toContain('From list_widgets');
    expect(turn.answer).toContain('widget-0');
    expect(turn.toolCalls).toBe(3);
    expect(sent.every((r) => pairsIntact(r.body))).toBe(true);
  });

  it('keeps loaded tools bound in the conversation, and drops them after the TTL', async () => {
    let clock = 1_000_000;
    const a = agent({ now: () => clock });
    // The model calls the loaded tool directly on the second question.
    script = (input) => {
      const last = input.messages[input.messages.length - 1];
      if (last?.role === 'user' && input.tools.some((t) => t.name === 'get_widget')) return { text: '', toolCalls: [{ name: 'get_widget', args: { name: 'w1' } }] };
      return defaultScript(input);
    };
    await a.ask('get widget w0 by name', 'c-ttl');
    let start = llm.requests.length;
    const second = await a.ask('and widget w1?', 'c-ttl');
    expect(offered(recordedSince(start)[0]?.body)).toContain('get_widget');
    expect(second.toolCalls).toBe(1);
    clock += 5 * 60_000 + 1;
    start = llm.requests.length;
    await a.ask('and widget w2?', 'c-ttl');
    expect(offered(recordedSince(start)[0]?.body)).toEqual([FIND_TOOLS, LOAD_TOOLS]);
  });

  it('falls back to the full catalog when the model calls a tool it never loaded', async () => {
    script = (input) => {
      const last = input.messages[input.messages.length - 1];
      if (last?.role === 'user') return { text: '', toolCalls: [{ name: 'count_gadgets', args: {} }] };
      return { text: 'There are 7 gadgets.' };
    };
    const start = llm.requests.length;
    const turn = await agent().ask('how many gadgets?', 'c-fallback');
    expect(turn.discovery).toBe('fallback');
    expect(turn.answer).toBe('There are 7 gadgets.');
    const sent = recordedSince(start);
    expect(offered(sent[1]?.body).sort()).toEqual(['count_gadgets', 'get_widget', 'list_widgets']);
    expect(JSON.stringify(sent[1]?.body)).toContain('"total\\": 7');
  });

  it('bounds a model that never stops calling tools: model calls, tool calls per step, and a last call without tools', async () => {
    script = (input) =>
      input.tools.length === 0
        ? { text: 'Stopping here with what I have.' }
        : { text: '', toolCalls: Array.from({ length: 6 }, (_, i) => ({ name: 'get_widget', args: { name: `w${i}` } })) };
    const start = llm.requests.length;
    const turn = await agent({ discovery: 'full', limits: { maxModelCalls: 4, maxToolCalls: 10, maxToolCallsPerReply: 4 } }).ask('check every widget', 'c-loop');
    const sent = recordedSince(start);
    expect(sent).toHaveLength(4);
    expect(offered(sent[3]?.body)).toEqual([]);
    expect(turn.answer).toBe('Stopping here with what I have.');
    expect(turn.toolCalls).toBe(10);
    // Every call has its result, the ones over budget included (they say so).
    expect(sent.every((r) => pairsIntact(r.body))).toBe(true);
    const last = JSON.stringify(sent[3]?.body);
    expect(last).toContain('Not run: the tool call budget (4 per step)');
    expect(last).toContain('Not run: the tool call budget (10 per question)');
  });

  it('caps a huge tool result and a pasted log, and every request fits the budget as the server counted it', async () => {
    script = (input) => {
      const last = input.messages[input.messages.length - 1];
      if (last?.role === 'user') return { text: '', toolCalls: [{ name: 'list_widgets', args: { count: 20_000 } }] };
      return { text: 'Many widgets.' };
    };
    const metrics = createMetrics();
    const start = llm.requests.length;
    const pasted = 'ERROR something failed at line 42\n'.repeat(3_000);
    const turn = await agent({ discovery: 'full', metrics }).ask(`why? ${pasted}`, 'c-big');
    expect(turn.error).toBeUndefined();
    const sent = recordedSince(start);
    for (const request of sent) expect(request.promptTokens).toBeLessThanOrEqual(budget.maxContextTokens - budget.reservedOutputTokens);
    const bodies = sent.map((r) => r.body as { messages: { role: string; content: string }[] });
    const toolText = bodies.flatMap((b) => b.messages).find((m) => m.role === 'tool')?.content ?? '';
    expect(counter.count(toolText)).toBeLessThanOrEqual(4_000);
    expect(toolText).toMatch(/cut to \d+ of \d+ tokens/);
    expect(JSON.stringify(sent[0]?.body)).toMatch(/message cut to \d+ of \d+ tokens/);
    const exposed = await metrics.registry.metrics();
    expect(exposed).toMatch(/flotilla_context_requests_total\{agent="toy"\} 2/);
  });

  it('turns model API failures into a clear answer, and the agent keeps working', async () => {
    script = defaultScript;
    const wrongKey = createChatModel({ llmProvider: 'openai', llmModel: 'gpt-4o-mini', llmBaseUrl: llm.baseUrl, llmApiKey: 'sk-wrong' }, { maxOutputTokens: 500, maxRetries: 0 });
    if (wrongKey === undefined) throw new Error('no chat model');
    const refused = await agent({ chat: wrongKey }).ask('list widgets', 'c-401');
    expect(refused.error?.code).toBe('upstream_auth');
    expect(refused.answer).toMatch(/refused the credentials \(401\).*--llm-api-key/);

    llm.setFaults({ failNext: { status: 500, count: 1 } });
    const failed = await agent().ask('list widgets', 'c-500');
    expect(failed.answer).toMatch(/^I could not answer that: the model API/);
    const recovered = await agent().ask('list widgets', 'c-500');
    expect(recovered.error).toBeUndefined();
    expect(recovered.answer).toContain('From list_widgets');
  });

  it('refuses to start without an API key for a hosted provider, naming the setting', () => {
    expect(() => createChatModel({ llmProvider: 'anthropic', llmModel: undefined, llmBaseUrl: undefined, llmApiKey: undefined }, { maxOutputTokens: 100 })).toThrow(/--llm-api-key/);
    expect(createChatModel({ llmProvider: 'none', llmModel: undefined, llmBaseUrl: undefined, llmApiKey: undefined }, { maxOutputTokens: 100 })).toBeUndefined();
  });
});

describe('LLM agent history: bounded in bytes per conversation and in all', () => {
  /** A question of about 2 KB that names its turn. */
  const question = (n: number): string => `Q${n}: ${'alpha beta gamma delta '.repeat(90)}`;
  const sizeOf = (contextId: string, memory: LlmMemory): number => Buffer.byteLength(JSON.stringify(memory), 'utf8') + Buffer.byteLength(contextId, 'utf8');

  it('trims a history over its cap by whole turns, oldest first, never splitting a tool call from its result', () => {
    const turn = (n: number): LlmMemory['messages'] => [
      { role: 'user', text: question(n) },
      { role: 'assistant', text: '', toolCalls: [{ id: `call-${n}`, name: 'get_widget', args: { name: `w${n}` } }] },
      { role: 'tool', toolCallId: `call-${n}`, name: 'get_widget', text: 'x'.repeat(1_000) },
      { role: 'assistant', text: `Answer ${n}.` },
    ];
    const memory: LlmMemory = { messages: [1, 2, 3, 4].flatMap(turn), loaded: [{ name: 'get_widget', at: 1 }] };
    expect(fitMemory('ctx', memory, 1_000_000)).toEqual({ memory, dropped: 0 });
    const cap = sizeOf('ctx', memory) - 100;
    const fitted = fitMemory('ctx', memory, cap);
    expect(fitted.dropped).toBe(4);
    expect(fitted.memory?.messages).toEqual([2, 3, 4].flatMap(turn));
    expect(fitted.memory?.loaded).toEqual(memory.loaded);
    expect(sizeOf('ctx', fitted.memory ?? memory)).toBeLessThanOrEqual(cap);
    // The newest turn alone over the cap: its question and answer stay, not its tool exchange.
    const alone = fitMemory('ctx', memory, 3_000);
    expect(alone.memory?.messages).toEqual([{ role: 'user', text: question(4) }, { role: 'assistant', text: 'Answer 4.' }]);
    expect(sizeOf('ctx', alone.memory ?? memory)).toBeLessThanOrEqual(3_000);
    // Not even that: nothing is kept.
    expect(fitMemory('ctx', memory, 500)).toEqual({ memory: undefined, dropped: 16 });
    // The contextId counts.
    expect(fitMemory('x'.repeat(2_000), memory, 3_000).memory).toBeUndefined();
    // Trimmed to this, a history is never refused by the Redis memory store either.
    expect(MODEL_HISTORY_LIMITS.maxEntryBytes).toBeLessThan(REDIS_MEMORY_DEFAULTS.maxValueBytes);
  });

  it('keeps the in-memory store under its byte cap across many conversations, the newest turns of each, and reports it', async () => {
    script = () => ({ text: 'Noted.' });
    const metrics = createMetrics();
    const a = agent({ storeMetrics: metrics, historyLimits: { maxEntryBytes: 5_000, maxBytes: 20_000 } });
    // One conversation of four turns: the history keeps what fits, the newest turns.
    for (let n = 1; n <= 3; n += 1) expect((await a.ask(question(n), 'c-long')).error).toBeUndefined();
    const start = llm.requests.length;
    await a.ask(question(4), 'c-long');
    const sent = JSON.stringify(recordedSince(start)[0]?.body);
    expect(sent).toContain('Q2:');
    expect(sent).toContain('Q3:');
    expect(sent).not.toContain('Q1:');
    // Many conversations, each near half the per-conversation cap: the store keeps the newest under its byte cap.
    for (let i = 0; i < 30; i += 1) await a.ask(question(i), `c-many-${i}`);
    const value = async (name: 'storeBytes' | 'storeEntries' | 'storeEvictions', reason?: string): Promise<number | undefined> =>
      (await metrics[name].get()).values.find((v) => {
        const labels: Readonly<Record<string, unknown>> = v.labels;
        return labels.store === 'model_history' && (reason === undefined || labels.reason === reason);
      })?.value;
    const bytes = (await value('storeBytes')) ?? 0;
    const entries = (await value('storeEntries')) ?? 0;
    expect(bytes).toBeGreaterThan(10_000);
    expect(bytes).toBeLessThanOrEqual(20_000);
    expect(entries).toBeGreaterThanOrEqual(4);
    expect(entries).toBeLessThan(31);
    expect(await value('storeEvictions', 'bytes_cap')).toBe(31 - entries);
    // The least recently used went: the first of the many has no history any more, the last has its own.
    let at = llm.requests.length;
    await a.ask('and then?', 'c-many-0');
    expect(JSON.stringify(recordedSince(at)[0]?.body)).not.toContain('Q0:');
    at = llm.requests.length;
    await a.ask('and then?', 'c-many-29');
    expect(JSON.stringify(recordedSince(at)[0]?.body)).toContain('Q29:');
  });
});

describe('LLM agent against a model whose real window is smaller than MAX_CONTEXT_TOKENS', () => {
  it('says so and names the setting, instead of failing obscurely', async () => {
    const small = await startFakeOpenAi({ apiKey: KEY, script: defaultScript, contextWindow: 300 });
    try {
      const chat = createChatModel({ llmProvider: 'openai', llmModel: 'gpt-4o-mini', llmBaseUrl: small.baseUrl, llmApiKey: KEY }, { maxOutputTokens: 500, maxRetries: 0 });
      if (chat === undefined) throw new Error('no chat model');
      const turn = await createLlmAgent({ agent: 'toy', chat, mcp: tools.client, index, prompt: 'You are the toy agent.', discovery: 'index', budget, counter }).ask('list widgets', 'c-small');
      expect(small.requests[0]?.status).toBe(400);
      expect(turn.error?.code).toBe('upstream_rejected');
      expect(turn.answer).toMatch(/longer than its context window.*MAX_CONTEXT_TOKENS/);
    } finally {
      await small.close();
    }
  });
});

describe.each([
  ['openai', startFakeOpenAi],
  ['anthropic', startFakeAnthropic],
] as const)('LLM agent history hygiene (fake %s server)', (provider, start) => {
  let server: RunningFakeLlm;
  let reply: ChatScript = defaultScript;
  beforeAll(async () => {
    server = await start({ apiKey: KEY, script: (input) => reply(input) });
  });
  afterAll(async () => {
    await server.close();
  });
  function hygieneAgent(overrides: Partial<LlmAgentOptions> = {}) {
    const chat = createChatModel({ llmProvider: provider, llmModel: undefined, llmBaseUrl: server.baseUrl, llmApiKey: KEY }, { maxOutputTokens: 500, maxRetries: 0 });
    if (chat === undefined) throw new Error('no chat model');
    return createLlmAgent({ agent: 'toy', chat, mcp: tools.client, index, prompt: 'You are the toy agent.', discovery: 'full', budget, counter, ...overrides });
  }
  /** Assistant messages of a recorded request whose content is empty or only whitespace (either API's shape). */
  const emptyAssistants = (body: unknown): unknown[] =>
    (body as { messages: { role: string; content?: unknown; tool_calls?: unknown[] }[] }).messages.filter((m) => {
      if (m.role !== 'assistant' || (m.tool_calls?.length ?? 0) > 0) return false;
      if (typeof m.content === 'string' || m.content === null || m.content === undefined) return (m.content ?? '').trim() === '';
      return Array.isArray(m.content) && m.content.every((b: { type?: string; text?: string }) => b.type === 'text' && (b.text ?? '').trim() === '');
    });

  it('an empty reply after two steps is said as it is, never stored; the next seven turns are all answered', async () => {
    let turn = 0;
    reply = (input) => {
      const last = input.messages[input.messages.length - 1];
      if (turn > 0) return { text: `Answer ${turn}.` };
      return last?.role === 'user' ? { text: '', toolCalls: [{ name: 'list_widgets', args: { count: 3 } }] } : { text: '' };
    };
    const a = hygieneAgent();
    const first = server.requests.length;
    const empty = await a.ask('list the widgets', `c-empty-${provider}`);
    expect(empty.modelCalls).toBe(2);
    expect(empty.answer).not.toMatch(/could not finish/);
    expect(empty.answer).toMatch(/the model returned an empty reply after 2 model steps, having called list_widgets\. Ask again: the tool results found so far are kept/);
    expect(empty.error?.code).toBe('upstream_bad_response');
    for (turn = 1; turn <= 7; turn += 1) {
      const next = await a.ask(`question ${turn}`, `c-empty-${provider}`);
      expect([next.error, next.answer]).toEqual([undefined, `Answer ${turn}.`]);
    }
    const sent = server.requests.slice(first);
    expect(sent).toHaveLength(9);
    expect(sent.map((r) => r.status)).toEqual(Array.from({ length: 9 }, () => 200));
    for (const r of sent) expect(emptyAssistants(r.body)).toEqual([]);
    // What was found is kept: the widgets listed in the first turn reach the model in the next.
    expect(JSON.stringify(sent[2]?.body)).toContain('widget-2');
  });

  it('a history stored with an empty reply (an older version kept them) is cleaned before it is sent', async () => {
    reply = () => ({ text: 'Fine.' });
    const store = new Map<string, LlmMemory>();
    const memoryStore: NonNullable<LlmAgentOptions['memoryStore']> = {
      load: (id) => Promise.resolve(store.get(id)),
      save: (id, memory) => {
        if (memory === undefined) store.delete(id);
        else store.set(id, memory);
        return Promise.resolve();
      },
    };
    store.set('c-stored', { messages: [{ role: 'user', text: 'hello' }, { role: 'assistant', text: '' }], loaded: [] });
    const turn = await hygieneAgent({ memoryStore }).ask('and now?', 'c-stored');
    expect([turn.error, turn.answer]).toEqual([undefined, 'Fine.']);
    expect(store.get('c-stored')?.messages).toEqual([
      { role: 'user', text: 'hello' },
      { role: 'user', text: 'and now?' },
      { role: 'assistant', text: 'Fine.' },
    ]);
  });

  it('says it could not finish only when the step limit was really reached', async () => {
    reply = (input) => (input.tools.length === 0 ? { text: '' } : { text: '', toolCalls: [{ name: 'get_widget', args: { name: 'w1' } }] });
    const turn = await hygieneAgent({ limits: { maxModelCalls: 3 } }).ask('check w1', `c-limit-${provider}`);
    expect(turn.modelCalls).toBe(3);
    expect(turn.answer).toMatch(/did not finish within 3 model steps/);
  });
});

describe('LLM agent over-budget errors name the settings in force', () => {
  const long = `You are the toy agent. ${'Widgets are counted by colour and weight. '.repeat(250)}`;
  const small: ContextBudget = { ...CONTEXT_DEFAULTS.openai, maxContextTokens: 2_000, reservedOutputTokens: 250 };

  it('with index discovery on, does not tell you to turn it on: it names the window that would hold the request', async () => {
    script = () => ({ text: 'Fine.' });
    const turn = await agent({ prompt: long, budget: small }).ask('list widgets', 'c-budget-index');
    expect(turn.error?.code).toBe('config_invalid');
    expect(turn.answer).not.toContain('--tool-discovery');
    const needed = Number(/raise MAX_CONTEXT_TOKENS \(now 2000\) to at least (\d+)/i.exec(turn.answer)?.[1]);
    expect(needed).toBeGreaterThan(2_000);
    // The figure is true: with that window (and the reserve contextBudgetFor gives it) the same question is answered.
    const enough = await agent({ prompt: long, budget: { ...small, maxContextTokens: needed, reservedOutputTokens: Math.min(4096, Math.floor(needed / 8)) } }).ask('list widgets', 'c-budget-enough');
    expect([enough.error, enough.answer]).toEqual([undefined, 'Fine.']);
  });

  it('names --llm-base-url only when it is set, and a keyless local server only for OpenAI', async () => {
    // A closed port on loopback: refused at once.
    const down = createChatModel({ llmProvider: 'openai', llmModel: 'gpt-4o-mini', llmBaseUrl: 'http://127.0.0.1:9/v1', llmApiKey: KEY }, { maxOutputTokens: 500, maxRetries: 0 });
    if (down === undefined) throw new Error('no chat model');
    const turn = await agent({ chat: down }).ask('list widgets', 'c-down');
    expect(turn.error?.code).toBe('upstream_unavailable');
    expect(turn.answer).toMatch(/Check that the model server --llm-base-url names is up/);
    expect(() => createChatModel({ llmProvider: 'anthropic', llmModel: undefined, llmBaseUrl: undefined, llmApiKey: undefined }, { maxOutputTokens: 100 })).toThrow(
      expect.objectContaining({ remedy: 'Set --llm-api-key (FLOTILLA_LLM_API_KEY), or --llm-provider none for the embedded rules.' }),
    );
  });

  it('with every tool bound upfront, names index discovery as the other way', async () => {
    script = () => ({ text: 'Fine.' });
    const turn = await agent({ prompt: long, budget: small, discovery: 'full' }).ask('list widgets', 'c-budget-full');
    expect(turn.answer).toMatch(/Raise MAX_CONTEXT_TOKENS \(now 2000\) to at least \d+, or use --tool-discovery index/);
  });
});
