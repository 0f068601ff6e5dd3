import { createHash } from 'node:crypto';
import type { AgentCard } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory, RestTransportFactory, type Client } from '@a2a-js/sdk/client';
import { keepAliveFetch, QUERY_DOMAIN_EXTENSION } from '@flotilla/agent-kit';
import { createParser, readDomainCard, type Parser } from '@flotilla/query';
import { describeError, type Logger } from '@flotilla/core';
import { redactUrl } from '@flotilla/core';
import { AGENT_STATES, CARD_FAILURE_REASONS, DELEGATION_OUTCOMES, zeroDelegationSeries, type AgentState, type CardFailureReason, type FlotillaMetrics } from '@flotilla/metrics';
import type { AgentEndpoint, AgentSource, EndpointChange } from './discovery/types.js';

/** A skill as the router reads it (from the agent's card, bounded). */
export interface SkillView {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly tags: readonly string[];
  readonly examples: readonly string[];
}

export interface RegisteredAgent {
  readonly id: string;
  readonly url: string;
  readonly source: AgentEndpoint['source'];
  readonly state: AgentState;
  readonly name: string;
  readonly description: string;
  readonly skills: readonly SkillView[];
  /** Why the agent is unreachable, when it is. */
  readonly error: string | undefined;
  /** An A2A client for it, once its card was read. */
  readonly client: Client | undefined;
  /** Its typed query's parser, when its card declares the domain (QUERY_DOMAIN_EXTENSION): what routing reads by. */
  readonly parser: Parser | undefined;
}

/** Credentials the supervisor sends to an agent that requires them (bearer token or API key headers). */
export interface AgentCredentials {
  headersFor(url: URL): Readonly<Record<string, string>>;
}

export const REGISTRY_LIMITS = {
  /** Agents held at once; more endpoints are ignored with a warning. */
  maxAgents: 50,
  /** Skills read from one card, examples per skill, characters per text field. */
  maxSkills: 20,
  maxExamples: 10,
  maxText: 500,
  /** Largest agent card read (bytes), and the time allowed to read it. */
  maxCardBytes: 256 * 1024,
  cardTimeoutMs: 5_000,
  /** Cards are read again this often, and unreachable agents retried (doubling from 1 s up to this). */
  refreshMs: 60_000,
  /**
   * A card whose agent has not read its estate's names yet (its query domain says `pending`) is read again this soon,
   * doubling up to refreshMs while it stays pending.
   */
  pendingNamesMs: 2_000,
} as const;

export interface RegistryOptions {
  readonly sources: readonly AgentSource[];
  readonly logger: Logger;
  readonly metrics: FlotillaMetrics;
  readonly credentials?: AgentCredentials | undefined;
  /** The supervisor's own card name: an agent with that name is never registered (no delegation loops). */
  readonly selfName: string;
  readonly refreshMs?: number;
}

const cut = (value: unknown, max: number = REGISTRY_LIMITS.maxText): string => (typeof value === 'string' ? value.slice(0, max) : '');

/** An agent card the supervisor will not use, and why (a metric label). */
export class CardError extends Error {
  constructor(
    readonly reason: CardFailureReason,
    message: string,
  ) {
    super(message);
    this.name = 'CardError';
  }
}

/** Network failures by their system code, in the words an operator reads ("fetch failed" alone says nothing). */
const NETWORK_REASONS: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection reset',
  UND_ERR_SOCKET: 'connection closed while reading',
  ETIMEDOUT: 'connection timed out',
  UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
  ENOTFOUND: 'host name not found',
  EAI_AGAIN: 'host name lookup failed',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
};
/** Causes followed, at most (a cause chain is short; a cycle must not loop). */
const MAX_CAUSES = 5;

/**
 * Why an agent could not be reached, in a few words: the network failure under the fetch error (its cause chain: a
 * refused connection, an unknown host…), a timeout, or else the messages of the chain. For answers and the
 * registry's `error`, so "I could not ask argocd: it cannot be reached (connection refused)" tells what to fix.
 */
export function unreachableReason(error: unknown): string {
  const messages: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < MAX_CAUSES && current !== undefined && current !== null; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && NETWORK_REASONS[code] !== undefined) return NETWORK_REASONS[code];
    // A connection to a name with several addresses fails as an AggregateError of one error per address.
    const first: unknown = current instanceof AggregateError ? current.errors[0] : undefined;
    const firstCode = (first as { code?: unknown } | undefined)?.code;
    if (typeof firstCode === 'string' && NETWORK_REASONS[firstCode] !== undefined) return NETWORK_REASONS[firstCode];
    if (current instanceof Error && current.name === 'TimeoutError') return 'no answer in time';
    const message = describeError(current);
    if (message !== '' && !messages.includes(message)) messages.push(message);
    current = current instanceof Error ? current.cause : undefined;
  }
  return messages.join(': ').slice(0, REGISTRY_LIMITS.maxText) || 'unknown error';
}

