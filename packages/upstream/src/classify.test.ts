import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { FlotillaError, silentLogger } from '@flotilla/core';
import { createMetrics, type FlotillaMetrics } from '@flotilla/metrics';
import { ERROR_BODY_MAX_BYTES, ERROR_MESSAGE_MAX_CHARS, errorExcerpt, type ErrorBodyParser } from './classify.js';
import { UPSTREAM_DEFAULTS, UpstreamHttp } from './http.js';
import { fakeUpstream } from './testing.js';

const PROXY_PAGE = `<!DOCTYPE html>
<html><head><title>502 Bad Gateway</title><style>body { color: red; }</style><script>track("x")</script></head>
<body><h1>Bad   Gateway</h1>\u0000<p>The proxy could not reach the upstream.</p></body></html>`;

const bodies: Record<string, { status: number; body: string }> = {
  '/proxy': { status: 502, body: PROXY_PAGE },
  '/empty': { status: 502, body: '' },
  '/json': { status: 400, body: '{"problem":{"text":"bad filter","kind":"mistake"}}' },
  '/huge': { status: 500, body: `${'why '.repeat(200)}${'x'.repeat(2 * 1024 * 1024)}` },
  '/mistake': { status: 500, body: '{"problem":{"text":"bad selector","kind":"mistake","code":2}}' },
  '/broken': { status: 500, body: '{"problem":{"text":"disk full","kind":"broken"}}' },
  '/blip': { status: 503, body: '{"problem":{"text":"restarting","kind":"blip"}}' },
  '/other-json': { status: 500, body: '{"unexpected":true}' },
};

const hits = new Map<string, number>();
const upstream = fakeUpstream((req, res: ServerResponse) => {
  const path = (req.url ?? '/').split('?')[0] ?? '/';
  hits.set(path, (hits.get(path) ?? 0) + 1);
  const answer = bodies[path] ?? { status: 404, body: '' };
  res.writeHead(answer.status, { 'content-type': path === '/proxy' ? 'text/html' : 'application/json' }).end(answer.body);
});

/** A client's reading of its upstream's error format: `{"problem": {text, kind, code}}`. */
const readProblem: ErrorBodyParser = (body) => {
  const problem = (body as { problem?: { text?: unknown; kind?: unknown; code?: unknown } } | null)?.problem;
  if (problem === undefined) return undefined;
  const failure = problem.kind === 'mistake' ? 'rejected' : problem.kind === 'broken' ? 'permanent' : 'transient';
  return { message: typeof problem.text === 'string' ? problem.text : undefined, failure, ...(typeof problem.code === 'number' ? { details: { code: problem.code } } : {}) };
};

function client(errorBody?: ErrorBodyParser): { http: UpstreamHttp; metrics: FlotillaMetrics } {
  const metrics = createMetrics();
  const http = new UpstreamHttp({ system: 'netbox', displayName: 'Inventory', baseUrl: upstream.url, headers: {}, limits: { ...UPSTREAM_DEFAULTS, retries: 2, backoffMs: 1 }, metrics, logger: silentLogger(), circuit: false, errorBody });
  return { http, metrics };
}

async function failure(http: UpstreamHttp, path: string): Promise<FlotillaError> {
  const error = await http.getJson({ operation: 'get_thing', path, schema: z.looseObject({}) }).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (error instanceof FlotillaError) return error;
  throw new Error(`expected a FlotillaError, got ${String(error)}`);
}

describe('error bodies without a reader: a short, sanitized excerpt', () => {
  it('quotes the text of a proxy page, without its markup, scripts, styles or control characters', async () => {
    const { http } = client();
    hits.clear();
    const error = await failure(http, '/proxy');
    expect(error).toMatchObject({ code: 'upstream_unavailable', details: { status: 502 } });
    expect(error.message).toBe('Inventory failed (502: 502 Bad Gateway Bad Gateway The proxy could not reach the upstream.)');
    // Still a server error: retried.
    expect(hits.get('/proxy')).toBe(3);
  });

  it('quotes a JSON body it cannot read as text, and says only the status of an empty one', async () => {
    const { http } = client();
    expect((await failure(http, '/json')).message).toBe('Inventory rejected the request (400: {"problem":{"text":"bad filter","kind":"mistake"}})');
    expect((await failure(http, '/empty')).message).toBe('Inventory failed (502: HTTP 502)');
  });

  it(`reads at most ERROR_BODY_MAX_BYTES of an error body and quotes at most ERROR_MESSAGE_MAX_CHARS`, async () => {
    const { http, metrics } = client();
    const error = await failure(http, '/huge');
    const quoted = /\(500: (.*)\)$/.exec(error.message)?.[1] ?? '';
    expect(quoted).toHaveLength(ERROR_MESSAGE_MAX_CHARS);
    expect(quoted.endsWith('…')).toBe(true);
    const read = (await metrics.upstreamResponseBytes.get()).values.filter((v) => v.metricName?.endsWith('_sum')).map((v) => v.value);
    // Three attempts, each of at most the cap (plus the last chunk read), not 2 MiB each.
    expect(read[0]).toBeGreaterThan(0);
    expect(read[0]).toBeLessThanOrEqual(3 * (ERROR_BODY_MAX_BYTES + 64 * 1024));
  });

  it('excerpts: white space collapsed, cut with an ellipsis', () => {
    expect(errorExcerpt('  a\n\tb  ')).toBe('a b');
    expect(errorExcerpt('<p></p>')).toBe('');
    expect(errorExcerpt('y'.repeat(1_000))).toBe(`${'y'.repeat(ERROR_MESSAGE_MAX_CHARS - 1)}…`);
  });
});

describe("error bodies read by the client's errorBody", () => {
  it('quotes its message and takes its word on what a 5xx means', async () => {
    const { http } = client(readProblem);
    hits.clear();
    const mistake = await failure(http, '/mistake');
    expect(mistake).toMatchObject({ code: 'upstream_rejected', message: 'Inventory rejected the request (bad selector)', details: { status: 500, code: 2 } });
    expect(hits.get('/mistake')).toBe(1);
    const broken = await failure(http, '/broken');
    expect(broken).toMatchObject({ code: 'upstream_unavailable', message: 'Inventory failed (500: disk full)' });
    expect(hits.get('/broken')).toBe(1);
    const blip = await failure(http, '/blip');
    expect(blip.message).toBe('Inventory failed (503: restarting)');
    expect(hits.get('/blip')).toBe(3);
  });

  it('falls back to the excerpt when the body is not in its format', async () => {
    const { http } = client(readProblem);
    expect((await failure(http, '/other-json')).message).toBe('Inventory failed (500: {"unexpected":true})');
    expect((await failure(http, '/proxy')).message).toContain('The proxy could not reach the upstream.');
  });
});
