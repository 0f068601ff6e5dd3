import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createLogger, silentLogger, type Logger } from '@flotilla/core';
import { createMetrics, type FlotillaMetrics } from '@flotilla/metrics';
import { UPSTREAM_DEFAULTS, UpstreamHttp, type UpstreamLimits } from './http.js';
import { failure, streamParts as stream } from './testing.js';

const MiB = 1024 * 1024;
const BLOB_CHUNK = Buffer.alloc(1_000_000, 'x');

function* blobBody(): Generator<Buffer | string> {
  yield '{"metadata":{"resourceVersion":"1"},"blob":"';
  for (let i = 0; i < 40; i += 1) yield BLOB_CHUNK;
  yield '","items":[{"name":"a"},{"name":"b"}]}';
}

const routes: Record<string, (req: IncomingMessage, res: ServerResponse) => Promise<unknown> | void> = {
  '/blob': (_req, res) => stream(res, blobBody()),
  '/big-item': (_req, res) =>
    stream(res, [JSON.stringify({ items: [{ name: 'a' }, { name: 'b', spec: { source: { helm: { values: 'v'.repeat(2 * MiB) } } } }, { name: 'c' }] })]),
  '/app-big-field': (_req, res) => stream(res, [JSON.stringify({ metadata: { name: 'a' }, spec: { source: { helm: { values: 'v'.repeat(2 * MiB) } } } })]),
  '/app-many-fields': (_req, res) => stream(res, [JSON.stringify({ metadata: { name: 'a' }, a: 'x'.repeat(600 * 1024), b: 'y'.repeat(600 * 1024) })]),
  '/ips': (_req, res) => stream(res, [JSON.stringify([{ address: '10.0.0.1/24' }, { address: '10.0.0.2/24' }])]),
  '/page': (_req, res) => stream(res, [JSON.stringify({ count: 1234, next: 'http://netbox/api/dcim/sites/?limit=2&offset=2', previous: null, results: [{ id: 1 }, { id: 2 }] })]),
  '/page-bad-item': (_req, res) => stream(res, [JSON.stringify({ count: 3, next: null, previous: null, results: [{ id: 1 }, { id: 2 }, { id: 'three' }] })]),
  '/page-no-results': (_req, res) => stream(res, [JSON.stringify({ count: 3, next: null, previous: null })]),
  '/page-no-count': (_req, res) => stream(res, [JSON.stringify({ next: null, previous: null, results: [] })]),
  '/page-results-object': (_req, res) => stream(res, ['{"count":1,"next":null,"previous":null,"results":{"id":1}}']),
  '/page-cut': (_req, res) => stream(res, ['{"count":1,"next":null,"previous":null,"results":[{"id":1}']),
  '/page-garbage': (_req, res) => stream(res, ['{"count":1,"next":null,"previous":null,"results":[{"id":1}]} <html>']),
};

let server: Server;
let baseUrl = '';
const hits = new Map<string, number>();

beforeAll(async () => {
  server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const route = routes[path];
    if (route === undefined) res.writeHead(404).end();
    else void route(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  baseUrl = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

function client(limits: Partial<UpstreamLimits> = {}, logger: Logger = silentLogger()): { http: UpstreamHttp; metrics: FlotillaMetrics } {
  const metrics = createMetrics();
  const http = new UpstreamHttp({ system: 'argocd', displayName: 'Argo CD', baseUrl, headers: {}, limits: { ...UPSTREAM_DEFAULTS, backoffMs: 1, ...limits }, metrics, logger, circuit: false });
  return { http, metrics };
}

/** A debug logger whose lines the test reads back. */
function recordingLogger(): { logger: Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString('utf8')) as Record<string, unknown>);
      done();
    },
  });
  return { logger: createLogger({ name: 'test', level: 'debug', destination }), lines };
}

async function outcomes(metrics: FlotillaMetrics): Promise<Record<string, number>> {
  return Object.fromEntries((await metrics.upstreamRequests.get()).values.map((v) => [String(v.labels.outcome), v.value]));
}

const Named = z.looseObject({ name: z.string() });
const PageMeta = z.object({ count: z.number().int().min(0), next: z.string().nullable(), previous: z.string().nullable() });
const Site = z.looseObject({ id: z.number().int() });

