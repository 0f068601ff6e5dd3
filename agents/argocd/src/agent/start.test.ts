import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ClientFactory } from '@a2a-js/sdk/client';
import { parseSettings, silentLogger } from '@flotilla/core';
import { METRIC } from '@flotilla/metrics';
import { textRequest } from '@flotilla/agent-kit';
import { startArgoCdSimulator, startFakeOpenAi } from '@flotilla/simulators';
import { ARGOCD_AGENT_SETTINGS, startArgoCdAgent, type ArgoCdAgentStartOptions } from './start.js';

/** --local as the CLI runs it: the simulator comes from the caller (agents never load simulators themselves). */
const LOCAL: ArgoCdAgentStartOptions = { simulator: ({ token, now }) => startArgoCdSimulator({ token, estate: { epoch: now() } }) };

describe('flotilla agent argocd --local', () => {
  it('serves the card, answers, counts the turn by path and outcome, and closes cleanly', async () => {
    const config = parseSettings(ARGOCD_AGENT_SETTINGS, { port: '0', local: 'true', 'log-level': 'silent' }, {}, 'test');
    const agent = await startArgoCdAgent(config, silentLogger(), LOCAL);
    try {
      const client = await new ClientFactory().createFromUrl(agent.url);
      const reply = await client.sendMessage(textRequest('which clusters do we have?', randomUUID()));
      expect(JSON.stringify(reply)).toContain('13 clusters');
      expect(JSON.stringify(reply)).toContain('"partial":false');
      // A partial answer says so in its metadata too, for clients that act on it.
      const partial = JSON.stringify(await client.sendMessage(textRequest('which clusters do we have in the basement?', randomUUID())));
      expect(partial).toContain('"partial":true');
      expect(partial).toContain('"not_applied":"\\"basement\\""');
      const metrics = await (await fetch(`${agent.url}/metrics`)).text();
      expect(metrics).toContain(`${METRIC.agentTurns}{agent="argocd",skill="argocd-inventory",path="direct",outcome="answered"} 2`);
      expect(metrics).toContain(METRIC.agentAnswerTokens);
      // A typed answer carries the query as understood in its metadata, and the lexicon's size is a metric.
      const typed = JSON.stringify(await client.sendMessage(textRequest('how many degraded apps per cluster?', randomUUID())));
      expect(typed).toContain('"query":"{\\"entity\\":\\"applications\\",\\"where\\":{\\"op\\":\\"eq\\",\\"field\\":\\"health\\",\\"value\\":\\"Degraded\\"},\\"what\\":{\\"kind\\":\\"breakdown\\",\\"by\\":[\\"cluster\\"]}}"');
      expect(await (await fetch(`${agent.url}/metrics`)).text()).toMatch(/flotilla_store_entries\{store="lexicon"\} [1-9]\d*/);
    } finally {
      await agent.close();
    }
    await expect(fetch(`${agent.url}/healthz`)).rejects.toThrow();
  });

  it('in LLM mode (--mode llm) answers through the model (OpenAI-compatible API), with the capability index and the llm path metered', async () => {
    const llm = await startFakeOpenAi({ apiKey: 'sk-start-test' });
    const env = { FLOTILLA_MODE: 'llm', FLOTILLA_LLM_PROVIDER: 'openai', FLOTILLA_LLM_BASE_URL: llm.baseUrl, FLOTILLA_LLM_API_KEY: 'sk-start-test', MAX_CONTEXT_TOKENS: '16000' };
    const config = parseSettings(ARGOCD_AGENT_SETTINGS, { port: '0', local: 'true', 'log-level': 'silent' }, env, 'test');
    const agent = await startArgoCdAgent(config, silentLogger(), LOCAL);
    try {
      const client = await new ClientFactory().createFromUrl(agent.url);
      const reply = JSON.stringify(await client.sendMessage(textRequest('list the clusters', randomUUID())));
      // The scripted model found list_clusters in the index, loaded it, called it, and quoted its result.
      expect(reply).toContain('From list_clusters');
      expect(reply).toContain('\\"total\\":13');
      const first = llm.requests[0]?.body as { tools: { function: { name: string } }[] };
      expect(first.tools.map((t) => t.function.name)).toEqual(['find_tools', 'load_tools']);
      const metrics = await (await fetch(`${agent.url}/metrics`)).text();
      expect(metrics).toContain(`${METRIC.agentTurns}{agent="argocd",skill="none",path="llm",outcome="answered"} 1`);
      expect(metrics).toContain(`${METRIC.contextRequests}{agent="argocd"} ${llm.requests.length}`);
    } finally {
      await agent.close();
      await llm.close();
    }
  });

  it('refuses to start in LLM mode without a key, naming the setting', async () => {
    const config = parseSettings(ARGOCD_AGENT_SETTINGS, { port: '0', local: 'true', 'llm-provider': 'anthropic' }, {}, 'test');
    await expect(startArgoCdAgent(config, silentLogger(), LOCAL)).rejects.toThrow(/--llm-api-key/);
  });
});

describe('flotilla agent argocd --local without a simulator', () => {
  it('is refused, naming the CLI and the upstream settings, when the caller brings no simulator', async () => {
    const config = parseSettings(ARGOCD_AGENT_SETTINGS, { port: '0', local: 'true', 'log-level': 'silent' }, {}, 'test');
    await expect(startArgoCdAgent(config, silentLogger())).rejects.toThrow(/--local needs the Argo CD simulator/);
  });
});

describe('flotilla agent argocd --mode', () => {
  it('refuses a model mode without a model, naming the settings', async () => {
    const config = parseSettings(ARGOCD_AGENT_SETTINGS, { port: '0', local: 'true', mode: 'hybrid' }, {}, 'test');
    await expect(startArgoCdAgent(config, silentLogger(), LOCAL)).rejects.toThrow(/--mode hybrid needs a model: set --llm-provider/);
    expect(() => parseSettings(ARGOCD_AGENT_SETTINGS, { mode: 'fast' }, {}, 'test')).toThrow(/--mode \/ FLOTILLA_MODE: must be one of rules, llm, hybrid/);
  });
});
