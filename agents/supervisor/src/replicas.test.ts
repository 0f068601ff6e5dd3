import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClientFactory } from '@a2a-js/sdk/client';
import { ARGOCD_AGENT_SETTINGS, startArgoCdAgent, type RunningAgent } from '@flotilla/agent-argocd';
import { textRequest } from '@flotilla/agent-kit';
import { NETBOX_AGENT_SETTINGS, startNetBoxAgent, type RunningNetBoxAgent } from '@flotilla/agent-netbox';
import { isFlotillaError, parseSettings, silentLogger } from '@flotilla/core';
import { startArgoCdSimulator, startNetBoxSimulator, type RunningNetBoxSimulator, type RunningSimulator } from '@flotilla/simulators';
import { closeRedis, memberOf, redisFromUrl, type RedisClient } from '@flotilla/state';
import { NO_REDIS_SERVER, redisServerBinary, startRedisServer, type LocalRedisServer } from '@flotilla/state/testing';
import { SUPERVISOR_SETTINGS, startSupervisor, type RunningSupervisor } from './start.js';
import { redisConversations, SUPERVISOR_LIMITS } from './supervisor.js';

/**
 * Two supervisor replicas (--redis-url, one Redis) in front of the same domain agents: who answered a conversation
 * last is shared, so "next page" asked of replica B continues the list replica A started. Without Redis, B does not
 * know and the follow-up goes astray (the bug this fixes).
 */
const TOKEN = 'supervisor-replica-token-0123';
const REDIS = redisServerBinary();

interface Reply {
  readonly answer: string;
  readonly metadata: Record<string, unknown>;
}

async function ask(url: string, question: string, contextId: string): Promise<Reply> {
  const client = await new ClientFactory().createFromUrl(url);
  const result = await client.sendMessage(textRequest(question, contextId));
  if (!('artifacts' in result)) throw new Error('the supervisor answered with a message, not a task');
  const artifact = result.artifacts[0];
  const part = artifact?.parts[0]?.content;
  return { answer: part?.$case === 'text' ? part.value : '', metadata: artifact?.metadata ?? {} };
}

/** A port on loopback with nothing listening (asked of the kernel, then released). */
async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('a supervisor with an unreachable Redis at start', () => {
  it('does not start, and names the setting', async () => {
    const flags = { port: '0', agents: 'argocd=http://127.0.0.1:9', 'log-level': 'silent' };
    const start = startSupervisor(parseSettings(SUPERVISOR_SETTINGS, flags, { FLOTILLA_REDIS_URL: `redis://127.0.0.1:${await deadPort()}` }, 'no-redis'), silentLogger());
    const error: unknown = await start.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isFlotillaError(error) && error.code).toBe('config_invalid');
    expect(String((error as Error).message)).toMatch(/cannot reach Redis at redis:\/\/127\.0\.0\.1:\d+ \(--redis-url \/ FLOTILLA_REDIS_URL\)/);
  });
});

