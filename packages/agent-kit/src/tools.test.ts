import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { capturingLogger, silentLogger } from '@flotilla/core';
import { answerWhenConnected, connectTools, toolsReadiness, type AgentTools, type McpConnectLimits } from './tools.js';
import type { AnswerTurn } from './executor.js';

/** A port nothing listens on (yet): the kernel's pick, released at once. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** An HTTP server on `port` that answers every request with `handle` (or never, when it does not answer). */
async function listen(port: number, handle: (req: IncomingMessage, res: ServerResponse) => void): Promise<Server> {
  const server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return server;
}

async function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

/** Polls `check` until it holds, for at most `ms` (a bound, not a wait): the condition is what the test asserts. */
async function eventually(check: () => boolean, ms = 20_000): Promise<void> {
  const until = performance.now() + ms;
  while (!check()) {
    if (performance.now() > until) throw new Error('the condition did not hold in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const timers = (): number => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
const attemptsOf = (tools: AgentTools<unknown, unknown>): number => Number(/\((\d+) attempts? since/.exec(tools.notConnected ?? '')?.[1] ?? 0);

/** Remote tools against `url`; `prepare` is never reached in these tests (no MCP server answers). */
function remote(url: string, extra: { token?: string; logger?: ReturnType<typeof capturingLogger>['logger']; limits?: Partial<McpConnectLimits> } = {}) {
  return connectTools({
    agent: 'test',
    mcpUrl: url,
    mcpToken: extra.token,
    local: false,
    logger: extra.logger ?? silentLogger(),
    connectLimits: { firstDelayMs: 5, maxDelayMs: 20, ...extra.limits },
    upstreamUrl: undefined,
    upstreamToken: undefined,
    upstreamFlags: '--upstream-url',
    startSimulator: () => Promise.reject(new Error('no simulator here')),
    inProcess: () => Promise.reject(new Error('no tools in process here')),
    prepare: () => Promise.resolve('prepared'),
  });
}

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const item of open.splice(0).reverse()) await item.close();
});

describe('connectTools with a remote MCP server that is not up', () => {
  it('returns at once and keeps retrying; the reason names the URL (redacted) and the error; the warnings are collapsed', async () => {
    const before = timers();
    const port = await freePort();
    const { logger, lines } = capturingLogger('debug');
    const tools = await remote(`http://127.0.0.1:${port}/mcp`, { logger });
    open.push(tools);
    await tools.firstAttempt;
    expect(tools.prepared).toBeUndefined();
    expect(tools.notConnected).toMatch(new RegExp(`^the MCP server at http://127\\.0\\.0\\.1:${port}/mcp is not reachable \\(fetch failed: connect ECONNREFUSED [^)]*\\); retrying \\(1 attempt since `));
    expect(toolsReadiness(tools)()).toBe(`tools not connected yet: ${tools.notConnected ?? ''}`);
    // Many failures of one kind within the log interval: one warning, not one per attempt.
    await eventually(() => attemptsOf(tools) >= 10);
    const warnings = lines.filter((l) => l.includes('MCP server not reachable yet'));
    expect(warnings).toHaveLength(1);
    expect(JSON.parse(warnings[0] ?? '{}')).toMatchObject({ level: 40, mcp: `http://127.0.0.1:${port}/mcp`, attempts: 1, failuresSinceLastLog: 1 });
    // Closing while it retries stops the loop: no timer of it is left behind.
    await tools.close();
    open.pop();
    expect(timers()).toBeLessThanOrEqual(before);
    const attempts = attemptsOf(tools);
    expect(tools.notConnected).toContain(`(${attempts} attempts since`);
  });

  it('logs again after the interval, counting the failures in between', async () => {
    const port = await freePort();
    const { logger, lines } = capturingLogger('debug');
    const tools = await remote(`http://127.0.0.1:${port}/mcp`, { logger, limits: { logIntervalMs: 1 } });
    open.push(tools);
    await eventually(() => lines.filter((l) => l.includes('MCP server not reachable yet')).length >= 3);
    const logged = lines.filter((l) => l.includes('MCP server not reachable yet')).map((l) => JSON.parse(l) as { attempts: number; failuresSinceLastLog: number });
    for (const [i, line] of logged.entries()) if (i > 0) expect(line.failuresSinceLastLog).toBe(line.attempts - (logged[i - 1]?.attempts ?? 0));
  });

  it('says so when the server refuses the token (HTTP 401), at error level, at once when the failure changes kind', async () => {
    const port = await freePort();
    const { logger, lines } = capturingLogger('debug');
    const tools = await remote(`http://127.0.0.1:${port}/mcp`, { logger, token: 'not-the-token-0123456789' });
    open.push(tools);
    await tools.firstAttempt;
    expect(tools.notConnected).toContain('is not reachable');
    const server = await listen(port, (_req, res) => res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"unauthorized"}'));
    open.push({ close: () => closeServer(server) });
    await eventually(() => tools.notConnected?.includes('refused') === true);
    expect(tools.notConnected).toMatch(
      new RegExp(
        `^the MCP server at http://127\\.0\\.0\\.1:${port}/mcp refused the agent's token \\(HTTP 401\\): it does not take the token in --mcp-token \\(FLOTILLA_MCP_TOKEN\\); set --mcp-token \\(FLOTILLA_MCP_TOKEN\\) to one of the tokens the MCP server was started with; retrying`,
      ),
    );
    expect(tools.notConnected).not.toContain('not-the-token');
    await eventually(() => lines.some((l) => l.includes('refused the agent')));
    const refused = JSON.parse(lines.find((l) => l.includes('refused the agent')) ?? '{}') as { level: number; msg: string };
    expect(refused).toMatchObject({ level: 50, msg: "the MCP server refused the agent's token; retrying (fix --mcp-token)" });
    // The failures before it were another kind: logged once, apart.
    expect(lines.filter((l) => l.includes('MCP server not reachable yet'))).toHaveLength(1);
  });

  it('names the missing token when the server requires one', async () => {
    const port = await freePort();
    const server = await listen(port, (_req, res) => res.writeHead(401).end());
    open.push({ close: () => closeServer(server) });
    const tools = await remote(`http://127.0.0.1:${port}/mcp`);
    open.push(tools);
    await tools.firstAttempt;
    expect(tools.notConnected).toContain("refused the agent's token (HTTP 401): it requires a token and --mcp-token (FLOTILLA_MCP_TOKEN) is not set");
  });

  it('abandons an attempt the server never answers (MCP_CONNECT_LIMITS.attemptTimeoutMs), and close() ends one in flight', async () => {
    const port = await freePort();
    const seen: IncomingMessage[] = [];
    const server = await listen(port, (req) => seen.push(req));
    open.push({ close: () => closeServer(server) });
    const timedOut = await remote(`http://127.0.0.1:${port}/mcp`, { limits: { attemptTimeoutMs: 50 } });
    open.push(timedOut);
    await timedOut.firstAttempt;
    expect(timedOut.notConnected).toMatch(/is not reachable \((Request timed out|timed out: no answer within 50 ms)[^)]*\); retrying/);
    await timedOut.close();
    open.pop();

    const before = timers();
    const hanging = await remote(`http://127.0.0.1:${port}/mcp`, { limits: { attemptTimeoutMs: 600_000 } });
    const count = seen.length;
    await eventually(() => seen.length > count);
    await hanging.close();
    expect(hanging.notConnected).toContain('(the first attempt)');
    expect(timers()).toBeLessThanOrEqual(before);
  });

  it('refuses at once what retrying cannot fix: an --mcp-url that is no http(s) URL or carries credentials, or limits out of range', async () => {
    await expect(remote('ftp://127.0.0.1/mcp')).rejects.toMatchObject({ code: 'config_invalid', message: '--mcp-url must be an http(s) URL without credentials, not ftp://127.0.0.1/mcp' });
    await expect(remote('not a url')).rejects.toMatchObject({ code: 'config_invalid' });
    // fetch refuses a URL with credentials, on every attempt: refused at once, and not echoed.
    const withCredentials = remote('http://agent:s3cret-pass@127.0.0.1:1/mcp');
    await expect(withCredentials).rejects.toThrow('--mcp-url must be an http(s) URL without credentials, not http://[redacted]@127.0.0.1:1/mcp');
    await expect(remote('http://127.0.0.1:1/mcp', { limits: { jitter: 2 } })).rejects.toThrow('the MCP connect limit jitter must be from 0 to 1, not 2');
    await expect(remote('http://127.0.0.1:1/mcp', { limits: { maxDelayMs: 0 } })).rejects.toThrow('the MCP connect limit maxDelayMs must be a positive number, not 0');
  });
});

