import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClientFactory } from '@a2a-js/sdk/client';
import { textRequest } from '@flotilla/agent-kit';
import { NETBOX_AGENT_SETTINGS, NETBOX_MCP_SETTINGS, startNetBoxAgent, startNetBoxMcpServer, type RunningNetBoxAgent } from '@flotilla/agent-netbox';
import type { RunningMcpServer } from '@flotilla/bounded-tools';
import { SLACK_BOT_SETTINGS, startSlackBot, type RunningSlackBot } from '@flotilla/agent-slack-bot';
import { SUPERVISOR_SETTINGS, startSupervisor, type RunningSupervisor } from '@flotilla/agent-supervisor';
import { parseSettings, silentLogger } from '@flotilla/core';
import { METRIC } from '@flotilla/metrics';
import { startNetBoxSimulator, type RunningNetBoxSimulator } from '@flotilla/simulators';

/**
 * End to end with a real Prometheus server (Debian's package) on loopback: it scrapes a running NetBox agent with
 * the chart's default alert rules loaded, a NetBox MCP server on its own (and a second agent that uses it), a
 * supervisor over the agent, and a Slack bot (its Slack Web API a stub answering auth.test). On each fresh process, agent or MCP server, the first
 * question whose raw tool result is far over 200 KiB makes the size alert fire for that pod, read back from
 * Prometheus' own API. Also: every series selector the rules use matches series these pieces export.
 * Skipped, with this reason, where the prometheus binary is missing; CI installs it.
 */
const RULES = fileURLToPath(new URL('../../packages/observability/generated/prometheus-rules.yaml', import.meta.url));
const hasPrometheus = spawnSync('prometheus', ['--version']).status === 0;
const TOKEN = 'prometheus-e2e-token-0123';

let sim: RunningNetBoxSimulator;
let agent: RunningNetBoxAgent;
let mcp: RunningMcpServer;
let agentViaMcp: RunningNetBoxAgent;
let supervisor: RunningSupervisor;
let slackApi: Server;
let bot: RunningSlackBot;
let prometheus: ChildProcess | undefined;
let promUrl = '';
let dir = '';

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

async function ask(question: string, to: { readonly url: string } = agent): Promise<void> {
  const client = await new ClientFactory().createFromUrl(to.url);
  await client.sendMessage(textRequest(question, randomUUID()));
}

