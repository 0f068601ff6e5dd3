import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { fakeUpstream, streamParts } from '@flotilla/agent-host/testing';
import { createLogger, FlotillaError, parseSettings, silentLogger, type Logger } from '@flotilla/core';
import { createMetrics } from '@flotilla/metrics';
import { RATE_LIMIT_DEFAULTS, UPSTREAM_DEFAULTS } from '@flotilla/upstream';
import { NETBOX_UPSTREAM_SETTINGS } from '../config.js';
import { netBoxClientFrom } from '../server.js';
import { NETBOX_DEFAULTS, NetBoxClient } from './netbox-client.js';

const MiB = 1024 * 1024;
/** A page of this many tiny interfaces is about 30 MB: under the 32 MiB body cap, far over what one page should be. */
const TINY_RESULTS = 150_000;

function tinyInterface(id: number): string {
  return JSON.stringify({ id, name: `eth${id}`, device: { id: 1, name: 'sw1' }, enabled: true, description: 'd'.repeat(105) });
}

function* hugePage(): Generator<string> {
  yield `{"count":${TINY_RESULTS},"next":null,"previous":null,"results":[`;
  for (let start = 0; start < TINY_RESULTS; start += 1_000) {
    const ids = Array.from({ length: Math.min(1_000, TINY_RESULTS - start) }, (_, i) => start + i + 1);
    yield `${start === 0 ? '' : ','}${ids.map(tinyInterface).join(',')}`;
  }
  yield ']}';
}

const upstream = fakeUpstream((req, res) => {
  const path = (req.url ?? '/').split('?')[0];
  if (path === '/api/dcim/interfaces/') void streamParts(res, hugePage());
  else if (path === '/api/dcim/devices/') {
    const results = Array.from({ length: 20 }, (_, i) => ({ id: i + 1, name: `dev${i + 1}`, ...(i === 12 ? { comments: 'c'.repeat(2 * MiB) } : {}) }));
    void streamParts(res, [JSON.stringify({ count: 20, next: null, previous: null, results })]);
  } else if (path === '/api/dcim/sites/') {
    // Django REST framework's per-field errors, as NetBox answers a filter value it does not know.
    res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ site: ['Select a valid choice. xyz is not one of the available choices.'], tag: ['Select a valid choice.', 42] }));
  } else if (path === '/api/dcim/cables/') {
    // NetBox's own answer to a server error.
    res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'division by zero', exception: 'ZeroDivisionError', netbox_version: '4.1.0' }));
  } else res.writeHead(404, { 'content-type': 'application/json' }).end('{"detail":"Not found."}');
});

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

