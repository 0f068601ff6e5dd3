import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClientFactory } from '@a2a-js/sdk/client';
import { textRequest } from '@flotilla/agent-kit';
import { parseSettings, silentLogger } from '@flotilla/core';
import { METRIC } from '@flotilla/metrics';
import { startArgoCdSimulator, startFakeOpenAi, type RunningFakeLlm, type RunningSimulator } from '@flotilla/simulators';
import { ARGOCD_AGENT_SETTINGS, startArgoCdAgent, type RunningAgent } from './start.js';

const TOKEN = 'hybrid-test-argocd-token';
const KEY = 'sk-hybrid-test';
let sim: RunningSimulator;
let llm: RunningFakeLlm;
let agent: RunningAgent;

beforeAll(async () => {
  sim = await startArgoCdSimulator({ token: TOKEN });
  llm = await startFakeOpenAi({ apiKey: KEY });
  // No --mode: with a model configured, hybrid is the default.
  const env = { FLOTILLA_LLM_PROVIDER: 'openai', FLOTILLA_LLM_BASE_URL: llm.baseUrl, FLOTILLA_LLM_API_KEY: KEY };
  agent = await startArgoCdAgent(parseSettings(ARGOCD_AGENT_SETTINGS, { port: '0', 'argocd-url': sim.url, 'argocd-token': TOKEN, 'log-level': 'silent' }, env, 'test'), silentLogger());
});
afterAll(async () => {
  await agent.close();
  await llm.close();
  await sim.close();
});

async function ask(question: string, contextId: string = randomUUID()) {
  const client = await new ClientFactory().createFromUrl(agent.url);
  const task = (await client.sendMessage(textRequest(question, contextId))) as { artifacts?: { parts: { content?: { $case: string; value: unknown } }[]; metadata?: Record<string, unknown> }[] };
  const artifact = task.artifacts?.[0];
  const text = artifact?.parts.map((p) => (p.content?.$case === 'text' ? String(p.content.value) : '')).join('') ?? '';
  return { text, metadata: artifact?.metadata ?? {} };
}

describe('hybrid mode (ADR-0003): a model-free fast path, the model for the rest', () => {
  it('answers simple, known questions without any request to the model, and the rest through it', async () => {
    let before = llm.requests.length;
    const fast = await ask('which clusters do we have?');
    expect(fast.text).toContain('13 clusters');
    expect(fast.metadata.route).toBe('fast');
    expect(llm.requests.length).toBe(before);

    before = llm.requests.length;
    const discovery = await ask('tell me something interesting about my estate');
    expect(discovery.metadata.route).toBe('discovery');
    expect(discovery.metadata.strategy).toBe('llm');
    expect(llm.requests.length).toBeGreaterThan(before);
  });

  it('sends a fast path that failed to the model once, without saying so', async () => {
    const before = llm.requests.length;
    const reply = await ask('status of no-such-application-anywhere');
    expect(reply.metadata.route).toBe('fallback');
    expect(llm.requests.length).toBeGreaterThan(before);
    expect(reply.text).not.toMatch(/fast path|fall(ing)? back|rules/i);
    const metrics = await (await fetch(`${agent.url}/metrics`)).text();
    for (const route of ['fast', 'discovery', 'fallback']) expect(metrics).toMatch(new RegExp(`${METRIC.hybridRoutes}\\{agent="argocd",route="${route}",reason="[a-z_]+"\\} [1-9]`));
  });
});

describe('answer cache', () => {
  it('answers the same question from the cache for 5 minutes (0 upstream calls), keeps "next page" working, and bypasses it for fresh data', async () => {
    const question = 'which apps are out of sync in prod?';
    const first = await ask(question);
    expect(first.metadata.cached).toBe(false);
    sim.resetStats();
    const contextId = randomUUID();
    const again = await ask('Which apps are OUT of sync in prod', contextId);
    expect(again.metadata.cached).toBe(true);
    expect(again.text).toBe(first.text);
    expect(sim.stats().requests).toBe(0);
    // The cached answer left the conversation's memory, so the next page continues it.
    const next = await ask('next page', contextId);
    expect(next.text).toMatch(/Page 2 of|no more|no list/);
    expect(next.text).not.toMatch(/no list to continue/);
    const fresh = await ask('refresh: which apps are out of sync in prod now?');
    expect(fresh.metadata.cached).toBe(false);
    expect(fresh.metadata.tool_calls).toBeGreaterThan(0);
    const metrics = await (await fetch(`${agent.url}/metrics`)).text();
    expect(metrics).toMatch(new RegExp(`${METRIC.cacheRequests}\\{cache="answer",outcome="hit"\\} [1-9]`));
  });
});
