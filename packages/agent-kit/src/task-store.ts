import { TaskState } from '@a2a-js/sdk';
import type { Task } from '@a2a-js/sdk';
import { RequestMalformedError } from '@a2a-js/sdk/errors';
import type { TaskStore } from '@a2a-js/sdk/server';
import type { FlotillaMetrics, StoreEvictionReason } from '@flotilla/metrics';

type ListRequest = Parameters<TaskStore['list']>[0];
type ListResponse = Awaited<ReturnType<TaskStore['list']>>;

export const TASK_STORE_LIMITS = {
  /** Tasks kept (the least recently saved dropped first): far more than are in flight at once. */
  maxTasks: 2_000,
  /** A finished task can be read back (tasks/get) this long. */
  ttlMs: 60 * 60 * 1000,
  /** Tasks one list page returns. */
  pageMax: 50,
  /** Bytes of all tasks kept (JSON size); the least recently saved go first. */
  maxBytes: 64 * 1024 * 1024,
  /**
   * Bytes of one task (JSON size): a task carrying a whole 1 MiB request fits, and no task takes more than 1/32 of
   * the store. A larger one is trimmed to fit (oldest history first, then its artifacts), and says so in its metadata.
   */
  taskMaxBytes: 2 * 1024 * 1024,
  /** History messages a list returns per task, at most (none unless asked). */
  listHistoryMax: 10,
} as const;

export interface BoundedTaskStoreOptions {
  readonly maxTasks?: number;
  readonly ttlMs?: number;
  readonly maxBytes?: number;
  readonly taskMaxBytes?: number;
  /** Entries and bytes (`storeEntries`, `storeBytes`) and evictions by reason, labelled `store: task`; stores of one process sum. */
  readonly metrics?: Pick<FlotillaMetrics, 'storeBytes' | 'storeEntries' | 'storeEvictions'> | undefined;
}

interface Entry {
  readonly task: Task;
  readonly at: number;
  readonly bytes: number;
  /** Save order: list pages are cursors over it (newest first), so tasks saved meanwhile never shift a page. */
  readonly seq: number;
}

const STORE = { store: 'task' } as const;
const sizeOf = (value: unknown): number => Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');

/**
 * A string JSON writes as it is, quoted: no quote, backslash or control character (escaped), and no surrogate (a lone
 * one is escaped too). Built from a string: the control range would read as a mistake in a literal.
 */
const PLAIN_JSON_STRING = new RegExp(`^[^"\\\\${String.fromCharCode(0)}-${String.fromCharCode(0x1f)}\\ud800-\\udfff]*$`);

/**
 * A deep copy of a task and the UTF-8 size of its JSON (what `JSON.stringify` would write), in one walk: the SDK
 * saves and loads a task three or four times per turn, and structuredClone plus JSON.stringify on each cost more than
 * the rest of a cached answer. Plain objects and arrays are copied here; anything else (bytes of a raw part) by
 * structuredClone and measured by JSON.stringify, as before.
 */
export function copyMeasured<T>(value: T, measure = true): { readonly copy: T; readonly bytes: number } {
  let bytes = 0;
  /** Bytes of a string's JSON; 0 when only a copy is wanted (a load). */
  const jsonString = (text: string): number =>
    !measure ? 0 : PLAIN_JSON_STRING.test(text) ? Buffer.byteLength(text, 'utf8') + 2 : Buffer.byteLength(JSON.stringify(text), 'utf8');
  const walk = (v: unknown, inArray: boolean): unknown => {
    switch (typeof v) {
      case 'string':
        bytes += jsonString(v);
        return v;
      case 'number':
        if (measure) bytes += Number.isFinite(v) ? String(v).length : 4;
        return v;
      case 'boolean':
        bytes += v ? 4 : 5;
        return v;
      case 'undefined':
      case 'function':
      case 'symbol':
        // Dropped from an object (its key too, counted by the caller); null in an array.
        if (inArray) bytes += 4;
        return v;
      case 'bigint':
        bytes += String(v).length;
        return v;
      case 'object':
        break;
    }
    if (v === null) {
      bytes += 4;
      return v;
    }
    if (Array.isArray(v)) {
      const out: unknown[] = new Array<unknown>(v.length);
      bytes += 2 + Math.max(0, v.length - 1);
      for (let i = 0; i < v.length; i += 1) out[i] = walk(v[i], true);
      return out;
    }
    const object = v as Record<string, unknown>;
    const proto: unknown = Object.getPrototypeOf(object);
    if (proto !== Object.prototype && proto !== null) {
      if (measure) bytes += Buffer.byteLength(JSON.stringify(object) ?? 'null', 'utf8');
      return structuredClone(object);
    }
    const out: Record<string, unknown> = {};
    let written = 0;
    for (const key of Object.keys(object)) {
      const item = object[key];
      const kind = typeof item;
      const copied = walk(item, false);
      // A "__proto__" key is data (JSON.parse makes it an own property): assigned, it would set the copy's prototype.
      if (key === '__proto__') Object.defineProperty(out, key, { value: copied, enumerable: true, writable: true, configurable: true });
      else out[key] = copied;
      if (kind === 'undefined' || kind === 'function' || kind === 'symbol') continue;
      bytes += jsonString(key) + 1;
      written += 1;
    }
    bytes += 2 + Math.max(0, written - 1);
    return out;
  };
  const copy = walk(value, false) as T;
  return { copy, bytes };
}
/** The time a task's status last changed, for statusTimestampAfter: its status timestamp, else when it was saved. */
const updatedAt = (entry: Entry): number => {
  const stamp = entry.task.status?.timestamp;
  const parsed = stamp === undefined ? Number.NaN : Date.parse(stamp);
  return Number.isNaN(parsed) ? entry.at : parsed;
};

