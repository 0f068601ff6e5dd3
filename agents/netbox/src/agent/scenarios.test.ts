import { randomUUID } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClientFactory } from '@a2a-js/sdk/client';
import { parseSettings, silentLogger } from '@flotilla/core';
import { generateNetBoxEstate, startNetBoxSimulator, type RunningNetBoxSimulator } from '@flotilla/simulators';
import { textRequest } from '@flotilla/agent-kit';
import { lexiconRead } from '@flotilla/agent-host/testing';
import { NETBOX_AGENT_SETTINGS, startNetBoxAgent, type RunningNetBoxAgent } from './start.js';

/**
 * The realistic NetBox scenarios of the design note, end to end: the official A2A client asks the NetBox agent
 * (its tools in process) questions about the simulator's estate. Each asserts the answer against the estate
 * itself (an independent oracle), the workflow path taken, and the NetBox requests counted at the simulator.
 */
const TOKEN = 'scenario-token-0123456789';
const estate = generateNetBoxEstate();
let sim: RunningNetBoxSimulator;
let agent: RunningNetBoxAgent;

const fmt = (value: number): string => value.toLocaleString('en-US');

interface Reply {
  readonly answer: string;
  readonly metadata: Record<string, unknown>;
  readonly data: { limitation?: { kinds: string[]; strategies: string[]; options: { id: string; prompt: string }[]; session: { offset: number; total: number } | null } } | undefined;
  /** NetBox requests this turn made, by endpoint, counted at the simulator. */
  readonly calls: Record<string, number>;
  readonly totalCalls: number;
}

async function ask(question: string, contextId: string, agentUrl = agent.url): Promise<Reply> {
  sim.resetStats();
  const client = await new ClientFactory().createFromUrl(agentUrl);
  const result = await client.sendMessage(textRequest(question, contextId));
  const artifact = 'artifacts' in result ? result.artifacts[0] : undefined;
  let answer = '';
  let data: Reply['data'];
  for (const part of artifact?.parts ?? []) {
    if (part.content?.$case === 'text') answer = part.content.value;
    if (part.content?.$case === 'data') data = part.content.value as Reply['data'];
  }
  const stats = sim.stats();
  return { answer, metadata: artifact?.metadata ?? {}, data, calls: stats.byEndpoint, totalCalls: Object.values(stats.byEndpoint).reduce((a, b) => a + b, 0) };
}

async function startAgent(extra: Record<string, string> = {}): Promise<RunningNetBoxAgent> {
  const config = parseSettings(NETBOX_AGENT_SETTINGS, { port: '0', 'netbox-url': sim.url, 'netbox-token': TOKEN, ...extra }, {}, 'test agent');
  return startNetBoxAgent(config, silentLogger());
}

beforeAll(async () => {
  sim = await startNetBoxSimulator({ token: TOKEN, estate });
  agent = await startAgent();
});
afterAll(async () => {
  await agent.close();
  await sim.close();
});

const ams1Devices = estate.devices.filter((d) => d.site.slug === 'ams1');
const ams1Interfaces = estate.interfaces.filter((i) => ams1Devices.some((d) => d.id === i.device.id));

