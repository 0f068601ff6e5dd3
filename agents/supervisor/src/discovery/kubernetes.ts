import {
  CoreV1Api,
  ListWatch,
  Observable,
  Watch,
  type ConfigurationOptions,
  type KubeConfig,
  type RequestContext,
  type ResponseContext,
  type V1Service,
  type V1ServiceList,
} from '@kubernetes/client-node';
import type { Logger } from '@flotilla/core';
import type { AgentEndpoint, AgentSource, EndpointChange } from './types.js';

/** Services of Flotilla agents carry this label (value: the agent's name, e.g. "netbox"). */
export const DISCOVERY_LABEL = 'flotilla.io/agent';
/** Optional annotation with an explicit base URL (agents outside the cluster, tests). */
export const URL_ANNOTATION = 'flotilla.io/a2a-url';
/** The Service port to use; else the first port. */
export const PORT_NAME = 'a2a';

export interface KubernetesSourceOptions {
  /** From @kubernetes/client-node: `loadFromCluster()` in a pod, `loadFromDefault()` elsewhere. */
  readonly kubeConfig: KubeConfig;
  /** Namespace to watch; undefined = all namespaces. */
  readonly namespace?: string | undefined;
  /** Label selector for the Services; default {@link DISCOVERY_LABEL} (i.e. "has the label"). */
  readonly labelSelector?: string;
  readonly logger: Logger;
  /** At most this many endpoints are tracked (default 200); more are ignored with a warning. */
  readonly maxEndpoints?: number;
}

const DEFAULT_MAX_ENDPOINTS = 200;
const BACKOFF_INITIAL_MS = 1_000;
const BACKOFF_MAX_MS = 30_000;
/** A list request taking longer than this is abandoned and retried. */
const LIST_TIMEOUT_MS = 30_000;
/** The API server ends each watch after this long; the informer then re-watches from its resourceVersion. */
const WATCH_TIMEOUT_SECONDS = 300;

function serviceId(service: V1Service): string | undefined {
  const name = service.metadata?.name;
  if (name === undefined || name === '') return undefined;
  const namespace = service.metadata?.namespace;
  return `${namespace === undefined || namespace === '' ? 'default' : namespace}/${name}`;
}

function annotatedUrl(raw: string | undefined): string | undefined {
  const value = raw?.trim();
  if (value === undefined || value === '' || !URL.canParse(value)) return undefined;
  const { protocol, username, password } = new URL(value);
  if (protocol !== 'http:' && protocol !== 'https:') return undefined;
  // Credentials never ride in a URL (they would reach logs and cards): the agents' token is --agent-token.
  if (username !== '' || password !== '') return undefined;
  return value.replace(/\/+$/, '');
}

/**
 * The A2A endpoint a Service stands for: id `<namespace>/<name>`; URL from the {@link URL_ANNOTATION} annotation
 * when it holds an http(s) URL without credentials, else `http://<name>.<namespace>.svc:<port>` (cluster DNS) with the port named
 * {@link PORT_NAME} or the first one. Undefined when there is no usable URL.
 */
export function endpointOf(service: V1Service): AgentEndpoint | undefined {
  const id = serviceId(service);
  if (id === undefined) return undefined;
  const annotated = annotatedUrl(service.metadata?.annotations?.[URL_ANNOTATION]);
  if (annotated !== undefined) return { id, url: annotated, source: 'kubernetes' };
  const ports = service.spec?.ports ?? [];
  const port = (ports.find((candidate) => candidate.name === PORT_NAME) ?? ports[0])?.port;
  if (port === undefined || !Number.isInteger(port) || port < 1 || port > 65_535) return undefined;
  const [namespace, name] = id.split('/') as [string, string];
  return { id, url: `http://${name}.${namespace}.svc:${port}`, source: 'kubernetes' };
}

/**
 * The client's Watch with what the informer leaves out: bookmarks (fewer relists after reconnects), a server-side
 * timeout (every watch is renewed periodically), and no watch outliving `close()` (the informer may be mid-restart).
 */
class ClosableWatch extends Watch {
  private readonly open = new Set<AbortController>();
  private closed = false;

  override async watch(
    path: string,
    queryParams: Record<string, string | number | boolean | undefined>,
    callback: (phase: string, apiObj: unknown, watchObj?: unknown) => void,
    done: (err: unknown) => void,
  ): Promise<AbortController> {
    const params = { ...queryParams, allowWatchBookmarks: true, timeoutSeconds: WATCH_TIMEOUT_SECONDS };
    const finished = (err: unknown): void => {
      // The client aborts a watch's controller before reporting it done.
      for (const controller of this.open) if (controller.signal.aborted) this.open.delete(controller);
      done(err);
    };
    const controller = await super.watch(path, params, callback, finished);
    if (this.closed) controller.abort();
    else if (!controller.signal.aborted) this.open.add(controller);
    return controller;
  }

  close(): void {
    this.closed = true;
    for (const controller of this.open) controller.abort();
    this.open.clear();
  }
}

/** Per-request middleware giving list calls a timeout and aborting them on close. */
function listOptions(closing: AbortSignal): ConfigurationOptions {
  return {
    middlewareMergeStrategy: 'append',
    middleware: [
      {
        pre(context: RequestContext) {
          context.setSignal(AbortSignal.any([closing, AbortSignal.timeout(LIST_TIMEOUT_MS)]));
          return new Observable(Promise.resolve(context));
        },
        post: (context: ResponseContext) => new Observable(Promise.resolve(context)),
      },
    ],
  };
}

