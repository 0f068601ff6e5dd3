import { LIST_ALL_QUESTIONS, listAllScript } from '../bench/list-all-script.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CapabilityIndex } from '@flotilla/agent-kit';
import { ArgoCdClient, connectArgoCdToolsInProcess } from '@flotilla/agent-argocd';
import { createMemoryResultStore, LIMITS } from '@flotilla/bounded-tools';
import { silentLogger } from '@flotilla/core';
import { createMetrics, METRIC } from '@flotilla/metrics';
import { createChatModel, createLlmAgent, type LlmSettings } from '@flotilla/llm';
import { CONTEXT_DEFAULTS, type ContextBudget } from '@flotilla/context';
import {
  generateArgoEstate,
  startArgoCdSimulator,
  startFakeAnthropic,
  startFakeOpenAi,
  type FakeLlmOptions,
  type RunningFakeLlm,
  type RunningSimulator,
} from '@flotilla/simulators';
import { UPSTREAM_DEFAULTS } from '@flotilla/upstream';
import { loadTokenCounter, type TokenCounter } from '@flotilla/tokens';

/**
 * Issue 7's acceptance test: a 50-turn conversation of list-everything questions through the real LangChain
 * clients against fake OpenAI and Anthropic servers. What is checked is what the servers RECEIVED (their recorded
 * bodies and their own token counts), not our accounting.
 */
const TOKEN = 'llm-conversation-token';
const KEY = 'sk-conversation-test';
const TURNS = 50;
// A window small enough that 50 turns of 2,000-token tool results must be trimmed many times over.
const budget: ContextBudget = { ...CONTEXT_DEFAULTS.openai, maxContextTokens: 16_000, reservedOutputTokens: 1_000, minMessagesToKeep: 4 };

interface WireCheck {
  /** Tool result texts in one recorded body. */
  toolTexts(body: unknown): string[];
  /** True when every tool call in the body has its result and every result its call. */
  pairsIntact(body: unknown): boolean;
}

type OpenAiBody = { messages: { role: string; content: unknown; tool_calls?: { id: string }[]; tool_call_id?: string }[] };
type AnthropicBlock = { type: string; id?: string; tool_use_id?: string; content?: unknown; text?: string };
type AnthropicBody = { messages: { role: string; content: string | AnthropicBlock[] }[] };

const text = (content: unknown): string =>
  typeof content === 'string' ? content : Array.isArray(content) ? content.map((b) => (b as { text?: string }).text ?? '').join('') : '';

const openAiWire: WireCheck = {
  toolTexts: (body) => (body as OpenAiBody).messages.filter((m) => m.role === 'tool').map((m) => text(m.content)),
  pairsIntact: (body) => {
    const messages = (body as OpenAiBody).messages;
    return messages.every((m, i) => {
      const answered = (m.tool_calls ?? []).every((c) => messages.slice(i + 1).some((r) => r.role === 'tool' && r.tool_call_id === c.id));
      const asked = m.role !== 'tool' || messages.slice(0, i).some((p) => p.tool_calls?.some((c) => c.id === m.tool_call_id));
      return answered && asked;
    });
  },
};

const blocks = (content: string | AnthropicBlock[]): AnthropicBlock[] => (typeof content === 'string' ? [] : content);
const anthropicWire: WireCheck = {
  toolTexts: (body) => (body as AnthropicBody).messages.flatMap((m) => blocks(m.content).filter((b) => b.type === 'tool_result').map((b) => text(b.content))),
  pairsIntact: (body) => {
    const messages = (body as AnthropicBody).messages;
    return messages.every((m, i) => {
      const uses = blocks(m.content).filter((b) => b.type === 'tool_use');
      const next = blocks(messages[i + 1]?.content ?? []);
      const answered = uses.every((u) => next.some((b) => b.type === 'tool_result' && b.tool_use_id === u.id));
      const prior = blocks(messages[i - 1]?.content ?? []);
      const asked = blocks(m.content)
        .filter((b) => b.type === 'tool_result')
        .every((r) => prior.some((b) => b.type === 'tool_use' && b.id === r.tool_use_id));
      return answered && asked;
    });
  },
};

const estate = generateArgoEstate();
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

const providers: readonly {
  provider: LlmSettings['llmProvider'];
  start: (options: FakeLlmOptions) => Promise<RunningFakeLlm>;
  wire: WireCheck;
}[] = [
  { provider: 'openai', start: startFakeOpenAi, wire: openAiWire },
  { provider: 'anthropic', start: startFakeAnthropic, wire: anthropicWire },
];

describe.each(providers)('a 50-turn list-everything conversation through $provider', ({ provider, start, wire }) => {
  it('never sends a request over the context budget, never a tool message over the tool budget, and never a call without its result', async () => {
    // The server refuses any prompt over the window, as the real APIs do.
    const llm = await start({ apiKey: KEY, script: listAllScript, contextWindow: budget.maxContextTokens });
    const metrics = createMetrics();
    try {
      const chat = createChatModel({ llmProvider: provider, llmModel: undefined, llmBaseUrl: llm.baseUrl, llmApiKey: KEY }, { maxOutputTokens: budget.reservedOutputTokens, maxRetries: 0 });
      if (chat === undefined) throw new Error('no chat model');
      const agent = createLlmAgent({ agent: 'argocd', chat, mcp: tools.client, index, prompt: 'You are the Argo CD agent.', discovery: 'index', budget, counter, metrics });
      for (let turn = 0; turn < TURNS; turn += 1) {
        const question = LIST_ALL_QUESTIONS[turn % LIST_ALL_QUESTIONS.length] ?? '';
        const answer = await agent.ask(question, 'fifty-turns');
        expect(answer.error, `turn ${turn}: ${answer.answer}`).toBeUndefined();
        const expected = question.includes('cluster') ? estate.clusters.length : question.includes('project') && !question.includes('applications') ? estate.projects.length : undefined;
        if (expected !== undefined) expect(answer.answer).toContain(`There are ${expected} of them`);
      }

      const requests = llm.requests;
      // Turn 1: load, list, answer; every later turn: list, answer.
      expect(requests.length).toBe(3 + (TURNS - 1) * 2);
      expect(requests.every((r) => r.status === 200)).toBe(true);
      let toolMessages = 0;
      for (const request of requests) {
        expect(request.promptTokens).toBeLessThanOrEqual(budget.maxContextTokens - budget.reservedOutputTokens);
        for (const t of wire.toolTexts(request.body)) {
          toolMessages += 1;
          expect(counter.count(t)).toBeLessThanOrEqual(LIMITS.budgetDefault);
        }
        expect(wire.pairsIntact(request.body)).toBe(true);
      }
      expect(toolMessages).toBeGreaterThan(TURNS);
      // The conversation outgrew the window many times: trimming did the work, and it is metered.
      const exposed = await metrics.registry.metrics();
      expect(exposed).toMatch(new RegExp(`${METRIC.contextTrims}\\{agent="argocd",kind="tool_results_cleared"\\} [1-9]`));
      expect(exposed).toMatch(new RegExp(`${METRIC.contextTokensSaved}\\{agent="argocd",kind="tool_results_cleared"\\} [1-9]`));
    } finally {
      await llm.close();
    }
  });
});
