import { randomUUID } from 'node:crypto';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClientFactory } from '@a2a-js/sdk/client';
import { NETBOX_AGENT_SETTINGS, startNetBoxAgent, type RunningNetBoxAgent } from '@flotilla/agent-netbox';
import { parseSettings, silentLogger } from '@flotilla/core';
import { METRIC } from '@flotilla/metrics';
import { startKubernetesSimulator, startNetBoxSimulator, type RunningKubernetesSimulator, type RunningNetBoxSimulator } from '@flotilla/simulators';
import { DISCOVERY_LABEL, kubernetesAgentSource, URL_ANNOTATION } from './discovery/kubernetes.js';
import { textRequest } from '@flotilla/agent-kit';
import { SUPERVISOR_SETTINGS, startSupervisor, type RunningSupervisor } from './start.js';

/** A KubeConfig for the simulator (the real client, plain HTTP). */
function kubeConfigOf(kube: RunningKubernetesSimulator): KubeConfig {
  const config = new KubeConfig();
  config.loadFromOptions(kube.kubeConfigOptions());
  return config;
}

/**
 * Discovery end to end: a fake Kubernetes API server (list + watch of Services) in front of the supervisor. An
 * agent Service added after start is routed to within seconds; removed, it stops being routed to.
 */
const TOKEN = 'discovery-test-token-0123';
let kube: RunningKubernetesSimulator;
let sim: RunningNetBoxSimulator;
let netbox: RunningNetBoxAgent;
let supervisor: RunningSupervisor;

async function routed(question: string): Promise<{ answer: string; routed: unknown }> {
  const client = await new ClientFactory().createFromUrl(supervisor.url);
  const result = await client.sendMessage(textRequest(question, randomUUID()));
  const artifact = 'artifacts' in result ? result.artifacts[0] : undefined;
  const part = artifact?.parts[0]?.content;
  return { answer: part?.$case === 'text' ? part.value : '', routed: artifact?.metadata?.routed };
}

/** Polls `check` every 200 ms until it holds, for at most `seconds`. */
async function within(seconds: number, check: () => Promise<boolean>): Promise<boolean> {
  const until = Date.now() + seconds * 1000;
  while (Date.now() < until) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return false;
}

beforeAll(async () => {
  kube = await startKubernetesSimulator();
  sim = await startNetBoxSimulator({ token: TOKEN });
  netbox = await startNetBoxAgent(parseSettings(NETBOX_AGENT_SETTINGS, { port: '0', 'netbox-url': sim.url, 'netbox-token': TOKEN }, {}, 'n'), silentLogger());
  const source = kubernetesAgentSource({ kubeConfig: kubeConfigOf(kube), namespace: 'flotilla', logger: silentLogger() });
  supervisor = await startSupervisor(parseSettings(SUPERVISOR_SETTINGS, { port: '0' }, {}, 's'), silentLogger(), [source]);
});
afterAll(async () => {
  await supervisor.close();
  await netbox.close();
  await sim.close();
  await kube.close();
});

describe('agents discovered in Kubernetes', () => {
  it('routes to an agent Service added after start, and stops when it is removed', async () => {
    expect((await routed('interfaces of every switch in ams1')).answer).toMatch(/No domain agent is available/);
    kube.addService({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'flotilla-netbox', namespace: 'flotilla', labels: { [DISCOVERY_LABEL]: 'netbox' }, annotations: { [URL_ANNOTATION]: netbox.url } },
      spec: { ports: [{ name: 'a2a', port: 8094 }] },
    });
    expect(await within(30, async () => (await routed('interfaces of every switch in ams1')).routed === 'flotilla/flotilla-netbox')).toBe(true);
    expect((await routed('interfaces of every switch in ams1')).answer).toMatch(/interfaces on 110 devices at ams1/);
    const seriesOf = async () => (await supervisor.metrics.registry.metrics()).split('\n').filter((line) => line.includes('agent="flotilla/flotilla-netbox"'));
    expect((await seriesOf()).some((line) => line.startsWith(`${METRIC.supervisorAgentState}{`) && line.includes('state="ready"') && line.endsWith(' 1'))).toBe(true);
    expect((await seriesOf()).some((line) => line.startsWith(`${METRIC.supervisorDelegations}{`))).toBe(true);
    kube.deleteService('flotilla', 'flotilla-netbox');
    expect(await within(30, async () => /No domain agent is available/.test((await routed('interfaces of every switch in ams1')).answer))).toBe(true);
    // Gone, not down: none of its series is left (discovery churn must not pile them up, nor leave it "down").
    expect(await seriesOf()).toEqual([]);
  });
});
