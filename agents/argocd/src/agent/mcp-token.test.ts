import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClientFactory } from '@a2a-js/sdk/client';
import { textRequest } from '@flotilla/agent-kit';
import type { RunningMcpServer } from '@flotilla/bounded-tools';
import { parseSettings, silentLogger } from '@flotilla/core';
import { startArgoCdSimulator, type RunningSimulator } from '@flotilla/simulators';
import { ARGOCD_MCP_SETTINGS } from '../config.js';
import { startArgoCdMcpServer } from '../server.js';
import { ARGOCD_AGENT_SETTINGS, startArgoCdAgent } from './start.js';

const UPSTREAM_TOKEN = 'sim-token-0123456789';
const OLD_TOKEN = 'mcp-old-token-0123456789';
const NEW_TOKEN = 'mcp-new-token-abcdefghij';
/** Short waits between attempts to reach the MCP server (the defaults are MCP_CONNECT_LIMITS). */
const FAST_RETRY = { firstDelayMs: 20, maxDelayMs: 200 };

let sim: RunningSimulator;
let mcp: RunningMcpServer;
let dataDir: string;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'flotilla-mcp-token-'));
  sim = await startArgoCdSimulator({ token: UPSTREAM_TOKEN });
  // During a rotation the server takes the old token and the new one.
  const config = parseSettings(ARGOCD_MCP_SETTINGS, { port: '0', 'data-dir': dataDir, 'argocd-url': sim.url, 'argocd-token': UPSTREAM_TOKEN }, { FLOTILLA_MCP_TOKEN: `${OLD_TOKEN},${NEW_TOKEN}` }, 'test');
  mcp = await startArgoCdMcpServer(config, { logger: silentLogger() });
});

afterAll(async () => {
  await mcp.close();
  await sim.close();
  await rm(dataDir, { recursive: true, force: true });
});

function agentConfig(flags: Record<string, string>, env: Record<string, string> = {}) {
  return parseSettings(ARGOCD_AGENT_SETTINGS, { port: '0', 'log-level': 'silent', ...flags }, env, 'test');
}

describe('Argo CD agent -> MCP server with --mcp-token', () => {
  it('answers through an MCP server that requires a token, with the new token of a rotation', async () => {
    const agent = await startArgoCdAgent(agentConfig({ 'mcp-url': mcp.mcpUrl, 'mcp-token': NEW_TOKEN }), silentLogger());
    try {
      const client = await new ClientFactory().createFromUrl(agent.url);
      const reply = await client.sendMessage(textRequest('which clusters do we have?', randomUUID()));
      expect(JSON.stringify(reply)).toContain('13 clusters');
    } finally {
      await agent.close();
    }
  });

  it('still connects with the old token of the rotation (from FLOTILLA_MCP_TOKEN)', async () => {
    const agent = await startArgoCdAgent(agentConfig({ 'mcp-url': mcp.mcpUrl }, { FLOTILLA_MCP_TOKEN: OLD_TOKEN }), silentLogger());
    // The server is up: connected by the time the start returns.
    expect((await fetch(`${agent.url}/readyz`)).status).toBe(200);
    await agent.close();
  });

  it('serves, not ready, naming --mcp-token, when the MCP server refuses the token (and keeps retrying: the server may be rotated to take it)', async () => {
    const agent = await startArgoCdAgent(agentConfig({ 'mcp-url': mcp.mcpUrl, 'mcp-token': 'not-the-token-0123456789' }), silentLogger(), { mcpConnectLimits: FAST_RETRY });
    try {
      const res = await fetch(`${agent.url}/readyz`);
      expect(res.status).toBe(503);
      const { reason } = (await res.json()) as { reason: string };
      expect(reason).toMatch(/^tools not connected yet: the MCP server at http:\/\/127\.0\.0\.1:\d+\/mcp refused the agent's token \(HTTP 401\): it does not take the token in --mcp-token \(FLOTILLA_MCP_TOKEN\); set --mcp-token/);
      expect(reason).not.toContain('not-the-token');
      const client = await new ClientFactory().createFromUrl(agent.url);
      const reply = JSON.stringify(await client.sendMessage(textRequest('which clusters do we have?', randomUUID())));
      expect(reply).toContain("My tools are not connected yet, so I have not looked anything up: the MCP server at");
      expect(reply).toContain("refused the agent's token (HTTP 401)");
    } finally {
      await agent.close();
    }
  });

  it('serves, not ready, naming --mcp-token, when the MCP server requires a token and none is set', async () => {
    const agent = await startArgoCdAgent(agentConfig({ 'mcp-url': mcp.mcpUrl }), silentLogger(), { mcpConnectLimits: FAST_RETRY });
    try {
      const res = await fetch(`${agent.url}/readyz`);
      expect(res.status).toBe(503);
      expect(((await res.json()) as { reason: string }).reason).toContain("refused the agent's token (HTTP 401): it requires a token and --mcp-token (FLOTILLA_MCP_TOKEN) is not set");
    } finally {
      await agent.close();
    }
  });

  it('refuses a token without a remote MCP server to send it to, and a list of tokens', async () => {
    await expect(startArgoCdAgent(agentConfig({ local: 'true', 'mcp-token': NEW_TOKEN }), silentLogger())).rejects.toThrow(/--mcp-token \(FLOTILLA_MCP_TOKEN\) is set but there is no remote MCP server/);
    expect(() => agentConfig({ 'mcp-url': mcp.mcpUrl, 'mcp-token': `${OLD_TOKEN},${NEW_TOKEN}` })).toThrow(/--mcp-token \/ FLOTILLA_MCP_TOKEN: must be one token, without commas .*\(given\)/);
    expect(() => agentConfig({ 'mcp-url': mcp.mcpUrl, 'mcp-token': 'short' })).toThrow(/--mcp-token \/ FLOTILLA_MCP_TOKEN: must be at least 16 characters \(given\)/);
  });

  it('refuses credentials in --mcp-url, without echoing them', () => {
    const url = new URL(mcp.mcpUrl);
    expect(() => agentConfig({ 'mcp-url': `http://agent:${NEW_TOKEN}@${url.host}/mcp` })).toThrow(new RegExp(`--mcp-url / FLOTILLA_ARGOCD_MCP_URL: must not carry credentials.*got "http://\\[redacted\\]@${url.host}/mcp"`));
    try {
      agentConfig({ 'mcp-url': `http://agent:${NEW_TOKEN}@${url.host}/mcp` });
    } catch (error) {
      expect((error as Error).message).not.toContain(NEW_TOKEN);
    }
  });
});