describe('NetBox scenarios over A2A', () => {
  it('1. lists the sites whole (direct path)', async () => {
    const r = await ask('list sites', randomUUID());
    expect(r.metadata.strategy).toBe('direct');
    expect(r.answer).toContain(`${estate.sites.length} sites:`);
    for (const site of estate.sites) expect(r.answer).toContain(`| ${site.slug} |`);
    expect(r.data).toBeUndefined();
  });

  it('2-3. discloses the devices of a big site progressively, and "next batch" continues with one request', async () => {
    const contextId = randomUUID();
    const r = await ask('devices in ams1', contextId);
    expect(r.metadata.strategy).toBe('limitation_aware');
    expect(r.metadata.limitations).toContain('token_overflow');
    expect(r.answer).toMatch(new RegExp(`Batch 1 of \\d+: ${ams1Devices.length} devices at ams1, rows 1-25`));
    expect(r.data?.limitation?.options.map((o) => o.id)).toEqual(expect.arrayContaining(['next_batch', 'summary', 'apply_filter']));
    const next = await ask('next batch', contextId);
    expect(next.answer).toMatch(/Batch 2 of \d+: 200 devices at ams1, rows 26-50/);
    expect(next.answer).toContain(`| ${ams1Devices[25]?.name ?? '?'} |`);
    expect(next.calls).toEqual({ 'dcim/devices': 1 });
  });

  it('4. filters devices by site, role and status (only matching rows)', async () => {
    const expected = estate.devices.filter((d) => d.site.slug === 'ams1' && d.role.slug === 'switch' && d.status.value === 'offline');
    expect(expected.length).toBeGreaterThan(0);
    const r = await ask('which switches are offline in ams1?', randomUUID());
    expect(r.answer).toContain(`${expected.length} devices at ams1, role switch, status offline`);
    for (const d of expected) expect(r.answer).toContain(`| ${d.name} |`);
    expect(r.metadata.strategy).toBe('direct');
  });

  it('5. shows one device with its interfaces and IPs (complex path, dependent steps)', async () => {
    const device = ams1Devices.find((d) => d.name === 'ams1-sw-001');
    expect(device).toBeDefined();
    const ips = estate.ipAddresses.filter((ip) => ip.assigned_object?.device.id === device?.id);
    const r = await ask('show device ams1-sw-001', randomUUID());
    expect(r.metadata.strategy).toBe('complex');
    expect(r.metadata.tool_calls).toBe(3);
    expect(r.answer).toContain(`Interfaces: ${device?.interface_count ?? -1}`);
    expect(r.answer).toContain(`IP addresses (${ips.length})`);
    for (const ip of ips.slice(0, 5)) expect(r.answer).toContain(ip.address);
  });

  it('6-9. interfaces of every device at a 200-device site: exact in at most 10 requests (naive: 201), then batches, a filter and a summary without NetBox', async () => {
    expect(ams1Devices).toHaveLength(200);
    const contextId = randomUUID();
    const r = await ask('interfaces of all devices in ams1', contextId);
    expect(r.metadata.strategy).toBe('limitation_aware');
    expect(r.metadata.handling).toBe('batched,progressive');
    expect(r.totalCalls).toBeLessThanOrEqual(10);
    expect(r.answer).toContain(`${fmt(ams1Interfaces.length)} interfaces on 200 devices at ams1, all of them read`);
    expect(r.answer).toContain('would take 201 calls');
    const byType = new Map<string, number>();
    for (const i of ams1Interfaces) byType.set(i.type.value, (byType.get(i.type.value) ?? 0) + 1);
    const top = [...byType.entries()].sort((a, b) => b[1] - a[1])[0];
    expect(r.answer).toContain(`${top?.[0] ?? '?'} ${top?.[1] ?? -1}`);

    const next = await ask('next batch', contextId);
    expect(next.answer).toMatch(/Batch 2 of \d+: 5,760 interfaces|Batch 2 of \d+: [\d,]+ interfaces/);
    expect(next.totalCalls).toBe(0);

    const uncabled = ams1Interfaces.filter((i) => i.cable === null).length;
    const narrowed = await ask('only the uncabled ones', contextId);
    expect(narrowed.answer).toContain(`${fmt(uncabled)} interfaces`);
    expect(narrowed.answer).not.toMatch(/\| true \|\s*$/m);
    expect(narrowed.totalCalls).toBe(0);

    const summary = await ask('summary instead', contextId);
    expect(summary.answer).toContain(`${fmt(uncabled)} interfaces where cabled=false, of ${fmt(ams1Interfaces.length)} at ams1`);
    expect(summary.totalCalls).toBe(0);

    // What was detected and how it was handled are metrics of the agent.
    const metrics = await (await fetch(`${agent.url}/metrics`)).text();
    expect(metrics).toMatch(/flotilla_limitations_detected_total\{agent="netbox",kind="n_plus_one"\} [1-9]/);
    expect(metrics).toMatch(/flotilla_limitation_strategies_total\{agent="netbox",strategy="batched"\} [1-9]/);
    expect(metrics).toMatch(/flotilla_limitation_detect_seconds_count\{agent="netbox"\} [1-9]/);
  });

  it('10-11. a quick look samples (and says so); "get all of them" reads everything exactly', async () => {
    const contextId = randomUUID();
    const r = await ask('just a quick look at the interfaces of every device in ams1', contextId);
    expect(r.metadata.handling).toContain('sampled');
    expect(r.answer).toContain('Sampled 8 of 200 devices');
    expect(r.answer).toContain('get all of them');
    expect(r.totalCalls).toBeLessThanOrEqual(6);
    const all = await ask('get all of them', contextId);
    expect(all.answer).toContain(`${fmt(ams1Interfaces.length)} interfaces on 200 devices at ams1, all of them read`);
  });

  it('12. cables of a site come a page at a time with the exact total, and the next page goes on', async () => {
    const ids = new Set(ams1Devices.map((d) => d.id));
    const cables = estate.cables.filter((c) => c.a_terminations.some((t) => ids.has(t.object.device.id)) || c.b_terminations.some((t) => ids.has(t.object.device.id)));
    const contextId = randomUUID();
    const r = await ask('cables of ams1', contextId);
    expect(r.answer).toContain(`${cables.length} cables match; rows 1-20`);
    expect(r.metadata.query).toContain('"entity":"cables"');
    const next = await ask('next page', contextId);
    expect(next.answer).toContain(`${cables.length} cables match; rows 21-40`);
  });

  it('13. VLANs of a site, whole', async () => {
    const vlans = estate.vlans.filter((v) => v.site?.slug === 'fra1');
    const r = await ask('vlans of fra1', randomUUID());
    expect(r.answer).toContain(`${vlans.length} VLANs match:`);
    for (const v of vlans.slice(0, 5)) expect(r.answer).toContain(`| ${v.vid} | ${v.name} |`);
  });

  it('14-15. free and used addresses of a prefix', async () => {
    const prefix = estate.prefixes.find((p) => p.prefix.startsWith('10.') && p.prefix.endsWith('/24') && p.status.value === 'active');
    expect(prefix).toBeDefined();
    const inside = (address: string): boolean => address.split('.').slice(0, 3).join('.') === prefix?.prefix.split('.').slice(0, 3).join('.');
    const used = estate.ipAddresses.filter((ip) => inside(ip.address)).length;
    const free = await ask(`free ips in ${prefix?.prefix ?? ''}`, randomUUID());
    expect(free.answer).toContain(`${used} used of 254 usable`);
    expect(free.answer).toContain(`${254 - used} free`);
    const listed = await ask(`used ips in ${prefix?.prefix ?? ''}`, randomUUID());
    expect(listed.answer).toContain(`${used} used addresses`);
  });

  it('16. searches across object types', async () => {
    const r = await ask('find ams1-fw', randomUUID());
    const firewalls = estate.devices.filter((d) => d.name.includes('ams1-fw'));
    expect(r.answer).toContain(`devices ${firewalls.length}`);
    expect(r.answer).toContain('| devices | ams1-fw-01 |');
  });

  it('17. a question it cannot answer gets the options as structured data (graceful fallback)', async () => {
    const r = await ask('what is the weather like in ams1 tomorrow', randomUUID());
    expect(r.answer).toContain("I can't answer that");
    expect(r.data?.limitation?.strategies).toEqual(['fallback']);
    expect(r.data?.limitation?.options.length).toBeGreaterThan(3);
    expect(r.totalCalls).toBe(0);
  });

  it('a request to act is answered as such: nothing done, how to do it in NetBox, nothing read', async () => {
    const r = await ask('reboot the core switches', randomUUID());
    expect(r.answer).toMatch(/^Flotilla is read-only: I did not restart/);
    expect(r.data).toMatchObject({ read_only: true, not_done: 'restart' });
    expect(r.totalCalls).toBe(0);
  });

  it('a question of two parts answers both, the second (no subject of its own) counting within the first', async () => {
    const statusOf = (d: (typeof estate.devices)[number]): string => d.status.value;
    for (const [site, role, plural, status] of [
      ['ams1', 'server', 'servers', 'offline'],
      ['lon1', 'switch', 'switches', 'planned'],
      ['ams1', 'switch', 'switches', 'active'],
    ] as const) {
      const first = estate.devices.filter((d) => d.site.slug === site && d.role.slug === role);
      const second = first.filter((d) => statusOf(d) === status);
      const r = await ask(`which ${plural} are in ${site}, and how many of them are ${status}?`, randomUUID());
      const [one, two] = r.answer.split('\n\n2. ');
      // A long first part comes in batches ("Batch 1 of 5: 110 devices …").
      expect(one, `${site} ${role}`).toMatch(new RegExp(`^1\\. (?:Batch 1 of \\d+: )?${first.length} devices`));
      expect(two, `${site} ${role} ${status}`).toMatch(new RegExp(`carried over from the part before\\)\\.\\)\\n${second.length === 0 ? 'No devices match|0 devices match' : second.length === 1 ? '1 device matches' : `${second.length} devices match`}`));
    }
  });

  it('follow-ups edit the list before them (generated): narrowed by a status, counted within it, moved to another site', async () => {
    type Device = (typeof estate.devices)[number];
    const sites = [...new Set(estate.devices.map((d) => d.site.slug))].sort();
    const ROLES = [['switch', 'switches'], ['server', 'servers'], ['firewall', 'firewalls'], ['router', 'routers']] as const;
    const statuses = [...new Set(estate.devices.map((d) => d.status.value))].sort();
    /** The first count an answer states, after any "Read as" line: "Batch 1 of 5: 110 devices", "17 devices at", "No devices match". */
    const stated = (answer: string): number | undefined => {
      const lead = answer.split('\n').filter((l) => !l.startsWith('(Read as')).slice(0, 2).join(' ');
      if (/^No devices match\b/.test(lead)) return 0;
      const m = /(\d[\d,]*) devices?\b/.exec(lead);
      return m?.[1] === undefined ? undefined : Number(m[1].replace(/,/g, ''));
    };
    const edits = ['only the {s} ones', 'of those, which are {s}?', 'how many of them are {s}?', 'and which of those are {s}?'];
    // A model of the questions, not of the agent: seeded picks of site, role, status, phrasing and a second site.
    let seed = 36;
    const pick = <T,>(xs: readonly T[]): T => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return xs[Math.floor(seed / 65_536) % xs.length] as T;
    };
    for (let run = 0; run < 12; run += 1) {
      const site = pick(sites);
      const [role, plural] = pick(ROLES);
      const status = pick(statuses);
      const edit = pick(edits).replace('{s}', status);
      const other = pick(sites);
      const contextId = randomUUID();
      const base = (d: Device, at: string): boolean => d.site.slug === at && d.role.slug === role;
      const first = await ask(`list the ${plural} in ${site}`, contextId);
      expect(stated(first.answer), `${plural} in ${site}`).toBe(estate.devices.filter((d) => base(d, site)).length);
      const narrowed = await ask(edit, contextId);
      expect(stated(narrowed.answer), `${plural} in ${site} → ${edit}\n${narrowed.answer.slice(0, 200)}`).toBe(estate.devices.filter((d) => base(d, site) && d.status.value === status).length);
      const moved = await ask(`what about ${other}?`, contextId);
      expect(stated(moved.answer), `… → what about ${other}?\n${moved.answer.slice(0, 200)}`).toBe(estate.devices.filter((d) => base(d, other) && d.status.value === status).length);
    }
  });

  it('a place NetBox does not hold is said to be unknown, not answered as an empty list', async () => {
    const r = await ask('devices in xyz9', randomUUID());
    expect(r.answer).toContain('xyz9');
    // Read against NetBox's own names (the lexicon), or refused by NetBox itself: either way the answer says why.
    expect(r.answer).toMatch(/not one of the available choices|xyz9 is not one NetBox has/);
  });

  it('"next batch" continues after the agent restarts when sessions are on disk', async () => {
    const stateDir = await mkdtemp(join(tmpdir(), 'flotilla-netbox-state-'));
    const dataDir = await mkdtemp(join(tmpdir(), 'flotilla-netbox-data-'));
    const first = await startAgent({ 'state-dir': stateDir, 'data-dir': dataDir });
    const contextId = randomUUID();
    const r = await ask('interfaces of every switch in ams1', contextId, first.url);
    expect(r.answer).toMatch(/Batch 1 of/);
    await first.close();
    const second = await startAgent({ 'state-dir': stateDir, 'data-dir': dataDir });
    try {
      // The restarted agent reads NetBox's names for its lexicon as it starts: not part of the answer counted here.
      await lexiconRead(second.url);
      const next = await ask('next batch', contextId, second.url);
      expect(next.answer).toMatch(/Batch 2 of \d+: [\d,]+ interfaces/);
      expect(next.totalCalls).toBe(0);
    } finally {
      await second.close();
    }
  });
});
