import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { TaskState } from '@a2a-js/sdk';
import { ClientFactory, type Client } from '@a2a-js/sdk/client';
import { silentLogger } from '@flotilla/core';
import { closeRedis, redisFromUrl, type RedisClient } from '@flotilla/state';
import { NO_REDIS_SERVER, redisServerBinary, startRedisServer, type LocalRedisServer } from '@flotilla/state/testing';
import {
  abortedOutcome,
  BUSY_ANSWER,
  redisConversationLock,
  SHUTTING_DOWN_ANSWER,
  startA2AServer,
  textRequest,
  TurnAborted,
  type A2AServerOptions,
  type AnswerTurn,
  type RunningA2AServer,
} from './index.js';

/**
 * The executor over real HTTP on 127.0.0.1 with the official A2A client: turns of one conversation in order through a
 * bounded queue (and a Redis lock across replicas), a deadline on every turn, and close() mid-turn.
 */

const servers: RunningA2AServer[] = [];
async function start(answer: AnswerTurn, options: Partial<A2AServerOptions> = {}): Promise<{ server: RunningA2AServer; client: Client }> {
  const server = await startA2AServer({ agent: { name: 'toy', description: 'a toy agent', version: '0.0.1', skills: [] }, host: '127.0.0.1', port: 0, logger: silentLogger(), answer, ...options });
  servers.push(server);
  return { server, client: await new ClientFactory().createFromUrl(server.url) };
}
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

interface Reply {
  readonly state: TaskState | undefined;
  readonly answer: string;
  readonly error: unknown;
}

async function ask(client: Client, question: string, contextId: string): Promise<Reply> {
  const result = await client.sendMessage(textRequest(question, contextId));
  if (!('artifacts' in result)) throw new Error('the agent answered with a message, not a task');
  const artifact = result.artifacts[0];
  const answer = (artifact?.parts ?? []).flatMap((p) => (p.content?.$case === 'text' ? [p.content.value] : [])).join('\n');
  return { state: result.status?.state, answer, error: artifact?.metadata?.error };
}

/** A streamed question: `notes` are the status notes as they come; `reply` the end. */
function stream(client: Client, question: string, contextId: string, onNote: (note: string) => void = () => undefined): Promise<Reply> {
  return (async () => {
    let state: TaskState | undefined;
    let answer = '';
    let error: unknown;
    for await (const event of client.sendMessageStream(textRequest(question, contextId))) {
      const payload = event.payload;
      if (payload?.$case === 'statusUpdate') {
        state = payload.value.status?.state ?? state;
        const note = payload.value.status?.message?.parts[0]?.content;
        if (note?.$case === 'text') onNote(note.value);
      } else if (payload?.$case === 'artifactUpdate') {
        answer = (payload.value.artifact?.parts ?? []).flatMap((p) => (p.content?.$case === 'text' ? [p.content.value] : [])).join('\n');
        error = payload.value.artifact?.metadata?.error;
      }
    }
    return { state, answer, error };
  })();
}

/** A promise and its resolver. */
function gate<T = void>(): { promise: Promise<T>; open: (value: T) => void } {
  let open!: (value: T) => void;
  const promise = new Promise<T>((resolve) => (open = resolve));
  return { promise, open };
}

/** A turn that never ends on its own: it rejects with the signal's reason when the executor aborts it. */
const untilAborted = (signal: AbortSignal | undefined): Promise<never> =>
  new Promise((_resolve, reject) => signal?.addEventListener('abort', () => reject(signal.reason instanceof Error ? signal.reason : new Error('aborted')), { once: true }));

