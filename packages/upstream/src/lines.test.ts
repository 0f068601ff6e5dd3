import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { silentLogger } from '@flotilla/core';
import { createMetrics, type FlotillaMetrics } from '@flotilla/metrics';
import type { UpstreamStreamError } from './classify.js';
import { UPSTREAM_DEFAULTS, UpstreamHttp, type UpstreamHttpOptions, type UpstreamLimits } from './http.js';
import { JsonValueTooLarge } from './json-items.js';
import { LineSplitter } from './lines.js';
import { failure, streamParts as stream } from './testing.js';

const KiB = 1024;
const MiB = 1024 * KiB;

/** One message of a server stream, one JSON value per line. */
const entry = (i: number, content = `line ${i}`): string => `${JSON.stringify({ result: { content, timeStampStr: `2025-01-01T00:00:${String(i % 60).padStart(2, '0')}Z`, last: false } })}\n`;

function* forever(): Generator<string> {
  for (let i = 0; ; i += 1) yield entry(i);
}

/** Resolves when the client closed the endless stream, with how many lines the server had written by then. */
let endlessClosed: Promise<number> = Promise.resolve(0);

const routes: Record<string, (req: IncomingMessage, res: ServerResponse) => unknown> = {
  '/endless': (_req, res) => {
    endlessClosed = new Promise<number>((resolve) => {
      void stream(res, forever()).then(resolve);
    });
  },
  '/three': (_req, res) => stream(res, [entry(1), entry(2), entry(3)]),
  // Lines split anywhere: mid-line, mid-character, CRLF endings, blank lines, no newline after the last.
  '/split': (_req, res) => {
    const text = `${entry(1, 'héllo wörld ✓')}\r\n\n${entry(2)}${entry(3, 'last').trimEnd()}`;
    const bytes = Buffer.from(text, 'utf8');
    const parts: Buffer[] = [];
    for (let i = 0; i < bytes.length; i += 7) parts.push(bytes.subarray(i, i + 7));
    return stream(res, parts);
  },
  '/long-line': (_req, res) => stream(res, [entry(1), entry(2), entry(3, 'x'.repeat(2 * MiB)), entry(4)]),
  '/garbage': (_req, res) => stream(res, [entry(1), '<html>oops</html>\n', entry(3)]),
  '/wrong-shape': (_req, res) => stream(res, [entry(1), `${JSON.stringify({ result: { content: 42 } })}\n`]),
  '/cut': (_req, res) => stream(res, [entry(1), entry(2), '{"result":{"content":"li']),
  '/reset': (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write(entry(1));
    res.write('{"result":');
    setImmediate(() => res.socket?.destroy());
  },
  // An upstream that reports errors in the stream itself, in a format only its client knows (see `failureLine`).
  '/error-chunk': (_req, res) => stream(res, [entry(1), `${JSON.stringify({ failure: { status: 403, text: 'permission denied' } })}\n`]),
  '/error-not-found': (_req, res) => stream(res, [`${JSON.stringify({ failure: { status: 404, text: 'pods "x" not found' } })}\n`]),
  '/error-first': (_req, res) => {
    res.writeHead(400, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ failure: { status: 400, text: 'max pods to view logs are reached. Please provide more granular query' } }));
  },
  '/empty': (_req, res) => stream(res, []),
  // Like Argo CD's managed-resources: identity first, then the states; the second item's states are 2 MiB.
  '/managed': (_req, res) =>
    stream(res, [
      '{"items":[',
      JSON.stringify({ group: 'apps', kind: 'Deployment', namespace: 'shop', name: 'web', targetState: '{}', liveState: '{}' }),
      ',',
      JSON.stringify({ kind: 'ConfigMap', namespace: 'shop', name: 'huge', targetState: JSON.stringify({ data: { blob: 'b'.repeat(MiB) } }), liveState: JSON.stringify({ data: { blob: 'c'.repeat(MiB) } }) }),
      ',',
      JSON.stringify({ kind: 'Service', namespace: 'shop', name: 'web', targetState: '{}', liveState: '{}' }),
      ']}',
    ]),
  '/tree': (_req, res) => stream(res, [JSON.stringify({ nodes: [{ kind: 'Pod', name: 'a' }, { kind: 'Service', name: 'b' }], hosts: [{ name: 'node-1' }] })]),
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

