import type { Server } from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';
import { createHash, timingSafeEqual } from 'node:crypto';
import { hostname as osHostname, networkInterfaces, type NetworkInterfaceInfo } from 'node:os';
import express from 'express';
import { AGENT_CARD_PATH, A2A_PROTOCOL_VERSION, type AgentCard, type AgentExtension, type AgentSkill } from '@a2a-js/sdk';
import { DefaultRequestHandler } from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import { duplicateInterfacesForLegacy } from '@a2a-js/sdk/compat/v0_3';
import { FlotillaError, TOKEN_MIN_CHARS, type Logger } from '@flotilla/core';
import type { A2ARejectReason, FlotillaMetrics } from '@flotilla/metrics';
import type { MemoryGuard } from './memory-guard.js';
import { BoundedTaskStore } from './task-store.js';
import { expressHttpServer } from './express-server.js';
import { answerUnmatched, jsonRpcBinding, restBinding } from './a2a-protocol.js';
import { TURN_LIMITS, WorkflowExecutor, type AnswerTurn, type TurnLimits } from './executor.js';
import type { ConversationLock } from './conversation-queue.js';
import { domainCard, type DomainDecl, type Lexicon } from '@flotilla/query';

export interface AgentDescription {
  readonly name: string;
  readonly description: string;
  readonly version: string;
  readonly skills: readonly Omit<AgentSkill, 'securityRequirements' | 'inputModes' | 'outputModes'>[];
}

export interface A2AServerOptions {
  readonly agent: AgentDescription;
  readonly answer: AnswerTurn;
  readonly host: string;
  readonly port: number;
  /**
   * The base URL the card advertises (`--public-url`: in Kubernetes the Service's DNS name), e.g.
   * `http://flotilla-argocd.ops.svc:8092`. Unset: the listen address, or the host's own address on a wildcard bind.
   */
  readonly publicUrl?: string | undefined;
  readonly logger: Logger;
  /** Served at /metrics (Prometheus text format) when given; the server's own stores and queues are counted there. */
  readonly metrics?: FlotillaMetrics | undefined;
  /**
   * Credentials callers must present on /a2a (a bearer token, or the same value as an X-API-Key header); several
   * are accepted so a token can be rotated. None: open (local use). The card declares the schemes either way.
   */
  readonly auth?: A2AAuth | undefined;
  /** When given, new work is refused with 503 + Retry-After while it sheds (memory above 90% of the limit). */
  readonly guard?: MemoryGuard | undefined;
  /**
   * Why the agent cannot answer yet (its tools are not connected), in one line; undefined when it can. /readyz answers
   * 503 with it meanwhile, so a Service sends questions elsewhere; questions that still come are the answer's to handle.
   */
  readonly readiness?: (() => string | undefined) | undefined;
  /** Told of every request refused before any work, and of turns refused because their conversation is busy (metrics). */
  readonly onReject?: ((reason: A2ARejectReason) => void) | undefined;
  /** Time one turn may take from its arrival, waiting for its conversation's earlier turns included (`--turn-timeout-ms`); TURN_LIMITS.timeoutMs by default. */
  readonly turnTimeoutMs?: number | undefined;
  /** Orders the turns of a conversation across replicas (`redisConversationLock`); without it only within this process. */
  readonly conversationLock?: ConversationLock | undefined;
  /** Told how many turns wait for an earlier turn of their conversation, whenever it changes (the queue gauge). */
  readonly onQueueDepth?: ((waiting: number) => void) | undefined;
  /** The other bounds of turns and of the conversation queue (TURN_LIMITS, CONVERSATION_QUEUE_LIMITS); tests shorten them. */
  readonly turnLimits?: (Partial<Omit<TurnLimits, 'timeoutMs'>> & { readonly maxWaitingPerConversation?: number; readonly maxWaitingTotal?: number }) | undefined;
}

export interface A2AAuth {
  readonly tokens: readonly string[];
}

/** The header an API key may come in, as the card declares it. */
export const API_KEY_HEADER = 'x-api-key';

const digest = (value: string): Buffer => createHash('sha256').update(value).digest();