/** Polls `check` every 500 ms until it returns a value, for at most `seconds`. */
async function within<T>(seconds: number, check: () => Promise<T | undefined>): Promise<T | undefined> {
  const until = Date.now() + seconds * 1000;
  while (Date.now() < until) {
    const value = await check().catch(() => undefined);
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  return undefined;
}

describe.skipIf(!hasPrometheus)('alerts with a real Prometheus (skipped: the prometheus binary is not installed; .ci/run installs it)', () => {
  beforeAll(async () => {
    sim = await startNetBoxSimulator({ token: TOKEN });
    agent = await startNetBoxAgent(parseSettings(NETBOX_AGENT_SETTINGS, { port: '0', 'netbox-url': sim.url, 'netbox-token': TOKEN }, {}, 'e2e'), silentLogger());
    dir = await mkdtemp(join(tmpdir(), 'flotilla-prometheus-'));
    mcp = await startNetBoxMcpServer(parseSettings(NETBOX_MCP_SETTINGS, { port: '0', 'netbox-url': sim.url, 'netbox-token': TOKEN, 'data-dir': join(dir, 'results') }, {}, 'e2e'), { logger: silentLogger() });
    agentViaMcp = await startNetBoxAgent(parseSettings(NETBOX_AGENT_SETTINGS, { port: '0', 'mcp-url': mcp.mcpUrl }, {}, 'e2e'), silentLogger());
    supervisor = await startSupervisor(parseSettings(SUPERVISOR_SETTINGS, { port: '0', agents: `netbox=${agent.url}` }, {}, 'e2e'), silentLogger());
    // The bot checks its token (auth.test) at start; it is asked nothing here.
    slackApi = createHttpServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true,"user_id":"UBOT","team_id":"T0","bot_id":"B0"}'));
    await new Promise<void>((resolve) => slackApi.listen(0, '127.0.0.1', resolve));
    const slackPort = (slackApi.address() as { port: number }).port;
    bot = await startSlackBot(
      parseSettings(SLACK_BOT_SETTINGS, { port: '0', 'agent-url': agent.url, 'bot-token': 'xoxb-e2e', 'signing-secret': 'e2e-signing-secret', 'slack-api-url': `http://127.0.0.1:${slackPort}/api/` }, {}, 'e2e'),
      silentLogger(),
    );
    // Each target gets the pod label a ServiceMonitor scrape would give it.
    const job = (name: string, url: string): string[] => [`  - job_name: ${name}`, '    static_configs:', `      - targets: ['${new URL(url).host}']`, `        labels: {pod: ${name}}`];
    await writeFile(
      join(dir, 'prometheus.yml'),
      [
        'global:',
        '  scrape_interval: 1s',
        '  evaluation_interval: 1s',
        'rule_files:',
        `  - ${RULES}`,
        'scrape_configs:',
        ...job('netbox-agent', agent.url),
        ...job('netbox-mcp', mcp.url),
        ...job('netbox-agent-via-mcp', agentViaMcp.url),
        ...job('supervisor', supervisor.url),
        ...job('slack-bot', bot.url),
        '',
      ].join('\n'),
    );
    const port = await freePort();
    promUrl = `http://127.0.0.1:${port}`;
    prometheus = spawn('prometheus', [`--config.file=${join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`], { stdio: 'ignore' });
    const ready = await within(30, async () => ((await fetch(`${promUrl}/-/ready`)).ok ? true : undefined));
    if (ready !== true) throw new Error('Prometheus did not become ready within 30 s');
  }, 60_000);

  afterAll(async () => {
    prometheus?.kill('SIGTERM');
    if (prometheus !== undefined && prometheus.exitCode === null) await new Promise((resolve) => prometheus?.once('exit', resolve));
    await bot?.close();
    await supervisor?.close();
    await new Promise((resolve) => slackApi?.close(resolve));
    await agent.close();
    await agentViaMcp?.close();
    await mcp?.close();
    await sim.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('loads the rules', async () => {
    expect(existsSync(RULES), `${RULES} is missing: run pnpm generate`).toBe(true);
    const rules = (await (await fetch(`${promUrl}/api/v1/rules`)).json()) as { data: { groups: { rules: { name: string }[] }[] } };
    expect(rules.data.groups.flatMap((g) => g.rules).map((r) => r.name)).toContain('FlotillaToolResultLarge');
  });

  const query = async (promql: string) =>
    ((await (await fetch(`${promUrl}/api/v1/query?query=${encodeURIComponent(promql)}`)).json()) as { data: { result: { metric: Record<string, string>; value: [number, string] }[] } }).data.result;
  const firingFor = (pod: string) =>
    within(45, async () => {
      const body = (await (await fetch(`${promUrl}/api/v1/alerts`)).json()) as { data: { alerts: { labels: Record<string, string>; state: string }[] } };
      return body.data.alerts.find((a) => a.labels.alertname === 'FlotillaToolResultLarge' && a.labels.pod === pod && a.state === 'firing');
    });

  it('fires the size alert on the first large read of a fresh agent process (its series exist at zero from the start)', async () => {
    // Nothing has been asked yet: the series the alerts read are already there, at 0, and Prometheus has them.
    const raw = `${METRIC.toolRawResultBytes}_count{pod="netbox-agent", tool="list_interfaces"}`;
    const scraped = await within(30, async () => ((await query(raw)).length > 0 ? true : undefined));
    expect(scraped, 'the tool series was never scraped before the first question').toBe(true);
    expect((await query(raw)).map((r) => r.value[1])).toEqual(['0']);
    expect((await query(`${METRIC.upstreamRequests}{pod="netbox-agent", outcome="rate_limited", operation="list_interfaces"}`)).map((r) => r.value[1])).toEqual(['0']);
    expect((await query(`${METRIC.agentTurns}{pod="netbox-agent", agent="netbox", outcome="failed"}`)).length).toBeGreaterThan(0);

    // One question, whose raw tool result is far over 200 KiB: the alert fires on it, without any earlier read.
    await ask('interfaces of all devices in ams1');
    expect((await firingFor('netbox-agent'))?.labels.tool).toBe('list_interfaces');
  }, 90_000);

  it('fires it too on the first large read of a fresh MCP server, whose tools are registered again for every request', async () => {
    const raw = `${METRIC.toolRawResultBytes}_count{pod="netbox-mcp", tool="list_interfaces"}`;
    const scraped = await within(30, async () => ((await query(raw)).length > 0 ? true : undefined));
    expect(scraped, 'the MCP server exported no tool series before its first request').toBe(true);
    expect((await query(raw)).map((r) => r.value[1])).toEqual(['0']);

    // Through the agent that uses it: the read happens in the MCP server, and later requests do not reset its count.
    await ask('interfaces of all devices in ams1', agentViaMcp);
    await ask('list the sites', agentViaMcp);
    expect((await firingFor('netbox-mcp'))?.labels.tool).toBe('list_interfaces');
    const counted = await within(10, async () => ((await query(raw)).map((r) => Number(r.value[1]))[0] ?? 0) > 0 || undefined);
    expect(counted).toBe(true);
  }, 90_000);

  it('matches, with every Flotilla series selector of every rule, series the pieces export (names, labels and values)', async () => {
    // After the questions above, as in a cluster that has run a while: every piece scraped at least once since.
    await ask('list the sites', supervisor);
    const rules = (await (await fetch(`${promUrl}/api/v1/rules`)).json()) as { data: { groups: { rules: { name: string; query: string }[] }[] } };
    const selectors = new Set(rules.data.groups.flatMap((g) => g.rules).flatMap((r) => r.query.match(/flotilla_[a-z0-9_]+(?:\{[^}]*\})?/g) ?? []));
    expect(selectors.size).toBeGreaterThan(20);
    const missing: string[] = [];
    for (const selector of selectors) {
      const found = await within(15, async () => ((await query(`count(${selector})`)).length > 0 ? true : undefined));
      if (found !== true) missing.push(selector);
    }
    expect(missing, 'selectors of the rules that match no exported series').toEqual([]);
  }, 120_000);
});
