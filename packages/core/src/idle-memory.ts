import { performance, type EventLoopUtilization } from 'node:perf_hooks';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Logger } from 'pino';

/**
 * When a long-running piece (agent, MCP server, supervisor, Slack bot) gives back what its start-up used.
 *
 * Loading hundreds of modules grows V8's young generation to its largest (two 16 MiB semi-spaces on a 64-bit host)
 * and leaves it there: an idle agent held ~130 MiB of RSS with 37 MB of live heap. V8 shrinks it only at a
 * collection made while the process allocates little (under 1 MB/s over its last 5 s), which its memory reducer
 * makes some 8-16 s after start, or never when start-up made no full collection (seen: an agent still at its
 * start-up size after 30 s idle). So the piece makes that collection itself, in its first quiet windows.
 */
export const IDLE_MEMORY_LIMITS = {
  /** A window the process is watched over: longer than the 5 s over which V8 rates allocation. */
  quietWindowMs: 6_000,
  /** Most event-loop utilisation (0-1) over a window for the process to count as quiet. */
  quietUtilization: 0.02,
  /** Windows watched at most: a piece busy from its start lets V8 size its heap for the work, and is left to it. */
  maxWindows: 10,
  /**
   * Collections made at most, one per quiet window: V8 shrinks the young generation at a collection only when it rates
   * the allocation of the last 5 s low, which it does not always at the first one after start-up (seen: 3 agents of 4
   * started with a loader hook needed a second).
   */
  maxCollections: 3,
} as const;

/** What one release did, in MiB (RSS only before it: the freed pages leave RSS a moment after the collection). */
export interface StartupMemoryRelease {
  readonly rssBeforeMiB: number;
  readonly heapTotalBeforeMiB: number;
  readonly heapTotalAfterMiB: number;
  readonly newSpaceBeforeMiB: number;
  readonly newSpaceAfterMiB: number;
  readonly heapUsedAfterMiB: number;
  /** How long the collection held the event loop. */
  readonly pauseMs: number;
}

const MiB = 1024 * 1024;
const newSpaceMiB = (): number => (getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')?.space_size ?? 0) / MiB;

/**
 * Node keeps V8's collector to itself unless started with --expose-gc; the flag, set now, installs `gc` in contexts
 * created after it, so one throwaway context lends its function (and the flag is cleared again: no later vm context
 * gets a `gc`).
 */
function collectorFunction(): (options?: { type: 'minor' }) => void {
  const exposed = (globalThis as { gc?: unknown }).gc;
  if (typeof exposed === 'function') return exposed as (options?: { type: 'minor' }) => void;
  setFlagsFromString('--expose-gc');
  try {
    return runInNewContext('gc') as (options?: { type: 'minor' }) => void;
  } finally {
    setFlagsFromString('--no-expose-gc');
  }
}

/**
 * A young collection, then a full one, now (~20-35 ms for an agent's ~37 MB heap). Made while the process is quiet,
 * V8 then usually shrinks the young generation to its first size and frees what start-up left (a caller that sees it
 * did not tries again later: {@link releaseStartupMemoryWhenQuiet}); made under load, it is one ordinary collection.
 * The young one goes first so that V8's allocation rate has a sample taken at the end of the quiet time.
 */
export function releaseStartupMemory(): StartupMemoryRelease {
  const before = process.memoryUsage();
  const newSpaceBeforeMiB = newSpaceMiB();
  const collect = collectorFunction();
  const started = performance.now();
  collect({ type: 'minor' });
  collect();
  const pauseMs = performance.now() - started;
  const after = process.memoryUsage();
  return {
    rssBeforeMiB: before.rss / MiB,
    heapTotalBeforeMiB: before.heapTotal / MiB,
    heapTotalAfterMiB: after.heapTotal / MiB,
    newSpaceBeforeMiB,
    newSpaceAfterMiB: newSpaceMiB(),
    heapUsedAfterMiB: after.heapUsed / MiB,
    pauseMs,
  };
}

export interface IdleMemoryOptions {
  readonly logger: Logger;
  /** Bounds (IDLE_MEMORY_LIMITS by default); tests shorten them. */
  readonly limits?: { readonly [K in keyof typeof IDLE_MEMORY_LIMITS]?: number };
  /** Event-loop utilisation since `previous` (perf_hooks' by default); tests pass their own. */
  readonly utilization?: (previous?: EventLoopUtilization) => EventLoopUtilization;
  /** The release (releaseStartupMemory by default). */
  readonly release?: () => StartupMemoryRelease;
}

/** A watch started by {@link releaseStartupMemoryWhenQuiet}. */
export interface IdleMemoryWatch {
  /** Stops watching (a piece that stops); nothing is released after it. */
  cancel(): void;
}

/** The young generation at its first size (MiB): nothing left to give back there. */
const NEW_SPACE_FIRST_MIB = 1;

/**
 * Watches the process from now on, window after window (IDLE_MEMORY_LIMITS), and at the end of each quiet one
 * releases what start-up used ({@link releaseStartupMemory}) until the young generation has shrunk (V8 takes it to
 * its first size, or to twice what is still live in it), `maxCollections` times at most; after `maxWindows` windows
 * it stops watching. Its timer never keeps the process alive. Logs the last collection's figures ("released start-up
 * memory").
 */
export function releaseStartupMemoryWhenQuiet(options: IdleMemoryOptions): IdleMemoryWatch {
  const limits = { ...IDLE_MEMORY_LIMITS, ...options.limits };
  const utilization = options.utilization ?? ((previous?: EventLoopUtilization) => performance.eventLoopUtilization(previous));
  const release = options.release ?? releaseStartupMemory;
  const round = (n: number): number => Math.round(n * 10) / 10;
  let windows = 0;
  let collections = 0;
  let first: StartupMemoryRelease | undefined;
  let mark = utilization();
  let timer: NodeJS.Timeout | undefined;
  const check = (): void => {
    timer = undefined;
    windows += 1;
    const busy = utilization(mark).utilization;
    if (busy <= limits.quietUtilization) {
      const r = release();
      collections += 1;
      first ??= r;
      const done = r.newSpaceAfterMiB <= NEW_SPACE_FIRST_MIB || r.newSpaceAfterMiB < r.newSpaceBeforeMiB;
      if (done || collections >= limits.maxCollections) {
        options.logger.info(
          {
            collections,
            rssBeforeMiB: round(first.rssBeforeMiB),
            heapTotalMiB: [round(first.heapTotalBeforeMiB), round(r.heapTotalAfterMiB)],
            newSpaceMiB: [round(first.newSpaceBeforeMiB), round(r.newSpaceAfterMiB)],
            heapUsedMiB: round(r.heapUsedAfterMiB),
            pauseMs: round(r.pauseMs),
          },
          'released start-up memory',
        );
        return;
      }
    }
    if (windows >= limits.maxWindows) {
      options.logger.debug({ windows, collections, utilization: busy }, 'start-up memory left to V8: the process was not quiet long enough');
      return;
    }
    mark = utilization();
    timer = setTimeout(check, limits.quietWindowMs).unref();
  };
  timer = setTimeout(check, limits.quietWindowMs).unref();
  return {
    cancel() {
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
    },
  };
}