describe('answerWhenConnected', () => {
  it('answers at once that the tools are not connected, with why, and counts it; answers through the tools once connected', async () => {
    let notConnected = 0;
    const tools: { prepared: AnswerTurn | undefined; notConnected: string | undefined } = {
      prepared: undefined,
      notConnected: 'the MCP server at http://mcp:8091/mcp is not reachable (fetch failed); retrying (3 attempts since 2025-01-01T00:00:00.000Z)',
    };
    const answer = answerWhenConnected(tools, () => (notConnected += 1));
    const early = await answer('list clusters', 'c1', () => undefined);
    expect(early.answer).toBe(
      'My tools are not connected yet, so I have not looked anything up: the MCP server at http://mcp:8091/mcp is not reachable (fetch failed); retrying (3 attempts since 2025-01-01T00:00:00.000Z). I keep retrying on my own; ask again in a few seconds.',
    );
    expect(early.metadata).toMatchObject({ error: 'tools_not_connected', tool_calls: 0 });
    expect(notConnected).toBe(1);
    tools.prepared = () => Promise.resolve({ answer: '13 clusters', options: [], metadata: {} });
    tools.notConnected = undefined;
    expect((await answer('list clusters', 'c1', () => undefined)).answer).toBe('13 clusters');
    expect(notConnected).toBe(1);
  });
});
