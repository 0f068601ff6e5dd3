import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CapabilityIndex } from '@flotilla/agent-kit';
import { ArgoCdClient, connectArgoCdToolsInProcess } from '@flotilla/agent-argocd';
import { createMemoryResultStore, LIMITS } from '@flotilla/bounded-tools';
import { silentLogger } from '@flotilla/core';
import { createMetrics } from '@flotilla/metrics';
import { createChatModel, createLlmAgent } from '@flotilla/llm';
import { CONTEXT_DEFAULTS } from '@flotilla/context';
import { generateArgoEstate, startArgoCdSimulator, startFakeOpenAi, type ChatScript, type RunningSimulator } from '@flotilla/simulators';
import { UPSTREAM_DEFAULTS } from '@flotilla/upstream';
import { loadTokenCounter, type TokenCounter } from '@flotilla/tokens';

/**
 * The model speaks the same typed query as the rules (issue 31, part 6): the Argo CD MCP server's `query` tool, its
 * input schema generated from the declared fields, found and loaded through progressive discovery like any tool.
 * A scripted model asks "are there more degraded apps in <a> or <b>?" as one `query` call with a comparison; what the
 * fake OpenAI server RECEIVED shows that one tool call answered it, with both counts exact, where reading the lists
 * would have taken a page of applications per request.
 */
const TOKEN = 'llm-query-token';
/** Progressive discovery's two tools (the capability index's). */
const FIND_TOOLS = 'find_tools';
const LOAD_TOOLS = 'load_tools';
const KEY = 'sk-query-test';
const estate = generateArgoEstate();
const clusterOf = (a: (typeof estate.applications)[number]): string | undefined => a.spec.destination.name ?? estate.clusters.find((c) => c.server === a.spec.destination.server)?.name;
const [A, B] = [...new Set(estate.applications.map(clusterOf).filter((c): c is string => c !== undefined && c !== 'in-cluster'))].sort() as [string, string];
const degradedIn = (cluster: string): number => estate.applications.filter((a) => clusterOf(a) === cluster && a.status.health.status === 'Degraded').length;
const COMPARE = {
  entity: 'applications',
  where: { op: 'eq', field: 'health', value: 'Degraded' },
  what: { kind: 'compare', groups: [{ op: 'eq', field: 'cluster', value: A }, { op: 'eq', field: 'cluster', value: B }] },
};

/** find_tools with the question, load_tools with `query`, one `query` call, then an answer quoting its result. */
const compareScript: ChatScript = (input) => {
  const last = input.messages.at(-1);
  if (last?.role === 'user') return { text: '', toolCalls: [{ name: FIND_TOOLS, args: { query: last.text } }] };
  if (last?.role !== 'tool') return { text: 'Nothing to add.' };
  const called = input.messages.flatMap((m) => (m.role === 'assistant' ? m.toolCalls : [])).find((c) => c.id === last.toolCallId)?.name;
  if (called === FIND_TOOLS) return { text: '', toolCalls: [{ name: LOAD_TOOLS, args: { names: ['query'] } }] };
  if (called === LOAD_TOOLS) return input.tools.some((t) => t.name === 'query') ? { text: '', toolCalls: [{ name: 'query', args: COMPARE }] } : { text: 'query was not loaded' };
  return { text: `From ${called ?? 'the tool'}:\n${last.text}` };
};

let sim: RunningSimulator;
let tools: Awaited<ReturnType<typeof connectArgoCdToolsInProcess>>;
let index: CapabilityIndex;
let counter: TokenCounter;

beforeAll(async () => {
  counter = await loadTokenCounter();
  sim = await startArgoCdSimulator({ token: TOKEN, estate });
  const metrics = createMetrics();
  const client = new ArgoCdClient({ baseUrl: sim.url, token: TOKEN, limits: UPSTREAM_DEFAULTS, metrics, logger: silentLogger() });
  tools = await connectArgoCdToolsInProcess({ client, counter, store: createMemoryResultStore(), metrics, logger: silentLogger() });
  index = await CapabilityIndex.fromClient(tools.client);
});
afterAll(async () => {
  await tools.close();
  await sim.close();
});

interface WireMessage {
  readonly role: string;
  readonly content?: unknown;
  readonly tool_calls?: readonly { readonly function: { readonly name: string; readonly arguments: string } }[];
}
interface WireBody {
  readonly messages: readonly WireMessage[];
  readonly tools?: readonly { readonly function: { readonly name: string; readonly parameters: unknown } }[];
}

describe('the model asks a comparison through the typed query', () => {
  it('takes one query call, not pages of lists: the tool schema names the declared fields, and both counts are exact', async () => {
    expect(degradedIn(A) + degradedIn(B)).toBeGreaterThan(0);
    const llm = await startFakeOpenAi({ apiKey: KEY, script: compareScript });
    try {
      const chat = createChatModel({ llmProvider: 'openai', llmModel: undefined, llmBaseUrl: llm.baseUrl, llmApiKey: KEY }, { maxOutputTokens: 1_000, maxRetries: 0 });
      if (chat === undefined) throw new Error('no chat model');
      const agent = createLlmAgent({ agent: 'argocd', chat, mcp: tools.client, index, prompt: 'You are the Argo CD agent.', discovery: 'index', budget: CONTEXT_DEFAULTS.openai, counter, metrics: createMetrics() });
      const answer = await agent.ask(`are there more degraded apps in ${A} or ${B}?`, 'compare');
      expect(answer.error, answer.answer).toBeUndefined();

      const bodies = llm.requests.map((r) => r.body as WireBody);
      const last = bodies.at(-1);
      if (last === undefined) throw new Error('no request reached the model');
      // The query tool the model was offered: its input schema is generated from the declared fields.
      const queryTool = last.tools?.find((t) => t.function.name === 'query');
      expect(queryTool).toBeDefined();
      const schema = JSON.stringify(queryTool?.function.parameters);
      for (const field of ['health', 'sync', 'cluster', 'project', 'namespace']) expect(schema).toContain(`"${field}"`);
      expect(schema).toContain('"compare"');
      // Every call the model made, as the server received them: discovery, then exactly one domain call.
      const calls = last.messages.flatMap((m) => m.tool_calls ?? []).map((c) => c.function.name);
      expect(calls).toEqual([FIND_TOOLS, LOAD_TOOLS, 'query']);
      // The tool result the model read holds both groups' exact counts, in far fewer tokens than one page of a list.
      const result = last.messages.filter((m) => m.role === 'tool').at(-1);
      const text = typeof result?.content === 'string' ? result.content : JSON.stringify(result?.content);
      const read = JSON.parse(text) as { kind?: string; total?: number; counts?: number[] };
      expect(read).toMatchObject({ kind: 'compare', counts: [degradedIn(A), degradedIn(B)], total: estate.applications.filter((a) => a.status.health.status === 'Degraded').length });
      expect(counter.count(text)).toBeLessThan(LIMITS.budgetDefault);
      expect(answer.answer).toContain(String(degradedIn(A)));
    } finally {
      await llm.close();
    }
  });
});
