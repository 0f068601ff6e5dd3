import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClientFactory } from '@a2a-js/sdk/client';
import { textRequest } from '@flotilla/agent-kit';
import { lexiconRead } from '@flotilla/agent-host/testing';
import { parseSettings, silentLogger } from '@flotilla/core';
import { createRng, generateNetBoxEstate, startNetBoxSimulator, type NetBoxDevice, type RunningNetBoxSimulator } from '@flotilla/simulators';
import { NETBOX_AGENT_SETTINGS, startNetBoxAgent, type RunningNetBoxAgent } from './start.js';

/**
 * The NetBox agent's typed reading over A2A, on questions generated from the estate: a construction (count with a
 * filter on a field the intent rules have no words for, a negation, a breakdown, a comparison, a named field, an
 * action), values drawn from the estate (manufacturers, tenants, platforms, sites, roles, statuses), phrasings drawn
 * from several, and the expected figure computed from the raw estate here.
 */
const TOKEN = 'typed-token-0123456789abcdef';
const estate = generateNetBoxEstate();
let sim: RunningNetBoxSimulator;
let agent: RunningNetBoxAgent;

beforeAll(async () => {
  sim = await startNetBoxSimulator({ token: TOKEN, estate });
  agent = await startNetBoxAgent(parseSettings(NETBOX_AGENT_SETTINGS, { port: '0', 'netbox-url': sim.url, 'netbox-token': TOKEN }, {}, 'test agent'), silentLogger());
  await lexiconRead(agent.url);
});
afterAll(async () => {
  await agent.close();
  await sim.close();
});

async function ask(question: string): Promise<{ answer: string; data: Record<string, unknown> | undefined; metadata: Record<string, unknown> }> {
  const client = await new ClientFactory().createFromUrl(agent.url);
  const result = await client.sendMessage(textRequest(question, randomUUID()));
  const artifact = 'artifacts' in result ? result.artifacts[0] : undefined;
  let answer = '';
  let data: Record<string, unknown> | undefined;
  for (const part of artifact?.parts ?? []) {
    if (part.content?.$case === 'text') answer = part.content.value;
    if (part.content?.$case === 'data') data = part.content.value as Record<string, unknown>;
  }
  return { answer, data, metadata: artifact?.metadata ?? {} };
}

const fmt = (n: number): string => n.toLocaleString('en-US');
type Field = 'manufacturer' | 'tenant' | 'platform' | 'site' | 'role' | 'status';
/** A field's value of a device, and the words a person would use for it. */
const FIELDS: Readonly<Record<Field, { of: (d: NetBoxDevice) => string | null; say: (v: string, d: NetBoxDevice) => string }>> = {
  manufacturer: { of: (d) => d.device_type.manufacturer.slug, say: (v) => v },
  tenant: { of: (d) => d.tenant?.slug ?? null, say: (v) => `tenant ${v}` },
  platform: { of: (d) => d.platform?.slug ?? null, say: (v) => `platform ${v}` },
  site: { of: (d) => d.site.slug, say: (v) => `in ${v}` },
  role: { of: (d) => d.role.slug, say: (v) => `role ${v}` },
  status: { of: (d) => d.status.value, say: (v) => v },
};
const valuesOf = (f: Field): string[] => [...new Set(estate.devices.map((d) => FIELDS[f].of(d)).filter((v): v is string => v !== null))].sort();

