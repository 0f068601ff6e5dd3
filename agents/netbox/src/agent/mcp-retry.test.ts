import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClientFactory } from '@a2a-js/sdk/client';
import { textRequest } from '@flotilla/agent-kit';
import type { RunningMcpServer } from '@flotilla/bounded-tools';
import { parseSettings, silentLogger } from '@flotilla/core';
import { METRIC } from '@flotilla/metrics';
import { startNetBoxSimulator, type RunningNetBoxSimulator } from '@flotilla/simulators';
import { NETBOX_MCP_SETTINGS } from '../config.js';
import { startNetBoxMcpServer } from '../server.js';
import { NETBOX_AGENT_SETTINGS, startNetBoxAgent } from './start.js';

const TOKEN = 'netbox-retry-token-0123';

let sim: RunningNetBoxSimulator;
beforeAll(async () => {
  sim = await startNetBoxSimulator({ token: TOKEN });
});
afterAll(async () => {
  await sim.close();
});

/** A port nothing listens on yet: the kernel's pick, released at once. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** /readyz until it answers `status`, for at most `ms` (a bound on the wait, not a sleep). */
async function readyz(url: string, status: number, ms = 20_000): Promise<{ status: string; reason?: string }> {
  const until = performance.now() + ms;
  for (;;) {
    const res = await fetch(`${url}/readyz`);
    const body = (await res.json()) as { status: string; reason?: string };
    if (res.status === status) return body;
    if (performance.now() > until) throw new Error(`/readyz still answers ${res.status}: ${JSON.stringify(body)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('NetBox agent whose MCP server is not up yet', () => {
  it('serves at once, not ready, answers that its tools are not connected, and answers once the server is up', async () => {
    const port = await freePort();
    const config = parseSettings(NETBOX_AGENT_SETTINGS, { port: '0', 'mcp-url': `http://127.0.0.1:${port}/mcp`, 'log-level': 'silent' }, {}, 'test');
    const agent = await startNetBoxAgent(config, silentLogger(), { mcpConnectLimits: { firstDelayMs: 20, maxDelayMs: 200 } });
    let mcp: RunningMcpServer | undefined;
    try {
      expect((await readyz(agent.url, 503)).reason).toMatch(new RegExp(`^tools not connected yet: the MCP server at http://127\\.0\\.0\\.1:${port}/mcp is not reachable \\(`));
      const client = await new ClientFactory().createFromUrl(agent.url);
      const early = JSON.stringify(await client.sendMessage(textRequest('list sites', randomUUID())));
      expect(early).toContain('My tools are not connected yet, so I have not looked anything up');
      const metrics = await (await fetch(`${agent.url}/metrics`)).text();
      expect(metrics).toContain(`${METRIC.agentTurns}{agent="netbox",skill="none",path="none",outcome="rejected"} 1`);
      // Every turn series exists at zero from the start (zeroAgentSeries), before any of them counts a turn.
      expect(metrics).toContain(`${METRIC.agentTurns}{agent="netbox",skill="netbox-ipam",path="limitation_aware",outcome="timed_out"} 0`);

      const mcpConfig = parseSettings(NETBOX_MCP_SETTINGS, { port: String(port), 'netbox-url': sim.url, 'netbox-token': TOKEN, 'log-level': 'silent' }, {}, 'test');
      mcp = await startNetBoxMcpServer(mcpConfig, { logger: silentLogger() });
      expect(await readyz(agent.url, 200)).toEqual({ status: 'ready' });
      expect(JSON.stringify(await client.sendMessage(textRequest('list sites', randomUUID())))).toContain('12 sites:');
    } finally {
      await agent.close();
      await mcp?.close();
    }
  });
});
