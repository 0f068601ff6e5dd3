import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { capturingLogger, silentLogger } from '@flotilla/core';
import { closeRedis, memberOf, redisFromUrl, type RedisClient } from '@flotilla/state';
import { NO_REDIS_SERVER, redisServerBinary, startRedisServer, type LocalRedisServer } from '@flotilla/state/testing';
import { ConversationQueue, CONVERSATION_QUEUE_LIMITS, redisConversationLock, type ConversationSlot } from './index.js';

const capture = () => capturingLogger();

describe('ConversationQueue', () => {
  it('runs the turns of one conversation one at a time, in the order they came', async () => {
    const depths: number[] = [];
    const queue = new ConversationQueue({ onDepth: (n) => depths.push(n) });
    const order: string[] = [];
    const first = queue.enter('c');
    const second = queue.enter('c');
    const third = queue.enter('c');
    expect([first?.queued, second?.queued, third?.queued]).toEqual([false, true, true]);
    const run = async (name: string, ticket: typeof first): Promise<void> => {
      const slot = await ticket?.ready;
      order.push(name);
      await new Promise(setImmediate);
      slot?.release();
    };
    await Promise.all([run('third', third), run('second', second), run('first', first)]);
    expect(order).toEqual(['first', 'second', 'third']);
    expect(depths).toEqual([1, 2, 1, 0]);
    expect([queue.running, queue.waiting]).toEqual([0, 0]);
  });

  it(`refuses a turn past ${CONVERSATION_QUEUE_LIMITS.maxWaitingPerConversation} waiting in its conversation, and past the process-wide cap`, async () => {
    const queue = new ConversationQueue();
    const tickets = Array.from({ length: CONVERSATION_QUEUE_LIMITS.maxWaitingPerConversation + 1 }, () => queue.enter('c'));
    expect(tickets.every((t) => t !== undefined)).toBe(true);
    expect(queue.enter('c')).toBeUndefined();
    // Another conversation is not held up by this one.
    expect(queue.enter('d')?.queued).toBe(false);

    const capped = new ConversationQueue({ maxWaitingPerConversation: 5, maxWaitingTotal: 2 });
    capped.enter('x');
    capped.enter('y');
    expect(capped.enter('x')?.queued).toBe(true);
    expect(capped.enter('y')?.queued).toBe(true);
    expect(capped.enter('x')).toBeUndefined();
    expect(capped.enter('z')?.queued).toBe(false);
    expect(capped.waiting).toBe(2);
    await Promise.resolve();
  });

  it('keeps no entry for a conversation with nothing running, and a release is idempotent', async () => {
    const queue = new ConversationQueue();
    const slots: ConversationSlot[] = [];
    for (let i = 0; i < 1_000; i += 1) {
      const ticket = queue.enter(`c${i}`);
      if (ticket !== undefined) slots.push(await ticket.ready);
    }
    expect(queue.running).toBe(1_000);
    for (const slot of slots) {
      slot.release();
      slot.release();
    }
    expect([queue.running, queue.waiting]).toEqual([0, 0]);
  });

  it('drops a waiting turn whose signal aborts: its place goes, the turns behind it move up', async () => {
    const queue = new ConversationQueue();
    const running = await queue.enter('c')?.ready;
    const leaving = new AbortController();
    const gone = queue.enter('c', leaving.signal);
    const next = queue.enter('c');
    expect(queue.waiting).toBe(2);
    leaving.abort(new Error('deadline'));
    await expect(gone?.ready).rejects.toThrow('deadline');
    expect(queue.waiting).toBe(1);
    running?.release();
    const slot = await next?.ready;
    expect(queue.waiting).toBe(0);
    slot?.release();
    expect(queue.running).toBe(0);
    // Already aborted: never waits.
    const held = await queue.enter('c')?.ready;
    await expect(queue.enter('c', AbortSignal.abort(new Error('late')))?.ready).rejects.toThrow('late');
    expect(queue.waiting).toBe(0);
    held?.release();
  });
});

const REDIS = redisServerBinary();

