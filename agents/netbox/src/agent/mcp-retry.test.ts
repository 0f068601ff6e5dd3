import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClientFactory } from '@a2a-js/sdk/client';
import { freePort, readyz } from '@flotilla/agent-host/testing';
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
