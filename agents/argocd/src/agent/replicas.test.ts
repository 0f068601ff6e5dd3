import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClientFactory } from '@a2a-js/sdk/client';
import { parseSettings, silentLogger } from '@flotilla/core';
import { textRequest } from '@flotilla/agent-kit';
import { lexiconRead } from '@flotilla/agent-host/testing';
import { startArgoCdSimulator, startFakeOpenAi, type RunningSimulator } from '@flotilla/simulators';
import { NO_REDIS_SERVER, redisServerBinary, startRedisServer, type LocalRedisServer } from '@flotilla/state/testing';
import { ARGOCD_AGENT_SETTINGS, startArgoCdAgent, type RunningAgent } from './start.js';

/** Two replicas of the Argo CD agent, one Redis (--redis-url): the conversation continues on either. */
const TOKEN = 'replica-argocd-token';
const REDIS = redisServerBinary();

async function ask(agentUrl: string, question: string, contextId: string): Promise<string> {
  const client = await new ClientFactory().createFromUrl(agentUrl);
  const result = await client.sendMessage(textRequest(question, contextId));
  if (!('artifacts' in result)) return '';
  return (result.artifacts[0]?.parts ?? []).flatMap((part) => (part.content?.$case === 'text' ? [part.content.value] : [])).join('\n');
}

/** Whether the answer came from the answer cache (the artifact's `cached` metadata). */
async function askCached(agentUrl: string, question: string): Promise<{ text: string; cached: unknown }> {
  const client = await new ClientFactory().createFromUrl(agentUrl);
  const result = await client.sendMessage(textRequest(question, randomUUID()));
  if (!('artifacts' in result)) return { text: '', cached: undefined };
  const artifact = result.artifacts[0];
  const text = (artifact?.parts ?? []).flatMap((part) => (part.content?.$case === 'text' ? [part.content.value] : [])).join('\n');
  return { text, cached: artifact?.metadata?.cached };
}

describe.skipIf(REDIS === undefined)(`Argo CD agent replicas sharing Redis${REDIS === undefined ? ` (skipped: ${NO_REDIS_SERVER})` : ''}`, () => {
  let sim: RunningSimulator;
  let redis: LocalRedisServer;
  const agents: RunningAgent[] = [];
  const start = async (env: Record<string, string> = {}): Promise<RunningAgent> => {
    const flags = { port: '0', 'argocd-url': sim.url, 'argocd-token': TOKEN, 'log-level': 'silent' };
    const agent = await startArgoCdAgent(parseSettings(ARGOCD_AGENT_SETTINGS, flags, { FLOTILLA_REDIS_URL: redis.url, ...env }, 'replica'), silentLogger());
    agents.push(agent);
    return agent;
  };

  beforeAll(async () => {
    [sim, redis] = await Promise.all([startArgoCdSimulator({ token: TOKEN }), startRedisServer()]);
  });
  afterAll(async () => {
    for (const agent of agents) await agent.close();
    await sim.close();
    await redis.stop();
  });

  it('"next page" asked of another replica continues the list', async () => {
    const [a, b] = [await start(), await start()];
    const contextId = randomUUID();
    expect(await ask(a.url, 'list all applications', contextId)).toMatch(/Page 1 of \d+/);
    expect(await ask(b.url, 'next page', contextId)).toMatch(/Page 2 of \d+/);
    expect(await ask(a.url, 'next page', contextId)).toMatch(/Page 3 of \d+/);
  });

  it('a question replica A answered is answered by replica B from the shared answer cache, with no upstream request', async () => {
    const [a, b] = [await start(), await start()];
    // Each replica reads the estate's names for its lexicon as it starts: that read is not part of an answer.
    await Promise.all([lexiconRead(a.url), lexiconRead(b.url)]);
    const first = await askCached(a.url, 'list clusters');
    expect(first.text).not.toBe('');
    expect(first.cached).toBe(false);
    sim.resetStats();
    expect(await askCached(b.url, 'list clusters')).toEqual({ text: first.text, cached: true });
    expect(sim.stats().requests).toBe(0);
  });

  it('in LLM mode the next turn on another replica sends the model the conversation so far', async () => {
    const llm = await startFakeOpenAi({ apiKey: 'sk-replica-test' });
    try {
      const env = { FLOTILLA_MODE: 'llm', FLOTILLA_LLM_PROVIDER: 'openai', FLOTILLA_LLM_BASE_URL: llm.baseUrl, FLOTILLA_LLM_API_KEY: 'sk-replica-test', MAX_CONTEXT_TOKENS: '16000' };
      const [a, b] = [await start(env), await start(env)];
      const contextId = randomUUID();
      await ask(a.url, 'list the clusters please', contextId);
      const before = llm.requests.length;
      await ask(b.url, 'and the projects?', contextId);
      const next = JSON.stringify(llm.requests[before]?.body);
      expect(next).toContain('list the clusters please');
      expect(next).toContain('and the projects?');
    } finally {
      await llm.close();
    }
  });

  it('in hybrid mode both paths share one record in Redis: a rules turn at A is in the model request at B', async () => {
    const llm = await startFakeOpenAi({ apiKey: 'sk-replica-test', script: (input) => ({ text: `I read ${input.messages.filter((m) => m.role === 'user').length} questions.` }) });
    try {
      const env = { FLOTILLA_LLM_PROVIDER: 'openai', FLOTILLA_LLM_BASE_URL: llm.baseUrl, FLOTILLA_LLM_API_KEY: 'sk-replica-test', MAX_CONTEXT_TOKENS: '16000' };
      const [a, b] = [await start(env), await start(env)];
      const contextId = randomUUID();
      const clusters = await ask(a.url, 'which clusters do we have?', contextId);
      expect(llm.requests).toHaveLength(0);
      expect(await ask(b.url, 'which of these should we retire?', contextId)).toBe('I read 2 questions.');
      const sent = JSON.stringify(llm.requests[0]?.body);
      expect(sent).toContain('which clusters do we have?');
      expect(sent).toContain(JSON.stringify(clusters.split('\n')[0]).slice(1, -1));
    } finally {
      await llm.close();
    }
  });
});