describe('UpstreamHttp lists: bounded per value', () => {
  it('refuses a 40 MB top-level string once it passes the value cap, naming it, without reading the rest', async () => {
    const { http, metrics } = client();
    hits.clear();
    const error = await failure(http.getList({ operation: 'list_applications', path: '/blob', itemSchema: Named }));
    expect(error.code).toBe('upstream_too_large');
    expect(error.message).toContain('at blob');
    expect(error.details).toMatchObject({ path: 'blob', max_bytes: MiB });
    expect(error.remedy).toMatch(/upstream-max-value-kib/);
    expect(await outcomes(metrics)).toEqual({ too_large: 1 });
    // Not retried, and abandoned near the cap: far less than the 40 MB sent.
    expect(hits.get('/blob')).toBe(1);
    const read = (await metrics.upstreamResponseBytes.get()).values.find((v) => v.metricName?.endsWith('_sum'))?.value ?? Infinity;
    expect(read).toBeLessThan(8 * MiB);
  });

  it('with the cap raised, skips the 40 MB string without holding it and reads the items', async () => {
    const { logger, lines } = recordingLogger();
    const { http } = client({ maxValueBytes: 64 * MiB }, logger);
    const baseline = process.memoryUsage().heapUsed;
    let peak = baseline;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().heapUsed);
    }, 2);
    try {
      const items = await http.getList({ operation: 'list_applications', path: '/blob', itemSchema: Named });
      expect(items.map((item) => item.name)).toEqual(['a', 'b']);
    } finally {
      clearInterval(sampler);
    }
    const parsed = lines.find((line) => line.msg === 'list read item by item');
    expect(parsed).toMatchObject({ operation: 'list_applications', items: 2 });
    // Between chunks it held at most the part of one small item; the string was counted, never kept.
    expect(parsed?.peakHeldBytes).toBeLessThanOrEqual(16);
    // Coarse: the splitter that collected such a string took hundreds of MiB of heap.
    expect(peak - baseline).toBeLessThan(96 * MiB);
  });

  it('refuses an item with a 2 MiB field mid-stream, naming the field', async () => {
    const { http, metrics } = client();
    const error = await failure(http.getList({ operation: 'list_applications', path: '/big-item', itemSchema: Named }));
    expect(error.code).toBe('upstream_too_large');
    expect(error.message).toContain('items[1].spec.source.helm.values');
    expect(error.details.path).toBe('items[1].spec.source.helm.values');
    expect(await outcomes(metrics)).toEqual({ too_large: 1 });
    // With the cap above it, the same list is read (the values dropped by nothing: the schema is loose).
    const raised = client({ maxValueBytes: 4 * MiB }).http;
    expect(await raised.getList({ operation: 'list_applications', path: '/big-item', itemSchema: Named })).toHaveLength(3);
  });
});

describe('UpstreamHttp single objects: one object is one value', () => {
  it('refuses an object with a 2 MiB field, naming the field, before holding it', async () => {
    const { http, metrics } = client();
    const error = await failure(http.getJson({ operation: 'get_application', path: '/app-big-field', schema: Named.or(z.looseObject({})) }));
    expect(error.code).toBe('upstream_too_large');
    expect(error.details.path).toBe('spec.source.helm.values');
    expect(await outcomes(metrics)).toEqual({ too_large: 1 });
  });

  it('refuses an object over the cap as a whole when no one field is, and reads arrays as before', async () => {
    const { http } = client();
    const error = await failure(http.getJson({ operation: 'get_application', path: '/app-many-fields', schema: z.looseObject({}) }));
    expect(error.code).toBe('upstream_too_large');
    expect(error.details.path).toBe('the whole response');
    const raised = client({ maxValueBytes: 2 * MiB }).http;
    expect(await raised.getJson({ operation: 'get_application', path: '/app-many-fields', schema: z.looseObject({ a: z.string() }) })).toMatchObject({ metadata: { name: 'a' } });
    const ips = await http.getJson({ operation: 'available_ips', path: '/ips', schema: z.array(z.object({ address: z.string() })) });
    expect(ips).toHaveLength(2);
  });
});

describe('UpstreamHttp pages', () => {
  it('reads a page item by item, with its count and links', async () => {
    const { http } = client();
    const page = await http.getPage({ operation: 'list_sites', path: '/page', listKey: 'results', itemSchema: Site, scalarsSchema: PageMeta });
    expect(page.items).toEqual([{ id: 1 }, { id: 2 }]);
    expect(page.scalars).toEqual({ count: 1234, next: 'http://netbox/api/dcim/sites/?limit=2&offset=2', previous: null });
  });

  it('names the item of the wrong shape, and refuses a page without results or count', async () => {
    const { http } = client({ retries: 0 });
    const page = (path: string) => http.getPage({ operation: 'list_sites', path, listKey: 'results', itemSchema: Site, scalarsSchema: PageMeta });
    const badItem = await failure(page('/page-bad-item'));
    expect(badItem.code).toBe('upstream_bad_response');
    expect(badItem.message).toMatch(/unexpected shape: .* at results\[2\]\.id/);
    const noResults = await failure(page('/page-no-results'));
    expect(noResults.code).toBe('upstream_bad_response');
    expect(noResults.message).toContain('no "results" list');
    expect((await failure(page('/page-no-count'))).message).toMatch(/unexpected shape: .* at count/);
  });

  it('answers malformed pages with upstream_bad_response', async () => {
    const { http, metrics } = client({ retries: 0 });
    const page = (path: string) => http.getPage({ operation: 'list_sites', path, listKey: 'results', itemSchema: Site, scalarsSchema: PageMeta });
    const notList = await failure(page('/page-results-object'));
    expect(notList.code).toBe('upstream_bad_response');
    expect(notList.message).toContain('"results" is not a list');
    expect((await failure(page('/page-cut'))).code).toBe('upstream_bad_response');
    const garbage = await failure(page('/page-garbage'));
    expect(garbage.code).toBe('upstream_bad_response');
    expect(garbage.message).toMatch(/not a list document: unexpected data after the end/);
    expect(await outcomes(metrics)).toEqual({ bad_response: 3 });
  });
});