describe.skipIf(REDIS === undefined)(`redisConversationLock${REDIS === undefined ? ` (skipped: ${NO_REDIS_SERVER})` : ''}`, () => {
  let redis: LocalRedisServer;
  const clients: RedisClient[] = [];
  const connect = async (url = redis.url): Promise<RedisClient> => {
    const client = await redisFromUrl(url, { logger: silentLogger() });
    clients.push(client);
    return client;
  };
  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterAll(async () => {
    for (const client of clients) await closeRedis(client);
    await redis?.stop();
  });

  it('one holder at a time across clients; a waiter is told it waits and gets the lock once it is released', async () => {
    const [a, b] = [await connect(), await connect()];
    const lockA = redisConversationLock({ client: a, keyPrefix: 'test:lock:', logger: silentLogger() });
    const lockB = redisConversationLock({ client: b, keyPrefix: 'test:lock:', logger: silentLogger() });
    const contextId = randomUUID();
    const held = await lockA.acquire(contextId, { signal: new AbortController().signal });
    expect(held.kind).toBe('held');
    let waiting!: () => void;
    const told = new Promise<void>((resolve) => (waiting = resolve));
    const second = lockB.acquire(contextId, { signal: new AbortController().signal, onWait: () => waiting() });
    await told;
    if (held.kind === 'held') await held.release();
    const next = await second;
    expect(next.kind).toBe('held');
    if (next.kind === 'held') await next.release();
    expect(await a.exists(`test:lock:${memberOf(contextId)}`)).toBe(0);
  });

  it('a waiter gives up "busy" when its wait ends, and leaves the holder\'s lock alone', async () => {
    const client = await connect();
    const lock = redisConversationLock({ client, keyPrefix: 'test:lock:', logger: silentLogger() });
    const contextId = randomUUID();
    const held = await lock.acquire(contextId, { signal: new AbortController().signal });
    const wait = new AbortController();
    const second = lock.acquire(contextId, { signal: wait.signal, onWait: () => wait.abort() });
    expect((await second).kind).toBe('busy');
    expect(await client.exists(`test:lock:${memberOf(contextId)}`)).toBe(1);
    if (held.kind === 'held') await held.release();
  });

  it('a crashed holder\'s lock is free once its lease runs out', async () => {
    const crashed = await connect();
    const survivor = await connect();
    const contextId = randomUUID();
    const leaseMs = 300;
    const dead = await redisConversationLock({ client: crashed, keyPrefix: 'test:lock:', logger: silentLogger(), leaseMs }).acquire(contextId, { signal: new AbortController().signal });
    expect(dead.kind).toBe('held');
    // The holder's process dies: no release, no more renewals.
    crashed.disconnect();
    let waited = false;
    const taken = await redisConversationLock({ client: survivor, keyPrefix: 'test:lock:', logger: silentLogger(), leaseMs }).acquire(contextId, {
      signal: new AbortController().signal,
      onWait: () => (waited = true),
    });
    expect(waited).toBe(true);
    expect(taken.kind).toBe('held');
    if (taken.kind === 'held') await taken.release();
  });

  it('the holder renews its lease while its turn runs: a waiter keeps waiting past several leases', async () => {
    const [a, b, probe] = [await connect(), await connect(), await connect()];
    // Long enough that a loaded machine's stall (hundreds of ms) cannot let it run out between renewals.
    const leaseMs = 2_400;
    const contextId = randomUUID();
    const key = `test:lock:${memberOf(contextId)}`;
    const held = await redisConversationLock({ client: a, keyPrefix: 'test:lock:', logger: silentLogger(), leaseMs }).acquire(contextId, { signal: new AbortController().signal });
    let taken = false;
    const waiter = redisConversationLock({ client: b, keyPrefix: 'test:lock:', logger: silentLogger(), leaseMs })
      .acquire(contextId, { signal: new AbortController().signal })
      .then((attempt) => {
        taken = true;
        return attempt;
      });
    // Watch the lease: each renewal lifts its remaining time. Four renewals (one every third of the lease) span more
    // than a whole lease, which would have run out without them.
    let renewals = 0;
    let last = await probe.pttl(key);
    while (renewals < 4 && !taken && last > 0) {
      await delay(25);
      const now = await probe.pttl(key);
      if (now > last) renewals += 1;
      last = now;
    }
    expect(taken).toBe(false);
    expect(renewals).toBe(4);
    if (held.kind === 'held') await held.release();
    const next = await waiter;
    expect(next.kind).toBe('held');
    if (next.kind === 'held') await next.release();
  });

  it('Redis down: the lock is skipped ("unavailable", never a hang), with one warning until Redis is back', async () => {
    const lonely = await startRedisServer();
    const client = await connect(lonely.url);
    const { lines, logger } = capture();
    const lock = redisConversationLock({ client, keyPrefix: 'test:lock:', logger });
    await lonely.stop();
    const first = await lock.acquire(randomUUID(), { signal: new AbortController().signal });
    const second = await lock.acquire(randomUUID(), { signal: new AbortController().signal });
    expect([first.kind, second.kind]).toEqual(['unavailable', 'unavailable']);
    expect(lines.filter((l) => l.includes('turns run without the conversation lock'))).toHaveLength(1);
  });
});
