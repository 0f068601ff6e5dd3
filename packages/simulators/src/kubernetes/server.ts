import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { silentLogger, type Logger } from '@flotilla/core';

/** A Kubernetes Service as this simulator stores it (the fields discovery reads; the rest is kept as given). */
export interface KubeService {
  apiVersion?: string;
  kind?: string;
  metadata?: {
    name?: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    resourceVersion?: string;
  };
  spec?: { ports?: { name?: string; port?: number; targetPort?: number | string }[]; selector?: Record<string, string>; type?: string };
}
type V1Service = KubeService;

/** Services held at most: more are refused (the simulator is bounded like everything else). */
export const KUBERNETES_SIM_LIMITS = { maxServices: 10_000, maxHistory: 1_000, maxWatches: 100, maxRecordedRequests: 10_000 } as const;

export interface KubernetesSimulatorOptions {
  /** Address to listen on (default 127.0.0.1) and port (default 0: any free port). */
  readonly host?: string;
  readonly port?: number;
  /** Services present from the start. */
  readonly services?: readonly KubeService[];
  /** Bearer token clients must send (a ServiceAccount token); unset: no authentication. */
  readonly token?: string | undefined;
  /** Serve HTTPS with this certificate and key (PEM), as a real API server does. */
  readonly tls?: { readonly cert: string | Buffer; readonly key: string | Buffer } | undefined;
  readonly logger?: Logger;
}

/** A kubeconfig (as @kubernetes/client-node's `loadFromOptions` takes it) for this simulator over plain HTTP. */
export interface KubeConfigOptions {
  readonly clusters: { name: string; server: string; skipTLSVerify: boolean }[];
  readonly users: { name: string; token?: string }[];
  readonly contexts: { name: string; cluster: string; user: string }[];
  readonly currentContext: string;
}

/** One request the fake API server received: path and query parameters, as the client sent them. */
export interface RecordedRequest {
  readonly path: string;
  readonly query: Readonly<Record<string, string>>;
}

type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

/** A change kept for replay to watches that resume from an older resourceVersion. */
interface HistoryEntry {
  readonly rv: number;
  readonly before: V1Service | undefined;
  readonly after: V1Service | undefined;
}

interface OpenWatch {
  readonly res: ServerResponse;
  readonly namespace: string | undefined;
  readonly selector: Selector;
}

type Selector = (labels: Readonly<Record<string, string>> | undefined) => boolean;

export interface RunningKubernetesSimulator {
  /** `http(s)://HOST:PORT` */
  readonly url: string;
  /** Every request received so far, oldest first (the newest 10,000). */
  readonly requests: readonly RecordedRequest[];
  /** Watch connections currently open. */
  openWatches(): number;
  /** Options for a KubeConfig pointing at this server (with its token, if any). */
  kubeConfigOptions(): KubeConfigOptions;
  addService(service: V1Service): void;
  updateService(service: V1Service): void;
  deleteService(namespace: string, name: string): void;
  /** Drops every open watch connection: `abrupt` destroys the socket, else the response ends cleanly. */
  dropWatches(options?: { readonly abrupt?: boolean }): void;
  /** The next `count` requests (list or watch) are answered with `status` (default 500). */
  failNextRequests(count: number, status?: number): void;
  close(): Promise<void>;
}

/** Parses the subset of label selectors the fake supports: comma-separated `key`, `!key`, `key=value`, `key==value`, `key!=value`. */
function parseSelector(raw: string | undefined): Selector {
  if (raw === undefined || raw.trim() === '') return () => true;
  const terms = raw.split(',').map((term) => term.trim()).filter((term) => term !== '');
  const checks = terms.map((term): Selector => {
    const notEqual = term.indexOf('!=');
    if (notEqual > 0) {
      const key = term.slice(0, notEqual).trim();
      const value = term.slice(notEqual + 2).trim();
      return (labels) => labels?.[key] !== value;
    }
    const equal = term.indexOf('=');
    if (equal > 0) {
      const key = term.slice(0, equal).trim();
      const value = term.slice(term.startsWith('==', equal) ? equal + 2 : equal + 1).trim();
      return (labels) => labels?.[key] === value;
    }
    if (term.startsWith('!')) {
      const key = term.slice(1).trim();
      return (labels) => labels === undefined || !(key in labels);
    }
    return (labels) => labels !== undefined && term in labels;
  });
  return (labels) => checks.every((check) => check(labels));
}

const keyOf = (namespace: string, name: string): string => `${namespace}/${name}`;

function clone(service: V1Service): V1Service {
  return JSON.parse(JSON.stringify(service)) as V1Service;
}

