import { checkWire, WIRE } from '../bench/conversation-wire.js';
import { LIST_ALL_QUESTIONS, listAllScript } from '../bench/list-all-script.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CapabilityIndex } from '@flotilla/agent-kit';
import { ArgoCdClient, connectArgoCdToolsInProcess } from '@flotilla/agent-argocd';
import { createMemoryResultStore, LIMITS } from '@flotilla/bounded-tools';
import { silentLogger } from '@flotilla/core';
import { createMetrics, METRIC } from '@flotilla/metrics';
import { createChatModel, createLlmAgent, LLM_LIMITS } from '@flotilla/llm';
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
 * Issue 7's acceptance properties on a short list-everything conversation through the real LangChain clients
 * against fake OpenAI and Anthropic servers: what is checked is what the servers RECEIVED (their recorded bodies and
 * their own token counts), not our accounting. The window is small enough that 10 turns of ~2,000-token tool results
 * outgrow it from the third turn on, so old results are cleared and old turns summarised again and again. The
 * 50-turn conversations (16k and 128k windows) are in `pnpm bench -- --suites llm`, checked the same way.
 */
const TOKEN = 'llm-conversation-token';
const KEY = 'sk-conversation-test';
const TURNS = 10;
const budget: ContextBudget = { ...CONTEXT_DEFAULTS.openai, maxContextTokens: 8_000, reservedOutputTokens: 1_000, minMessagesToKeep: 4 };

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
  provider: 'openai' | 'anthropic';
  start: (options: FakeLlmOptions) => Promise<RunningFakeLlm>;
}[] = [
  { provider: 'openai', start: startFakeOpenAi },
  { provider: 'anthropic', start: startFakeAnthropic },
];

describe.each(providers)(`a ${TURNS}-turn list-everything conversation through $provider, in a window it outgrows`, ({ provider, start }) => {
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
        const answer = await agent.ask(question, 'ten-turns');
        expect(answer.error, `turn ${turn}: ${answer.answer}`).toBeUndefined();
        const expected = question.includes('cluster') ? estate.clusters.length : question.includes('project') && !question.includes('applications') ? estate.projects.length : undefined;
        if (expected !== undefined) expect(answer.answer).toContain(`There are ${expected} of them`);
      }

      const findings = checkWire(llm.requests, WIRE[provider], { counter, budget, toolBudgetTokens: LIMITS.budgetDefault });
      expect(findings).toMatchObject({ failedRequests: 0, requestsOverBudget: 0, toolMessagesOverBudget: 0, requestsWithBrokenPairs: 0, summaryRequestsWithToolResults: 0 });
      // Turn 1: load, list, answer; every later turn: list, answer; besides them, the LLM summaries of older turns
      // (at most LLM_LIMITS.summariesPerQuestion a turn), here too within the window.
      expect(findings.requests - findings.summaryRequests).toBe(3 + (TURNS - 1) * 2);
      expect(findings.summaryRequests).toBeGreaterThan(0);
      expect(findings.summaryRequests).toBeLessThanOrEqual(TURNS * LLM_LIMITS.summariesPerQuestion);
      expect(findings.toolMessages).toBeGreaterThan(TURNS);
      // Full pages: a window this small is only kept by trimming, not by small results.
      expect(findings.largestToolMessageTokens).toBeGreaterThan(LIMITS.budgetDefault / 2);
      // The conversation outgrew the window turn after turn: trimming did the work (both kinds), and it is metered.
      const byKind = async (metric: typeof metrics.contextTrims): Promise<Record<string, number>> =>
        Object.fromEntries((await metric.get()).values.filter((v) => v.labels.agent === 'argocd').map((v) => [String(v.labels.kind), v.value]));
      const trims = await byKind(metrics.contextTrims);
      const saved = await byKind(metrics.contextTokensSaved);
      for (const kind of ['tool_results_cleared', 'turns_summarised']) {
        expect(trims[kind], kind).toBeGreaterThanOrEqual(2);
        expect(saved[kind], kind).toBeGreaterThan(0);
      }
      expect(await metrics.registry.metrics()).toContain(`${METRIC.contextTrims}{agent="argocd",kind="tool_results_cleared"} ${trims.tool_results_cleared}`);
    } finally {
      await llm.close();
    }
  });
});
