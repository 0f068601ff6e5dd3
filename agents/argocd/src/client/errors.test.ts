import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { fakeUpstream } from '@flotilla/agent-host/testing';
import { z } from 'zod';
import { silentLogger } from '@flotilla/core';
import { createMetrics } from '@flotilla/metrics';
import { UPSTREAM_DEFAULTS, UpstreamHttp, type UpstreamLimits } from '@flotilla/upstream';
import { grpcGatewayError, grpcStreamError } from './errors.js';
import { failure } from '@flotilla/upstream/testing';

/** grpc-gateway's line for one message of a server stream. */
const entry = (i: number): string => `${JSON.stringify({ result: { content: `line ${i}`, last: false } })}\n`;

const routes: Record<string, (req: IncomingMessage, res: ServerResponse) => void> = {
  '/error-chunk': (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(`${entry(1)}${JSON.stringify({ error: { grpc_code: 7, http_code: 403, message: 'permission denied', http_status: 'Forbidden' } })}\n`);
  },
  '/error-not-found': (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(`${JSON.stringify({ error: { grpc_code: 5, message: 'pods "x" not found' } })}\n`);
  },
  '/error-first': (_req, res) => {
    res.writeHead(400, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { grpc_code: 3, http_code: 400, message: 'max pods to view logs are reached. Please provide more granular query', http_status: 'Bad Request' } }));
  },
  // A plain Go error: gRPC code UNKNOWN, HTTP 500; how Argo CD answers a bad label selector.
  '/unknown': (_req, res) => res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"found \'=\', expected: identifier","code":2,"message":"found \'=\', expected: identifier"}'),
  '/unavailable': (_req, res) => res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":"connection refused","code":14,"message":"connection refused"}'),
  '/unimplemented': (_req, res) => res.writeHead(500, { 'content-type': 'application/json' }).end('{"code":12,"message":"method not implemented"}'),
  '/bad-request': (_req, res) => res.writeHead(400).end('{"error":"invalid selector","code":3,"message":"invalid selector"}'),
};

const hits = new Map<string, number>();
const upstream = fakeUpstream((req, res) => {
  const path = (req.url ?? '/').split('?')[0] ?? '/';
  hits.set(path, (hits.get(path) ?? 0) + 1);
  const route = routes[path];
  if (route === undefined) res.writeHead(404).end();
  else route(req, res);
});

/** UpstreamHttp as ArgoCdClient builds it: grpc-gateway's error bodies and stream error chunks read by this client. */
function client(limits: Partial<UpstreamLimits> = {}): UpstreamHttp {
  return new UpstreamHttp({
    system: 'argocd',
    displayName: 'Argo CD',
    baseUrl: upstream.url,
    headers: {},
    limits: { ...UPSTREAM_DEFAULTS, backoffMs: 1, ...limits },
    metrics: createMetrics(),
    logger: silentLogger(),
    circuit: false,
    errorBody: grpcGatewayError,
    streamError: grpcStreamError,
  });
}

const LogLine = z.object({ result: z.object({ content: z.string() }) });
const lines = (http: UpstreamHttp, path: string) => http.getLines({ operation: 'get_logs', path, lineSchema: LogLine, maxLines: 100 });
const get = (http: UpstreamHttp, path: string) => http.getJson({ operation: 'get_application', path, schema: z.looseObject({}) });

describe('Argo CD errors, as grpc-gateway writes them', () => {
  it("maps grpc-gateway's error chunks, mid-stream or first, like HTTP errors", async () => {
    const http = client();
    const denied = await failure(lines(http, '/error-chunk'));
    expect(denied.code).toBe('upstream_auth');
    expect(denied.message).toMatch(/permission denied \(line 2 of the stream\)/);
    const missing = await failure(lines(http, '/error-not-found'));
    expect(missing.code).toBe('not_found');
    const rejected = await failure(lines(http, '/error-first'));
    expect(rejected.code).toBe('upstream_rejected');
    expect(rejected.message).toMatch(/max pods to view logs/);
  });

  it('takes a 500 with gRPC code UNKNOWN as the caller\'s mistake, retries UNAVAILABLE, and not UNIMPLEMENTED', async () => {
    const http = client({ retries: 2 });
    hits.clear();
    const unknown = await failure(get(http, '/unknown'));
    expect(unknown).toMatchObject({ code: 'upstream_rejected', details: { status: 500, grpc_code: 2 } });
    expect(unknown.message).toBe("Argo CD rejected the request (found '=', expected: identifier)");
    expect(hits.get('/unknown')).toBe(1);
    const unavailable = await failure(get(http, '/unavailable'));
    expect(unavailable).toMatchObject({ code: 'upstream_unavailable', message: 'Argo CD failed (503: connection refused)' });
    expect(hits.get('/unavailable')).toBe(3);
    expect((await failure(get(http, '/unimplemented'))).code).toBe('upstream_unavailable');
    expect(hits.get('/unimplemented')).toBe(1);
  });

  it('quotes the message of a plain error body', async () => {
    const rejected = await failure(get(client(), '/bad-request'));
    expect(rejected.code).toBe('upstream_rejected');
    expect(rejected.message).toBe('Argo CD rejected the request (400: invalid selector)');
  });

  it('reads only its own format', () => {
    expect(grpcStreamError({ result: { content: 'x' } })).toBeUndefined();
    expect(grpcStreamError({ result: {}, error: { grpc_code: 2 } })).toBeUndefined();
    expect(grpcStreamError({ error: { grpc_code: 14 } })).toEqual({ message: 'gRPC code 14', failure: 'transient', details: { grpc_code: 14 }, status: 503 });
    expect(grpcGatewayError([1, 2])).toBeUndefined();
    expect(grpcGatewayError({ detail: 'Not found.' })).toEqual({ message: undefined });
  });
});
