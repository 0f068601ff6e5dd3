import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClientFactory } from '@a2a-js/sdk/client';
import { isFlotillaError, parseSettings, silentLogger } from '@flotilla/core';
import { generateNetBoxEstate, startNetBoxSimulator, type RunningNetBoxSimulator } from '@flotilla/simulators';
import { textRequest } from '@flotilla/agent-kit';
import { NO_REDIS_SERVER, redisServerBinary, startRedisServer, type LocalRedisServer } from '@flotilla/state/testing';
import type { RunningMcpServer } from '@flotilla/bounded-tools';
import { NETBOX_MCP_SETTINGS } from '../config.js';
import { startNetBoxMcpServer } from '../server.js';
import { NETBOX_AGENT_SETTINGS, startNetBoxAgent, type RunningNetBoxAgent } from './start.js';

/**
 * Several replicas of the NetBox agent behind one Service share a Redis (--redis-url): a conversation started on
 * one replica continues on another, because the progressive session and the stored result it reads batches from
 * are both in Redis. A real redis-server is started for the test; without one the tests are skipped, saying why.
 */
const TOKEN = 'replica-token-0123456789';
const REDIS = redisServerBinary();
const estate = generateNetBoxEstate();

async function ask(agentUrl: string, question: string, contextId: string): Promise<{ answer: string; state: string }> {
  const client = await new ClientFactory().createFromUrl(agentUrl);
  const result = await client.sendMessage(textRequest(question, contextId));
  if (!('artifacts' in result)) return { answer: '', state: 'message' };
  const answer = (result.artifacts[0]?.parts ?? []).flatMap((part) => (part.content?.$case === 'text' ? [part.content.value] : [])).join('\n');
  return { answer, state: String(result.status?.state ?? '') };
}

describe.skipIf(REDIS === undefined)(`NetBox agent replicas sharing Redis${REDIS === undefined ? ` (skipped: ${NO_REDIS_SERVER})` : ''}`, () => {
  let sim: RunningNetBoxSimulator;
  let redis: LocalRedisServer;
  const agents: RunningNetBoxAgent[] = [];
  const start = async (redisUrl: string, extra: Record<string, string> = {}): Promise<RunningNetBoxAgent> => {
    const config = parseSettings(NETBOX_AGENT_SETTINGS, { port: '0', 'netbox-url': sim.url, 'netbox-token': TOKEN, 'redis-url': redisUrl, ...extra }, {}, 'replica');
    const agent = await startNetBoxAgent(config, silentLogger());
    agents.push(agent);
    return agent;
  };

  beforeAll(async () => {
    [sim, redis] = await Promise.all([startNetBoxSimulator({ token: TOKEN, estate }), startRedisServer()]);
  });
  afterAll(async () => {
    for (const agent of agents) await agent.close();
    await sim.close();
    await redis.stop();
  });

  it('"next batch" asked of another replica continues the conversation, reading the shared result (no NetBox request)', async () => {
    const [a, b] = [await start(redis.url), await start(redis.url)];
    expect(a.url).not.toBe(b.url);
    const contextId = randomUUID();
    const first = await ask(a.url, 'interfaces of every switch in ams1', contextId);
    const batches = /Batch 1 of (\d+): ([\d,]+) interfaces/.exec(first.answer);
    expect(batches).not.toBeNull();
    sim.resetStats();
    const second = await ask(b.url, 'next batch', contextId);
    expect(second.answer).toMatch(new RegExp(`Batch 2 of ${batches?.[1]}: ${batches?.[2]} interfaces`));
    expect(sim.stats().requests).toBe(0);
    // And back on the first replica: it sees where the second one stopped.
    const third = await ask(a.url, 'next batch', contextId);
    expect(third.answer).toMatch(new RegExp(`Batch 3 of ${batches?.[1]}`));
    // Another conversation has nothing to continue, on either replica.
    expect((await ask(b.url, 'next batch', randomUUID())).answer).not.toMatch(/Batch \d+ of/);
  });

  it('with the tools in MCP servers (a replica each), the servers share their stored results through Redis', async () => {
    const servers: RunningMcpServer[] = [];
    try {
      for (let i = 0; i < 2; i += 1) {
        const config = parseSettings(NETBOX_MCP_SETTINGS, { port: '0', 'netbox-url': sim.url, 'netbox-token': TOKEN, 'redis-url': redis.url }, {}, 'mcp replica');
        servers.push(await startNetBoxMcpServer(config, { logger: silentLogger() }));
      }
      const [a, b] = [await start(redis.url, { 'mcp-url': servers[0]?.mcpUrl ?? '' }), await start(redis.url, { 'mcp-url': servers[1]?.mcpUrl ?? '' })];
      const contextId = randomUUID();
      expect((await ask(a.url, 'interfaces of every switch in ams1', contextId)).answer).toMatch(/Batch 1 of/);
      sim.resetStats();
      expect((await ask(b.url, 'next batch', contextId)).answer).toMatch(/Batch 2 of/);
      expect(sim.stats().requests).toBe(0);
    } finally {
      for (const server of servers) await server.close();
    }
  });

  it('replicas of different installations (key prefixes) do not see each other', async () => {
    const a = await start(redis.url, { 'redis-key-prefix': 'blue:' });
    const b = await start(redis.url, { 'redis-key-prefix': 'green:' });
    const contextId = randomUUID();
    expect((await ask(a.url, 'interfaces of every switch in ams1', contextId)).answer).toMatch(/Batch 1 of/);
    expect((await ask(b.url, 'next batch', contextId)).answer).not.toMatch(/Batch 2 of/);
  });

  it('refuses to start when Redis cannot be reached, naming the setting', async () => {
    const gone = await startRedisServer();
    await gone.stop();
    let error: unknown;
    try {
      await start(`redis://:s3cret@127.0.0.1:${gone.port}`);
    } catch (caught) {
      error = caught;
    }
    expect(isFlotillaError(error) && error.code).toBe('config_invalid');
    expect(String(error)).toMatch(/cannot reach Redis at redis:\/\/127\.0\.0\.1:\d+ \(--redis-url \/ FLOTILLA_REDIS_URL\)/);
    expect(String(error)).not.toContain('s3cret');
  });

  it('answers a clear error while Redis is down, stays up, and continues once Redis is back', async () => {
    const own = await startRedisServer();
    const agent = await start(own.url);
    const contextId = randomUUID();
    expect((await ask(agent.url, 'interfaces of every switch in ams1', contextId)).answer).toMatch(/Batch 1 of/);
    await own.stop();
    const failed = await ask(agent.url, 'next batch', contextId);
    expect(failed.answer).toMatch(/^I could not answer that: the shared state store \(Redis\) could not read a progressive session: Redis is not reachable \(reconnecting in the background\)\./);
    expect((await fetch(`${agent.url}/healthz`)).status).toBe(200);
    // Redis back, empty (no persistence): the agent recovers by itself; the old session is gone, new ones work.
    const again = await startRedisServer({ port: own.port });
    try {
      let reply = await ask(agent.url, 'interfaces of every switch in ams1', contextId);
      const deadline = Date.now() + 15_000;
      while (!/Batch 1 of/.test(reply.answer) && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        reply = await ask(agent.url, 'interfaces of every switch in ams1', contextId);
      }
      expect(reply.answer).toMatch(/Batch 1 of/);
      expect((await ask(agent.url, 'next batch', contextId)).answer).toMatch(/Batch 2 of/);
    } finally {
      await again.stop();
    }
  });
});
