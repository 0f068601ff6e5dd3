import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { FlotillaError, silentLogger } from '@flotilla/core';
import { createMetrics } from '@flotilla/metrics';
import { UPSTREAM_DEFAULTS, UpstreamHttp } from './http.js';
import { parseRetryAfter, TokenBucket } from './rate-limit.js';

/** A clock the test moves by hand; `sleep` advances it, so waits are exact and instant. */
function manualClock() {
  let now = 0;
  const slept: number[] = [];
  return {
    now: () => now,
    advance: (ms: number) => {
      now += ms;
    },
    sleep: (ms: number) => {
      slept.push(ms);
      now += ms;
      return Promise.resolve();
    },
    slept,
  };
}

describe('TokenBucket', () => {
  it('lets a burst through, then spaces requests at the rate, in order', async () => {
    const clock = manualClock();
    const bucket = new TokenBucket({ displayName: 'X', ratePerSecond: 10, burst: 3, maxWaitMs: 10_000, maxWaiting: 100, now: clock.now, sleep: clock.sleep });
    const waits: number[] = [];
    for (let i = 0; i < 6; i += 1) waits.push(await bucket.acquire());
    expect(waits.slice(0, 3)).toEqual([0, 0, 0]);
    // After the burst, each request waits one token's refill: 100 ms at 10 per second.
    expect(waits.slice(3).every((w) => Math.abs(w - 100) < 1e-6)).toBe(true);
    expect(clock.now()).toBeCloseTo(300, 6);
  });

  it('queues concurrent callers behind each other (reservations), never above the rate', async () => {
    const clock = manualClock();
    const bucket = new TokenBucket({ displayName: 'X', ratePerSecond: 5, burst: 1, maxWaitMs: 10_000, maxWaiting: 100, now: clock.now, sleep: (ms) => {
      clock.slept.push(ms);
      return Promise.resolve();
    } });
    const waits = await Promise.all([bucket.acquire(), bucket.acquire(), bucket.acquire()]);
    expect(waits[0]).toBe(0);
    // Reserved at the same instant: the second waits one refill (200 ms), the third two.
    expect(clock.slept).toEqual([200, 400]);
  });

  it('fails instead of waiting past maxWaitMs, and gives the token back', async () => {
    const clock = manualClock();
    const bucket = new TokenBucket({ displayName: 'NetBox', ratePerSecond: 1, burst: 1, maxWaitMs: 1_500, maxWaiting: 100, now: clock.now, sleep: clock.sleep });
    await bucket.acquire();
    bucket.pauseFor(5_000);
    const error = await bucket.acquire().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FlotillaError);
    expect((error as FlotillaError).code).toBe('rate_limited');
    expect((error as FlotillaError).message).toMatch(/about 5 s/);
    clock.advance(5_000);
    expect(await bucket.acquire()).toBe(0);
  });

  it('bounds the queue', async () => {
    const clock = manualClock();
    const never = () => new Promise<void>(() => undefined);
    const bucket = new TokenBucket({ displayName: 'X', ratePerSecond: 1, burst: 1, maxWaitMs: 1_000_000, maxWaiting: 2, now: clock.now, sleep: never });
    await bucket.acquire();
    void bucket.acquire();
    void bucket.acquire();
    await expect(bucket.acquire()).rejects.toMatchObject({ code: 'rate_limited' });
  });

  it('estimates the wait of a plan from the current fill', () => {
    const clock = manualClock();
    const bucket = new TokenBucket({ displayName: 'X', ratePerSecond: 10, burst: 5, maxWaitMs: 10_000, maxWaiting: 100, now: clock.now, sleep: clock.sleep });
    expect(bucket.estimateWaitMs(5)).toBe(0);
    expect(bucket.estimateWaitMs(25)).toBeCloseTo(2_000, 6);
  });

  it('reads Retry-After as seconds or an HTTP date', () => {
    expect(parseRetryAfter('3')).toBe(3_000);
    expect(parseRetryAfter(null)).toBeUndefined();
    expect(parseRetryAfter('soon')).toBeUndefined();
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:10 GMT', Date.parse('Thu, 01 Jan 2026 00:00:00 GMT'))).toBe(10_000);
  });
});