describe('one turn per conversation at a time', () => {
  it('200 concurrent "next page" turns on one conversation: every accepted turn sees its own page, the rest are refused "busy"', async () => {
    const TURNS = 200;
    let page = 0; // the conversation's memory
    let started = 0;
    let waiting = 0;
    let refused = 0;
    const rejects: string[] = [];
    // The turns load, wait for this gate (a real async gap, opened once every turn is running, waiting or refused), then save.
    const everyTurnPlaced = gate();
    const check = (): void => {
      if (started + waiting + refused === TURNS) everyTurnPlaced.open();
    };
    const { client } = await start(
      async () => {
        started += 1;
        check();
        const seen = page;
        await everyTurnPlaced.promise;
        await new Promise(setImmediate);
        page = seen + 1;
        return { answer: `Page ${page}`, options: ['next page'], metadata: {} };
      },
      {
        onQueueDepth: (n) => {
          waiting = n;
          check();
        },
        onReject: (reason) => {
          rejects.push(reason);
          refused += 1;
          check();
        },
      },
    );
    const contextId = randomUUID();
    const replies = await Promise.all(Array.from({ length: TURNS }, () => ask(client, 'next page', contextId)));
    const answered = replies.filter((r) => r.state === TaskState.TASK_STATE_COMPLETED).map((r) => r.answer);
    const busy = replies.filter((r) => r.state === TaskState.TASK_STATE_REJECTED);
    // One running and three waiting were accepted; each saw the page the one before it saved.
    expect(answered.sort()).toEqual(['Page 1', 'Page 2', 'Page 3', 'Page 4']);
    expect(busy).toHaveLength(TURNS - 4);
    expect(busy.every((r) => r.answer === BUSY_ANSWER && r.error === 'conversation_busy')).toBe(true);
    expect(rejects).toEqual(Array.from({ length: TURNS - 4 }, () => 'conversation_busy'));
    expect(waiting).toBe(0);
  });

  it('a turn waits its turn, and past the depth limit it is refused at once', async () => {
    const release = gate();
    let started = 0;
    const firstStarted = gate();
    let page = 0;
    const oneWaiting = gate();
    const { client } = await start(
      async () => {
        started += 1;
        if (started === 1) firstStarted.open();
        await release.promise;
        page += 1;
        return { answer: `Page ${page}`, options: [], metadata: {} };
      },
      { onQueueDepth: (n) => n === 1 && oneWaiting.open(), turnLimits: { maxWaitingPerConversation: 1 } },
    );
    const contextId = randomUUID();
    const first = ask(client, 'next page', contextId);
    await firstStarted.promise;
    const notes: string[] = [];
    const second = stream(client, 'next page', contextId, (n) => notes.push(n));
    await oneWaiting.promise;
    // The queue is full: the third is answered while the first two are still open.
    expect(await ask(client, 'next page', contextId)).toEqual({ state: TaskState.TASK_STATE_REJECTED, answer: BUSY_ANSWER, error: 'conversation_busy' });
    expect(started).toBe(1);
    release.open();
    expect((await first).answer).toBe('Page 1');
    expect(await second).toMatchObject({ state: TaskState.TASK_STATE_COMPLETED, answer: 'Page 2' });
    expect(notes[0]).toMatch(/^Waiting for your previous question in this conversation to finish/);
  });

  it('turns of different conversations run at the same time', async () => {
    const running = new Set<string>();
    const both = gate();
    const { client } = await start(async (_question, contextId) => {
      running.add(contextId);
      if (running.size === 2) both.open();
      // Neither finishes until both have started: only possible if they run side by side.
      await both.promise;
      return { answer: `answered ${contextId}`, options: [], metadata: {} };
    });
    const [a, b] = [randomUUID(), randomUUID()];
    const replies = await Promise.all([ask(client, 'hello', a), ask(client, 'hello', b)]);
    expect(replies.map((r) => r.answer)).toEqual([`answered ${a}`, `answered ${b}`]);
  });
});

describe('status updates of a turn', () => {
  /** Every status a streamed turn went through, in order, with its note. */
  async function statuses(client: Client, question: string, onNote: (note: string) => void = () => undefined): Promise<string[]> {
    const seen: string[] = [];
    for await (const event of client.sendMessageStream(textRequest(question, randomUUID()))) {
      const payload = event.payload;
      if (payload?.$case === 'task') seen.push(TaskState[payload.value.status?.state ?? 0] ?? '');
      if (payload?.$case !== 'statusUpdate') continue;
      const note = payload.value.status?.message?.parts[0]?.content;
      const text = note?.$case === 'text' ? note.value : '';
      seen.push(`${TaskState[payload.value.status?.state ?? 0] ?? ''}${text === '' ? '' : `: ${text}`}`);
      if (text !== '') onNote(text);
    }
    return seen;
  }

  it('an answer ready at once (a cached one) goes from submitted to completed; a turn still running says it is working', async () => {
    const working = gate();
    const { client } = await start(async (question) => {
      if (question === 'slow') await working.promise;
      return { answer: 'done', options: [], metadata: {} };
    });
    expect(await statuses(client, 'cached')).toEqual(['TASK_STATE_SUBMITTED', 'TASK_STATE_COMPLETED']);
    // The slow turn is answered only once it said it is working.
    const slow = await statuses(client, 'slow', (note) => {
      if (note === 'Working on it…') working.open();
    });
    expect(slow).toEqual(['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING: Working on it…', 'TASK_STATE_COMPLETED']);
  });
});

