import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClientFactory } from '@a2a-js/sdk/client';
import { parseSettings, silentLogger } from '@flotilla/core';
import { generateNetBoxEstate, startNetBoxSimulator, type RunningNetBoxSimulator } from '@flotilla/simulators';
import { textRequest } from '@flotilla/agent-kit';
import { NETBOX_AGENT_SETTINGS, startNetBoxAgent, type RunningNetBoxAgent } from './start.js';

/**
 * The NetBox agent never drops a filter silently: an entity of the question that no tool call used is named in the
 * answer ("I did not apply …") and in the A2A metadata (partial, not_applied); one that a call used, as an
 * argument or as a {key: value} filter, is not. The official A2A client asks; the simulator's estate is the oracle.
 */
const TOKEN = 'accounting-token-0123456789';
const estate = generateNetBoxEstate();
let sim: RunningNetBoxSimulator;
let agent: RunningNetBoxAgent;

interface Reply {
  readonly answer: string;
  readonly metadata: Record<string, unknown>;
  readonly data: Record<string, unknown> | undefined;
  /** NetBox requests this turn made, by endpoint, counted at the simulator. */
  readonly calls: Record<string, number>;
}

async function ask(question: string, contextId = randomUUID()): Promise<Reply> {
  sim.resetStats();
  const client = await new ClientFactory().createFromUrl(agent.url);
  const result = await client.sendMessage(textRequest(question, contextId));
  const artifact = 'artifacts' in result ? result.artifacts[0] : undefined;
  let answer = '';
  let data: Reply['data'];
  for (const part of artifact?.parts ?? []) {
    if (part.content?.$case === 'text') answer = part.content.value;
    if (part.content?.$case === 'data') data = part.content.value as Reply['data'];
  }
  return { answer, metadata: artifact?.metadata ?? {}, data, calls: sim.stats().byEndpoint };
}

/** The rows of the answer's table as objects by column. */
function rows(answer: string): Record<string, string>[] {
  const lines = answer.split('\n').filter((l) => l.startsWith('|'));
  const [head, , ...body] = lines;
  const cells = (line: string): string[] => line.split('|').slice(1, -1).map((c) => c.trim());
  const columns = cells(head ?? '');
  return body.map((line) => Object.fromEntries(cells(line).map((c, i) => [columns[i] ?? String(i), c])));
}

beforeAll(async () => {
  sim = await startNetBoxSimulator({ token: TOKEN, estate });
  const config = parseSettings(NETBOX_AGENT_SETTINGS, { port: '0', 'netbox-url': sim.url, 'netbox-token': TOKEN }, {}, 'test agent');
  agent = await startNetBoxAgent(config, silentLogger());
});
afterAll(async () => {
  await agent.close();
  await sim.close();
});

/** A real device with both cabled and uncabled interfaces, some disabled, and few enough to be shown whole. */
const device = estate.devices.find((d) => {
  const own = estate.interfaces.filter((i) => i.device.id === d.id);
  return own.length <= 50 && own.some((i) => i.cable === null) && own.some((i) => i.cable !== null) && own.some((i) => !i.enabled);
});
const interfacesOf = (id: number | undefined) => estate.interfaces.filter((i) => i.device.id === id);

describe('NetBox answers say which filters they did not apply', () => {
  it('"uncabled interfaces of <device>" applies the state ({cabled: false}): only uncabled ones, nothing said not applied', async () => {
    expect(device).toBeDefined();
    const name = device?.name ?? '';
    const uncabled = interfacesOf(device?.id).filter((i) => i.cable === null);
    expect(uncabled.length).toBeLessThan(interfacesOf(device?.id).length);
    const r = await ask(`uncabled interfaces of ${name}`);
    expect(r.answer).not.toMatch(/did not apply|did not understand/);
    expect(r.metadata.partial).toBe(false);
    expect(r.metadata.not_applied).toBeUndefined();
    expect(r.answer.split('\n')[0]).toBe(`${uncabled.length} interfaces match:`);
    expect(JSON.parse(String(r.metadata.query))).toMatchObject({ entity: 'interfaces', where: { op: 'and', of: expect.arrayContaining([{ op: 'eq', field: 'device', value: name }, { op: 'eq', field: 'cabled', value: false }]) as unknown } });
    const shown = rows(r.answer);
    expect(shown.map((row) => row.name).sort()).toEqual(uncabled.map((i) => i.name).sort());
    expect(shown.every((row) => row.cabled === 'false' && row.device === name)).toBe(true);
  });

  it('"cabled interfaces of <device>" is read as it is spelt (never corrected to "cables"): only the cabled ones', async () => {
    const name = device?.name ?? '';
    const cabled = interfacesOf(device?.id).filter((i) => i.cable !== null);
    const r = await ask(`cabled interfaces of ${name}`);
    expect(r.answer).not.toMatch(/did not apply|did not understand|Read "cabled"/);
    expect(r.answer.split('\n')[0]).toBe(`${cabled.length} interfaces match:`);
    expect(JSON.parse(String(r.metadata.query))).toMatchObject({ entity: 'interfaces', where: { op: 'and', of: expect.arrayContaining([{ op: 'eq', field: 'cabled', value: true }]) as unknown } });
  });

  it('"disabled interfaces of <device>" applies {enabled: false} the same way', async () => {
    const name = device?.name ?? '';
    const disabled = interfacesOf(device?.id).filter((i) => !i.enabled);
    const r = await ask(`disabled interfaces of ${name}`);
    expect(r.answer).not.toMatch(/did not apply/);
    expect(r.metadata.partial).toBe(false);
    expect(rows(r.answer).map((row) => row.name).sort()).toEqual(disabled.map((i) => i.name).sort());
  });

  it('"device count by role" is a breakdown: every role counted, nothing left unapplied', async () => {
    const r = await ask('device count by role');
    expect(r.metadata.not_applied).toBeUndefined();
    expect(r.answer).toContain(`${estate.devices.length.toLocaleString('en-US')} devices, by role`);
    for (const role of new Set(estate.devices.map((d) => d.role.slug))) expect(r.answer).toMatch(new RegExp(`\\| ${role} +\\| ${estate.devices.filter((d) => d.role.slug === role).length} +\\|`));
  });

  it('"devices by role in ams1" is a breakdown: the site applied, every role counted, nothing left unapplied', async () => {
    const r = await ask('devices by role in ams1');
    expect(r.metadata.not_applied).toBeUndefined();
    const ams1 = estate.devices.filter((d) => d.site.slug === 'ams1');
    expect(r.answer).toContain(`${ams1.length} devices, by role`);
    for (const role of new Set(ams1.map((d) => d.role.slug))) expect(r.answer).toMatch(new RegExp(`\\| ${role} +\\| ${ams1.filter((d) => d.role.slug === role).length} +\\|`));
    expect(r.answer).not.toMatch(/did not apply/);
  });

  it('"only the uncabled ones" after a stored list applies its read_result filter (cabled=false): nothing said not applied', async () => {
    const contextId = randomUUID();
    const first = await ask('interfaces of every switch in ams1', contextId);
    expect(first.answer).toMatch(/Batch 1 of/);
    const narrowed = await ask('only the uncabled ones', contextId);
    expect(narrowed.calls).toEqual({});
    expect(narrowed.answer).not.toMatch(/did not apply/);
    expect(narrowed.metadata.not_applied).toBeUndefined();
    const shown = rows(narrowed.answer);
    expect(shown.length).toBeGreaterThan(0);
    expect(shown.every((row) => row.cabled === 'false')).toBe(true);
  });
});