describe('NetBoxClient pages, read item by item', () => {
  it('parses a 30 MB page of tiny results one item at a time', async () => {
    const { logger, lines } = recordingLogger();
    const metrics = createMetrics();
    // A page size this large is asked for here, so the whole 30 MB page is legitimately one page.
    const client = new NetBoxClient({ baseUrl: upstream.url, token: 't', rateLimit: false, circuit: false, metrics, logger, maxPageSize: TINY_RESULTS });
    const page = await client.page('interfaces', {}, { limit: TINY_RESULTS, offset: 0 });
    expect(page.count).toBe(TINY_RESULTS);
    expect(page.results).toHaveLength(TINY_RESULTS);
    expect(page.results[0]).toMatchObject({ id: 1, name: 'eth1', device: { name: 'sw1' } });
    expect(page.results.at(-1)?.id).toBe(TINY_RESULTS);
    const read = lines.find((line) => line.msg === 'list read item by item');
    expect(read).toMatchObject({ operation: 'list_interfaces', items: TINY_RESULTS });
    // Between chunks the splitter held a part of one item at most, never the page.
    expect(read?.peakHeldBytes).toBeLessThanOrEqual(Buffer.byteLength(tinyInterface(TINY_RESULTS)));
  });

  it('abandons a page with more items than the page size asked for (a server ignoring limit)', async () => {
    const metrics = createMetrics();
    const client = new NetBoxClient({ baseUrl: upstream.url, token: 't', rateLimit: false, circuit: false, metrics, logger: silentLogger() });
    const error = await client.page('interfaces', {}, { limit: 1_000, offset: 0 }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'upstream_bad_response', details: { page_size: 1_000 } });
    expect((error as FlotillaError).message).toMatch(/more than the 1000 items asked for in one page of list_interfaces/);
    const counted = await client.count('interfaces', {}).catch((caught: unknown) => caught);
    expect(counted).toMatchObject({ code: 'upstream_bad_response', details: { page_size: 1 } });
    // Every operation's series exist at zero from the start; these are the ones counted.
    const outcomes = (await metrics.upstreamRequests.get()).values.filter((v) => v.value > 0).map((v) => [v.labels.operation, v.labels.outcome, v.value]);
    expect(outcomes).toEqual([
      ['list_interfaces', 'bad_response', 1],
      ['count_interfaces', 'bad_response', 1],
    ]);
  });

  it('refuses a page whose one field is over the value cap, naming it', async () => {
    const metrics = createMetrics();
    const client = new NetBoxClient({ baseUrl: upstream.url, token: 't', rateLimit: false, circuit: false, metrics, logger: silentLogger() });
    const error = await client.page('devices', {}, { limit: 50, offset: 0 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(FlotillaError);
    expect(error).toMatchObject({ code: 'upstream_too_large', details: { path: 'results[12].comments', max_bytes: NETBOX_DEFAULTS.upstream.maxValueBytes } });
    expect((error as FlotillaError).message).toContain('NetBox');
    const outcomes = (await metrics.upstreamRequests.get()).values.filter((v) => v.value > 0).map((v) => [v.labels.outcome, v.value]);
    expect(outcomes).toEqual([['too_large', 1]]);
  });

  it('takes the value cap from --upstream-max-value-kib / FLOTILLA_UPSTREAM_MAX_VALUE_KIB', async () => {
    const page = (flags: Record<string, string>, env: Record<string, string> = {}) =>
      netBoxClientFrom(upstream.url, 't', parseSettings(NETBOX_UPSTREAM_SETTINGS, flags, env, 'test'), createMetrics(), silentLogger()).page('devices', {}, { limit: 50, offset: 0 });
    expect(parseSettings(NETBOX_UPSTREAM_SETTINGS, {}, {}, 'test').upstreamMaxValueKiB * 1024).toBe(NETBOX_DEFAULTS.upstream.maxValueBytes);
    expect(await page({ 'upstream-max-value-kib': '16' }).catch((caught: unknown) => caught)).toMatchObject({ code: 'upstream_too_large', details: { max_bytes: 16 * 1024 } });
    expect((await page({}, { FLOTILLA_UPSTREAM_MAX_VALUE_KIB: '4096' })).results).toHaveLength(20);
    expect(() => parseSettings(NETBOX_UPSTREAM_SETTINGS, { 'upstream-max-value-kib': '8' }, {}, 'test')).toThrow(/upstream-max-value-kib/);
  });
});

describe('NetBoxClient errors, as Django REST framework writes them', () => {
  const client = () => new NetBoxClient({ baseUrl: upstream.url, token: 't', rateLimit: false, circuit: false, limits: { ...NETBOX_DEFAULTS.upstream, retries: 0 }, metrics: createMetrics(), logger: silentLogger() });

  it('quotes {detail}, the per-field errors and NetBox\'s own {error}, not the body', async () => {
    const missing = await client().get('devices', 7).catch((caught: unknown) => caught);
    expect(missing).toMatchObject({ code: 'not_found', message: 'NetBox: Not found.' });
    const rejected = await client().page('sites', { site: 'xyz' }, { limit: 10, offset: 0 }).catch((caught: unknown) => caught);
    expect(rejected).toMatchObject({ code: 'upstream_rejected', details: { status: 400 } });
    expect((rejected as FlotillaError).message).toBe('NetBox rejected the request (400: site: Select a valid choice. xyz is not one of the available choices.; tag: Select a valid choice.)');
    const failed = await client().page('cables', {}, { limit: 10, offset: 0 }).catch((caught: unknown) => caught);
    expect(failed).toMatchObject({ code: 'upstream_unavailable', message: 'NetBox failed (500: division by zero)' });
  });

  it('derives its limits from the shared defaults, with a smaller body cap', () => {
    expect(NETBOX_DEFAULTS.upstream).toEqual({ ...UPSTREAM_DEFAULTS, maxBodyBytes: 32 * MiB });
    expect(NETBOX_DEFAULTS.rateLimit).toEqual(RATE_LIMIT_DEFAULTS);
  });
});