describe('the turn deadline', () => {
  it('aborts a turn that never ends and says so (FAILED, timed_out); the conversation goes on', async () => {
    const reasons: unknown[] = [];
    const { client } = await start(
      (question, _contextId, _progress, signal) => {
        if (question === 'hang') {
          signal?.addEventListener('abort', () => reasons.push(abortedOutcome(signal)), { once: true });
          return untilAborted(signal);
        }
        return Promise.resolve({ answer: 'still here', options: [], metadata: {} });
      },
      { turnTimeoutMs: 500 },
    );
    const contextId = randomUUID();
    expect(await ask(client, 'hang', contextId)).toEqual({
      state: TaskState.TASK_STATE_FAILED,
      answer: 'I stopped after 0.5 s without finishing; ask a narrower question or try again.',
      error: 'timed_out',
    });
    expect(reasons).toEqual(['timed_out']);
    expect(await ask(client, 'next', contextId)).toMatchObject({ state: TaskState.TASK_STATE_COMPLETED, answer: 'still here' });
  });

  it('keeps the conversation until the aborted turn has really stopped, so it cannot save over the next turn', async () => {
    const events: string[] = [];
    let memory = 'empty';
    const nextWaiting = gate();
    const { client } = await start(
      async (question, _contextId, _progress, signal) => {
        if (question === 'slow') {
          await untilAborted(signal).catch(() => undefined);
          events.push('slow aborted');
          // It stops only once the next turn is waiting for the conversation, then saves what it had.
          await nextWaiting.promise;
          await new Promise(setImmediate);
          memory = 'slow';
          events.push('slow saved');
          throw new Error('stopped');
        }
        events.push(`next saw ${memory}`);
        memory = 'next';
        return { answer: 'next done', options: [], metadata: {} };
      },
      { turnTimeoutMs: 500, onQueueDepth: (n) => n === 1 && nextWaiting.open() },
    );
    const contextId = randomUUID();
    // The slow turn is answered at its deadline, while it is still stopping.
    expect((await ask(client, 'slow', contextId)).error).toBe('timed_out');
    expect(await ask(client, 'next', contextId)).toMatchObject({ state: TaskState.TASK_STATE_COMPLETED, answer: 'next done' });
    expect(events).toEqual(['slow aborted', 'slow saved', 'next saw slow']);
    expect(memory).toBe('next');
  });

  it('releases the conversation after the grace when an aborted turn ignores its signal', async () => {
    const { client } = await start(
      (question) => (question === 'stuck' ? new Promise<never>(() => undefined) : Promise.resolve({ answer: 'after the stuck one', options: [], metadata: {} })),
      { turnTimeoutMs: 1_000, turnLimits: { abortGraceMs: 200 } },
    );
    const contextId = randomUUID();
    expect((await ask(client, 'stuck', contextId)).error).toBe('timed_out');
    expect(await ask(client, 'next', contextId)).toMatchObject({ state: TaskState.TASK_STATE_COMPLETED, answer: 'after the stuck one' });
  });

  it('a turn still waiting at its deadline is answered "busy", not left hanging', async () => {
    const rejects: string[] = [];
    const firstStarted = gate();
    const { client } = await start(
      () => {
        // Ignores its signal: the conversation stays held for the grace after its deadline, past the next turn's deadline.
        firstStarted.open();
        return new Promise<never>(() => undefined);
      },
      { turnTimeoutMs: 1_000, turnLimits: { abortGraceMs: 2_000 }, onReject: (reason) => rejects.push(reason) },
    );
    const contextId = randomUUID();
    const first = ask(client, 'first', contextId);
    await firstStarted.promise;
    const second = ask(client, 'second', contextId);
    expect((await first).error).toBe('timed_out');
    expect(await second).toEqual({ state: TaskState.TASK_STATE_REJECTED, answer: BUSY_ANSWER, error: 'conversation_busy' });
    expect(rejects).toEqual(['conversation_busy']);
  });
});