function client(limits: Partial<UpstreamLimits> = {}, errors: Pick<UpstreamHttpOptions, 'errorBody' | 'streamError'> = {}): { http: UpstreamHttp; metrics: FlotillaMetrics } {
  const metrics = createMetrics();
  const http = new UpstreamHttp({ system: 'argocd', displayName: 'Argo CD', baseUrl, headers: {}, limits: { ...UPSTREAM_DEFAULTS, backoffMs: 1, ...limits }, metrics, logger: silentLogger(), circuit: false, ...errors });
  return { http, metrics };
}

/** A client's reading of its upstream's error lines: `{"failure": {status, text}}`. */
function failureLine(line: unknown): UpstreamStreamError | undefined {
  const failure = (line as { failure?: { status?: unknown; text?: unknown } } | null)?.failure;
  if (typeof failure?.status !== 'number') return undefined;
  return { status: failure.status, message: typeof failure.text === 'string' ? failure.text : undefined };
}

async function outcomes(metrics: FlotillaMetrics): Promise<Record<string, number>> {
  return Object.fromEntries((await metrics.upstreamRequests.get()).values.map((v) => [String(v.labels.outcome), v.value]));
}

const LogLine = z.object({ result: z.object({ content: z.string(), timeStampStr: z.string().optional(), last: z.boolean().optional() }) }).transform((line) => line.result.content);
const lines = (http: UpstreamHttp, path: string, extra: Partial<Parameters<UpstreamHttp['getLines']>[0]> = {}) =>
  http.getLines({ operation: 'get_logs', path, lineSchema: LogLine, maxLines: 100, ...extra });

