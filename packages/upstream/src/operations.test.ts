import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { capturingLogger } from '@flotilla/core';
import { createMetrics, METRIC, UPSTREAM_OUTCOMES } from '@flotilla/metrics';
import { UPSTREAM_DEFAULTS, UpstreamHttp } from './http.js';

let server: Server;
let baseUrl = '';

beforeAll(async () => {
  server = createServer((_req, res) => res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '0' }).end('{"message":"slow down"}'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  baseUrl = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const series = async (metrics: ReturnType<typeof createMetrics>) =>
  (await metrics.registry.getSingleMetric(METRIC.upstreamRequests)?.get())?.values.map((v) => ({ ...v.labels, value: v.value })) ?? [];

describe('upstream request series', () => {
  it('exist at zero for every declared operation and outcome before any request, so the first 429 is an increase', async () => {
    const metrics = createMetrics();
    const { logger, lines } = capturingLogger('warn');
    const http = new UpstreamHttp({
      system: 'netbox',
      displayName: 'NetBox',
      baseUrl,
      headers: {},
      limits: { ...UPSTREAM_DEFAULTS, retries: 0, rateLimitRetries: 0 },
      metrics,
      logger,
      circuit: false,
      operations: ['list_devices', 'get_device'],
    });
    const before = await series(metrics);
    expect(before).toHaveLength(2 * UPSTREAM_OUTCOMES.length);
    expect(before.every((s) => s.value === 0)).toBe(true);
    expect(before).toContainEqual({ system: 'netbox', operation: 'list_devices', outcome: 'rate_limited', value: 0 });

    await expect(http.getJson({ operation: 'list_devices', path: '/api/dcim/devices/', schema: z.object({}) })).rejects.toThrow();
    expect(await series(metrics)).toContainEqual({ system: 'netbox', operation: 'list_devices', outcome: 'rate_limited', value: 1 });
    expect(lines.join('\n')).not.toContain('not declared');

    // An operation the client forgot to declare still works, and is named once in the log.
    for (let i = 0; i < 2; i += 1) await expect(http.getJson({ operation: 'get_site', path: '/api/dcim/sites/1/', schema: z.object({}) })).rejects.toThrow();
    expect(lines.filter((l) => l.includes('not declared') && l.includes('get_site'))).toHaveLength(1);
  });
});