describe('close() mid-turn', () => {
  it('aborts turns still running after the drain, answers them "shutting down" (FAILED), and closes', async () => {
    const started = gate();
    const queued = gate();
    const reasons: unknown[] = [];
    const { server, client } = await start(
      (_question, _contextId, _progress, signal) => {
        started.open();
        signal?.addEventListener('abort', () => reasons.push(signal.reason instanceof TurnAborted ? signal.reason.why : signal.reason), { once: true });
        return untilAborted(signal);
      },
      { turnLimits: { drainMs: 300 }, onQueueDepth: (n) => n === 1 && queued.open() },
    );
    const contextId = randomUUID();
    const running = ask(client, 'never ends', contextId);
    await started.promise;
    const waitingBehind = ask(client, 'queued behind it', contextId);
    await queued.promise;
    await server.close();
    servers.splice(servers.indexOf(server), 1);
    const shuttingDown = { state: TaskState.TASK_STATE_FAILED, answer: SHUTTING_DOWN_ANSWER, error: 'shutting_down' };
    expect(await running).toEqual(shuttingDown);
    expect(await waitingBehind).toEqual(shuttingDown);
    expect(reasons).toEqual(['shutting_down']);
  });

  it('closes within the bounds even when a turn ignores its signal', async () => {
    const started = gate();
    const { server, client } = await start(
      () => {
        started.open();
        return new Promise<never>(() => undefined);
      },
      { turnLimits: { drainMs: 200, abortGraceMs: 200 } },
    );
    const running = ask(client, 'never ends', randomUUID()).catch((error: unknown) => error);
    await started.promise;
    await server.close();
    servers.splice(servers.indexOf(server), 1);
    expect(await running).toMatchObject({ state: TaskState.TASK_STATE_FAILED, answer: SHUTTING_DOWN_ANSWER });
  });

  it('lets a turn that finishes within the drain answer normally', async () => {
    const started = gate();
    const finish = gate();
    const { server, client } = await start(async () => {
      started.open();
      await finish.promise;
      return { answer: 'made it', options: [], metadata: {} };
    });
    const running = ask(client, 'almost done', randomUUID());
    await started.promise;
    const closing = server.close();
    servers.splice(servers.indexOf(server), 1);
    finish.open();
    expect(await running).toMatchObject({ state: TaskState.TASK_STATE_COMPLETED, answer: 'made it' });
    await closing;
  });
});

const REDIS = redisServerBinary();

