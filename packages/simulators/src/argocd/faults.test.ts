import { afterEach, describe, expect, it } from 'vitest';
import { isFlotillaError } from '@flotilla/core';
import { manualClock, type ManualClock } from '../clock.test-util.js';
import { generateArgoEstate } from './data.js';
import { createArgoCdApp, startArgoCdSimulator, type ArgoFaults, type RunningSimulator } from './server.js';

const TOKEN = 'sim-test-token';
const estate = generateArgoEstate({ seed: 9, applications: 60, projects: 10, applicationSets: 6, clusters: 4 });
const running: RunningSimulator[] = [];
const start = async (faults: ArgoFaults, clock?: ManualClock): Promise<RunningSimulator> => {
  const sim = await startArgoCdSimulator({ token: TOKEN, estate, faults, ...(clock === undefined ? {} : { clock }) });
  running.push(sim);
  return sim;
};
const get = (sim: RunningSimulator, path: string, token: string | null = TOKEN): Promise<Response> =>
  fetch(`${sim.url}${path}`, { headers: token === null ? {} : { authorization: `Bearer ${token}` } });

afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.close()));
});

describe('fault injection', () => {
  it('errorRate 1 answers every authenticated /api/v1 request 503 with a grpc-gateway body', async () => {
    const sim = await start({ errorRate: 1 });
    const down = await get(sim, '/api/v1/applications');
    expect(down.status).toBe(503);
    expect(await down.json()).toMatchObject({ code: 14, error: expect.stringContaining('connection refused') as unknown });
    expect((await get(sim, '/api/v1/applications', null)).status).toBe(401);
    expect((await get(sim, '/api/version')).status).toBe(200);
  });

  it('errorRate draws from a seeded sequence: the same faults give the same failures', async () => {
    const pattern = async (sim: RunningSimulator): Promise<number[]> => {
      const statuses: number[] = [];
      for (let i = 0; i < 40; i += 1) statuses.push((await get(sim, '/api/v1/clusters')).status);
      return statuses;
    };
    const [a, b] = await Promise.all([start({ errorRate: 0.5, seed: 3 }), start({ errorRate: 0.5, seed: 3 })]);
    const first = await pattern(a);
    expect(await pattern(b)).toEqual(first);
    const failures = first.filter((s) => s === 503).length;
    expect(failures).toBeGreaterThan(8);
    expect(failures).toBeLessThan(32);
  });

  it('truncateRate 1 cuts list bodies off midway and drops the connection; single objects are whole', async () => {
    const sim = await start({ truncateRate: 1 });
    const full = await startArgoCdSimulator({ token: TOKEN, estate });
    running.push(full);
    const fullBytes = (await (await get(full, '/api/v1/applications')).arrayBuffer()).byteLength;
    const response = await get(sim, '/api/v1/applications');
    expect(response.status).toBe(200);
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
    await expect((await get(sim, '/api/v1/clusters')).text()).rejects.toThrow();
    const app = estate.applications[0]?.metadata.name ?? '';
    expect(JSON.parse(await (await get(sim, `/api/v1/applications/${app}`)).text())).toMatchObject({ metadata: { name: app } });
  });

  it('latencyMs holds each answer until that much time has passed; health checks are answered at once', async () => {
    const clock = manualClock();
    const sim = await start({ latencyMs: 250 }, clock);
    const clusters = get(sim, '/api/v1/clusters');
    expect(await clock.delays(1)).toEqual([250]);
    // Answered while the clock stands still: a health check asks for no delay (a second one would win the race).
    const health = await Promise.race([get(sim, '/healthz').then((r) => r.status), clock.delays(2).then(() => 'delayed')]);
    expect(health).toBe(200);
    expect(sim.stats().bytesSent).toBe('ok'.length);
    clock.advance(249);
    expect(clock.waiting()).toEqual([1]);
    clock.advance(1);
    expect((await clusters).status).toBe(200);
    expect(clock.waiting()).toEqual([]);
  });

  it('validates its options with clear errors', () => {
    const fails = (options: Parameters<typeof createArgoCdApp>[0]): string => {
      try {
        createArgoCdApp(options);
      } catch (error) {
        if (isFlotillaError(error) && error.code === 'config_invalid') return error.message;
        throw error;
      }
      throw new Error('accepted');
    };
    expect(fails({ token: '', estate })).toMatch(/token: must not be empty/);
    expect(fails({ token: TOKEN, estate, faults: { errorRate: 2, latencyMs: -1 } })).toMatch(/faults\.latencyMs: must be >= 0.*faults\.errorRate: must be from 0 to 1/);
    expect(fails({ token: TOKEN, estate, port: 70_000 })).toMatch(/port: must be 0 \(any free port\) to 65535/);
    expect(fails({ token: TOKEN, estate: { applications: -5 } })).toMatch(/applications: must be at least 0/);
    expect(fails({ token: TOKEN, estate, clock: { now: () => 0 } as never })).toMatch(/clock: must have now\(\) and delay\(ms, callback\)/);
  });
});
