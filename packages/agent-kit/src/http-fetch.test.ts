import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isFlotillaError } from '@flotilla/core';
import { HTTP_FETCH_LIMITS, keepAliveFetch } from './http-fetch.js';

/** What the test server saw of each request. */
interface Seen {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
}

let server: Server;
let base: string;
const seen: Seen[] = [];
let connections = 0;
/** Held event streams, released by a request to /release. */
const held: ServerResponse[] = [];
/** Requests never answered (until the client gives up). */
const hanging: ServerResponse[] = [];

function handle(req: IncomingMessage, body: string, res: ServerResponse): void {
  const path = req.url ?? '/';
  seen.push({ method: req.method ?? '', path, headers: req.headers, body });
  switch (path) {
    case '/json':
      res.writeHead(200, { 'content-type': 'application/json', 'x-many': ['a', 'b'] }).end(JSON.stringify({ echo: body, method: req.method }));
      return;
    case '/events':
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: first\n\n');
      held.push(res);
      return;
    case '/release':
      for (const stream of held.splice(0)) stream.end('data: last\n\n');
      res.writeHead(204).end();
      return;
    case '/gzip':
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' }).end(gzipSync(JSON.stringify({ packed: true })));
      return;
    case '/empty':
      res.writeHead(204).end();
      return;
    case '/huge': {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      const chunk = Buffer.alloc(1024 * 1024, 120);
      let sent = 0;
      const more = (): void => {
        while (sent <= HTTP_FETCH_LIMITS.maxBodyBytes) {
          sent += chunk.length;
          if (!res.write(chunk)) {
            res.once('drain', more);
            return;
          }
        }
        res.end();
      };
      res.on('error', () => undefined);
      more();
      return;
    }
    case '/moved':
      res.writeHead(307, { location: '/json' }).end();
      return;
    case '/hang':
      hanging.push(res);
      return;
    default:
      res.writeHead(404, { 'content-type': 'text/plain' }).end('no such thing');
  }
}

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
    req.on('end', () => handle(req, body, res));
  });
  server.on('connection', () => (connections += 1));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const res of [...held, ...hanging]) res.destroy();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('keepAliveFetch', () => {
  it('sends a JSON-RPC POST as fetch would (body, headers, content-length) and reads the reply whole into a Response', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { text: 'héllo' } });
    const response = await keepAliveFetch(`${base}/json`, { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json' }, body });
    expect(response.ok).toBe(true);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.headers.get('x-many')).toBe('a, b');
    expect(await response.json()).toEqual({ echo: body, method: 'POST' });
    const request = seen.at(-1);
    expect(request?.headers['content-type']).toBe('application/json');
    expect(request?.headers.accept).toBe('application/json');
    expect(request?.headers['content-length']).toBe(String(Buffer.byteLength(body)));
  });

  it('keeps the connection alive between requests to one origin', async () => {
    const before = connections;
    for (let i = 0; i < 3; i += 1) expect((await keepAliveFetch(`${base}/json`, { method: 'POST', body: String(i) })).status).toBe(200);
    expect(connections - before).toBeLessThanOrEqual(1);
  });

  it('hands an event stream over as it comes, before the server has ended it', async () => {
    const response = await keepAliveFetch(`${base}/events`, { method: 'POST', headers: { accept: 'text/event-stream' }, body: '{}' });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let text = '';
    while (!text.includes('first')) {
      const { value, done } = await reader.read();
      expect(done).toBe(false);
      text += decoder.decode(value, { stream: true });
    }
    // The server still holds the stream open: only this request ends it.
    expect(text).not.toContain('last');
    await keepAliveFetch(`${base}/release`);
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    expect(text).toBe('data: first\n\ndata: last\n\n');
  });

  it('decodes a gzip reply, and gives a 204 no body', async () => {
    expect(await (await keepAliveFetch(`${base}/gzip`)).json()).toEqual({ packed: true });
    const empty = await keepAliveFetch(`${base}/empty`);
    expect(empty.status).toBe(204);
    expect(empty.body).toBeNull();
  });

  it('answers a 4xx as a Response (the caller reads the error), never as a rejection', async () => {
    const response = await keepAliveFetch(`${base}/nowhere`);
    expect(response.status).toBe(404);
    expect(response.ok).toBe(false);
    expect(await response.text()).toBe('no such thing');
  });

  it(`refuses a reply over ${HTTP_FETCH_LIMITS.maxBodyBytes} bytes instead of holding it`, async () => {
    const failure = await keepAliveFetch(`${base}/huge`).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(isFlotillaError(failure) && failure.code).toBe('upstream_too_large');
    // The process is still fine: the next request is answered.
    expect((await keepAliveFetch(`${base}/json`, { method: 'POST', body: 'after' })).status).toBe(200);
  });

  it('refuses a redirect when asked to, and follows one by default', async () => {
    await expect(keepAliveFetch(`${base}/moved`, { redirect: 'error' })).rejects.toThrow(TypeError);
    const followed = await keepAliveFetch(`${base}/moved`, { method: 'POST', body: 'again' });
    expect(followed.status).toBe(200);
    expect(await followed.json()).toEqual({ echo: 'again', method: 'POST' });
  });

  it("rejects with the signal's AbortError when the caller gives up, and with a TypeError when nothing listens", async () => {
    const controller = new AbortController();
    const pending = keepAliveFetch(`${base}/hang`, { signal: controller.signal });
    while (hanging.length === 0) await new Promise((resolve) => setImmediate(resolve));
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });

    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    await expect(keepAliveFetch(`http://127.0.0.1:${port}/`)).rejects.toThrow(TypeError);
  });

  it('passes what it does not send itself (a Request object) to the global fetch', async () => {
    const response = await keepAliveFetch(new Request(`${base}/json`, { method: 'POST', body: 'as a Request' }));
    expect(await response.json()).toEqual({ echo: 'as a Request', method: 'POST' });
  });
});
