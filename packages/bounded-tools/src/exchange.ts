import type { IncomingHttpHeaders } from 'node:http';
import { SUPPORTED_PROTOCOL_VERSIONS, type JSONRPCMessage, type JSONRPCRequest, type RequestId, type Transport } from '@modelcontextprotocol/server';

/**
 * Methods answered on the JSON fast path: what MCP clients call while they work (a page after a page). Everything
 * else (initialize, notifications, other methods, batches, the 2026 era) goes to the SDK's own HTTP handler.
 */
export const FAST_PATH_METHODS: ReadonlySet<string> = new Set(['tools/call', 'tools/list', 'ping']);

const LEGACY_VERSIONS: ReadonlySet<string> = new Set(SUPPORTED_PROTOCOL_VERSIONS);

const mediaType = (value: string | undefined): string => (value ?? '').split(';', 1)[0]!.trim().toLowerCase();

/**
 * The JSON-RPC request of an HTTP POST the fast path may answer, or undefined to leave it to the SDK: one request
 * (not a batch, not a notification) of a FAST_PATH_METHODS method, from a client on a 2025-era protocol version
 * (the `mcp-protocol-version` header, which clients send after initialize), with the headers the SDK would accept
 * (JSON body, both response types accepted) and no session (this server is stateless). Anything the SDK would refuse
 * or answer differently goes to the SDK, so its answers stay the SDK's own.
 */
export function fastPathRequest(headers: IncomingHttpHeaders, body: unknown): JSONRPCRequest | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const message = body as Record<string, unknown>;
  const id = message.id;
  const idOk = typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id));
  if (message.jsonrpc !== '2.0' || !idOk || typeof message.method !== 'string' || !FAST_PATH_METHODS.has(message.method)) return undefined;
  if (message.params !== undefined && (typeof message.params !== 'object' || message.params === null || Array.isArray(message.params))) return undefined;
  const version = headers['mcp-protocol-version'];
  if (typeof version !== 'string' || !LEGACY_VERSIONS.has(version)) return undefined;
  if (headers['mcp-session-id'] !== undefined || mediaType(headers['content-type']) !== 'application/json') return undefined;
  const accept = (headers.accept ?? '').toLowerCase();
  if (!accept.includes('application/json') || !accept.includes('text/event-stream')) return undefined;
  return body as JSONRPCRequest;
}

const shuttingDown = (id: RequestId): JSONRPCMessage => ({ jsonrpc: '2.0', id, error: { code: -32000, message: 'the MCP server is shutting down; send the request again' } });

/** What the server asked of a client it cannot reach: a stateless JSON answer has no channel back. */
const NO_CHANNEL_BACK = 'this MCP server answers each request over stateless HTTP and cannot send requests to the client (sampling, elicitation, roots)';

/**
 * A transport for one long-lived MCP server (the SDK's `McpServer`, connected once) that answers requests from
 * many HTTP exchanges: each request gets an id of its own here (clients number theirs independently) and its
 * response goes back to the exchange it came from, with the client's id. Nothing is kept per request but its
 * resolver and the client's id (one each per request in flight).
 *
 * Why not the SDK's per-request web-standard transport: each of its exchanges builds a web Request, a Response and
 * ReadableStreams, which Node 20 keeps (with the tool result they carry) through young-generation collections until
 * a full one; over a paging session that set the heap's size, not the data. This transport builds none of them.
 */
export class JsonExchangeTransport implements Transport {
  onmessage?: Transport['onmessage'];
  onclose?: Transport['onclose'];
  onerror?: Transport['onerror'];
  // Two maps, not one of { id, resolve } records: no per-request object holds the resolver (see the class note).
  private readonly resolvers = new Map<number, (response: JSONRPCMessage) => void>();
  private readonly clientIds = new Map<number, RequestId>();
  private next = 0;
  private closed = false;

  async start(): Promise<void> {}

  send(message: JSONRPCMessage): Promise<void> {
    if ('id' in message && ('result' in message || 'error' in message)) {
      const id = typeof message.id === 'number' ? message.id : Number.NaN;
      const resolve = this.resolvers.get(id);
      const clientId = this.clientIds.get(id);
      if (resolve === undefined || clientId === undefined) return Promise.resolve(); // the exchange went away (cancelled): nobody to answer
      this.forget(id);
      // The response is this transport's now: its id is set back in place, not copied into a new object.
      (message as { id: RequestId }).id = clientId;
      resolve(message);
      return Promise.resolve();
    }
    if ('id' in message && 'method' in message) {
      // A request from the server to the client: refuse it at once, so the tool that asked gets an error, not a hang.
      const id = message.id;
      queueMicrotask(() => this.onmessage?.({ jsonrpc: '2.0', id, error: { code: -32601, message: NO_CHANNEL_BACK } }));
    }
    // Notifications (progress, log messages) have no stream to go on: a JSON answer carries the response alone.
    return Promise.resolve();
  }

  /**
   * Hands `request` to the server under an id of its own (set on it; returned, for `cancel`); the promise is its
   * response, with the client's id.
   */
  exchange(request: JSONRPCRequest): { readonly id: number; readonly response: Promise<JSONRPCMessage> } {
    if (this.closed) return { id: 0, response: Promise.resolve(shuttingDown(request.id)) };
    this.next = this.next >= Number.MAX_SAFE_INTEGER ? 1 : this.next + 1;
    const id = this.next;
    const response = new Promise<JSONRPCMessage>((resolve) => {
      this.resolvers.set(id, resolve);
      this.clientIds.set(id, request.id);
    });
    // The request is the caller's to give (parsed from its body): its id is replaced in place, not copied.
    request.id = id;
    try {
      this.onmessage?.(request);
    } catch (error) {
      this.forget(id);
      throw error;
    }
    return { id, response };
  }

  /** The client went away before its answer: the server cancels the call (the tool's signal aborts); a no-op once answered. */
  cancel(id: number): void {
    const resolve = this.resolvers.get(id);
    if (resolve === undefined) return;
    resolve({ jsonrpc: '2.0', id: this.clientIds.get(id) ?? id, error: { code: -32800, message: 'request cancelled: the client closed the connection' } });
    this.forget(id);
    this.onmessage?.({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: 'the client closed the connection' } });
  }

  private forget(id: number): void {
    this.resolvers.delete(id);
    this.clientIds.delete(id);
  }

  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.closed = true;
    for (const [id, resolve] of this.resolvers) resolve(shuttingDown(this.clientIds.get(id) ?? id));
    this.resolvers.clear();
    this.clientIds.clear();
    this.onclose?.();
    return Promise.resolve();
  }
}
