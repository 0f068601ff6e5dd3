import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClientFactory } from '@a2a-js/sdk/client';
import { textRequest } from '@flotilla/agent-kit';
import { parseSettings, silentLogger } from '@flotilla/core';
import { METRIC } from '@flotilla/metrics';
import { startNetBoxSimulator, type RunningNetBoxSimulator } from '@flotilla/simulators';
import { NETBOX_AGENT_SETTINGS, startNetBoxAgent, type RunningNetBoxAgent } from './start.js';

/** The in-process tools' result store takes its cap from --result-disk-cap-mib (the chart checks the data volume against it). */
const TOKEN = 'result-cap-token-0123456789';
let sim: RunningNetBoxSimulator;
let agent: RunningNetBoxAgent;
let dir = '';

beforeAll(async () => {
  sim = await startNetBoxSimulator({ token: TOKEN });
  dir = await mkdtemp(join(tmpdir(), 'flotilla-result-cap-'));
  agent = await startNetBoxAgent(
    parseSettings(NETBOX_AGENT_SETTINGS, { port: '0', 'netbox-url': sim.url, 'netbox-token': TOKEN, 'data-dir': dir }, { FLOTILLA_RESULT_DISK_CAP_MIB: '1' }, 'result cap'),
    silentLogger(),
  );
});
afterAll(async () => {
  await agent?.close();
  await sim?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('the agent result store cap', () => {
  it('reads FLOTILLA_RESULT_DISK_CAP_MIB, refuses 0, and keeps the spilled results within it', async () => {
    expect(() => parseSettings(NETBOX_AGENT_SETTINGS, { 'netbox-url': sim.url, 'netbox-token': TOKEN, 'result-disk-cap-mib': '0' }, {}, 'x')).toThrow(/result-disk-cap-mib/);
    const client = await new ClientFactory().createFromUrl(agent.url);
    for (const site of ['ams1', 'fra1', 'lon1']) await client.sendMessage(textRequest(`interfaces of all devices in ${site}`, randomUUID()));
    const text = await (await fetch(`${agent.url}/metrics`)).text();
    const bytes = Number(new RegExp(`^${METRIC.resultStoreBytes} (\\S+)$`, 'm').exec(text)?.[1]);
    const evicted = [...text.matchAll(new RegExp(`^${METRIC.resultStoreEvictions}\\{reason="disk_cap"\\} (\\S+)$`, 'gm'))].map((m) => Number(m[1]));
    expect(bytes).toBeGreaterThan(0);
    expect(bytes).toBeLessThanOrEqual(1024 * 1024);
    // Three large spills do not fit in 1 MiB (they would in the default 256 MiB): the oldest went for the cap.
    expect(evicted.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(1);
  }, 120_000);
});
