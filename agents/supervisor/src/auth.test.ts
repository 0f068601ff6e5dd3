import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARGOCD_AGENT_SETTINGS, startArgoCdAgent, type RunningAgent } from '@flotilla/agent-argocd';
import { a2aClientFactory, textRequest } from '@flotilla/agent-kit';
import { parseSettings, silentLogger } from '@flotilla/core';
import { METRIC } from '@flotilla/metrics';
import { startArgoCdSimulator, type RunningSimulator } from '@flotilla/simulators';
import { SUPERVISOR_SETTINGS, startSupervisor, type RunningSupervisor } from './start.js';

const UPSTREAM = 'auth-test-argocd-token';
const AGENT_TOKEN = 'agent-token-0123456789abcdef';
const SUPERVISOR_TOKEN = 'supervisor-token-0123456789abcdef';
let sim: RunningSimulator;
let argocd: RunningAgent;
let supervisor: RunningSupervisor;

beforeAll(async () => {
  sim = await startArgoCdSimulator({ token: UPSTREAM });
  argocd = await startArgoCdAgent(
    parseSettings(ARGOCD_AGENT_SETTINGS, { port: '0', 'argocd-url': sim.url, 'argocd-token': UPSTREAM, 'log-level': 'silent' }, { FLOTILLA_A2A_TOKENS: AGENT_TOKEN }, 'a'),
    silentLogger(),
  );
  // The supervisor sends the agents' token, and accepts its own (two: a rotation in progress).
  supervisor = await startSupervisor(
    parseSettings(SUPERVISOR_SETTINGS, { port: '0', agents: `argocd=${argocd.url}`, 'agent-token': AGENT_TOKEN, 'a2a-tokens': `old-token-0123456789abcdef,${SUPERVISOR_TOKEN}` }, {}, 's'),
    silentLogger(),
  );
});
afterAll(async () => {
  await supervisor.close();
  await argocd.close();
  await sim.close();
});

describe('A2A credentials end to end: caller → supervisor → agent', () => {
  it('answers a caller with a token, through an agent that also requires one', async () => {
    const client = await a2aClientFactory(SUPERVISOR_TOKEN).createFromUrl(supervisor.url);
    const reply = JSON.stringify(await client.sendMessage(textRequest('which clusters do we have?', randomUUID())));
    expect(reply).toContain('13 clusters');
    expect(supervisor.registry.list().map((a) => a.state)).toEqual(['ready']);
  });

  it('refuses callers without a valid token with 401 before any work, and counts them', async () => {
    const client = await a2aClientFactory(undefined).createFromUrl(supervisor.url);
    await expect(client.sendMessage(textRequest('which clusters do we have?', randomUUID()))).rejects.toThrow(/401/);
    const direct = await a2aClientFactory('not-the-agent-token-at-all').createFromUrl(argocd.url);
    await expect(direct.sendMessage(textRequest('which clusters do we have?', randomUUID()))).rejects.toThrow(/401/);
    const metrics = await (await fetch(`${supervisor.url}/metrics`)).text();
    expect(metrics).toContain(`${METRIC.a2aRejected}{agent="supervisor",reason="unauthorized"} 1`);
  });

  it('refuses a short token at start, naming the setting', () => {
    expect(() => parseSettings(SUPERVISOR_SETTINGS, { 'a2a-tokens': 'short' }, {}, 's')).toThrow(/--a2a-tokens \/ FLOTILLA_A2A_TOKENS: each token must be at least 16 characters/);
  });
});