/** True when the request carries one of the tokens (compared in constant time, by digest). */
export function presentsToken(headers: Readonly<Record<string, string | string[] | undefined>>, tokens: readonly string[]): boolean {
  const authorization = headers.authorization;
  const apiKey = headers[API_KEY_HEADER];
  const offered: string[] = [];
  if (typeof authorization === 'string' && /^bearer\s+/i.test(authorization)) offered.push(authorization.replace(/^bearer\s+/i, '').trim());
  if (typeof apiKey === 'string') offered.push(apiKey.trim());
  const wanted = tokens.map(digest);
  return offered.some((o) => {
    const got = digest(o);
    return wanted.some((w) => timingSafeEqual(got, w));
  });
}

export interface RunningA2AServer {
  /** The base URL the card advertises (see {@link advertisedBaseUrl}). */
  readonly url: string;
  readonly cardUrl: string;
  /**
   * Puts an extension on the card, or replaces the one of the same URI: what the agent learns after it starts (its
   * lexicon's live names) is on the card the next time it is read.
   */
  setExtension(extension: AgentExtension): void;
  close(): Promise<void>;
}

/**
 * The card extension a domain agent declares its typed query's domain in: its entities, fields, words and the live
 * names it holds (`@flotilla/query`'s DomainCard), which a router parses questions with. Not required of clients.
 */
export const QUERY_DOMAIN_EXTENSION = 'https://flotilla.dev/a2a/extensions/query-domain/v1';

/** The card extension of a domain's typed query, with the live names `lexicon` holds (bounded: DOMAIN_CARD_LIMITS). */
export function queryDomainExtension(domain: DomainDecl, lexicon?: Lexicon): AgentExtension {
  return {
    uri: QUERY_DOMAIN_EXTENSION,
    description: `The ${domain.name} typed query's entities, fields and words, and the names this agent holds: a router parses questions with them.`,
    required: false,
    params: domainCard(domain, lexicon),
  };
}

/** How the advertised base URL was chosen, for the log line. */
export type AdvertisedSource = 'public_url' | 'listen_address' | 'interface_address' | 'hostname';

const WILDCARD_HOSTS = new Set(['0.0.0.0', '::', '[::]', '0:0:0:0:0:0:0:0']);
const isLoopback = (host: string): boolean => /^(localhost|127\.\d+\.\d+\.\d+|\[?::1\]?)$/i.test(host);
const bracketed = (host: string): string => (host.includes(':') && !host.startsWith('[') ? `[${host}]` : host);

/**
 * The base URL an A2A server advertises in its card: `publicUrl` when given; else the listen address; but never a
 * loopback address for a wildcard bind (0.0.0.0, ::), which other hosts cannot dial: there the host's first
 * non-internal IPv4 address (a pod's own IP), else its first global IPv6 address, else its host name. Throws a
 * config error when none of these exists (set --public-url).
 */
export function advertisedBaseUrl(options: {
  readonly host: string;
  readonly port: number;
  readonly publicUrl?: string | undefined;
  /** os.networkInterfaces() and os.hostname() unless given (tests). */
  readonly interfaces?: NodeJS.Dict<NetworkInterfaceInfo[]>;
  readonly hostname?: string;
}): { readonly url: string; readonly source: AdvertisedSource } {
  if (options.publicUrl !== undefined) return { url: options.publicUrl.replace(/\/+$/, ''), source: 'public_url' };
  if (!WILDCARD_HOSTS.has(options.host)) return { url: `http://${bracketed(options.host)}:${options.port}`, source: 'listen_address' };
  const addresses = Object.values(options.interfaces ?? networkInterfaces()).flatMap((list) => list ?? []).filter((a) => !a.internal);
  const v4 = addresses.find((a) => a.family === 'IPv4' && !isLoopback(a.address));
  if (v4 !== undefined) return { url: `http://${v4.address}:${options.port}`, source: 'interface_address' };
  // Link-local IPv6 (fe80::/10) needs a zone, which a URL cannot carry to another host.
  const v6 = addresses.find((a) => a.family === 'IPv6' && !/^fe[89ab]/i.test(a.address) && !isLoopback(a.address));
  if (v6 !== undefined) return { url: `http://[${v6.address}]:${options.port}`, source: 'interface_address' };
  const name = (options.hostname ?? osHostname()).trim();
  if (name !== '' && !isLoopback(name)) return { url: `http://${name}:${options.port}`, source: 'hostname' };
  throw new FlotillaError('config_invalid', `bound to ${options.host} but this host has no address other hosts could dial, and --public-url is not set`, {
    remedy: 'Set --public-url (FLOTILLA_PUBLIC_URL) to the URL callers reach this server at, e.g. its Service DNS name.',
  });
}