/**
 * Agent endpoints from Kubernetes Services carrying the discovery label: listed, then watched (an informer).
 * Reports every current one as `added`, then `added`/`updated` (URL changed)/`removed`. Watch failures are logged
 * at warn and retried with a backoff (1 s doubling to 30 s); clean watch ends are resumed by the informer itself.
 */
export function kubernetesAgentSource(options: KubernetesSourceOptions): AgentSource {
  const logger = options.logger.child({ component: 'kubernetes-discovery' });
  const { namespace } = options;
  const labelSelector = options.labelSelector ?? DISCOVERY_LABEL;
  const maxEndpoints = Math.max(0, options.maxEndpoints ?? DEFAULT_MAX_ENDPOINTS);
  const closing = new AbortController();
  const api = options.kubeConfig.makeApiClient(CoreV1Api);
  const watch = new ClosableWatch(options.kubeConfig);
  const path = namespace === undefined ? '/api/v1/services' : `/api/v1/namespaces/${encodeURIComponent(namespace)}/services`;
  const list = (): Promise<V1ServiceList> =>
    namespace === undefined
      ? api.listServiceForAllNamespaces({ labelSelector }, listOptions(closing.signal))
      : api.listNamespacedService({ namespace, labelSelector }, listOptions(closing.signal));
  const informer = new ListWatch<V1Service>(path, watch, list, false, labelSelector);

  /** id -> URL of every endpoint reported and not yet removed. */
  const tracked = new Map<string, string>();
  let listener: ((change: EndpointChange) => void) | undefined;
  let started = false;
  let closed = false;
  let overflow = false;
  let backoffMs = BACKOFF_INITIAL_MS;
  let attemptFailed = false;
  let retryTimer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;

  function emit(change: EndpointChange): void {
    try {
      listener?.(change);
    } catch (err) {
      logger.warn({ err, change: change.type }, 'agent endpoint listener threw');
    }
  }

  /** Tracks a new endpoint if there is room; returns false when full. */
  function admit(endpoint: AgentEndpoint): boolean {
    if (tracked.size >= maxEndpoints) {
      if (!overflow) logger.warn({ maxEndpoints, ignored: endpoint.id }, 'too many agent Services; ignoring the rest');
      overflow = true;
      return false;
    }
    tracked.set(endpoint.id, endpoint.url);
    emit({ type: 'added', endpoint });
    return true;
  }

  function untrack(id: string): void {
    if (!tracked.delete(id)) return;
    emit({ type: 'removed', id });
    if (overflow) {
      // A slot came free: take a Service ignored earlier, from the informer's cache.
      overflow = false;
      for (const service of informer.list()) {
        const endpoint = endpointOf(service);
        if (endpoint === undefined || tracked.has(endpoint.id)) continue;
        if (!admit(endpoint)) break;
      }
    }
  }

  function onAddOrUpdate(service: V1Service): void {
    if (closed) return;
    try {
      const id = serviceId(service);
      if (id === undefined) return;
      const endpoint = endpointOf(service);
      if (endpoint === undefined) {
        logger.debug({ service: id }, 'agent Service has no usable A2A URL (annotation or port); skipped');
        untrack(id);
        return;
      }
      const previous = tracked.get(id);
      if (previous === undefined) admit(endpoint);
      else if (previous !== endpoint.url) {
        tracked.set(id, endpoint.url);
        emit({ type: 'updated', endpoint });
      }
    } catch (err) {
      logger.warn({ err }, 'failed to handle a Service event');
    }
  }

  function onDelete(service: V1Service): void {
    if (closed) return;
    try {
      const id = serviceId(service);
      if (id !== undefined) untrack(id);
    } catch (err) {
      logger.warn({ err }, 'failed to handle a Service deletion');
    }
  }

  function scheduleRetry(err: unknown): void {
    if (closed || retryTimer !== undefined) return;
    const delayMs = backoffMs;
    backoffMs = Math.min(backoffMs * 2, BACKOFF_MAX_MS);
    logger.warn({ err, retryInMs: delayMs, namespace: namespace ?? '(all)', labelSelector }, 'Kubernetes Service watch failed; retrying');
    retryTimer = setTimeout(() => {
      retryTimer = undefined;
      running = run();
    }, delayMs);
  }

  /** One (re)start of the informer: list if needed, then watch. Never rejects. */
  async function run(): Promise<void> {
    if (closed) return;
    attemptFailed = false;
    try {
      await informer.start();
    } catch (err) {
      attemptFailed = true;
      scheduleRetry(err);
    }
    if (closed) {
      await informer.stop();
      watch.close();
      return;
    }
    if (!attemptFailed) backoffMs = BACKOFF_INITIAL_MS;
  }

  informer.on('add', onAddOrUpdate);
  informer.on('update', onAddOrUpdate);
  informer.on('delete', onDelete);
  informer.on('error', (err: unknown) => {
    // The informer stops after an error (it restarts by itself only after a clean end of the watch).
    if (closed) return;
    attemptFailed = true;
    scheduleRetry(err);
  });

  return {
    async start(onChange) {
      if (started || closed) throw new Error('kubernetes agent source: start() may be called once, before close()');
      started = true;
      listener = onChange;
      running = run();
      await running;
    },
    async close() {
      if (closed) return;
      closed = true;
      if (retryTimer !== undefined) clearTimeout(retryTimer);
      retryTimer = undefined;
      closing.abort();
      await informer.stop();
      watch.close();
      await running;
      tracked.clear();
      listener = undefined;
    },
  };
}