/**
 * A `fetch` for the A2A SDK (keepAliveFetch; the global fetch for agent cards) bound to one agent's origin (scheme,
 * host and port of the URL it was configured with or discovered at): a request to any other origin is refused before
 * anything is sent, so the agent's credentials never leave it, and redirects are not followed. It adds the
 * credentials, bounds every call's time unless the caller gave a signal, and refuses an agent card over the size cap
 * (read to the cap, never further).
 */
export function boundedFetch(credentials: AgentCredentials | undefined, origin: string): typeof fetch {
  return async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : input.toString());
    if (url.origin !== origin) throw new CardError('foreign_origin', `refused a request to ${url.origin}: this agent is at ${origin}, and nothing is sent elsewhere`);
    const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
    for (const [key, value] of Object.entries(credentials?.headersFor(url) ?? {})) headers.set(key, value);
    const card = url.pathname.endsWith('agent-card.json');
    const signal = init?.signal ?? (card ? AbortSignal.timeout(REGISTRY_LIMITS.cardTimeoutMs) : undefined);
    // A card is read as it streams, to the cap and never further (keepAliveFetch reads a reply whole before it answers).
    const response = await (card ? fetch : keepAliveFetch)(input instanceof Request ? new Request(input, { headers, signal, redirect: 'error' }) : input, {
      ...init,
      headers,
      redirect: 'error',
      ...(signal === undefined ? {} : { signal }),
    });
    if (!card || response.body === null) return response;
    const chunks: Uint8Array[] = [];
    let size = 0;
    for await (const chunk of response.body) {
      size += (chunk as Uint8Array).length;
      if (size > REGISTRY_LIMITS.maxCardBytes) throw new CardError('too_large', `agent card at ${url.origin} is over ${REGISTRY_LIMITS.maxCardBytes} bytes`);
      chunks.push(chunk as Uint8Array);
    }
    return new Response(Buffer.concat(chunks), { status: response.status, headers: response.headers });
  };
}

/**
 * The interfaces of a card that name another origin than `origin` (the supervisor dials the URLs a card names, so
 * a card naming another host would send the question and the credentials there).
 */
export function foreignInterfaces(card: { readonly supportedInterfaces: readonly { readonly url: string }[] }, origin: string): string[] {
  return card.supportedInterfaces.map((i) => i.url).filter((u) => !URL.canParse(u) || new URL(u).origin !== origin);
}

/** An A2A client factory for the agent at `origin`, every request through `boundedFetch` (origin, credentials, time, card size). */
export function clientFactory(credentials: AgentCredentials | undefined, origin: string): ClientFactory {
  const fetchImpl = boundedFetch(credentials, origin);
  return new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl }), new RestTransportFactory({ fetchImpl })],
      cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
    }),
  );
}

interface Entry {
  endpoint: AgentEndpoint;
  state: AgentState;
  name: string;
  description: string;
  skills: SkillView[];
  error: string | undefined;
  client: Client | undefined;
  parser: Parser | undefined;
  /** The card's domain is there, its live names not read yet: the card is read again soon. */
  namesPending: boolean;
  /** When a pending card is read next (REGISTRY_LIMITS.pendingNamesMs, doubling). */
  pendingMs: number;
  /** A digest of the domain card the parser was built from: rebuilt only when the card changes. */
  domainDigest: string | undefined;
  retryMs: number;
  timer: NodeJS.Timeout | undefined;
  /** The last failure logged at warn (the same one again is logged at debug). */
  lastWarning: string | undefined;
}

/**
 * The domain agents the supervisor can route to: endpoints from its sources (configuration, Kubernetes), each
 * with its card read (skills for routing) and an A2A client. Cards are re-read periodically and whenever a
 * source reports a change; unreachable agents are retried with backoff. Bounded in agents, skills and card size.
 */
export class AgentRegistry {
  private readonly entries = new Map<string, Entry>();
  private closed = false;

  constructor(private readonly options: RegistryOptions) {
    // Zero from the start, so increase() sees the first failure of each kind, and every state reads 0 before any agent is known.
    for (const reason of CARD_FAILURE_REASONS) options.metrics.supervisorCardFailures.inc({ reason }, 0);
    this.report();
  }

  async start(): Promise<void> {
    const first: Promise<void>[] = [];
    for (const source of this.options.sources) {
      await source.start((change) => {
        const loaded = this.apply(change);
        if (loaded !== undefined) first.push(loaded);
      });
    }
    // Cards of the endpoints known at start are read before the supervisor takes questions.
    await Promise.all(first);
  }

