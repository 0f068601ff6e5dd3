import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { silentLogger } from '@flotilla/core';
import { createMetrics, METRIC } from '@flotilla/metrics';
import { UPSTREAM_DEFAULTS, UpstreamHttp } from './http.js';

/** An upstream whose health the test switches: healthy JSON, 503s, garbage, or 404s. */
let mode: 'healthy' | 'failing' | 'garbage' | 'missing' = 'healthy';
let hits = 0;
let server: Server;
let baseUrl = '';

beforeAll(async () => {
  server = createServer((_req, res) => {
    hits += 1;
    if (mode === 'healthy') res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    else if (mode === 'failing') res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":"unavailable","code":14,"message":"down"}');
    else if (mode === 'missing') res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found","code":5,"message":"no such app"}');
    else res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":tr');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  baseUrl = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('circuit breaker per upstream', () => {
  it('opens after consecutive failures and fails fast without calling, probes after the pause, doubles it, and closes on recovery', async () => {
    let now = 0;
    const metrics = createMetrics();
    const http = new UpstreamHttp({
      system: 'argocd',
      displayName: 'Argo CD',
      baseUrl,
      headers: {},
      limits: { ...UPSTREAM_DEFAULTS, retries: 1, backoffMs: 1 },
      metrics,
      logger: silentLogger(),
      circuit: { failureThreshold: 3, openMs: 1_000, maxOpenMs: 4_000 },
      now: () => now,
      sleep: () => Promise.resolve(),
    });
    const get = () => http.getJson({ operation: 'get', path: '/api/v1/thing', schema: z.object({ ok: z.boolean() }) });
    const state = async () => (await metrics.registry.getSingleMetric(METRIC.upstreamCircuitState)?.get())?.values.find((v) => v.value === 1)?.labels.state;

    mode = 'healthy';
    await expect(get()).resolves.toEqual({ ok: true });
    expect(await state()).toBe('closed');

    // Not-found answers say the upstream is alive: they never open the circuit.
    mode = 'missing';
    for (let i = 0; i < 5; i += 1) await expect(get()).rejects.toThrow(/no such app/);
    expect(http.circuitState).toBe('closed');

    mode = 'failing';
    hits = 0;
    await expect(get()).rejects.toThrow(/Argo CD failed \(503/); // two attempts
    await expect(get()).rejects.toThrow(/stops calling it for 1 s/); // one attempt, then the circuit opens
    expect(hits).toBe(3);
    expect(http.circuitState).toBe('open');
    expect(await state()).toBe('open');
    for (let i = 0; i < 10; i += 1) await expect(get()).rejects.toMatchObject({ code: 'upstream_unavailable', details: { retry_after_seconds: 1 } });
    expect(hits).toBe(3);
    expect(await metrics.registry.metrics()).toContain(`${METRIC.upstreamRequests}{system="argocd",operation="get",outcome="circuit_open"} 11`);

    // After the pause one probe goes through; it fails, so the circuit opens again for twice as long.
    now += 1_000;
    await expect(get()).rejects.toThrow(/stops calling it for 2 s/);
    expect(hits).toBe(4);
    now += 1_999;
    await expect(get()).rejects.toThrow(/stops calling it for 1 s/);
    expect(hits).toBe(4);

    // Garbage counts as failing too; recovery closes the circuit and resets the pause.
    mode = 'healthy';
    now += 1;
    await expect(get()).resolves.toEqual({ ok: true });
    expect(http.circuitState).toBe('closed');
    expect(await state()).toBe('closed');
    mode = 'garbage';
    await expect(get()).rejects.toThrow(/not valid JSON/);
    await expect(get()).rejects.toThrow(/stops calling it for 1 s/);
  });

  it('can be turned off', async () => {
    const http = new UpstreamHttp({ system: 'netbox', displayName: 'NetBox', baseUrl, headers: {}, limits: { ...UPSTREAM_DEFAULTS, retries: 0 }, metrics: createMetrics(), logger: silentLogger(), circuit: false });
    mode = 'failing';
    for (let i = 0; i < 8; i += 1) await expect(http.getJson({ operation: 'get', path: '/x', schema: z.object({}) })).rejects.toThrow(/NetBox failed \(503/);
    expect(http.circuitState).toBe('closed');
  });
});