describe('UpstreamHttp and 429', () => {
  let server: Server;
  let url: string;
  let hits = 0;
  let throttleFirst = 0;
  let retryAfter = '1';

  beforeAll(async () => {
    server = createServer((_req, res) => {
      hits += 1;
      if (throttleFirst > 0) {
        throttleFirst -= 1;
        res.writeHead(429, { 'content-type': 'application/json', 'retry-after': retryAfter }).end('{"detail":"Request was throttled."}');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const address = server.address();
    url = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
  });
  afterAll(async () => {
    await new Promise<void>((done) => server.close(() => done()));
  });

  const Ok = z.looseObject({ ok: z.boolean() });
  const make = (limiter?: TokenBucket) => {
    const metrics = createMetrics();
    const slept: number[] = [];
    const http = new UpstreamHttp({
      system: 'netbox',
      displayName: 'NetBox',
      baseUrl: url,
      headers: {},
      limits: { ...UPSTREAM_DEFAULTS, backoffMs: 1, rateLimitRetries: 2, retryAfterMaxMs: 5_000 },
      metrics,
      logger: silentLogger(),
      rateLimiter: limiter,
      sleep: (ms) => {
        slept.push(ms);
        return Promise.resolve();
      },
    });
    return { http, metrics, slept };
  };

  it('waits for Retry-After (through the shared limiter) and succeeds', async () => {
    hits = 0;
    throttleFirst = 2;
    retryAfter = '1';
    const clock = manualClock();
    const limiter = new TokenBucket({ displayName: 'NetBox', ratePerSecond: 100, burst: 10, maxWaitMs: 10_000, maxWaiting: 10, now: clock.now, sleep: clock.sleep });
    const { http, metrics } = make(limiter);
    await expect(http.getJson({ operation: 'status', path: '/api/status/', schema: Ok })).resolves.toEqual({ ok: true });
    expect(hits).toBe(3);
    // Each 429 paused the limiter for a second, and the retries waited for it.
    expect(clock.slept.filter((ms) => ms >= 999)).toHaveLength(2);
    const counted = (await metrics.registry.getSingleMetricAsString('flotilla_upstream_requests_total')).split('\n').filter((l) => l.includes('outcome="rate_limited"'));
    expect(counted.join('\n')).toMatch(/ 2$/);
  });

  it('without a limiter, waits Retry-After itself', async () => {
    hits = 0;
    throttleFirst = 1;
    retryAfter = '2';
    const { http, slept } = make();
    await http.getJson({ operation: 'status', path: '/api/status/', schema: Ok });
    expect(slept[0]).toBeGreaterThanOrEqual(2_000);
  });

  it('gives up after rateLimitRetries, saying when to retry', async () => {
    hits = 0;
    throttleFirst = 10;
    retryAfter = '1';
    const { http } = make();
    const error = (await http.getJson({ operation: 'status', path: '/api/status/', schema: Ok }).catch((e: unknown) => e)) as FlotillaError;
    expect(error.code).toBe('rate_limited');
    expect(error.details.retry_after_seconds).toBe(1);
    expect(hits).toBe(3);
  });

  it('does not wait for a Retry-After longer than it allows', async () => {
    hits = 0;
    throttleFirst = 1;
    retryAfter = '60';
    const { http, slept } = make();
    const error = (await http.getJson({ operation: 'status', path: '/api/status/', schema: Ok }).catch((e: unknown) => e)) as FlotillaError;
    expect(error.code).toBe('rate_limited');
    expect(error.message).toMatch(/retry after 60 s/);
    expect(hits).toBe(1);
    expect(slept).toEqual([]);
  });
});