describe('UpstreamHttp.getLines: a stream read line by line, bounded', () => {
  it('abandons a stream that never ends once maxLines were read, closing the connection and freeing its slot', async () => {
    const { http, metrics } = client({ maxConcurrent: 1 });
    const read = await lines(http, '/endless', { maxLines: 50 });
    expect(read.items).toHaveLength(50);
    expect(read.items[49]).toBe('line 49');
    expect(read.stopped).toBe('max_lines');
    // The server saw the client hang up: its endless write loop ended.
    const written = await endlessClosed;
    expect(written).toBeGreaterThan(50);
    expect(await outcomes(metrics)).toEqual({ ok: 1 });
    // The only slot is free again: the next request runs.
    expect((await lines(http, '/three')).items).toEqual(['line 1', 'line 2', 'line 3']);
  });

  it('stops at maxBytes with the whole lines read by then, and never fails for it', async () => {
    const { http } = client();
    const read = await lines(http, '/endless', { maxLines: 100_000, maxBytes: 64 * KiB });
    expect(read.stopped).toBe('max_bytes');
    expect(read.bytesRead).toBe(64 * KiB);
    const lineBytes = Buffer.byteLength(entry(10));
    expect(read.items.length).toBeGreaterThan(64 * KiB / (lineBytes + 2) - 2);
    expect(read.items.length).toBeLessThanOrEqual(Math.floor((64 * KiB) / (lineBytes - 2)));
    await endlessClosed;
    // The body cap bounds it too: a line read stops there instead of failing as too large.
    const capped = await lines(client({ maxBodyBytes: 32 * KiB }).http, '/endless', { maxLines: 100_000 });
    expect(capped.stopped).toBe('max_bytes');
    expect(capped.bytesRead).toBe(32 * KiB);
    await endlessClosed;
  });

  it('reads lines split anywhere across chunks: characters, CRLF, blank lines, no final newline', async () => {
    const { http } = client();
    const read = await lines(http, '/split');
    expect(read.items).toEqual(['héllo wörld ✓', 'line 2', 'last']);
    expect(read).toMatchObject({ stopped: 'end', linesRead: 3, oversizedSkipped: 0 });
  });

  it('lets the caller skip lines and stop at a marker', async () => {
    const { http } = client();
    const skipped = await lines(http, '/three', { select: (line) => (line === 'line 2' ? 'skip' : 'keep') });
    expect(skipped.items).toEqual(['line 1', 'line 3']);
    expect(skipped.linesRead).toBe(3);
    const stopped = await lines(http, '/endless', { select: (line) => (line === 'line 7' ? 'stop' : 'keep') });
    expect(stopped.items).toHaveLength(7);
    expect(stopped.stopped).toBe('selected');
    await endlessClosed;
    // Exactly maxLines lines and then the end: everything was read, nothing cut.
    expect((await lines(http, '/three', { maxLines: 3 })).stopped).toBe('end');
    expect((await lines(http, '/three', { maxLines: 2 })).stopped).toBe('max_lines');
  });

  it('refuses a line over maxValueBytes mid-stream, naming it, or skips it when asked', async () => {
    const { http, metrics } = client();
    hits.clear();
    const error = await failure(lines(http, '/long-line'));
    expect(error.code).toBe('upstream_too_large');
    expect(error.message).toContain('line 3');
    expect(error.details).toMatchObject({ path: 'line 3', max_bytes: MiB });
    expect(hits.get('/long-line')).toBe(1);
    expect(await outcomes(metrics)).toEqual({ too_large: 1 });
    const skipping = await lines(http, '/long-line', { oversizedLines: 'skip' });
    expect(skipping.items).toEqual(['line 1', 'line 2', 'line 4']);
    expect(skipping.oversizedSkipped).toBe(1);
  });

  it('refuses garbage and lines of the wrong shape, naming the line, without retrying', async () => {
    const { http, metrics } = client();
    hits.clear();
    const garbage = await failure(lines(http, '/garbage'));
    expect(garbage.code).toBe('upstream_bad_response');
    expect(garbage.message).toMatch(/not JSON at line 2/);
    expect(garbage.message).not.toContain('oops');
    const shape = await failure(lines(http, '/wrong-shape'));
    expect(shape.message).toMatch(/at line 2\.result\.content/);
    expect(hits.get('/garbage')).toBe(1);
    expect(await outcomes(metrics)).toEqual({ bad_response: 2 });
  });

  it('treats a stream cut off mid-line as a failure worth one more try', async () => {
    const { http, metrics } = client({ retries: 1 });
    hits.clear();
    const cut = await failure(lines(http, '/cut'));
    expect(cut.code).toBe('upstream_bad_response');
    expect(cut.message).toMatch(/ended in the middle of line 3/);
    expect(hits.get('/cut')).toBe(2);
    const reset = await failure(lines(http, '/reset'));
    expect(reset.code).toBe('upstream_bad_response');
    expect(reset.message).toMatch(/closed the connection mid-response/);
    expect(await outcomes(metrics)).toEqual({ bad_response: 4 });
  });

  it("maps error lines, mid-stream or first, like HTTP errors, as the client's streamError reads them", async () => {
    const { http } = client({}, { streamError: failureLine, errorBody: failureLine });
    const denied = await failure(lines(http, '/error-chunk'));
    expect(denied.code).toBe('upstream_auth');
    expect(denied.message).toMatch(/permission denied \(line 2 of the stream\)/);
    const missing = await failure(lines(http, '/error-not-found'));
    expect(missing.code).toBe('not_found');
    const rejected = await failure(lines(http, '/error-first'));
    expect(rejected.code).toBe('upstream_rejected');
    expect(rejected.message).toMatch(/max pods to view logs/);
  });

  it('without a streamError, an error line is just a line of the wrong shape', async () => {
    const shape = await failure(lines(client().http, '/error-chunk'));
    expect(shape.code).toBe('upstream_bad_response');
    expect(shape.message).toMatch(/at line 2\.result/);
  });

  it('reads an empty stream as no lines', async () => {
    const read = await lines(client().http, '/empty');
    expect(read).toEqual({ items: [], linesRead: 0, bytesRead: 0, stopped: 'end', oversizedSkipped: 0 });
  });

  it("stops when the caller's signal aborts, mid-stream, closing the connection", async () => {
    const { http } = client();
    const controller = new AbortController();
    let seen = 0;
    const error = await failure(
      lines(http, '/endless', {
        maxLines: 100_000,
        maxBytes: 512 * MiB,
        select: () => {
          seen += 1;
          if (seen === 20) controller.abort();
          return 'keep';
        },
        signal: controller.signal,
      }),
    );
    expect(error.message).toMatch(/cancelled/);
    expect(await endlessClosed).toBeGreaterThanOrEqual(20);
  });

  it('refuses maxLines out of range', () => {
    const { http } = client({ maxItems: 1_000 });
    expect(() => lines(http, '/three', { maxLines: 0 })).toThrow(/maxLines/);
    expect(() => lines(http, '/three', { maxLines: 1_001 })).toThrow(/maxLines/);
  });
});

