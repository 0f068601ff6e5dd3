import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClientFactory } from '@a2a-js/sdk/client';
import { freePort, readyz } from '@flotilla/agent-host/testing';
import { textRequest } from '@flotilla/agent-kit';
import type { RunningMcpServer } from '@flotilla/bounded-tools';
import { parseSettings, silentLogger } from '@flotilla/core';
import { METRIC } from '@flotilla/metrics';
import { startArgoCdSimulator, type RunningSimulator } from '@flotilla/simulators';
import { ARGOCD_MCP_SETTINGS } from '../config.js';
import { startArgoCdMcpServer } from '../server.js';
import { ARGOCD_AGENT_SETTINGS, startArgoCdAgent } from './start.js';

const UPSTREAM_TOKEN = 'sim-token-0123456789';
/** Short waits between attempts, so the test follows the server's start closely (the defaults are MCP_CONNECT_LIMITS). */
const FAST_RETRY = { firstDelayMs: 20, maxDelayMs: 200 };

let sim: RunningSimulator;
let dataDir: string;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'flotilla-mcp-retry-'));
  sim = await startArgoCdSimulator({ token: UPSTREAM_TOKEN });
});

afterAll(async () => {
  await sim.close();
  await rm(dataDir, { recursive: true, force: true });
});

/** A port nothing listens on yet: the kernel's pick, released at once. */

function startMcp(port: number): Promise<RunningMcpServer> {
  const config = parseSettings(ARGOCD_MCP_SETTINGS, { port: String(port), 'data-dir': dataDir, 'argocd-url': sim.url, 'argocd-token': UPSTREAM_TOKEN, 'log-level': 'silent' }, {}, 'test');
  return startArgoCdMcpServer(config, { logger: silentLogger() });
}

async function ask(url: string, question: string): Promise<string> {
  const client = await new ClientFactory().createFromUrl(url);
  return JSON.stringify(await client.sendMessage(textRequest(question, randomUUID())));
}

describe('Argo CD agent whose MCP server is not up yet', () => {
  it('serves at once, not ready with the reason, answers that its tools are not connected; ready and answering once the server is up, and after it restarts', async () => {
    const port = await freePort();
    const mcpUrl = `http://127.0.0.1:${port}/mcp`;
    const config = parseSettings(ARGOCD_AGENT_SETTINGS, { port: '0', 'mcp-url': mcpUrl, 'log-level': 'silent' }, {}, 'test');
    const agent = await startArgoCdAgent(config, silentLogger(), { mcpConnectLimits: FAST_RETRY });
    let mcp: RunningMcpServer | undefined;
    try {
      expect((await fetch(`${agent.url}/healthz`)).status).toBe(200);
      expect((await fetch(`${agent.url}/.well-known/agent-card.json`)).status).toBe(200);
      const notReady = await readyz(agent.url, 503);
      expect(notReady.status).toBe('not_ready');
      expect(notReady.reason).toMatch(new RegExp(`^tools not connected yet: the MCP server at http://127\\.0\\.0\\.1:${port}/mcp is not reachable \\(fetch failed: connect ECONNREFUSED [^)]+\\); retrying \\(\\d+ attempts? since `));
      expect(notReady.reason).not.toContain('\n');

      const early = await ask(agent.url, 'which clusters do we have?');
      expect(early).toContain('My tools are not connected yet, so I have not looked anything up: the MCP server at');
      expect(early).toContain('ask again in a few seconds');
      expect(early).toContain('"error":"tools_not_connected"');
      const metrics = await (await fetch(`${agent.url}/metrics`)).text();
      expect(metrics).toContain(`${METRIC.agentTurns}{agent="argocd",skill="none",path="none",outcome="rejected"} 1`);
      // Every turn series exists at zero from the start (zeroAgentSeries), before any of them counts a turn.
      expect(metrics).toContain(`${METRIC.agentTurns}{agent="argocd",skill="argocd-inventory",path="direct",outcome="failed"} 0`);

      mcp = await startMcp(port);
      expect(await readyz(agent.url, 200)).toEqual({ status: 'ready' });
      expect(await ask(agent.url, 'which clusters do we have?')).toContain('13 clusters');

      // The MCP server restarts. Meanwhile a question is answered that the tool could not be reached; its transport
      // keeps no session, so the agent's next calls reach the new process (a question not answered before: no cache).
      await mcp.close();
      expect(await ask(agent.url, 'list projects')).toContain('the query tool could not be reached. Check that the MCP server is running; then ask again.');
      mcp = await startMcp(port);
      const after = await ask(agent.url, 'list projects');
      expect(after).toContain('"cached":false');
      expect(after).not.toContain('could not be reached');
      expect(after).toMatch(/\d+ projects/);
    } finally {
      await agent.close();
      await mcp?.close();
    }
  });

  it('still refuses at start what retrying cannot fix: an LLM setting missing', async () => {
    const config = parseSettings(ARGOCD_AGENT_SETTINGS, { port: '0', 'mcp-url': `http://127.0.0.1:${await freePort()}/mcp`, 'llm-provider': 'anthropic', 'log-level': 'silent' }, {}, 'test');
    await expect(startArgoCdAgent(config, silentLogger(), { mcpConnectLimits: FAST_RETRY })).rejects.toThrow(/--llm-api-key/);
  });

  it('stops retrying when closed: nothing of it is left running', async () => {
    const before = process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    const config = parseSettings(ARGOCD_AGENT_SETTINGS, { port: '0', 'mcp-url': `http://127.0.0.1:${await freePort()}/mcp`, 'log-level': 'silent' }, {}, 'test');
    const agent = await startArgoCdAgent(config, silentLogger(), { mcpConnectLimits: FAST_RETRY });
    await readyz(agent.url, 503);
    await agent.close();
    await expect(fetch(`${agent.url}/healthz`)).rejects.toThrow();
    expect(process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length).toBeLessThanOrEqual(before);
  });
});
