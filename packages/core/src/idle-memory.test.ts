import type { EventLoopUtilization } from 'node:perf_hooks';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { capturingLogger } from './logger.js';
import { IDLE_MEMORY_LIMITS, releaseStartupMemory, releaseStartupMemoryWhenQuiet, type StartupMemoryRelease } from './idle-memory.js';

const RELEASE: StartupMemoryRelease = { rssBeforeMiB: 128, heapTotalBeforeMiB: 74, heapTotalAfterMiB: 42, newSpaceBeforeMiB: 32, newSpaceAfterMiB: 1, heapUsedAfterMiB: 36, pauseMs: 30 };

/** Event-loop utilisation as a script says, one figure per window (then quiet). */
function scripted(perWindow: readonly number[]): (previous?: EventLoopUtilization) => EventLoopUtilization {
  let window = 0;
  return (previous) => {
    if (previous === undefined) return { idle: 0, active: 0, utilization: 0 };
    const utilization = perWindow[window] ?? 0;
    window += 1;
    return { idle: 1 - utilization, active: utilization, utilization };
  };
}

describe('releaseStartupMemoryWhenQuiet', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('releases once, at the end of the first quiet window, and says what it gave back', () => {
    const { logger, lines } = capturingLogger();
    const release = vi.fn(() => RELEASE);
    releaseStartupMemoryWhenQuiet({ logger, release, utilization: scripted([0.5, 0.3, 0.01]) });
    vi.advanceTimersByTime(IDLE_MEMORY_LIMITS.quietWindowMs * 2);
    expect(release).not.toHaveBeenCalled();
    vi.advanceTimersByTime(IDLE_MEMORY_LIMITS.quietWindowMs);
    expect(release).toHaveBeenCalledTimes(1);
    expect(lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.msg === 'released start-up memory')).toMatchObject({ collections: 1, newSpaceMiB: [32, 1], heapTotalMiB: [74, 42], pauseMs: 30 });
    vi.advanceTimersByTime(IDLE_MEMORY_LIMITS.quietWindowMs * 20);
    expect(release).toHaveBeenCalledTimes(1);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('collects again at later quiet windows while the young generation stays large, at most maxCollections times', () => {
    const { logger, lines } = capturingLogger();
    const unshrunk: StartupMemoryRelease = { ...RELEASE, newSpaceBeforeMiB: 32, newSpaceAfterMiB: 32 };
    const release = vi.fn(() => unshrunk);
    releaseStartupMemoryWhenQuiet({ logger, release, utilization: scripted([]) });
    vi.advanceTimersByTime(IDLE_MEMORY_LIMITS.quietWindowMs * 20);
    expect(release).toHaveBeenCalledTimes(IDLE_MEMORY_LIMITS.maxCollections);
    expect(vi.getTimerCount()).toBe(0);
    const logged = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.msg === 'released start-up memory');
    expect(logged).toEqual([expect.objectContaining({ collections: IDLE_MEMORY_LIMITS.maxCollections, newSpaceMiB: [32, 32] })]);

    // The second collection shrinks it: no third.
    const second = vi.fn().mockReturnValueOnce(unshrunk).mockReturnValue({ ...RELEASE, newSpaceBeforeMiB: 32, newSpaceAfterMiB: 1, heapTotalAfterMiB: 30 });
    const { logger: logger2, lines: lines2 } = capturingLogger();
    releaseStartupMemoryWhenQuiet({ logger: logger2, release: second, utilization: scripted([]) });
    vi.advanceTimersByTime(IDLE_MEMORY_LIMITS.quietWindowMs * 20);
    expect(second).toHaveBeenCalledTimes(2);
    expect(lines2.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.msg === 'released start-up memory')).toMatchObject({ collections: 2, newSpaceMiB: [32, 1], heapTotalMiB: [74, 30] });
  });

  it('stops watching a process busy from its start after maxWindows, releasing nothing', () => {
    const { logger } = capturingLogger();
    const release = vi.fn(() => RELEASE);
    releaseStartupMemoryWhenQuiet({ logger, release, utilization: scripted(Array.from({ length: 100 }, () => 0.9)), limits: { maxWindows: 3 } });
    vi.advanceTimersByTime(IDLE_MEMORY_LIMITS.quietWindowMs * 3);
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(IDLE_MEMORY_LIMITS.quietWindowMs * 100);
    expect(release).not.toHaveBeenCalled();
  });

  it('releases nothing once cancelled (a piece that stops)', () => {
    const { logger } = capturingLogger();
    const release = vi.fn(() => RELEASE);
    const watch = releaseStartupMemoryWhenQuiet({ logger, release, utilization: scripted([]) });
    watch.cancel();
    vi.advanceTimersByTime(IDLE_MEMORY_LIMITS.quietWindowMs * 10);
    expect(release).not.toHaveBeenCalled();
  });

  it('counts a window at the threshold as quiet, and one just over it as busy', () => {
    const { logger } = capturingLogger();
    const release = vi.fn(() => RELEASE);
    releaseStartupMemoryWhenQuiet({ logger, release, utilization: scripted([IDLE_MEMORY_LIMITS.quietUtilization + 0.001, IDLE_MEMORY_LIMITS.quietUtilization]) });
    vi.advanceTimersByTime(IDLE_MEMORY_LIMITS.quietWindowMs);
    expect(release).not.toHaveBeenCalled();
    vi.advanceTimersByTime(IDLE_MEMORY_LIMITS.quietWindowMs);
    expect(release).toHaveBeenCalledTimes(1);
  });
});

describe('releaseStartupMemory', () => {
  it('makes a full collection, and leaves no gc function in contexts made after it', async () => {
    // Garbage the collection can free: a heap that shrinks only through a full collection (it is in the old generation).
    const garbage: unknown[] = Array.from({ length: 200_000 }, (_, i) => ({ i, text: `item ${i}` }));
    releaseStartupMemory();
    expect(garbage).toHaveLength(200_000);
    garbage.length = 0;
    const usedBeforeMiB = process.memoryUsage().heapUsed / 1024 / 1024;
    const r = releaseStartupMemory();
    // ~20 MB of objects that survived a full collection (old generation): only another full one frees them.
    expect(r.heapUsedAfterMiB).toBeLessThan(usedBeforeMiB - 10);
    expect(r.pauseMs).toBeGreaterThan(0);
    const { runInNewContext } = await import('node:vm');
    expect(runInNewContext('typeof gc')).toBe('undefined');
  });
});