describe('NetBox agent, typed questions', () => {
  const rng = createRng(35);
  const cases: { question: string; check: (answer: string, data: Record<string, unknown> | undefined) => void }[] = [];
  for (let k = 0; k < 12; k += 1) {
    const f = rng.pick<Field>(['manufacturer', 'tenant', 'platform']);
    const v = rng.pick(valuesOf(f));
    const n = estate.devices.filter((d) => FIELDS[f].of(d) === v).length;
    const noun = rng.pick(['devices', 'boxes', 'hosts']);
    cases.push({ question: rng.pick([`how many ${FIELDS[f].say(v, estate.devices[0] as NetBoxDevice)} ${noun} are there`, `count the ${noun} with ${f} ${v}`, `number of ${noun} whose ${f} is ${v}`]), check: (a) => expect(a).toMatch(new RegExp(`^${fmt(n)} devices? match`)) });
  }
  for (let k = 0; k < 6; k += 1) {
    const site = rng.pick(valuesOf('site'));
    const status = rng.pick(['active', 'offline', 'planned']);
    const n = estate.devices.filter((d) => d.site.slug === site && d.status.value !== status).length;
    cases.push({ question: rng.pick([`how many devices in ${site} are not ${status}`, `count devices at ${site} that aren't ${status}`]), check: (a) => expect(a).toMatch(new RegExp(`^${fmt(n)} devices? match`)) });
  }
  for (let k = 0; k < 4; k += 1) {
    const by = rng.pick<Field>(['site', 'manufacturer', 'status']);
    const role = rng.pick(['switch', 'router', 'firewall', 'server']);
    const roles = role === 'switch' ? 'switches' : `${role}s`;
    const matching = estate.devices.filter((d) => d.role.slug === role);
    cases.push({
      question: rng.pick([`${roles} per ${by}`, `how many ${roles} by ${by}`, `${by} breakdown of the ${roles}`]),
      check: (a) => {
        expect(a).toContain(`${fmt(matching.length)} devices, by`);
        const top = [...new Set(matching.map((d) => FIELDS[by].of(d)))][0] ?? '';
        expect(a).toContain(String(matching.filter((d) => FIELDS[by].of(d) === top).length));
      },
    });
  }
  for (let k = 0; k < 4; k += 1) {
    const [a, b] = rng.shuffle(valuesOf('site')).slice(0, 2) as [string, string];
    const role = rng.pick(['switch', 'firewall', 'server']);
    // A typo in a plural ("switchs") is as near the singular as the plural: one meaning, corrected.
    const roles = role === 'switch' ? rng.pick(['switches', 'switchs']) : `${role}s`;
    const na = estate.devices.filter((d) => d.role.slug === role && d.site.slug === a).length;
    const nb = estate.devices.filter((d) => d.role.slug === role && d.site.slug === b).length;
    cases.push({
      question: `are there more ${roles} in ${a} or ${b}?`,
      check: (answer) => expect(answer).toContain(na === nb ? `same number: ${na} each` : na > nb ? `${a} has more: ${na} against ${nb}` : `${b} has more: ${nb} against ${na}`),
    });
  }
  for (let k = 0; k < 3; k += 1) {
    const d = rng.pick(estate.devices.filter((x) => x.serial !== ''));
    cases.push({ question: rng.pick([`what is the serial number of ${d.name}`, `serial of ${d.name}?`]), check: (a) => expect(a).toContain(d.serial) });
  }
  for (let k = 0; k < 3; k += 1) {
    const d = rng.pick(estate.devices);
    const verb = rng.pick(['decommission', 'delete', 'reboot']);
    cases.push({ question: `please ${verb} ${d.name}`, check: (a, data) => {
      expect(a).toMatch(/^Flotilla is read-only: I did not /);
      expect(a).toContain(d.name);
      expect(data).toMatchObject({ read_only: true });
    } });
  }

  for (const c of cases) {
    it(c.question, async () => {
      const r = await ask(c.question);
      c.check(r.answer, r.data);
    });
  }

  it('a request to act on a part of a device names both, and offers the device (never the part) to show', async () => {
    const iface = estate.interfaces[7];
    if (iface === undefined) throw new Error('no interface');
    const r = await ask(`shut down interface ${iface.name} on ${iface.device.name}`);
    expect(r.answer.split('\n')[0]).toBe(`Flotilla is read-only: I did not change ${iface.name.toLowerCase()} on ${iface.device.name}.`);
    expect(r.answer).toContain(`"show device ${iface.device.name}"`);
    expect(r.answer).not.toContain(`show device ${iface.name.toLowerCase()}`);
  });

  it('answers "interfaces that are down" with the disabled ones, saying NetBox holds no link state, and puts the query in the metadata', async () => {
    const device = estate.devices.find((d) => estate.interfaces.some((i) => i.device.id === d.id && !i.enabled)) as NetBoxDevice;
    const down = estate.interfaces.filter((i) => i.device.id === device.id && !i.enabled).length;
    const r = await ask(`which interfaces are down on ${device.name}?`);
    expect(r.answer).toMatch(new RegExp(`^${down} interfaces? match`));
    expect(r.answer).toMatch(/enabled, not its live link state/);
    expect(JSON.parse(String(r.metadata.query))).toMatchObject({ entity: 'interfaces' });
  });
});
