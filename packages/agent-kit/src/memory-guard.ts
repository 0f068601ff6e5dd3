import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '@flotilla/core';
import { MEMORY_GUARD_STATES, type FlotillaMetrics, type MemoryGuardState } from '@flotilla/metrics';

/** ok: normal; tight: budgets halved, search first; shed: new work refused with "busy, retry". */
export type GuardState = MemoryGuardState;

export const MEMORY_GUARD_DEFAULTS = {
  /** Share of the limit above which budgets tighten. */
  tightRatio: 0.75,
  /** Share of the limit above which new work is shed. */
  shedRatio: 0.9,
  /** A state is left only when usage falls this far below its threshold (no flapping at the edge). */
  hysteresis: 0.05,
  /** How often usage is sampled. */
  intervalMs: 1_000,
  /** Seconds a shed caller is told to wait (Retry-After). */
  retryAfterSeconds: 5,
} as const;

/** cgroup v1 reports "no limit" as a page-aligned huge number; anything above this is no limit. */
const V1_UNLIMITED = 2 ** 60;

/**
 * The container's memory limit in bytes: cgroup v2 `memory.max`, else v1 `memory/memory.limit_in_bytes`;
 * undefined outside a container or without a limit ("max"). `root` is the cgroup mount (tests pass a folder).
 */
export async function readMemoryLimit(root = '/sys/fs/cgroup'): Promise<number | undefined> {
  const read = async (path: string): Promise<string | undefined> => {
    try {
      return (await readFile(join(root, path), 'utf8')).trim();
    } catch {
      return undefined;
    }
  };
  const v2 = await read('memory.max');
  if (v2 !== undefined) return v2 === 'max' || !/^\d+$/.test(v2) ? undefined : Number(v2);
  const v1 = await read('memory/memory.limit_in_bytes');
  if (v1 === undefined || !/^\d+$/.test(v1)) return undefined;
  const bytes = Number(v1);
  return bytes >= V1_UNLIMITED ? undefined : bytes;
}

/**
 * The container's working set as the kubelet counts it: usage (v2 `memory.current`, v1 `memory.usage_in_bytes`)
 * minus inactive page cache (`inactive_file`), which the kernel reclaims before an OOM kill (spilled result files
 * would otherwise look like memory); RSS outside a container.
 */
export async function readMemoryUsage(root = '/sys/fs/cgroup'): Promise<number> {
  const read = async (path: string): Promise<string | undefined> => {
    try {
      return await readFile(join(root, path), 'utf8');
    } catch {
      return undefined;
    }
  };
  for (const [usagePath, statPath, inactiveKey] of [
    ['memory.current', 'memory.stat', 'inactive_file'],
    ['memory/memory.usage_in_bytes', 'memory/memory.stat', 'total_inactive_file'],
  ] as const) {
    const usage = (await read(usagePath))?.trim();
    if (usage === undefined || !/^\d+$/.test(usage)) continue;
    const stat = (await read(statPath)) ?? '';
    const inactive = new RegExp(`^${inactiveKey} (\\d+)$`, 'm').exec(stat)?.[1];
    return Math.max(0, Number(usage) - (inactive === undefined ? 0 : Number(inactive)));
  }
  return process.memoryUsage.rss();
}

export interface MemoryGuardOptions {
  /** Bytes; undefined: no limit known, the guard stays ok. */
  readonly limitBytes: number | undefined;
  /** Current usage in bytes (the cgroup's, or RSS). */
  readonly usage?: () => Promise<number> | number;
  readonly tightRatio?: number;
  readonly shedRatio?: number;
  readonly intervalMs?: number;
  readonly retryAfterSeconds?: number;
  readonly logger?: Logger;
  /** Told of every state change and each sample's ratio (metrics). */
  readonly onSample?: (state: GuardState, ratio: number) => void;
}

/**
 * Watches memory against the container limit and says how much work the agent may take on: above 75% budgets are
 * halved (`budgetFactor`), above 90% new work is refused (`accepting` false) until usage falls back.
 */
export class MemoryGuard {
  private current: GuardState = 'ok';
  private lastRatio = 0;
  private timer: NodeJS.Timeout | undefined;
  readonly retryAfterSeconds: number;
  private readonly tight: number;
  private readonly shed: number;

