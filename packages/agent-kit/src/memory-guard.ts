import { open, type FileHandle } from 'node:fs/promises';
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
/** cgroup files are a few lines; nothing read here may be larger. */
const CGROUP_FILE_MAX_BYTES = 64 * 1024;
/** A node with many containers has a long mount table; the cgroup mounts come early, a cut-off tail is dropped. */
const MOUNTINFO_MAX_BYTES = 1024 * 1024;

export type CgroupVersion = 'v1' | 'v2';

/** Where the process's cgroup membership and mount table are read; tests point them at a fake tree. */
export interface CgroupPaths {
  /** Default /proc/self/cgroup. */
  readonly procSelfCgroup?: string;
  /** Default /proc/self/mountinfo. */
  readonly mountinfo?: string;
}

/** The memory cgroup the process is in, found through /proc/self/cgroup and /proc/self/mountinfo. */
export interface MemoryCgroup {
  readonly version: CgroupVersion;
  /** The process's own cgroup directory. */
  readonly dir: string;
  /** Where the hierarchy is mounted: limits are looked for from `dir` up to here, never above. */
  readonly mountPoint: string;
  /** The smallest limit on `dir` and its ancestors up to the mount point; undefined: none. */
  readonly limitBytes: number | undefined;
  /** The directory that limit is set on (its working set is what the limit is enforced against). */
  readonly limitDir: string | undefined;
}