describe.skipIf(REDIS === undefined)(`two servers sharing one Redis${REDIS === undefined ? ` (skipped: ${NO_REDIS_SERVER})` : ''}`, () => {
  let redis: LocalRedisServer;
  const clients: RedisClient[] = [];
  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterAll(async () => {
    for (const client of clients) await closeRedis(client);
    await redis?.stop();
  });

  /** Two replicas of one agent: their own Redis clients, one lock keyspace, one conversation memory (`state`). */
  async function replicas(answer: AnswerTurn, leaseMs?: number, maxWaitingPerConversation?: number) {
    const pair = [];
    for (let i = 0; i < 2; i += 1) {
      const client = await redisFromUrl(redis.url, { logger: silentLogger() });
      clients.push(client);
      const conversationLock = redisConversationLock({ client, keyPrefix: 'test:turn-lock:', logger: silentLogger(), leaseMs });
      pair.push(await start(answer, { conversationLock, turnLimits: { maxWaitingPerConversation } }));
    }
    return pair as [Awaited<ReturnType<typeof start>>, Awaited<ReturnType<typeof start>>];
  }

  it('a turn on replica B waits for the turn replica A runs on the same conversation, then sees its page', async () => {
    let page = 0;
    let running = 0;
    let mostAtOnce = 0;
    const firstStarted = gate();
    const release = gate();
    const [a, b] = await replicas(async (question) => {
      running += 1;
      mostAtOnce = Math.max(mostAtOnce, running);
      if (question === 'list') firstStarted.open();
      const seen = page;
      if (question === 'list') await release.promise;
      page = seen + 1;
      running -= 1;
      return { answer: `Page ${page}`, options: [], metadata: {} };
    });
    const contextId = randomUUID();
    const first = ask(a.client, 'list', contextId);
    await firstStarted.promise;
    // B is told it waits for another replica (or, without the lock, runs at once: then the check below fails).
    const waitingOrRunning = gate();
    const notes: string[] = [];
    const second = stream(b.client, 'next page', contextId, (note) => {
      notes.push(note);
      if (/another replica|Working on it/.test(note)) waitingOrRunning.open();
    });
    await waitingOrRunning.promise;
    expect(notes).toContain('Waiting for your previous question in this conversation to finish (on another replica)…');
    expect(running).toBe(1);
    release.open();
    expect((await first).answer).toBe('Page 1');
    expect(await second).toMatchObject({ state: TaskState.TASK_STATE_COMPLETED, answer: 'Page 2' });
    expect(mostAtOnce).toBe(1);
  });

  it('40 concurrent turns of one conversation spread over both replicas: no lost update', async () => {
    const TURNS = 40;
    let page = 0;
    let running = 0;
    let mostAtOnce = 0;
    const [a, b] = await replicas(
      async () => {
        running += 1;
        mostAtOnce = Math.max(mostAtOnce, running);
        const seen = page;
        await new Promise(setImmediate);
        page = seen + 1;
        running -= 1;
        return { answer: `Page ${page}`, options: [], metadata: {} };
      },
      undefined,
      TURNS,
    );
    const contextId = randomUUID();
    const replies = await Promise.all(Array.from({ length: TURNS }, (_, i) => ask(i % 2 === 0 ? a.client : b.client, 'next page', contextId)));
    expect(replies.every((r) => r.state === TaskState.TASK_STATE_COMPLETED)).toBe(true);
    expect(new Set(replies.map((r) => r.answer)).size).toBe(TURNS);
    expect(mostAtOnce).toBe(1);
  });

  it('a turn waiting for a lock another replica holds gives up "busy" at its deadline', async () => {
    const contextId = randomUUID();
    const holder = await redisFromUrl(redis.url, { logger: silentLogger() });
    clients.push(holder);
    const held = await redisConversationLock({ client: holder, keyPrefix: 'test:turn-lock:', logger: silentLogger() }).acquire(contextId, { signal: new AbortController().signal });
    const client = await redisFromUrl(redis.url, { logger: silentLogger() });
    clients.push(client);
    const rejects: string[] = [];
    const { client: a2a } = await start(() => Promise.resolve({ answer: 'never asked', options: [], metadata: {} }), {
      conversationLock: redisConversationLock({ client, keyPrefix: 'test:turn-lock:', logger: silentLogger() }),
      turnTimeoutMs: 1_000,
      onReject: (reason) => rejects.push(reason),
    });
    expect(await ask(a2a, 'next page', contextId)).toEqual({ state: TaskState.TASK_STATE_REJECTED, answer: BUSY_ANSWER, error: 'conversation_busy' });
    expect(rejects).toEqual(['conversation_busy']);
    if (held.kind === 'held') await held.release();
  });

  it('a crashed replica\'s lock expires with its lease: the conversation goes on on the other one', async () => {
    const contextId = randomUUID();
    const crashed = await redisFromUrl(redis.url, { logger: silentLogger() });
    const dead = await redisConversationLock({ client: crashed, keyPrefix: 'test:turn-lock:', logger: silentLogger(), leaseMs: 300 }).acquire(contextId, { signal: new AbortController().signal });
    expect(dead.kind).toBe('held');
    crashed.disconnect();
    const [a] = await replicas(() => Promise.resolve({ answer: 'answered', options: [], metadata: {} }), 300);
    const notes: string[] = [];
    expect(await stream(a.client, 'next page', contextId, (n) => notes.push(n))).toMatchObject({ state: TaskState.TASK_STATE_COMPLETED, answer: 'answered' });
    expect(notes).toContain('Waiting for your previous question in this conversation to finish (on another replica)…');
  });
});