/**
 * The A2A task store, bounded: the SDK's in-memory store keeps every task (its history and answer) forever, which
 * is a leak in a long-running agent. This one keeps the newest `maxTasks` for `ttlMs` within `maxBytes`, each task
 * within `taskMaxBytes`; an evicted task reads as not found, which the protocol allows. Lists are newest first,
 * paged by cursor; a page token this store did not issue is refused as invalid params (-32602 / HTTP 400).
 */
export class BoundedTaskStore implements TaskStore {
  private readonly tasks = new Map<string, Entry>();
  private bytes = 0;
  private seq = 0;
  private readonly maxTasks: number;
  private readonly ttlMs: number;
  private readonly maxBytes: number;
  private readonly taskMaxBytes: number;
  private readonly metrics: BoundedTaskStoreOptions['metrics'];

  constructor(
    options: BoundedTaskStoreOptions = {},
    private readonly now: () => number = Date.now,
  ) {
    this.maxTasks = options.maxTasks ?? TASK_STORE_LIMITS.maxTasks;
    this.ttlMs = options.ttlMs ?? TASK_STORE_LIMITS.ttlMs;
    this.maxBytes = options.maxBytes ?? TASK_STORE_LIMITS.maxBytes;
    this.taskMaxBytes = Math.min(this.maxBytes, options.taskMaxBytes ?? TASK_STORE_LIMITS.taskMaxBytes);
    this.metrics = options.metrics;
    // The series exist (at 0) from the start, so a dashboard tells an empty store from a missing one.
    this.metrics?.storeEntries.inc(STORE, 0);
    this.metrics?.storeBytes.inc(STORE, 0);
  }

  get size(): number {
    return this.tasks.size;
  }

  save(task: Task): Promise<void> {
    const old = this.tasks.get(task.id);
    if (old !== undefined) this.remove(task.id, old);
    const { copy, bytes } = copyMeasured(task);
    this.seq += 1;
    this.add(task.id, { task: copy, at: this.now(), bytes: bytes <= this.taskMaxBytes ? bytes : this.fit(copy), seq: this.seq });
    this.evict();
    return Promise.resolve();
  }

  load(taskId: string): Promise<Task | undefined> {
    const entry = this.tasks.get(taskId);
    if (entry === undefined) return Promise.resolve(undefined);
    if (this.now() - entry.at > this.ttlMs) {
      this.remove(taskId, entry, 'ttl');
      return Promise.resolve(undefined);
    }
    return Promise.resolve(copyMeasured(entry.task, false).copy);
  }