describe('UpstreamHttp.getList with another list key', () => {
  it('reads the resource tree node by node', async () => {
    const { http } = client();
    const nodes = await http.getList({ operation: 'resource_tree', path: '/tree', listKey: 'nodes', itemSchema: z.object({ kind: z.string(), name: z.string() }) });
    expect(nodes).toEqual([{ kind: 'Pod', name: 'a' }, { kind: 'Service', name: 'b' }]);
  });
});

describe('UpstreamHttp.getItems skipping oversized items', () => {
  const Managed = z.object({ kind: z.string(), name: z.string() });
  it('passes over an item past the cap without holding it, and says which it was', async () => {
    const { http } = client();
    const refused = await failure(http.getList({ operation: 'managed', path: '/managed', itemSchema: Managed }));
    expect(refused.code).toBe('upstream_too_large');
    const read = await http.getItems({ operation: 'managed', path: '/managed', itemSchema: Managed, oversizedItems: 'skip' });
    expect(read.items).toEqual([{ kind: 'Deployment', name: 'web' }, { kind: 'Service', name: 'web' }]);
    expect(read.oversized.count).toBe(1);
    expect(read.oversized.samples[0]?.path).toBe('items[1]');
    expect(read.oversized.samples[0]?.head).toMatch(/^\{"kind":"ConfigMap","namespace":"shop","name":"huge"/);
    expect(read.oversized.samples[0]?.head.length).toBeLessThanOrEqual(512);
  });
});

describe('LineSplitter', () => {
  it('holds at most one partial line of at most the cap', () => {
    const splitter = new LineSplitter({ maxLineBytes: 100 });
    let peak = 0;
    const out: string[] = [];
    for (let i = 0; i < 1_000; i += 1) {
      for (const line of splitter.push(Buffer.from(`${'a'.repeat(i % 60)}\n${'b'.repeat(i % 40)}`))) out.push(line.text);
      peak = Math.max(peak, splitter.heldBytes);
    }
    expect(peak).toBeLessThanOrEqual(101);
    expect(out.length).toBeGreaterThan(900);
  });

  it('refuses a line past the cap before it ends, and counts skipped ones', () => {
    const refusing = new LineSplitter({ maxLineBytes: 10 });
    expect(refusing.push(Buffer.from('short\n'))).toEqual([{ text: 'short', number: 1 }]);
    expect(() => refusing.push(Buffer.from('x'.repeat(20)))).toThrow(JsonValueTooLarge);
    const skipping = new LineSplitter({ maxLineBytes: 10, oversized: 'skip' });
    const got = [...skipping.push(Buffer.from(`ok\n${'x'.repeat(30)}`)), ...skipping.push(Buffer.from(`${'x'.repeat(30)}\nfine\r\n`))];
    expect(got).toEqual([{ text: 'ok', number: 1 }, { text: 'fine', number: 3 }]);
    expect(skipping.skipped).toBe(1);
    // Exactly the cap, with a CR before the newline: kept.
    expect(new LineSplitter({ maxLineBytes: 4 }).push(Buffer.from('abcd\r\n'))).toEqual([{ text: 'abcd', number: 1 }]);
  });
});