  constructor(private readonly options: MemoryGuardOptions) {
    this.tight = options.tightRatio ?? MEMORY_GUARD_DEFAULTS.tightRatio;
    this.shed = options.shedRatio ?? MEMORY_GUARD_DEFAULTS.shedRatio;
    this.retryAfterSeconds = options.retryAfterSeconds ?? MEMORY_GUARD_DEFAULTS.retryAfterSeconds;
    if (!(this.tight > 0 && this.tight < this.shed && this.shed <= 1)) throw new RangeError('memory guard: need 0 < tightRatio < shedRatio <= 1');
  }

  get state(): GuardState {
    return this.current;
  }

  get ratio(): number {
    return this.lastRatio;
  }

  /** The share of the limit above which work is shed. */
  get shedRatio(): number {
    return this.shed;
  }

  get limitBytes(): number | undefined {
    return this.options.limitBytes;
  }

  /** Whether new work is taken. */
  get accepting(): boolean {
    return this.current !== 'shed';
  }

  /** 1 normally; 0.5 when memory is tight or shedding (context and tool budgets are multiplied by it). */
  get budgetFactor(): number {
    return this.current === 'ok' ? 1 : 0.5;
  }

  /** Samples usage once and moves between states (with hysteresis on the way down). */
  async check(): Promise<GuardState> {
    const limit = this.options.limitBytes;
    if (limit === undefined || limit <= 0) return this.current;
    const used = await (this.options.usage ?? readMemoryUsage)();
    const ratio = used / limit;
    this.lastRatio = ratio;
    const h = MEMORY_GUARD_DEFAULTS.hysteresis;
    let next: GuardState;
    if (ratio >= this.shed) next = 'shed';
    else if (ratio >= this.tight) next = this.current === 'shed' && ratio >= this.shed - h ? 'shed' : 'tight';
    else next = this.current !== 'ok' && ratio >= this.tight - h ? 'tight' : 'ok';
    if (next !== this.current) {
      this.options.logger?.warn({ from: this.current, to: next, usedBytes: used, limitBytes: limit, ratio: Number(ratio.toFixed(3)) }, 'memory guard state changed');
      this.current = next;
    }
    this.options.onSample?.(this.current, ratio);
    return this.current;
  }

  /** Samples every intervalMs until stopped (the timer does not keep the process alive). */
  start(): this {
    if (this.timer !== undefined || this.options.limitBytes === undefined) return this;
    const tick = (): void => {
      this.check().catch((error: unknown) => this.options.logger?.warn({ err: error }, 'memory guard sample failed'));
    };
    tick();
    this.timer = setInterval(tick, this.options.intervalMs ?? MEMORY_GUARD_DEFAULTS.intervalMs);
    this.timer.unref();
    return this;
  }

  stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
  }
}

/**
 * The guard of an agent process: the container limit read from the cgroup (none outside a container: the guard
 * stays ok), sampled every second, its state and usage exported as metrics. `limitBytes` overrides (tests, or a
 * limit the cgroup does not show).
 */
export async function startMemoryGuard(options: {
  readonly agent: string;
  readonly metrics: Pick<FlotillaMetrics, 'memoryGuardState' | 'memoryUsageRatio'>;
  readonly logger: Logger;
  readonly limitBytes?: number | undefined;
  readonly usage?: () => Promise<number> | number;
}): Promise<MemoryGuard> {
  const limitBytes = options.limitBytes ?? (await readMemoryLimit());
  const { agent, metrics } = options;
  const publish = (state: GuardState, ratio: number): void => {
    for (const s of MEMORY_GUARD_STATES) metrics.memoryGuardState.set({ agent, state: s }, s === state ? 1 : 0);
    metrics.memoryUsageRatio.set({ agent }, ratio);
  };
  publish('ok', 0);
  options.logger.info({ limitBytes: limitBytes ?? 'none' }, limitBytes === undefined ? 'memory guard off: no container memory limit' : 'memory guard on');
  return new MemoryGuard({ limitBytes, logger: options.logger, onSample: publish, ...(options.usage === undefined ? {} : { usage: options.usage }) }).start();
}