  /** Every agent, in the order they were registered. */
  list(): RegisteredAgent[] {
    return [...this.entries.values()].map((e) => ({
      id: e.endpoint.id,
      url: e.endpoint.url,
      source: e.endpoint.source,
      state: e.state,
      name: e.name,
      description: e.description,
      skills: e.skills,
      error: e.error,
      client: e.client,
      parser: e.parser,
    }));
  }

  ready(): RegisteredAgent[] {
    return this.list().filter((a) => a.state === 'ready');
  }

  get(id: string): RegisteredAgent | undefined {
    return this.list().find((a) => a.id === id);
  }

  /** Marks an agent unreachable after a failed call, so its card is read again before the next question goes to it. */
  markUnreachable(id: string, error: string): void {
    const entry = this.entries.get(id);
    if (entry === undefined || entry.state !== 'ready') return;
    entry.state = 'unreachable';
    entry.error = error;
    entry.retryMs = 1_000;
    this.schedule(entry, entry.retryMs);
    this.report();
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const entry of this.entries.values()) clearTimeout(entry.timer);
    await Promise.all(this.options.sources.map((s) => s.close()));
  }

  private apply(change: EndpointChange): Promise<void> | undefined {
    if (change.type === 'removed') {
      const entry = this.entries.get(change.id);
      if (entry !== undefined) clearTimeout(entry.timer);
      this.entries.delete(change.id);
      // Its series go with it (a removed agent is not down): agents come and go with discovery, and the series of
      // the ones gone must not pile up (the registry holds at most maxAgents at once).
      const { metrics } = this.options;
      for (const state of AGENT_STATES) metrics.supervisorAgentState.remove({ agent: change.id, state });
      for (const outcome of DELEGATION_OUTCOMES) metrics.supervisorDelegations.remove({ agent: change.id, outcome });
      for (const series of [metrics.supervisorReplyTruncations, metrics.supervisorDelegationDuration, metrics.supervisorReplyTokens]) series.remove({ agent: change.id });
      this.options.logger.info({ agent: change.id }, 'agent removed from the registry');
      this.report();
      return undefined;
    }
    const known = this.entries.get(change.endpoint.id);
    if (known === undefined && this.entries.size >= REGISTRY_LIMITS.maxAgents) {
      this.options.logger.warn({ agent: change.endpoint.id, max: REGISTRY_LIMITS.maxAgents }, 'registry full: agent ignored');
      return undefined;
    }
    if (known !== undefined && known.endpoint.url === change.endpoint.url && known.state === 'ready') return undefined;
    if (known !== undefined) clearTimeout(known.timer);
    // Its delegation series exist at zero from now on, so increase() counts its first failure.
    if (known === undefined) zeroDelegationSeries(this.options.metrics, change.endpoint.id);
    const entry: Entry = known ?? {
      endpoint: change.endpoint,
      state: 'pending',
      name: change.endpoint.id,
      description: '',
      skills: [],
      error: undefined,
      client: undefined,
      parser: undefined,
      namesPending: false,
      pendingMs: REGISTRY_LIMITS.pendingNamesMs,
      domainDigest: undefined,
      retryMs: 1_000,
      timer: undefined,
      lastWarning: undefined,
    };
    entry.endpoint = change.endpoint;
    entry.state = 'pending';
    this.entries.set(change.endpoint.id, entry);
    this.report();
    return this.load(entry);
  }

  /**
   * The card's typed-query domain, parsed into the parser routing reads questions with. A card without one, or with
   * one the supervisor cannot read (said once at warn), is routed by its skills alone.
   */
  private readDomain(entry: Entry, card: AgentCard): void {
    const params = card.capabilities?.extensions?.find((e) => e.uri === QUERY_DOMAIN_EXTENSION)?.params;
    entry.namesPending = false;
    if (params === undefined) {
      entry.parser = undefined;
      entry.domainDigest = undefined;
      return;
    }
    const digest = createHash('sha256').update(JSON.stringify(params)).digest('hex');
    entry.namesPending = (params as { names?: unknown }).names === 'pending';
    if (digest === entry.domainDigest) return;
    entry.domainDigest = digest;
    const domain = readDomainCard(params);
    if (domain === undefined) {
      entry.parser = undefined;
      this.options.logger.warn({ agent: entry.endpoint.id }, 'its card\'s query-domain extension is not one the supervisor reads: routed by its skills alone');
      return;
    }
    entry.parser = createParser(domain.domain, domain.live);
  }

  private async load(entry: Entry): Promise<void> {
    const url = entry.endpoint.url;
    // The origin the agent was configured or discovered at: the only one the supervisor calls it at, and sends its
    // credentials to. A card naming another origin is refused.
    const origin = new URL(url).origin;
    try {
      const client = await clientFactory(this.options.credentials, origin).createFromUrl(url);
      const card = await client.getAgentCard();
      if (this.entries.get(entry.endpoint.id) !== entry || entry.endpoint.url !== url) return;
      if (card.name === this.options.selfName) throw new CardError('self', 'this is a supervisor: never delegated to (no loops)');
      if (card.supportedInterfaces.length === 0) throw new CardError('invalid', 'its card names no interface to call');
      const foreign = foreignInterfaces(card, origin);
      if (foreign.length > 0) {
        throw new CardError(
          'foreign_origin',
          `its card advertises ${redactUrl(foreign[0] ?? '').slice(0, 200)}, not the origin it was ${entry.endpoint.source === 'kubernetes' ? 'discovered' : 'configured'} at (${origin}); ` +
            'nothing is sent there. Set the agent\'s --public-url to this origin, or point the supervisor at the URL the agent advertises',
        );
      }
      entry.name = cut(card.name, 100) || entry.endpoint.id;
      entry.description = cut(card.description);
      entry.skills = card.skills.slice(0, REGISTRY_LIMITS.maxSkills).map((s) => ({
        id: cut(s.id, 100),
        name: cut(s.name, 200),
        description: cut(s.description),
        tags: s.tags.slice(0, 20).map((t) => cut(t, 50)),
        examples: s.examples.slice(0, REGISTRY_LIMITS.maxExamples).map((e) => cut(e, 200)),
      }));
      this.readDomain(entry, card);
      entry.client = client;
      entry.state = 'ready';
      entry.error = undefined;
      entry.retryMs = 1_000;
      entry.lastWarning = undefined;
      this.options.logger.info({ agent: entry.endpoint.id, url, name: entry.name, skills: entry.skills.length }, 'agent registered');
      const refreshMs = this.options.refreshMs ?? REGISTRY_LIMITS.refreshMs;
      if (!entry.namesPending) entry.pendingMs = REGISTRY_LIMITS.pendingNamesMs;
      this.schedule(entry, entry.namesPending ? Math.min(refreshMs, entry.pendingMs) : refreshMs);
      if (entry.namesPending) entry.pendingMs = Math.min(refreshMs, entry.pendingMs * 2);
    } catch (error) {
      // A load for an older URL of this agent: the newer one decides.
      if (this.entries.get(entry.endpoint.id) !== entry || entry.endpoint.url !== url) return;
      const reason: CardFailureReason = error instanceof CardError ? error.reason : 'unreachable';
      const refused = reason === 'foreign_origin' || reason === 'self';
      entry.state = refused ? 'refused' : 'unreachable';
      entry.client = undefined;
      entry.error = error instanceof CardError ? error.message : unreachableReason(error);
      this.options.metrics.supervisorCardFailures.inc({ reason });
      const refreshMs = this.options.refreshMs ?? REGISTRY_LIMITS.refreshMs;
      const line = { agent: entry.endpoint.id, url, reason, err: entry.error, retryMs: refused ? refreshMs : entry.retryMs };
      // Each new failure at warn; the same one again, at every retry, at debug.
      if (entry.lastWarning !== entry.error) this.options.logger.warn(line, refused ? 'agent card refused: agent left out' : 'agent card could not be read: agent left out for now');
      else this.options.logger.debug(line, 'agent card still failing');
      entry.lastWarning = entry.error;
      if (refused) {
        // A refused card is read again at the refresh interval (it may be fixed), not hammered.
        this.schedule(entry, refreshMs);
      } else {
        this.schedule(entry, entry.retryMs);
        entry.retryMs = Math.min(entry.retryMs * 2, refreshMs);
      }
    } finally {
      this.report();
    }
  }

  private schedule(entry: Entry, ms: number): void {
    clearTimeout(entry.timer);
    if (this.closed) return;
    entry.timer = setTimeout(() => void this.load(entry), ms);
    entry.timer.unref();
  }

  /** The state counts, and each agent's state (1 for its current one): FlotillaAgentUnreachable reads the latter by agent. */
  private report(): void {
    const { metrics } = this.options;
    for (const state of AGENT_STATES) metrics.supervisorAgents.set({ status: state }, [...this.entries.values()].filter((e) => e.state === state).length);
    for (const entry of this.entries.values()) {
      for (const state of AGENT_STATES) metrics.supervisorAgentState.set({ agent: entry.endpoint.id, state }, entry.state === state ? 1 : 0);
    }
  }
}
