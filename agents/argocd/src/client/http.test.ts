import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { FlotillaError, parseSettings, silentLogger } from '@flotilla/core';
import { createMetrics } from '@flotilla/metrics';
import { startArgoCdSimulator, type RunningSimulator } from '@flotilla/simulators';
import { UPSTREAM_DEFAULTS, UpstreamHttp, type UpstreamLimits } from '@flotilla/upstream';
import { ARGOCD_MCP_SETTINGS } from '../config.js';
import { ARGOCD_OPERATIONS, ArgoCdClient } from './argocd-client.js';

const TOKEN = 'sim-token-0123456789';
const limits: UpstreamLimits = { ...UPSTREAM_DEFAULTS, maxBodyBytes: 1024 * 1024, timeoutMs: 2_000, retries: 2, backoffMs: 1 };
const Anything = z.looseObject({});

let sim: RunningSimulator;
let garbage: Server;
let garbageUrl: string;

beforeAll(async () => {
  sim = await startArgoCdSimulator({ token: TOKEN, estate: { seed: 1, applications: 300 } });
  garbage = createServer((req, res) => {
    if (req.url === '/html') res.writeHead(200, { 'content-type': 'text/html' }).end('<html>proxy error</html>');
    else if (req.url === '/shape') res.writeHead(200, { 'content-type': 'application/json' }).end('{"items": 42}');
    else if (req.url === '/bad-request') res.writeHead(400).end('{"error":"invalid selector","code":3,"message":"invalid selector"}');
    else res.writeHead(200, { 'content-type': 'application/json' }).end(`{"data":"${'x'.repeat(200_000)}"}`);
  });
  await new Promise<void>((done) => garbage.listen(0, '127.0.0.1', done));
  const address = garbage.address();
  garbageUrl = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
});

afterAll(async () => {
  await sim.close();
  await new Promise<void>((done) => garbage.close(() => done()));
});

function http(baseUrl: string, overrides: Partial<UpstreamLimits> = {}) {
  const metrics = createMetrics();
  return {
    metrics,
    http: new UpstreamHttp({ system: 'argocd', displayName: 'Argo CD', baseUrl, headers: { authorization: `Bearer ${TOKEN}` }, limits: { ...limits, ...overrides }, metrics, logger: silentLogger() }),
  };
}

async function failure(promise: Promise<unknown>): Promise<FlotillaError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof FlotillaError) return error;
    throw error;
  }
  throw new Error('expected a failure');
}

describe('upstream HTTP client', () => {
  it('refuses a body over the byte cap without buffering it whole', async () => {
    const { http: client, metrics } = http(sim.url, { maxBodyBytes: 64 * 1024 });
    const error = await failure(client.getJson({ operation: 'list_applications', path: '/api/v1/applications', schema: Anything }));
    expect(error.code).toBe('payload_too_large');
    expect(error.remedy).toMatch(/filters/);
    const outcomes = await metrics.upstreamRequests.get();
    expect(outcomes.values.find((v) => v.labels.outcome === 'too_large')?.value).toBe(1);
  });

  it('retries retryable failures a bounded number of times', async () => {
    const flaky = await startArgoCdSimulator({ token: TOKEN, estate: { seed: 1, applications: 5 }, faults: { errorRate: 1 } });
    try {
      const { http: client } = http(flaky.url);
      const error = await failure(client.getJson({ operation: 'list_clusters', path: '/api/v1/clusters', schema: Anything }));
      expect(error.code).toBe('upstream_unavailable');
      expect(flaky.stats().requests).toBe(1 + limits.retries);
    } finally {
      await flaky.close();
    }
  });

  it('does not retry what a retry cannot fix, and names the cause', async () => {
    const { http: client } = http(garbageUrl);
    expect((await failure(client.getJson({ operation: 'x', path: '/html', schema: Anything }))).code).toBe('upstream_bad_response');
    expect((await failure(client.getJson({ operation: 'x', path: '/shape', schema: z.looseObject({ items: z.array(z.unknown()) }) }))).message).toMatch(/unexpected shape/);
    const rejected = await failure(client.getJson({ operation: 'x', path: '/bad-request', schema: Anything }));
    expect(rejected.code).toBe('upstream_rejected');
    expect(rejected.message).toContain('invalid selector');
    const unreachable = http('http://127.0.0.1:9', { retries: 0 }).http;
    expect((await failure(unreachable.getJson({ operation: 'x', path: '/', schema: Anything }))).code).toBe('upstream_unavailable');
  });

  it('reads every seeded application unprojected, each far under the value cap', async () => {
    const { http: client } = http(sim.url, { maxBodyBytes: UPSTREAM_DEFAULTS.maxBodyBytes, maxValueBytes: UPSTREAM_DEFAULTS.maxValueBytes });
    const apps = await client.getList({ operation: 'list_applications', path: '/api/v1/applications', itemSchema: z.unknown() });
    expect(apps).toHaveLength(300);
    // Status, history and Helm values (twice when a last-applied annotation repeats them) included: tens of KiB.
    expect(Math.max(...apps.map((app) => Buffer.byteLength(JSON.stringify(app))))).toBeLessThan(UPSTREAM_DEFAULTS.maxValueBytes / 10);
  });

  it('takes the value cap from --upstream-max-value-kib / FLOTILLA_UPSTREAM_MAX_VALUE_KIB', () => {
    expect(parseSettings(ARGOCD_MCP_SETTINGS, { 'argocd-url': sim.url, 'argocd-token': TOKEN }, {}, 'test').upstreamMaxValueKiB * 1024).toBe(UPSTREAM_DEFAULTS.maxValueBytes);
    expect(parseSettings(ARGOCD_MCP_SETTINGS, { 'argocd-url': sim.url, 'argocd-token': TOKEN }, { FLOTILLA_UPSTREAM_MAX_VALUE_KIB: '64' }, 'test').upstreamMaxValueKiB).toBe(64);
    expect(() => parseSettings(ARGOCD_MCP_SETTINGS, { 'argocd-url': sim.url, 'argocd-token': TOKEN, 'upstream-max-value-kib': '0' }, {}, 'test')).toThrow(/upstream-max-value-kib/);
  });

  it('asks Argo CD for a projection and gets every application back', async () => {
    const metrics = createMetrics();
    const client = new ArgoCdClient({ baseUrl: sim.url, token: TOKEN, limits, metrics, logger: silentLogger() });
    const apps = await client.listApplications({});
    expect(apps).toHaveLength(300);
    // Only what list tools read survives: no resources, history or Helm values are kept.
    expect(JSON.stringify(apps)).not.toMatch(/"resources"|"history"|"helm"|"values"/);
    expect(apps.every((a) => a.metadata.labels?.team !== undefined)).toBe(true);
    expect(apps[0]?.status?.sync?.status).toMatch(/Synced|OutOfSync|Unknown/);
  });
});

describe('operation labels', () => {
  it('declares every operation the client spells, so each request series starts at zero', () => {
    const source = readFileSync(new URL('./argocd-client.ts', import.meta.url), 'utf8').replace(/export const ARGOCD_OPERATIONS = \[[^\]]*\]/, '');
    const spelt = new Set([...source.matchAll(/'((?:list|get|find)_[a-z_]+)'/g)].map((m) => m[1]));
    expect(spelt.size).toBeGreaterThan(10);
    expect([...spelt].filter((op) => !(ARGOCD_OPERATIONS as readonly (string | undefined)[]).includes(op))).toEqual([]);
  });
});