describe.skipIf(REDIS === undefined)(`supervisor replicas sharing Redis${REDIS === undefined ? ` (skipped: ${NO_REDIS_SERVER})` : ''}`, () => {
  let argoSim: RunningSimulator;
  let netboxSim: RunningNetBoxSimulator;
  let argocd: RunningAgent;
  let netbox: RunningNetBoxAgent;
  let redis: LocalRedisServer;
  let client: RedisClient;
  const supervisors: RunningSupervisor[] = [];
  const start = async (env: Record<string, string> = {}): Promise<RunningSupervisor> => {
    const flags = { port: '0', agents: `argocd=${argocd.url},netbox=${netbox.url}`, 'log-level': 'silent' };
    const supervisor = await startSupervisor(parseSettings(SUPERVISOR_SETTINGS, flags, env, 'replica'), silentLogger());
    supervisors.push(supervisor);
    return supervisor;
  };

  beforeAll(async () => {
    [argoSim, netboxSim, redis] = await Promise.all([startArgoCdSimulator({ token: TOKEN }), startNetBoxSimulator({ token: TOKEN }), startRedisServer()]);
    argocd = await startArgoCdAgent(parseSettings(ARGOCD_AGENT_SETTINGS, { port: '0', 'argocd-url': argoSim.url, 'argocd-token': TOKEN, 'log-level': 'silent' }, {}, 'a'), silentLogger());
    netbox = await startNetBoxAgent(parseSettings(NETBOX_AGENT_SETTINGS, { port: '0', 'netbox-url': netboxSim.url, 'netbox-token': TOKEN, 'log-level': 'silent' }, {}, 'n'), silentLogger());
    client = await redisFromUrl(redis.url, { logger: silentLogger() });
  }, 60_000);
  afterAll(async () => {
    for (const supervisor of supervisors) await supervisor.close();
    await Promise.all([argocd?.close(), netbox?.close()]);
    await Promise.all([argoSim?.close(), netboxSim?.close()]);
    if (client !== undefined) await closeRedis(client);
    await redis?.stop();
  });

  it('"next page" asked of replica B continues the list replica A started, and A continues after B', async () => {
    const env = { FLOTILLA_REDIS_URL: redis.url, FLOTILLA_REDIS_KEY_PREFIX: 'replicas:' };
    const [a, b] = [await start(env), await start(env)];
    const contextId = randomUUID();
    const first = await ask(a.url, 'interfaces of every switch in ams1', contextId);
    expect(first.metadata.routed).toBe('netbox');
    expect(first.answer).toMatch(/Batch 1 of \d+/);
    const next = await ask(b.url, 'next page', contextId);
    expect(next.metadata).toMatchObject({ path: 'followup', routed: 'netbox' });
    expect(next.answer).toMatch(/Batch 2 of \d+/);
    expect((await ask(a.url, 'next page', contextId)).answer).toMatch(/Batch 3 of \d+/);
    // Kept under the prefix, for the supervisor's TTL after its last use.
    const ttl = await client.pttl(`replicas:supervisor:memory:v:${memberOf(contextId)}`);
    expect(ttl).toBeGreaterThan(SUPERVISOR_LIMITS.conversationTtlMs - 60_000);
    expect(ttl).toBeLessThanOrEqual(SUPERVISOR_LIMITS.conversationTtlMs);
  });

  it('without Redis, replica B does not know who answered: the follow-up is not continued, and it says so', async () => {
    const [a, b] = [await start(), await start()];
    const contextId = randomUUID();
    expect((await ask(a.url, 'interfaces of every switch in ams1', contextId)).answer).toMatch(/Batch 1 of \d+/);
    const next = await ask(b.url, 'next page', contextId);
    expect(next.metadata.routed).toBe('');
    expect(next.answer).toMatch(/no earlier answer in this conversation for me to continue/);
  });

  it('with Redis gone after the start: a follow-up says why it cannot continue, other questions are answered and say what they did not do', async () => {
    const own = await startRedisServer();
    let stopped = false;
    try {
      const supervisor = await start({ FLOTILLA_REDIS_URL: own.url });
      const contextId = randomUUID();
      expect((await ask(supervisor.url, 'interfaces of every switch in ams1', contextId)).answer).toMatch(/Batch 1 of \d+/);
      await own.stop();
      stopped = true;
      const next = await ask(supervisor.url, 'next page', contextId);
      expect(next.answer).toMatch(
        /^I could not continue this conversation: which agent answered it last is kept in the shared state, and the shared state store \(Redis\) could not read a conversation memory: .+\. Try again in a moment, or ask the whole question again\.$/,
      );
      const other = await ask(supervisor.url, 'which switches are offline in ams1?', contextId);
      expect(other.metadata.routed).toBe('netbox');
      expect(other.answer).toMatch(/devices at ams1, role switch, status offline/);
      expect(other.answer).toContain("(I could not read this conversation's earlier turns, so I took this question on its own: the shared state store (Redis) could not read");
      expect(other.answer).toContain('(Not remembered for a follow-up such as "next page": the shared state store (Redis) could not save');
      expect(other.metadata.remembered).toBe(false);
      const turns = (await supervisor.metrics.agentTurns.get()).values.filter((v) => v.labels.agent === 'supervisor' && v.value > 0);
      expect(Object.fromEntries(turns.map((v) => [v.labels.outcome, v.value]))).toEqual({ answered: 1, failed: 1, tool_error: 1 });
    } finally {
      if (!stopped) await own.stop();
    }
  });

  it('keeps in Redis a protocol-sized conversation in any script, and refuses a larger one as too large (the answer then says it is not remembered)', async () => {
    const store = redisConversations(client, 'caps:');
    // The A2A protocol's largest contextId (256 characters, here 4 bytes each) and 4 agent ids of the longest configurable name.
    const widest = '😀'.repeat(256);
    const ids = ['a', 'b', 'c', 'd'].map((c) => c.repeat(63));
    await store.save(widest, ids);
    expect(await store.load(widest)).toEqual(ids);
    const refused: unknown = await store.save('z'.repeat(SUPERVISOR_LIMITS.conversationMaxBytes), ['widgets']).then(
      () => undefined,
      (e: unknown) => e,
    );
    // The code the supervisor turns into "(Not remembered for a follow-up such as "next page": …)".
    expect(isFlotillaError(refused) && refused.code).toBe('payload_too_large');
    expect((refused as Error).message).toMatch(new RegExp(`the shared state store keeps at most ${SUPERVISOR_LIMITS.conversationMaxBytes} bytes each`));
    // A value that is not a list of agent ids (another writer, an older version) is no memory.
    await client.set(`caps:v:${memberOf('odd')}`, JSON.stringify({ contextId: 'odd', memory: { agents: 'argocd' } }));
    expect(await store.load('odd')).toBeUndefined();
    const many = Array.from({ length: SUPERVISOR_LIMITS.conversationMaxAgents + 1 }, (_, i) => `agent-${i}`);
    await client.set(`caps:v:${memberOf('many')}`, JSON.stringify({ contextId: 'many', memory: many }));
    expect(await store.load('many')).toBeUndefined();
    await client.set(`caps:v:${memberOf('many')}`, JSON.stringify({ contextId: 'many', memory: many.slice(1) }));
    expect(await store.load('many')).toEqual(many.slice(1));
  });
});