const digest = (value: string): Buffer => createHash('sha256').update(value).digest();

/**
 * A Kubernetes API server for Services, as the supervisor's discovery uses it: list (namespaced and cluster-wide)
 * with label selectors, and watches streaming newline-delimited JSON events over chunked HTTP, resumable from a
 * resourceVersion as the real one is; Status bodies for errors (401 without the bearer token when one is set, 404,
 * 405, 410 Gone for a too old resourceVersion); HTTPS when given a certificate. Bounded in Services, history,
 * watches and recorded requests.
 */
export async function startKubernetesSimulator(options: KubernetesSimulatorOptions = {}): Promise<RunningKubernetesSimulator> {
  const services = new Map<string, V1Service>();
  const history: HistoryEntry[] = [];
  const watches = new Set<OpenWatch>();
  const requests: RecordedRequest[] = [];
  let resourceVersion = 1;
  let failures = 0;
  let failureStatus = 500;

  const inScope = (watch: OpenWatch, service: V1Service | undefined): boolean =>
    service !== undefined &&
    (watch.namespace === undefined || service.metadata?.namespace === watch.namespace) &&
    watch.selector(service.metadata?.labels);

  /** The event a watch sees for a change, as the API server computes it: selector transitions become ADDED/DELETED. */
  function eventFor(watch: OpenWatch, entry: HistoryEntry): { type: WatchEventType; object: V1Service } | undefined {
    const was = inScope(watch, entry.before);
    const is = inScope(watch, entry.after);
    if (is && entry.after !== undefined) return { type: was ? 'MODIFIED' : 'ADDED', object: entry.after };
    if (was && entry.before !== undefined) {
      // A DELETED event carries the object's last state, stamped with the deletion's resourceVersion.
      const last = clone(entry.before);
      last.metadata = { ...last.metadata, resourceVersion: String(entry.rv) };
      return { type: 'DELETED', object: last };
    }
    return undefined;
  }

  function send(watch: OpenWatch, event: { type: WatchEventType; object: V1Service }): void {
    if (!watch.res.writableEnded && !watch.res.destroyed) watch.res.write(`${JSON.stringify(event)}\n`);
  }

  function record(before: V1Service | undefined, after: V1Service | undefined): void {
    const entry: HistoryEntry = { rv: resourceVersion, before, after };
    history.push(entry);
    if (history.length > KUBERNETES_SIM_LIMITS.maxHistory) history.shift();
    for (const watch of watches) {
      const event = eventFor(watch, entry);
      if (event !== undefined) send(watch, event);
    }
  }

  function put(service: V1Service, mustExist: boolean): void {
    const namespace = service.metadata?.namespace ?? 'default';
    const name = service.metadata?.name;
    if (name === undefined) throw new Error('fake-kube: a Service needs metadata.name');
    const key = keyOf(namespace, name);
    const before = services.get(key);
    if (mustExist && before === undefined) throw new Error(`fake-kube: no Service ${key}`);
    if (!mustExist && before !== undefined) throw new Error(`fake-kube: Service ${key} exists`);
    if (before === undefined && services.size >= KUBERNETES_SIM_LIMITS.maxServices) throw new Error(`fake-kube: at most ${KUBERNETES_SIM_LIMITS.maxServices} Services`);
    resourceVersion += 1;
    const stored = clone(service);
    stored.apiVersion = 'v1';
    stored.kind = 'Service';
    stored.metadata = { ...stored.metadata, namespace, name, resourceVersion: String(resourceVersion) };
    services.set(key, stored);
    record(before, stored);
  }

  function list(namespace: string | undefined, selector: Selector): V1Service[] {
    return [...services.values()].filter(
      (service) => (namespace === undefined || service.metadata?.namespace === namespace) && selector(service.metadata?.labels),
    );
  }

  function fail(res: ServerResponse, status: number, message: string): void {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ apiVersion: 'v1', kind: 'Status', status: 'Failure', message, code: status }));
  }

  function startWatch(
    req: IncomingMessage,
    res: ServerResponse,
    watch: OpenWatch,
    since: string | undefined,
    timeoutSeconds: number | undefined,
  ): void {
    const from = since === undefined || since === '' || since === '0' ? undefined : Number(since);
    const oldest = history[0]?.rv ?? 0;
    if (from !== undefined && (!Number.isInteger(from) || from < oldest - 1)) {
      fail(res, 410, `too old resource version: ${since}`);
      return;
    }
    if (watches.size >= KUBERNETES_SIM_LIMITS.maxWatches) {
      fail(res, 429, `too many watches (at most ${KUBERNETES_SIM_LIMITS.maxWatches})`);
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
    res.flushHeaders();
    watches.add(watch);
    // As the API server does, end the watch cleanly once `timeoutSeconds` have passed.
    const timeout =
      timeoutSeconds !== undefined && timeoutSeconds > 0 ? setTimeout(() => res.end(), timeoutSeconds * 1000) : undefined;
    const forget = (): void => {
      watches.delete(watch);
      clearTimeout(timeout);
    };
    res.on('close', forget);
    req.on('close', forget);
    if (from === undefined) {
      // No resourceVersion: synthetic ADDED events for the current state, then changes.
      for (const service of list(watch.namespace, watch.selector)) send(watch, { type: 'ADDED', object: service });
    } else {
      for (const entry of history) {
        if (entry.rv <= from) continue;
        const event = eventFor(watch, entry);
        if (event !== undefined) send(watch, event);
      }
    }
  }

  const wanted = options.token === undefined ? undefined : digest(options.token);
  const authorized = (header: string | undefined): boolean => {
    if (wanted === undefined) return true;
    const match = /^bearer\s+(.+)$/i.exec(header ?? '');
    return match?.[1] !== undefined && timingSafeEqual(digest(match[1].trim()), wanted);
  };
  const handler: RequestListener = (req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    requests.push({ path: url.pathname, query: Object.fromEntries(url.searchParams) });
    if (requests.length > KUBERNETES_SIM_LIMITS.maxRecordedRequests) requests.shift();
    if (!authorized(req.headers.authorization)) {
      fail(res, 401, 'Unauthorized');
      return;
    }
    if (failures > 0) {
      failures -= 1;
      fail(res, failureStatus, 'injected failure');
      return;
    }
    if (req.method !== 'GET') {
      fail(res, 405, 'method not allowed');
      return;
    }
    const namespaced = /^\/api\/v1\/namespaces\/([^/]+)\/services\/?$/.exec(url.pathname);
    if (namespaced === null && !/^\/api\/v1\/services\/?$/.test(url.pathname)) {
      fail(res, 404, `not found: ${url.pathname}`);
      return;
    }
    const namespace = namespaced?.[1] === undefined ? undefined : decodeURIComponent(namespaced[1]);
    const selector = parseSelector(url.searchParams.get('labelSelector') ?? undefined);
    const watchParam = url.searchParams.get('watch');
    if (watchParam === 'true' || watchParam === '1') {
      const timeoutSeconds = url.searchParams.get('timeoutSeconds');
      startWatch(
        req,
        res,
        { res, namespace, selector },
        url.searchParams.get('resourceVersion') ?? undefined,
        timeoutSeconds === null ? undefined : Number(timeoutSeconds),
      );
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'ServiceList',
        metadata: { resourceVersion: String(resourceVersion) },
        items: list(namespace, selector),
      }),
    );
  };
  const server: Server = options.tls === undefined ? createServer(handler) : createHttpsServer({ cert: options.tls.cert, key: options.tls.key }, handler);
  for (const service of options.services ?? []) put(service, false);

  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const shownHost = host.includes(':') ? `[${host}]` : host;
  const url = `${options.tls === undefined ? 'http' : 'https'}://${shownHost}:${(server.address() as AddressInfo).port}`;
  (options.logger ?? silentLogger()).info({ url, services: services.size, tls: options.tls !== undefined, auth: options.token !== undefined }, 'Kubernetes API simulator listening');

  function dropWatches(options?: { readonly abrupt?: boolean }): void {
    for (const watch of [...watches]) {
      watches.delete(watch);
      if (options?.abrupt === true) watch.res.destroy();
      else watch.res.end();
    }
  }

  return {
    url,
    requests,
    openWatches: () => watches.size,
    kubeConfigOptions: () => ({
      clusters: [{ name: 'fake', server: url, skipTLSVerify: true }],
      users: [options.token === undefined ? { name: 'fake' } : { name: 'fake', token: options.token }],
      contexts: [{ name: 'fake', cluster: 'fake', user: 'fake' }],
      currentContext: 'fake',
    }),
    addService: (service) => put(service, false),
    updateService: (service) => put(service, true),
    deleteService(namespace, name) {
      const key = keyOf(namespace, name);
      const before = services.get(key);
      if (before === undefined) throw new Error(`fake-kube: no Service ${key}`);
      services.delete(key);
      resourceVersion += 1;
      record(before, undefined);
    },
    dropWatches,
    failNextRequests(count, status = 500) {
      failures = count;
      failureStatus = status;
    },
    async close() {
      dropWatches();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
