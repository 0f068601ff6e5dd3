import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { isFlotillaError } from '@flotilla/core';
import { manualClock } from '../clock.test-util.js';
import { generateNetBoxEstate } from './data.js';
import { createNetBoxApp, startNetBoxSimulator, type NetBoxSimulatorOptions, type RunningNetBoxSimulator } from './server.js';

const TOKEN = 'sim-test-token';
const estate = generateNetBoxEstate({ seed: 11, sites: 3, devices: 60, interfacesPerDevice: 10, vlans: 20, prefixes: 20 });
const running: RunningNetBoxSimulator[] = [];
const start = async (options: Omit<NetBoxSimulatorOptions, 'token' | 'estate'>): Promise<RunningNetBoxSimulator> => {
  const sim = await startNetBoxSimulator({ token: TOKEN, estate, ...options });
  running.push(sim);
  return sim;
};
const get = (sim: RunningNetBoxSimulator, path: string, token: string | null = TOKEN): Promise<Response> =>
  fetch(`${sim.url}${path}`, { headers: token === null ? {} : { authorization: `Token ${token}` } });

afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.close()));
});

describe('rate limiting', () => {
  it('answers 429 with Retry-After once the bucket is empty, per token, and refills', async () => {
    const clock = manualClock();
    const sim = await start({ rateLimit: { requestsPerSecond: 2, burst: 3 }, clock });
    const statuses: number[] = [];
    for (let i = 0; i < 3; i += 1) statuses.push((await get(sim, '/api/dcim/devices/?limit=1')).status);
    const throttled = await get(sim, '/api/dcim/interfaces/?limit=1');
    expect([...statuses, throttled.status]).toEqual([200, 200, 200, 429]);
    expect(throttled.headers.get('retry-after')).toBe('1');
    expect(await throttled.json()).toEqual({ detail: 'Request was throttled. Expected available in 1 second.' });
    // Requests without the token are refused before the limiter and do not drain it.
    expect((await get(sim, '/api/dcim/devices/', null)).status).toBe(403);
    expect(sim.stats()).toMatchObject({ requests: 5, rateLimited: 1, byEndpoint: { 'dcim/devices': 4, 'dcim/interfaces': 1 } });
    // 2 a second: not a whole token after 499 ms, exactly one after 500 ms.
    clock.advance(499);
    expect((await get(sim, '/api/dcim/devices/?limit=1')).status).toBe(429);
    clock.advance(1);
    expect((await get(sim, '/api/dcim/devices/?limit=1')).status).toBe(200);
    expect((await get(sim, '/api/dcim/devices/?limit=1')).status).toBe(429);
    expect(sim.stats().rateLimited).toBe(3);
    // Long after, the bucket is full again, and never fuller than `burst`.
    clock.advance(60_000);
    const refilled: number[] = [];
    for (let i = 0; i < 4; i += 1) refilled.push((await get(sim, '/api/dcim/devices/?limit=1')).status);
    expect(refilled).toEqual([200, 200, 200, 429]);
  });

  it('tells a slow bucket how many whole seconds to wait', async () => {
    const clock = manualClock();
    const sim = await start({ rateLimit: { requestsPerSecond: 0.25, burst: 1 }, clock });
    expect((await get(sim, '/api/status/')).status).toBe(200);
    const throttled = await get(sim, '/api/status/');
    expect(throttled.status).toBe(429);
    expect(throttled.headers.get('retry-after')).toBe('4');
    expect(await throttled.json()).toEqual({ detail: 'Request was throttled. Expected available in 4 seconds.' });
    // A wait in progress rounds up to whole seconds.
    clock.advance(1_500);
    expect((await get(sim, '/api/status/')).headers.get('retry-after')).toBe('3');
  });
});

