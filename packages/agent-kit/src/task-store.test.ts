import { describe, expect, it } from 'vitest';
import { TaskState, type Task } from '@a2a-js/sdk';
import { BoundedTaskStore } from './index.js';

const task = (id: string, contextId = 'c1'): Task =>
  ({ id, contextId, status: { state: TaskState.TASK_STATE_COMPLETED, timestamp: undefined, message: undefined }, artifacts: [], history: [], metadata: undefined });
const listAll = (contextId = '') => ({ tenant: '', contextId, status: 0, pageToken: '', statusTimestampAfter: undefined }) as never;

describe('bounded A2A task store', () => {
  it('keeps at most maxTasks, newest first, and forgets tasks past their TTL', async () => {
    let now = 0;
    const store = new BoundedTaskStore({ maxTasks: 3, ttlMs: 1_000 }, () => now);
    for (const id of ['a', 'b', 'c', 'd']) await store.save(task(id));
    expect(store.size).toBe(3);
    expect(await store.load('a')).toBeUndefined();
    expect((await store.load('d'))?.id).toBe('d');
    // Saving again refreshes a task (it moves to the newest end).
    await store.save(task('b'));
    await store.save(task('e'));
    expect(await store.load('c')).toBeUndefined();
    expect((await store.list(listAll())).tasks.map((t) => t.id)).toEqual(['e', 'b', 'd']);
    now = 1_001;
    expect(await store.load('e')).toBeUndefined();
    expect((await store.list(listAll())).totalSize).toBe(0);
  });

  it('bounds the bytes it keeps, and lists summaries (no artifacts or history unless asked)', async () => {
    const store = new BoundedTaskStore({ maxTasks: 100, ttlMs: 60_000, maxBytes: 50_000 });
    const big = (id: string): Task => ({ ...task(id), artifacts: [{ artifactId: 'a', parts: [{ content: { $case: 'text', value: 'x'.repeat(20_000) } }] }], history: [{ messageId: 'm' }] }) as unknown as Task;
    for (const id of ['a', 'b', 'c', 'd']) await store.save(big(id));
    expect(store.size).toBe(2);
    const listed = await store.list(listAll());
    expect(JSON.stringify(listed).length).toBeLessThan(2_000);
    expect(listed.tasks.every((t) => t.artifacts.length === 0 && t.history.length === 0)).toBe(true);
    const full = await store.list({ ...(listAll() as object), includeArtifacts: true, historyLength: 5 } as never);
    expect(full.tasks[0]?.artifacts).toHaveLength(1);
    expect(full.tasks[0]?.history).toHaveLength(1);
  });

  it('lists by context in pages, and returns copies', async () => {
    const store = new BoundedTaskStore();
    for (let i = 0; i < 120; i += 1) await store.save(task(`t${i}`, i % 2 === 0 ? 'even' : 'odd'));
    const first = await store.list({ ...(listAll('even') as object), pageSize: 50 } as never);
    expect(first.totalSize).toBe(60);
    expect(first.tasks).toHaveLength(50);
    const second = await store.list({ ...(listAll('even') as object), pageSize: 50, pageToken: first.nextPageToken } as never);
    expect(second.tasks).toHaveLength(10);
    expect(second.nextPageToken).toBe('');
    const loaded = await store.load('t0');
    if (loaded !== undefined) loaded.contextId = 'changed';
    expect((await store.load('t0'))?.contextId).toBe('even');
  });
});
