import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClientFactory } from '@a2a-js/sdk/client';
import { parseSettings, silentLogger } from '@flotilla/core';
import { textRequest } from '@flotilla/agent-kit';
import { generateArgoEstate, startArgoCdSimulator, type RunningSimulator } from '@flotilla/simulators';
import { ARGOCD_AGENT_SETTINGS, startArgoCdAgent, type RunningAgent } from './start.js';

/**
 * The agent with its tools in process reads Argo CD with the upstream settings of the MCP server, the value cap
 * included: an application whose Helm values pass --upstream-max-value-kib is refused, naming the field.
 */
const TOKEN = 'upstream-settings-token-0123';
let sim: RunningSimulator;
const agents: RunningAgent[] = [];

beforeAll(async () => {
  const estate = generateArgoEstate({ seed: 3, applications: 30 });
  const app = estate.applications[2];
  if (app === undefined) throw new Error('no application');
  const source = app.spec.source ?? { repoURL: 'https://git.example.com/platform/charts.git' };
  app.spec.source = { ...source, helm: { ...source.helm, values: `cert: ${randomBytes(48 * 1024).toString('base64')}\n` } };
  delete app.spec.sources;
  sim = await startArgoCdSimulator({ token: TOKEN, estate });
});
afterAll(async () => {
  await Promise.all(agents.map((a) => a.close()));
  await sim?.close();
});

async function ask(flags: Record<string, string>, question: string): Promise<string> {
  const agent = await startArgoCdAgent(parseSettings(ARGOCD_AGENT_SETTINGS, { port: '0', 'argocd-url': sim.url, 'argocd-token': TOKEN, 'log-level': 'silent', ...flags }, {}, 'test'), silentLogger());
  agents.push(agent);
  const result = await (await new ClientFactory().createFromUrl(agent.url)).sendMessage(textRequest(question, randomUUID()));
  if (!('artifacts' in result)) throw new Error('a message, not a task');
  return (result.artifacts[0]?.parts ?? []).flatMap((p) => (p.content?.$case === 'text' ? [p.content.value] : [])).join('\n');
}

describe('the Argo CD agent, tools in process: upstream settings', () => {
  it('refuses a value over --upstream-max-value-kib, naming its field, and reads it under the default cap', async () => {
    expect(await ask({ 'upstream-max-value-kib': '32' }, 'list all applications')).toMatch(/over the 32 KiB cap of one value at items\[2\]\.spec\.source\.helm\.values/);
    expect(await ask({}, 'list all applications')).toMatch(/^30 applications:/);
  });
});