describe('fault injection', () => {
  it('errorRate 1 answers every authenticated API request 503; auth and /api/status/ are unaffected', async () => {
    const sim = await start({ faults: { errorRate: 1 } });
    const bodies = new Set<string>();
    for (let i = 0; i < 12; i += 1) {
      const down = await get(sim, '/api/dcim/devices/');
      expect(down.status).toBe(503);
      const text = await down.text();
      bodies.add(text.startsWith('<html>') ? 'html' : (JSON.parse(text) as { detail: string }).detail);
    }
    expect(bodies).toEqual(new Set(['html', 'Service temporarily unavailable, try again later.']));
    expect((await get(sim, '/api/dcim/devices/', null)).status).toBe(403);
    expect((await get(sim, '/api/status/')).status).toBe(200);
  });

  it('errorRate draws from a seeded sequence: the same faults give the same failures', async () => {
    const pattern = async (sim: RunningNetBoxSimulator): Promise<number[]> => {
      const statuses: number[] = [];
      for (let i = 0; i < 40; i += 1) statuses.push((await get(sim, '/api/dcim/sites/')).status);
      return statuses;
    };
    const [a, b, c] = await Promise.all([start({ faults: { errorRate: 0.5, seed: 3 } }), start({ faults: { errorRate: 0.5, seed: 3 } }), start({ faults: { errorRate: 0.5, seed: 4 } })]);
    const first = await pattern(a);
    expect(await pattern(b)).toEqual(first);
    expect(await pattern(c)).not.toEqual(first);
    const failures = first.filter((s) => s === 503).length;
    expect(failures).toBeGreaterThan(8);
    expect(failures).toBeLessThan(32);
  });

  it('truncateRate 1 cuts list bodies off midway and drops the connection; details are whole', async () => {
    const sim = await start({ faults: { truncateRate: 1 } });
    const full = await start({});
    const fullBytes = (await (await get(full, '/api/dcim/interfaces/?limit=200')).arrayBuffer()).byteLength;
    const response = await get(sim, '/api/dcim/interfaces/?limit=200');
    expect(response.status).toBe(200);
    expect(Number(response.headers.get('content-length'))).toBe(fullBytes);
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    let received = 0;
    let failed = false;
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        received += value.byteLength;
      }
    } catch {
      failed = true;
    }
    expect(failed).toBe(true);
    expect(received).toBeGreaterThan(0);
    expect(received).toBeLessThan(fullBytes);
    expect(sim.stats().bytesSent).toBeLessThan(fullBytes);
    await expect((await get(sim, '/api/dcim/sites/')).json()).rejects.toThrow();
    expect(await (await get(sim, '/api/dcim/devices/3/')).json()).toMatchObject({ id: 3 });
  });

  it('latencyMs holds each answer until that much time has passed', async () => {
    const clock = manualClock();
    const sim = await start({ faults: { latencyMs: 200 }, clock });
    const sites = get(sim, '/api/dcim/sites/');
    expect(await clock.delays(1)).toEqual([200]);
    clock.advance(199);
    expect(clock.waiting()).toEqual([1]);
    expect(sim.stats().bytesSent).toBe(0);
    clock.advance(1);
    expect((await sites).status).toBe(200);
    expect(sim.stats().bytesSent).toBeGreaterThan(0);
  });
});

describe('a small page size and a given estate', () => {
  let sim: RunningNetBoxSimulator;
  beforeAll(async () => {
    sim = await startNetBoxSimulator({ token: TOKEN, estate, maxPageSize: 25 });
  });
  afterAll(async () => sim.close());

  it('clamps to maxPageSize and serves exactly the estate it was given', async () => {
    const answer = (await (await get(sim, '/api/dcim/interfaces/?limit=0')).json()) as { count: number; results: unknown[]; next: string };
    expect(answer.count).toBe(600);
    expect(answer.results).toHaveLength(25);
    expect(answer.next).toBe(`${sim.url}/api/dcim/interfaces/?limit=25&offset=25`);
    expect(((await (await get(sim, '/api/dcim/devices/?limit=1')).json()) as { count: number }).count).toBe(60);
  });
});

describe('options', () => {
  it('validates its options with clear errors', () => {
    const fails = (options: NetBoxSimulatorOptions): string => {
      try {
        createNetBoxApp(options);
      } catch (error) {
        if (isFlotillaError(error) && error.code === 'config_invalid') return error.message;
        throw error;
      }
      throw new Error('accepted');
    };
    expect(fails({ token: '', estate })).toMatch(/token: must not be empty/);
    expect(fails({ token: TOKEN, estate, faults: { errorRate: 2, latencyMs: -1 } })).toMatch(/faults\.latencyMs: must be >= 0.*faults\.errorRate: must be from 0 to 1/);
    expect(fails({ token: TOKEN, estate, rateLimit: { requestsPerSecond: 0, burst: 0.5 } })).toMatch(/rateLimit\.requestsPerSecond: must be > 0.*rateLimit\.burst: must be a whole number/);
    expect(fails({ token: TOKEN, estate, maxPageSize: 0 })).toMatch(/maxPageSize: must be at least 1/);
    expect(fails({ token: TOKEN, estate: { devices: -5 } })).toMatch(/devices: must be at least 0/);
    expect(fails({ token: TOKEN, estate, clock: 'fast' as never })).toMatch(/clock: must have now\(\) and delay\(ms, callback\)/);
  });
});
