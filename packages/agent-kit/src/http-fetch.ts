import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { FlotillaError } from '@flotilla/core';

/** Limits of keepAliveFetch, per process. */
export const HTTP_FETCH_LIMITS = {
  /** Most bytes of a reply read whole (every reply but an event stream); a larger one is refused, not truncated. */
  maxBodyBytes: 16 * 1024 * 1024,
  /** Most open connections per origin (further requests wait for one), and most idle ones kept. */
  maxSocketsPerOrigin: 256,
  /** An idle kept-alive connection is closed after this long (under Node's servers' 5 s keep-alive, so a request never goes out on a connection the server is closing). */
  idleSocketMs: 4_000,
} as const;

const AGENT_OPTIONS = { keepAlive: true, maxSockets: HTTP_FETCH_LIMITS.maxSocketsPerOrigin, maxFreeSockets: HTTP_FETCH_LIMITS.maxSocketsPerOrigin, timeout: HTTP_FETCH_LIMITS.idleSocketMs };
const httpAgent = new HttpAgent(AGENT_OPTIONS);
const httpsAgent = new HttpsAgent(AGENT_OPTIONS);

/** Statuses whose response has no body (the Response constructor refuses one). */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

function headersOf(res: IncomingMessage): Headers {
  const headers = new Headers();
  for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) headers.append(res.rawHeaders[i] as string, res.rawHeaders[i + 1] as string);
  return headers;
}

/** The reply's body as sent, decoded as fetch decodes it (gzip, deflate, br). */
function decoded(res: IncomingMessage): Readable {
  switch (res.headers['content-encoding']?.trim().toLowerCase() ?? 'identity') {
    case 'gzip':
    case 'x-gzip':
      return res.pipe(createGunzip());
    case 'deflate':
      return res.pipe(createInflate());
    case 'br':
      return res.pipe(createBrotliDecompress());
    default:
      return res;
  }
}

/** Reads a body whole, refusing one over HTTP_FETCH_LIMITS.maxBodyBytes. */
function readWhole(body: Readable, url: URL): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    body.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= HTTP_FETCH_LIMITS.maxBodyBytes) {
        chunks.push(chunk);
        return;
      }
      body.destroy();
      reject(
        new FlotillaError('upstream_too_large', `the reply from ${url.origin} is over ${HTTP_FETCH_LIMITS.maxBodyBytes} bytes`, {
          remedy: 'Ask for less (a narrower question or a smaller page), or check that the URL names an A2A agent.',
          details: { maxBytes: HTTP_FETCH_LIMITS.maxBodyBytes },
        }),
      );
    });
    body.once('error', reject);
    body.once('end', () => resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)));
  });
}

/** A request keepAliveFetch sends itself; anything else goes to the global fetch. */
interface Plain {
  readonly url: URL;
  readonly method: string;
  readonly headers: Record<string, string>;
  readonly body: string | Uint8Array | undefined;
  readonly redirect: NonNullable<RequestInit['redirect']>;
  readonly signal: AbortSignal | undefined;
}

function plainRequest(input: string | URL | Request, init: RequestInit | undefined): Plain | undefined {
  if (input instanceof Request) return undefined;
  const url = new URL(input);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  const body = init?.body ?? undefined;
  if (body !== undefined && body !== null && typeof body !== 'string' && !(body instanceof Uint8Array)) return undefined;
  const redirect = init?.redirect ?? 'follow';
  if (redirect === 'manual') return undefined;
  const headers: Record<string, string> = {};
  new Headers(init?.headers).forEach((value, key) => (headers[key] = value));
  return { url, method: (init?.method ?? 'GET').toUpperCase(), headers, body: body ?? undefined, redirect, signal: init?.signal ?? undefined };
}

function send(plain: Plain): Promise<Response> {
  const { url } = plain;
  const requestOf = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<Response>((resolve, reject) => {
    const req = requestOf(url, { method: plain.method, headers: plain.headers, agent: url.protocol === 'https:' ? httpsAgent : httpAgent, signal: plain.signal }, (res) => {
      const status = res.statusCode ?? 0;
      const init = { status, statusText: res.statusMessage ?? '', headers: headersOf(res) };
      if (REDIRECT_STATUSES.has(status) && res.headers.location !== undefined) {
        res.resume();
        if (plain.redirect === 'error') reject(new TypeError(`fetch failed: ${url.origin} answered with a redirect (${status}), and this request follows none`));
        // fetch follows redirects by default: the global fetch does it, with every rule of the spec.
        else resolve(fetch(url, { method: plain.method, headers: plain.headers, ...(plain.body === undefined ? {} : { body: plain.body }), ...(plain.signal === undefined ? {} : { signal: plain.signal }) }));
        return;
      }
      if (NULL_BODY_STATUSES.has(status) || plain.method === 'HEAD') {
        res.resume();
        resolve(new Response(null, init));
        return;
      }
      const body = decoded(res);
      res.once('error', (error) => body.destroy(error));
      if (/^text\/event-stream\b/i.test(res.headers['content-type'] ?? '')) {
        // A stream of events is read as it comes (the A2A SDK parses it event by event).
        resolve(new Response(Readable.toWeb(body) as ReadableStream<Uint8Array>, init));
        return;
      }
      readWhole(body, url).then((bytes) => resolve(new Response(bytes, init)), reject);
    });
    req.once('error', (error) => reject(error.name === 'AbortError' ? error : new TypeError(`fetch failed: ${error.message}`, { cause: error })));
    req.end(plain.body);
  });
}

/**
 * `fetch` for the A2A clients (the supervisor's, `flotilla ask`'s, the Slack bot's): the requests the A2A SDK's
 * transports send (a string or bytes body, http or https) go over node:http with kept-alive connections per origin,
 * and a reply other than an event stream is read whole (HTTP_FETCH_LIMITS.maxBodyBytes at most) into a Response.
 * Node 20's built-in fetch spends about twice the CPU per request (its web streams and request objects); with 50
 * clients asking at once, the difference is the clients' latency. Redirects are refused when asked (`redirect:
 * 'error'`) and otherwise followed by the global fetch; a Request object, another body type or `redirect: 'manual'`
 * goes to the global fetch unchanged. Failures reject as fetch's do: a TypeError, or the signal's AbortError.
 */
export const keepAliveFetch: typeof fetch = (input, init) => {
  const plain = plainRequest(input, init);
  return plain === undefined ? fetch(input, init) : send(plain);
};
