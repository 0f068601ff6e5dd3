import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Role, TaskState, type Message, type Task } from '@a2a-js/sdk';
import { createMetrics, METRIC } from '@flotilla/metrics';
import { BoundedTaskStore, TASK_STORE_LIMITS } from './index.js';
import { copyMeasured } from './task-store.js';

const task = (id: string, contextId = 'c1', timestamp?: string): Task =>
  ({ id, contextId, status: { state: TaskState.TASK_STATE_COMPLETED, timestamp, message: undefined }, artifacts: [], history: [], metadata: undefined });
const listAll = (contextId = '') => ({ tenant: '', contextId, status: 0, pageToken: '', statusTimestampAfter: undefined }) as never;
const list = (params: Record<string, unknown>) => ({ ...(listAll() as object), ...params }) as never;
const message = (id: string, chars: number): Message =>
  ({ messageId: id, contextId: 'c1', taskId: '', role: Role.ROLE_USER, parts: [{ content: { $case: 'text', value: 'm'.repeat(chars) }, metadata: undefined, filename: '', mediaType: '' }], metadata: undefined, extensions: [], referenceTaskIds: [] });

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

  it('lists tasks whose status changed after statusTimestampAfter (a task without a timestamp: when it was saved)', async () => {
    let now = Date.parse('2026-01-01T00:00:05Z');
    const store = new BoundedTaskStore({}, () => now);
    await store.save(task('early', 'c1', '2026-01-01T00:00:01Z'));
    await store.save(task('middle', 'c1', '2026-01-01T00:00:02.500Z'));
    await store.save(task('late', 'c1', '2026-01-01T00:00:09Z'));
    await store.save(task('unstamped'));
    now = Date.parse('2026-01-01T00:00:01Z');
    await store.save(task('unstamped-early'));
    const ids = async (after: string) => (await store.list(list({ statusTimestampAfter: after }))).tasks.map((t) => t.id);
    // Newest saved first; 'unstamped-early' was saved at 00:00:01, 'unstamped' at 00:00:05.
    expect(await ids('2026-01-01T00:00:02Z')).toEqual(['unstamped', 'late', 'middle']);
    expect(await ids('2026-01-01T00:00:02.500Z')).toEqual(['unstamped', 'late']);
    expect(await ids('2026-01-01T00:00:10Z')).toEqual([]);
    expect((await store.list(list({ statusTimestampAfter: '2026-01-01T00:00:02Z' }))).totalSize).toBe(3);
    await expect(store.list(list({ statusTimestampAfter: 'yesterday' }))).rejects.toMatchObject({ name: 'RequestMalformedError', message: expect.stringMatching(/statusTimestampAfter must be an ISO 8601 time/) as unknown });
  });

  it('pages by cursor: tasks saved between pages shift nothing, and a token it did not issue is refused as invalid params', async () => {
    const store = new BoundedTaskStore();
    for (const id of ['a', 'b', 'c', 'd', 'e']) await store.save(task(id));
    const first = await store.list(list({ pageSize: 2 }));
    expect(first.tasks.map((t) => t.id)).toEqual(['e', 'd']);
    // New work arrives while the caller pages: the next page still starts after 'd'.
    await store.save(task('f'));
    const second = await store.list(list({ pageSize: 2, pageToken: first.nextPageToken }));
    expect(second.tasks.map((t) => t.id)).toEqual(['c', 'b']);
    const third = await store.list(list({ pageSize: 2, pageToken: second.nextPageToken }));
    expect(third).toMatchObject({ tasks: [{ id: 'a' }], nextPageToken: '', totalSize: 6 });
    for (const token of ['x', '-1', '0', '1.5', ' 2', '7', '123456789012345678', 'MTIzfGFiYw==']) {
      await expect(store.list(list({ pageToken: token }))).rejects.toMatchObject({ name: 'RequestMalformedError', message: expect.stringMatching(/^pageToken ".*" was not issued by this agent/) as unknown });
    }
  });

  it('refuses a negative or fractional historyLength as invalid params; 0 lists no history', async () => {
    const store = new BoundedTaskStore();
    await store.save({ ...task('a'), history: [message('m1', 5), message('m2', 5)] });
    for (const historyLength of [-1, -100, 1.5, Number.NaN]) {
      await expect(store.list(list({ historyLength }))).rejects.toMatchObject({ name: 'RequestMalformedError', message: expect.stringMatching(/historyLength must be an integer of 0 or more/) as unknown });
    }
    expect((await store.list(list({ historyLength: 0 }))).tasks[0]?.history).toEqual([]);
    expect((await store.list(list({ historyLength: 1 }))).tasks[0]?.history.map((m) => m.messageId)).toEqual(['m2']);
  });

  it('trims one task over taskMaxBytes (oldest history, then artifacts) and says so, so it never evicts the others', async () => {
    const store = new BoundedTaskStore({ maxTasks: 100, ttlMs: 60_000, maxBytes: 100_000, taskMaxBytes: 20_000 });
    await store.save(task('small-1'));
    await store.save(task('small-2'));
    const history = ['h1', 'h2', 'h3', 'h4', 'h5'].map((id) => message(id, 6_000));
    await store.save({ ...task('big'), history });
    const big = await store.load('big');
    expect(big?.history.map((m) => m.messageId)).toEqual(['h3', 'h4', 'h5']);
    expect(big?.metadata).toMatchObject({ trimmed: { history_messages: 2, artifacts: 0, status_message: false, reason: expect.stringContaining('over 20000 bytes') as unknown } });
    expect(Buffer.byteLength(JSON.stringify(big))).toBeLessThanOrEqual(20_000);
    // An answer larger than the cap on its own goes too (the history first), said in the metadata.
    const artifacts = [{ artifactId: 'a', name: '', description: '', parts: [{ content: { $case: 'text', value: 'x'.repeat(30_000) } }], metadata: undefined, extensions: [] }];
    await store.save({ ...task('huge-answer'), history: [message('q', 10)], artifacts } as unknown as Task);
    expect((await store.load('huge-answer'))?.metadata).toMatchObject({ trimmed: { history_messages: 1, artifacts: 1 } });
    expect((await store.list(listAll())).tasks.map((t) => t.id)).toEqual(['huge-answer', 'big', 'small-2', 'small-1']);
    // The default cap is well above a whole 1 MiB request.
    expect(TASK_STORE_LIMITS.taskMaxBytes).toBeGreaterThan(1024 * 1024);
  });

  it('keeps the store gauges and counts evictions by reason (entries_cap, bytes_cap, ttl)', async () => {
    const metrics = createMetrics();
    let now = 0;
    const store = new BoundedTaskStore({ maxTasks: 2, ttlMs: 1_000, maxBytes: 5_000, metrics }, () => now);
    const read = async (name: string, labels: string) => {
      const line = (await metrics.registry.metrics()).split('\n').find((l) => l.startsWith(`${name}{${labels}}`));
      return line === undefined ? undefined : Number(line.split(' ').at(-1));
    };
    expect(await read(METRIC.storeEntries, 'store="task"')).toBe(0);
    await store.save(task('a'));
    await store.save(task('b'));
    // Saving again replaces, it does not add.
    await store.save(task('b'));
    expect(await read(METRIC.storeEntries, 'store="task"')).toBe(2);
    const two = await read(METRIC.storeBytes, 'store="task"');
    expect(two).toBe(2 * Buffer.byteLength(JSON.stringify(task('a'))));
    await store.save(task('c'));
    expect(await read(METRIC.storeEvictions, 'store="task",reason="entries_cap"')).toBe(1);
    // Two tasks of 3 KB: the third save drops 'c' (entries), then 'd' (bytes: 6 KB > 5 KB).
    await store.save({ ...task('d'), history: [message('m', 3_000)] });
    await store.save({ ...task('e'), history: [message('m', 3_000)] });
    expect(await read(METRIC.storeEvictions, 'store="task",reason="entries_cap"')).toBe(3);
    expect(await read(METRIC.storeEvictions, 'store="task",reason="bytes_cap"')).toBe(1);
    expect(store.size).toBe(1);
    now = 2_000;
    expect(await store.load('e')).toBeUndefined();
    expect(await read(METRIC.storeEvictions, 'store="task",reason="ttl"')).toBe(1);
    expect(store.size).toBe(0);
    expect(await read(METRIC.storeEntries, 'store="task"')).toBe(0);
    expect(await read(METRIC.storeBytes, 'store="task"')).toBe(0);
  });

  it('sizes a task in one walk exactly as its JSON, and keeps a copy the caller cannot change', () => {
    // Any JSON-like value, with what JSON drops or escapes: undefined fields, quotes, controls, astral and lone surrogates.
    const text = fc.oneof(fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme' }), fc.constantFrom('"', '\\', '\n', '\u0000', '\ud800', 'é😀'));
    const value = fc.letrec((tie) => ({
      leaf: fc.oneof(text, fc.double(), fc.integer(), fc.boolean(), fc.constant(null), fc.constant(undefined)),
      node: fc.oneof({ depthSize: 'small' }, tie('leaf'), fc.array(tie('node'), { maxLength: 4 }), fc.dictionary(text, tie('node'), { maxKeys: 4 })),
    })).node;
    fc.assert(
      fc.property(value, (v) => {
        const { copy, bytes } = copyMeasured(v);
        expect(bytes).toBe(Buffer.byteLength(JSON.stringify(v) ?? '', 'utf8'));
        expect(copy).toEqual(v);
      }),
      { numRuns: 500 },
    );
    const original = { ...task('a'), history: [message('m', 10)] };
    const { copy } = copyMeasured(original);
    (copy.history[0] as Message).messageId = 'changed';
    expect(original.history[0]?.messageId).toBe('m');
    // Bytes of a raw part are copied, not shared.
    const raw = { bytes: new Uint8Array([1, 2, 3]) };
    const copied = copyMeasured(raw);
    expect(copied.bytes).toBe(Buffer.byteLength(JSON.stringify(raw)));
    copied.copy.bytes[0] = 9;
    expect(raw.bytes[0]).toBe(1);
  });
});

describe('copying a task', () => {
  it('keeps a "__proto__" key as data, as JSON.parse made it (the property test once found it dropped)', () => {
    const value: unknown = JSON.parse('{"":[{"__proto__":0}]}');
    const { copy, bytes } = copyMeasured(value);
    expect(JSON.stringify(copy)).toBe(JSON.stringify(value));
    expect(bytes).toBe(Buffer.byteLength(JSON.stringify(value), 'utf8'));
  });
});