/** An A2A v1.0 server (JSON-RPC and REST, with v0.3 clients served by the SDK's compat layer). */
export async function startA2AServer(options: A2AServerOptions): Promise<RunningA2AServer> {
  const card: AgentCard = {
    name: options.agent.name,
    description: options.agent.description,
    supportedInterfaces: [],
    provider: { organization: 'Flotilla', url: 'https://github.com/flotilla' },
    version: options.agent.version,
    capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes:
      options.auth === undefined
        ? {}
        : {
            bearer: { scheme: { $case: 'httpAuthSecurityScheme', value: { description: 'A token from the Flotilla deployment', scheme: 'Bearer', bearerFormat: '' } } },
            apiKey: { scheme: { $case: 'apiKeySecurityScheme', value: { description: 'The same token as an API key', location: 'header', name: 'X-API-Key' } } },
          },
    securityRequirements: options.auth === undefined ? [] : [{ schemes: { bearer: { list: [] } } }, { schemes: { apiKey: { list: [] } } }],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: options.agent.skills.map((s) => ({ ...s, inputModes: ['text/plain'], outputModes: ['text/plain'], securityRequirements: [] })),
    signatures: [],
  };
  const limits = options.turnLimits ?? {};
  const executor = new WorkflowExecutor(options.answer, options.logger, {
    timeoutMs: options.turnTimeoutMs,
    abortGraceMs: limits.abortGraceMs,
    drainMs: limits.drainMs,
    queue: { maxWaitingPerConversation: limits.maxWaitingPerConversation, maxWaitingTotal: limits.maxWaitingTotal, onDepth: options.onQueueDepth },
    lock: options.conversationLock,
    onReject: options.onReject,
  });
  const handler = new DefaultRequestHandler(card, new BoundedTaskStore({ metrics: options.metrics }), executor);
  const app = express();
  app.disable('x-powered-by');
  // No ETag: express would hash every JSON-RPC answer (SHA-1 of the whole body) for a header no A2A client sends back.
  app.disable('etag');
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  const guard = options.guard;
  const readiness = options.readiness;
  app.get('/readyz', (_req, res) => {
    // Shedding: not ready, so a Service sends new work to other replicas until memory falls.
    if (guard !== undefined && !guard.accepting) {
      res.status(503).set('Retry-After', String(guard.retryAfterSeconds)).json({ status: 'busy', memory: guard.state });
      return;
    }
    const reason = readiness?.();
    if (reason !== undefined) res.status(503).json({ status: 'not_ready', reason });
    else res.json({ status: 'ready' });
  });
  const registry = options.metrics?.registry;
  if (registry !== undefined) {
    app.get('/metrics', (_req, res, next) => {
      registry
        .metrics()
        .then((text) => res.type(registry.contentType).send(text))
        .catch(next);
    });
  }
  const auth = options.auth;
  if (auth !== undefined && (auth.tokens.length === 0 || auth.tokens.some((t) => t.length < TOKEN_MIN_CHARS))) {
    throw new FlotillaError('config_invalid', `A2A tokens must be at least ${TOKEN_MIN_CHARS} characters`, { remedy: 'Generate one with: openssl rand -hex 24' });
  }
  // Before any work: credentials (401), then memory (503). The card, probes and metrics stay open.
  app.use('/a2a', (req, res, next) => {
    if (auth !== undefined && !presentsToken(req.headers, auth.tokens)) {
      options.onReject?.('unauthorized');
      res
        .status(401)
        .set('WWW-Authenticate', 'Bearer realm="flotilla"')
        .json({ error: 'unauthorized', message: 'This agent needs a token: send Authorization: Bearer <token> or X-API-Key: <token>.' });
      return;
    }
    if (guard !== undefined && !guard.accepting) {
      options.onReject?.('busy');
      res
        .status(503)
        .set('Retry-After', String(guard.retryAfterSeconds))
        .json({ error: 'busy', message: `The agent is busy (memory above ${Math.round(guard.shedRatio * 100)}% of its limit); retry in ${guard.retryAfterSeconds} s.` });
      return;
    }
    next();
  });
  app.use(`/${AGENT_CARD_PATH}`, agentCardHandler({ agentCardProvider: handler, legacyCompat: { enabled: true } }));
  // Both bindings read bodies and check the protocol limits (A2A_LIMITS) before the SDK decodes a request; every
  // refusal, and every error, is answered in the binding's own shape, as JSON.
  const protocol = { logger: options.logger, onReject: options.onReject };
  app.use('/a2a/jsonrpc', jsonRpcBinding(jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication, legacyCompat: { enabled: true } }), protocol));
  app.use('/a2a/rest', restBinding(restHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication, legacyCompat: { enabled: true } }), protocol));
  app.use(...answerUnmatched(options.logger));

  const http = await new Promise<Server>((resolve, reject) => {
    const server = expressHttpServer(app);
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
  const address = http.address();
  const port = typeof address === 'object' && address !== null ? address.port : options.port;
  let advertised: ReturnType<typeof advertisedBaseUrl>;
  try {
    advertised = advertisedBaseUrl({ host: options.host, port, publicUrl: options.publicUrl });
  } catch (error) {
    http.close();
    throw error;
  }
  const url = advertised.url;
  // v1.0 interfaces, each also advertised as v0.3 so older message/send and message/stream clients are served.
  card.supportedInterfaces.push(
    ...duplicateInterfacesForLegacy(
      [
        { url: `${url}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: A2A_PROTOCOL_VERSION },
        { url: `${url}/a2a/rest`, protocolBinding: 'HTTP+JSON', tenant: '', protocolVersion: A2A_PROTOCOL_VERSION },
      ],
      ['JSONRPC', 'HTTP+JSON'],
    ),
  );
  options.logger.info(
    { url, card: `${url}/${AGENT_CARD_PATH}`, listen: `${bracketed(options.host)}:${port}`, advertised: advertised.source },
    advertised.source === 'public_url' || advertised.source === 'listen_address'
      ? 'A2A agent listening'
      : `A2A agent listening on a wildcard address without --public-url: the card advertises this host's ${advertised.source === 'hostname' ? 'name' : 'own address'} (set --public-url to the Service URL callers use)`,
  );
  return {
    url,
    cardUrl: `${url}/${AGENT_CARD_PATH}`,
    setExtension(extension) {
      // The card object is the one the SDK's card handler serves.
      const extensions = card.capabilities?.extensions ?? [];
      const at = extensions.findIndex((e) => e.uri === extension.uri);
      if (at >= 0) extensions[at] = extension;
      else extensions.push(extension);
      if (card.capabilities !== undefined) card.capabilities.extensions = extensions;
    },
    async close() {
      // Stop taking requests, let turns in flight finish (bounded: the rest are aborted and answered), then close the
      // connections as their last answers go out (a kept-alive connection is not closed by the server on its own),
      // and cut any still open after a grace (a caller not reading its answer).
      const closed = new Promise<void>((done) => http.close(() => done()));
      await executor.close();
      http.closeIdleConnections();
      const sweep = setInterval(() => http.closeIdleConnections(), 50);
      const grace = new AbortController();
      await Promise.race([closed, delay(limits.abortGraceMs ?? TURN_LIMITS.abortGraceMs, undefined, { signal: grace.signal }).catch(() => undefined)]);
      grace.abort();
      clearInterval(sweep);
      http.closeAllConnections();
      await closed;
    },
  };
}