  list(params: ListRequest): Promise<ListResponse> {
    const { historyLength, statusTimestampAfter } = params;
    if (historyLength !== undefined && !(Number.isInteger(historyLength) && historyLength >= 0)) {
      return Promise.reject(new RequestMalformedError(`historyLength must be an integer of 0 or more (0: no history); got ${historyLength}`));
    }
    const after = statusTimestampAfter === undefined || statusTimestampAfter === '' ? undefined : Date.parse(statusTimestampAfter);
    if (after !== undefined && Number.isNaN(after)) {
      return Promise.reject(new RequestMalformedError(`statusTimestampAfter must be an ISO 8601 time such as 2026-01-31T12:00:00Z; got ${JSON.stringify(statusTimestampAfter?.slice(0, 40))}`));
    }
    // A token is the save number of the last task of the page before; one above any number given out was never issued.
    const token = params.pageToken ?? '';
    if (token !== '' && !(/^[1-9]\d{0,15}$/.test(token) && Number(token) <= this.seq)) {
      return Promise.reject(new RequestMalformedError(`pageToken ${JSON.stringify(token.slice(0, 40))} was not issued by this agent; list again without a pageToken (or with the nextPageToken of the last page)`));
    }
    const before = token === '' ? Number.POSITIVE_INFINITY : Number(token);
    this.evict();
    const matching = [...this.tasks.values()]
      .filter(
        (e) =>
          (params.contextId === '' || e.task.contextId === params.contextId) &&
          (params.status === TaskState.TASK_STATE_UNSPECIFIED || e.task.status?.state === params.status) &&
          (after === undefined || updatedAt(e) > after),
      )
      .reverse();
    const pageSize = Math.min(TASK_STORE_LIMITS.pageMax, Math.max(1, params.pageSize ?? TASK_STORE_LIMITS.pageMax));
    const rest = matching.filter((e) => e.seq < before);
    const page = rest.slice(0, pageSize);
    // A list is a summary: no artifacts unless asked, and at most a few history messages (a small request must
    // not return megabytes of stored answers).
    const history = Math.min(TASK_STORE_LIMITS.listHistoryMax, historyLength ?? 0);
    const tasks = page.map((e) => {
      const { copy } = copyMeasured(e.task, false);
      copy.history = history === 0 ? [] : copy.history.slice(-history);
      if (params.includeArtifacts !== true) copy.artifacts = [];
      return copy;
    });
    const last = page.at(-1);
    const nextPageToken = rest.length > page.length && last !== undefined ? String(last.seq) : '';
    return Promise.resolve({ tasks, nextPageToken, pageSize, totalSize: matching.length });
  }

  /**
   * Trims a task over taskMaxBytes to fit (its oldest history messages first, then its artifacts, then its status
   * message), saying what went in its metadata (`trimmed`); returns its size. Each message is sized once.
   */
  private fit(task: Task): number {
    let bytes = sizeOf(task);
    if (bytes <= this.taskMaxBytes) return bytes;
    const sizes = task.history.map(sizeOf);
    let historyMessages = 0;
    while (bytes > this.taskMaxBytes && task.history.length > 0) {
      task.history.shift();
      bytes -= (sizes[historyMessages] ?? 0) + 1;
      historyMessages += 1;
    }
    bytes = sizeOf(task);
    const artifacts = bytes > this.taskMaxBytes ? task.artifacts.length : 0;
    if (artifacts > 0) {
      task.artifacts = [];
      bytes = sizeOf(task);
    }
    const statusMessage = bytes > this.taskMaxBytes && task.status?.message !== undefined;
    if (statusMessage && task.status !== undefined) task.status.message = undefined;
    task.metadata = {
      ...task.metadata,
      trimmed: { reason: `the task was over ${this.taskMaxBytes} bytes, the most this agent keeps of one task`, history_messages: historyMessages, artifacts, status_message: statusMessage },
    };
    return sizeOf(task);
  }

  private add(id: string, entry: Entry): void {
    this.tasks.set(id, entry);
    this.bytes += entry.bytes;
    this.metrics?.storeEntries.inc(STORE);
    this.metrics?.storeBytes.inc(STORE, entry.bytes);
  }

  private remove(id: string, entry: Entry, reason?: StoreEvictionReason): void {
    this.tasks.delete(id);
    this.bytes -= entry.bytes;
    this.metrics?.storeEntries.dec(STORE);
    this.metrics?.storeBytes.dec(STORE, entry.bytes);
    if (reason !== undefined) this.metrics?.storeEvictions.inc({ ...STORE, reason });
  }

  /** Oldest first (a Map iterates in save order): expired tasks, then past the entries cap, then past the byte cap. */
  private evict(): void {
    const cutoff = this.now() - this.ttlMs;
    for (const [id, entry] of this.tasks) {
      const reason: StoreEvictionReason | undefined =
        entry.at < cutoff ? 'ttl' : this.tasks.size > this.maxTasks ? 'entries_cap' : this.bytes > this.maxBytes ? 'bytes_cap' : undefined;
      if (reason === undefined) break;
      this.remove(id, entry, reason);
    }
  }
}
