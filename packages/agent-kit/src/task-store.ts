import { TaskState } from '@a2a-js/sdk';
import type { Task } from '@a2a-js/sdk';
import type { TaskStore } from '@a2a-js/sdk/server';

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
  /** History messages a list returns per task, at most (none unless asked). */
  listHistoryMax: 10,
} as const;

/**
 * The A2A task store, bounded: the SDK's in-memory store keeps every task (its history and answer) forever, which
 * is a leak in a long-running agent. This one keeps the newest `maxTasks` for `ttlMs`; an evicted task reads as
 * not found, which the protocol allows.
 */
export class BoundedTaskStore implements TaskStore {
  private readonly tasks = new Map<string, { task: Task; at: number; bytes: number }>();
  private bytes = 0;

  constructor(
    private readonly limits: { readonly maxTasks: number; readonly ttlMs: number; readonly maxBytes?: number } = TASK_STORE_LIMITS,
    private readonly now: () => number = Date.now,
  ) {}

  get size(): number {
    return this.tasks.size;
  }

  save(task: Task): Promise<void> {
    const old = this.tasks.get(task.id);
    if (old !== undefined) {
      this.tasks.delete(task.id);
      this.bytes -= old.bytes;
    }
    const bytes = Buffer.byteLength(JSON.stringify(task) ?? '', 'utf8');
    this.tasks.set(task.id, { task: structuredClone(task), at: this.now(), bytes });
    this.bytes += bytes;
    this.evict();
    return Promise.resolve();
  }

  load(taskId: string): Promise<Task | undefined> {
    const entry = this.tasks.get(taskId);
    if (entry === undefined) return Promise.resolve(undefined);
    if (this.now() - entry.at > this.limits.ttlMs) {
      this.tasks.delete(taskId);
      this.bytes -= entry.bytes;
      return Promise.resolve(undefined);
    }
    return Promise.resolve(structuredClone(entry.task));
  }

  list(params: ListRequest): Promise<ListResponse> {
    this.evict();
    const matching = [...this.tasks.values()]
      .map((e) => e.task)
      .filter((t) => (params.contextId === '' || t.contextId === params.contextId) && (params.status === TaskState.TASK_STATE_UNSPECIFIED || t.status?.state === params.status))
      .reverse();
    const pageSize = Math.min(TASK_STORE_LIMITS.pageMax, Math.max(1, params.pageSize ?? 50));
    const offset = /^\d+$/.test(params.pageToken) ? Number(params.pageToken) : 0;
    // A list is a summary: no artifacts unless asked, and at most a few history messages (a small request must
    // not return megabytes of stored answers).
    const history = Math.min(TASK_STORE_LIMITS.listHistoryMax, Math.max(0, params.historyLength ?? 0));
    const page = matching.slice(offset, offset + pageSize).map((t) => {
      const copy = structuredClone(t);
      copy.history = history === 0 ? [] : copy.history.slice(-history);
      if (params.includeArtifacts !== true) copy.artifacts = [];
      return copy;
    });
    const next = offset + pageSize < matching.length ? String(offset + pageSize) : '';
    return Promise.resolve({ tasks: page, nextPageToken: next, pageSize, totalSize: matching.length });
  }

  private evict(): void {
    const cutoff = this.now() - this.limits.ttlMs;
    const maxBytes = this.limits.maxBytes ?? TASK_STORE_LIMITS.maxBytes;
    for (const [id, entry] of this.tasks) {
      if (this.tasks.size <= this.limits.maxTasks && this.bytes <= maxBytes && entry.at >= cutoff) break;
      this.tasks.delete(id);
      this.bytes -= entry.bytes;
    }
  }
}