/** A file's text, at most `maxBytes` of it; undefined when it (or its folder) does not exist. */
async function readBounded(path: string, maxBytes = CGROUP_FILE_MAX_BYTES): Promise<string | undefined> {
  let handle: FileHandle;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
  try {
    // /proc and cgroupfs files report size 0: read until end of file or the cap.
    const buffer = Buffer.alloc(maxBytes);
    let filled = 0;
    while (filled < maxBytes) {
      const { bytesRead } = await handle.read(buffer, filled, maxBytes - filled, null);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return buffer.toString('utf8', 0, filled);
  } finally {
    await handle.close();
  }
}

function isMissing(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/** A number of bytes from a cgroup file: digits only, else undefined. */
function bytesIn(text: string | undefined): number | undefined {
  const value = text?.trim();
  return value !== undefined && /^\d+$/.test(value) ? Number(value) : undefined;
}

/**
 * The memory limit set on one cgroup directory (not its ancestors): v2 `memory.max`, v1 `memory.limit_in_bytes`;
 * undefined without one ("max", v1's huge "unlimited", no file).
 */
export async function readMemoryLimit(version: CgroupVersion, dir: string): Promise<number | undefined> {
  const bytes = bytesIn(await readBounded(join(dir, version === 'v2' ? 'memory.max' : 'memory.limit_in_bytes')));
  return bytes === undefined || (version === 'v1' && bytes >= V1_UNLIMITED) ? undefined : bytes;
}

/**
 * One cgroup directory's working set as the kubelet counts it: usage (v2 `memory.current`, v1 `memory.usage_in_bytes`)
 * minus inactive page cache (`inactive_file`, v1 `total_inactive_file`), which the kernel reclaims before an OOM kill
 * (spilled result files would otherwise look like memory); undefined when the directory has no usage file.
 */
export async function readMemoryUsage(version: CgroupVersion, dir: string): Promise<number | undefined> {
  const [usageFile, inactiveKey] = version === 'v2' ? ['memory.current', 'inactive_file'] : ['memory.usage_in_bytes', 'total_inactive_file'];
  const usage = bytesIn(await readBounded(join(dir, usageFile)));
  if (usage === undefined) return undefined;
  const stat = (await readBounded(join(dir, 'memory.stat'))) ?? '';
  const inactive = new RegExp(`^${inactiveKey} (\\d+)$`, 'm').exec(stat)?.[1];
  return Math.max(0, usage - (inactive === undefined ? 0 : Number(inactive)));
}

/** The v2 path (`0::/path`) and the v1 memory controller's path (`4:memory:/path`, `5:cpuacct,memory:/path`). */
function parseProcCgroup(text: string): { readonly v2: string | undefined; readonly v1: string | undefined } {
  let v2: string | undefined;
  let v1: string | undefined;
  for (const line of text.split('\n')) {
    const first = line.indexOf(':');
    const second = line.indexOf(':', first + 1);
    if (first < 0 || second < 0) continue;
    const controllers = line.slice(first + 1, second);
    const path = line.slice(second + 1);
    if (!path.startsWith('/')) continue;
    if (line.slice(0, first) === '0' && controllers === '') v2 = path;
    else if (controllers.split(',').includes('memory')) v1 = path;
  }
  return { v2, v1 };
}

interface CgroupMount {
  readonly fsType: string;
  /** The path inside the hierarchy that is mounted (mountinfo's 4th field). */
  readonly root: string;
  readonly mountPoint: string;
  readonly superOptions: readonly string[];
}

/** mountinfo escapes space, tab, newline and backslash as octal (`\040`). */
function unescapeMountPath(field: string): string {
  return field.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(Number.parseInt(octal, 8)));
}

/** The cgroup and cgroup2 mounts of a mountinfo table, in mount order. */
function parseMountinfo(text: string): CgroupMount[] {
  const mounts: CgroupMount[] = [];
  for (const line of text.split('\n')) {
    const fields = line.split(' ');
    // id parent major:minor root mount-point options [optional fields...] - fstype source super-options
    const dash = fields.indexOf('-', 6);
    if (dash < 0 || fields.length < dash + 4) continue;
    const fsType = fields[dash + 1] ?? '';
    if (fsType !== 'cgroup' && fsType !== 'cgroup2') continue;
    const root = unescapeMountPath(fields[3] ?? '');
    const mountPoint = unescapeMountPath(fields[4] ?? '');
    if (!root.startsWith('/') || !mountPoint.startsWith('/')) continue;
    mounts.push({ fsType, root, mountPoint, superOptions: (fields[dash + 3] ?? '').split(',') });
  }
  return mounts;
}

/** `path` relative to `root` as path segments, or undefined when `path` is not under `root`. */
function segmentsUnder(path: string, root: string): string[] | undefined {
  const base = root.length > 1 ? root.replace(/\/+$/, '') : root;
  if (base !== '/' && path !== base && !path.startsWith(`${base}/`)) return undefined;
  return path
    .slice(base === '/' ? 0 : base.length)
    .split('/')
    .filter((s) => s !== '' && s !== '.');
}

/**
 * The process's directory in a hierarchy: the mount point plus the cgroup path below the mount's root. A path not
 * under the root (a cgroup namespace, or the container's own cgroup bind-mounted) is the mount point itself, and so
 * is one with `..` in it: nothing outside the mount point is ever read.
 */
function locate(mounts: readonly CgroupMount[], path: string): { readonly mountPoint: string; readonly segments: readonly string[] } | undefined {
  let best: { readonly mount: CgroupMount; readonly segments: string[] } | undefined;
  for (const mount of mounts) {
    const segments = segmentsUnder(path, mount.root);
    if (segments !== undefined && (best === undefined || mount.root.length > best.mount.root.length)) best = { mount, segments };
  }
  if (best !== undefined) return { mountPoint: best.mount.mountPoint, segments: best.segments.includes('..') ? [] : best.segments };
  const last = mounts.at(-1);
  return last === undefined ? undefined : { mountPoint: last.mountPoint, segments: [] };
}

/**
 * The memory cgroup of this process, and the smallest memory limit on it or an ancestor up to the mount point;
 * undefined when the process is in no memory hierarchy (no /proc, no cgroup mount). cgroup v2 is used when its
 * hierarchy has the memory controller or there is no v1 memory controller; a hybrid host (v1 memory, a v2 `unified`
 * mount without controllers) uses v1. Of equal limits, the one higher up counts (more is charged to it).
 */
export async function resolveMemoryCgroup(paths: CgroupPaths = {}): Promise<MemoryCgroup | undefined> {
  const membership = await readBounded(paths.procSelfCgroup ?? '/proc/self/cgroup');
  const table = await readBounded(paths.mountinfo ?? '/proc/self/mountinfo', MOUNTINFO_MAX_BYTES);
  if (membership === undefined || table === undefined) return undefined;
  const { v2, v1 } = parseProcCgroup(membership);
  const mounts = parseMountinfo(table.length >= MOUNTINFO_MAX_BYTES ? table.slice(0, table.lastIndexOf('\n') + 1) : table);
  const v2Place = v2 === undefined ? undefined : locate(mounts.filter((m) => m.fsType === 'cgroup2'), v2);
  const v1Place = v1 === undefined ? undefined : locate(mounts.filter((m) => m.fsType === 'cgroup' && m.superOptions.includes('memory')), v1);
  let chosen: { readonly version: CgroupVersion; readonly mountPoint: string; readonly segments: readonly string[] } | undefined;
  if (v2Place !== undefined) {
    const controllers = (await readBounded(join(v2Place.mountPoint, 'cgroup.controllers'))) ?? '';
    if (controllers.split(/\s+/).includes('memory') || v1 === undefined) chosen = { version: 'v2', ...v2Place };
  }
  if (chosen === undefined && v1Place !== undefined) chosen = { version: 'v1', ...v1Place };
  if (chosen === undefined) return undefined;
  const { version, mountPoint, segments } = chosen;
  let limitBytes: number | undefined;
  let limitDir: string | undefined;
  for (let depth = segments.length; depth >= 0; depth -= 1) {
    const dir = join(mountPoint, ...segments.slice(0, depth));
    const limit = await readMemoryLimit(version, dir);
    if (limit !== undefined && (limitBytes === undefined || limit <= limitBytes)) {
      limitBytes = limit;
      limitDir = dir;
    }
  }
  return { version, dir: join(mountPoint, ...segments), mountPoint, limitBytes, limitDir };
}

/** What the guard measures: the limit, where it comes from, and how usage is read. */
export interface MemorySource {
  /** Bytes; undefined: no limit known (the guard stays ok). */
  readonly limitBytes: number | undefined;
  readonly limitSource: 'setting' | 'cgroup' | 'none';
  /** Bytes in use; never throws (falls back to RSS, with a warning, when the cgroup cannot be read). */
  readonly usage: () => Promise<number>;
  /** `cgroup v2 <dir>` or `process rss`. */
  readonly usageSource: string;
  /** The process's memory cgroup, if any. */
  readonly cgroup: MemoryCgroup | undefined;
}

const processRss = (): Promise<number> => Promise.resolve(process.memoryUsage.rss());

/**
 * What to measure memory against. The limit is `limitBytes` when given (the `--memory-limit-mib` setting), else the
 * smallest cgroup limit on the process's own cgroup or an ancestor (never the cgroup mount root's numbers, which on a
 * host without a cgroup namespace are the whole machine's). Usage is the working set of the cgroup that limit is set
 * on; when no cgroup limit applies to the process (none on its path, no cgroup, unreadable files) it is the
 * process's own RSS, whether or not `limitBytes` is given. Nothing here throws: a failure is a warning and RSS.
 */
export async function memorySource(options: { readonly limitBytes?: number | undefined; readonly paths?: CgroupPaths; readonly logger?: Logger } = {}): Promise<MemorySource> {
  const { logger } = options;
  let cgroup: MemoryCgroup | undefined;
  try {
    cgroup = await resolveMemoryCgroup(options.paths);
  } catch (error) {
    logger?.warn({ err: error }, 'memory guard: cannot read the process cgroup; measuring process RSS');
  }
  const limitBytes = options.limitBytes ?? cgroup?.limitBytes;
  const limitSource = options.limitBytes !== undefined ? 'setting' : limitBytes !== undefined ? 'cgroup' : 'none';
  if (options.limitBytes !== undefined && cgroup?.limitBytes !== undefined && options.limitBytes > cgroup.limitBytes) {
    logger?.warn({ limitBytes: options.limitBytes, cgroupLimitBytes: cgroup.limitBytes, cgroup: cgroup.limitDir }, 'memory guard: the memory limit setting is above the cgroup limit; the kernel will kill before the guard sheds');
  }
  if (cgroup?.limitDir === undefined) return { limitBytes, limitSource, usage: processRss, usageSource: 'process rss', cgroup };
  const { version, limitDir } = cgroup;
  let failing = false;
  const usage = async (): Promise<number> => {
    let failure: unknown;
    try {
      const used = await readMemoryUsage(version, limitDir);
      if (used !== undefined) {
        failing = false;
        return used;
      }
    } catch (error) {
      failure = error;
    }
    // Said once per outage, not every sample.
    if (!failing) logger?.warn({ err: failure, cgroup: limitDir }, 'memory guard: cannot read the cgroup usage; measuring process RSS');
    failing = true;
    return processRss();
  };
  return { limitBytes, limitSource, usage, usageSource: `cgroup ${version} ${limitDir}`, cgroup };
}

export interface MemoryGuardOptions {
  /** Bytes; undefined: no limit known, the guard stays ok. */
  readonly limitBytes: number | undefined;
  /** Current usage in bytes (the cgroup's working set, see `memorySource`); default: the process's RSS. */
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
    const used = await (this.options.usage ?? processRss)();
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
 * The guard of an agent process, measuring what `memorySource` finds (the setting or the process's cgroup limit;
 * that cgroup's working set, or RSS when no cgroup limit applies; no limit at all: the guard stays ok), sampled every
 * second, its state and usage exported as metrics, what it measures logged once. `limitBytes` is the
 * `--memory-limit-mib` setting; `usage` replaces the measurement (tests); `cgroup` points at a fake /proc (tests).
 */
export async function startMemoryGuard(options: {
  readonly agent: string;
  readonly metrics: Pick<FlotillaMetrics, 'memoryGuardState' | 'memoryUsageRatio'>;
  readonly logger: Logger;
  readonly limitBytes?: number | undefined;
  readonly usage?: () => Promise<number> | number;
  readonly cgroup?: CgroupPaths;
}): Promise<MemoryGuard> {
  const source = await memorySource({ limitBytes: options.limitBytes, logger: options.logger, ...(options.cgroup === undefined ? {} : { paths: options.cgroup }) });
  const { limitBytes, limitSource } = source;
  const { agent, metrics } = options;
  const publish = (state: GuardState, ratio: number): void => {
    for (const s of MEMORY_GUARD_STATES) metrics.memoryGuardState.set({ agent, state: s }, s === state ? 1 : 0);
    metrics.memoryUsageRatio.set({ agent }, ratio);
  };
  publish('ok', 0);
  const usageSource = options.usage === undefined ? source.usageSource : 'caller';
  options.logger.info(
    { limitBytes: limitBytes ?? 'none', limitSource, usageSource },
    limitBytes === undefined ? 'memory guard off: no memory limit (setting or cgroup)' : 'memory guard on',
  );
  return new MemoryGuard({ limitBytes, logger: options.logger, onSample: publish, usage: options.usage ?? source.usage }).start();
}
