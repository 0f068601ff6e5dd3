import { describeError, type Logger } from '@flotilla/core';
import type { ArgoCdClient } from '../client/argocd-client.js';
import type { Cluster } from '../client/schemas.js';

/**
 * One cluster, one identity. An application names its destination either by cluster name (`spec.destination.name`)
 * or by API server URL (`spec.destination.server`); both point at the same cluster. Filters and aggregates resolve
 * destinations against Argo CD's cluster list (GET /api/v1/clusters), so "apps in prod-eu-1" finds both kinds and
 * `by_cluster` counts each cluster once, under its name.
 */
export interface ClusterIdentity {
  readonly name: string;
  readonly server: string;
}

export interface Destination {
  readonly name?: string | undefined;
  readonly server?: string | undefined;
}

export interface ClusterNames {
  /** The cluster a destination points at, as people name it: its Argo CD name, else a short form of the URL. */
  nameOf(destination: Destination | null | undefined): string;
  /** The cluster a filter value (a name or an API URL) means, when Argo CD knows it. */
  resolve(wanted: string): ClusterIdentity | undefined;
  /** Whether a destination points at the cluster a filter value (name or URL) means. */
  matches(destination: Destination | null | undefined, wanted: string): boolean;
  /** Set when the cluster list could not be read: names were derived from URLs (say so in answers). */
  readonly degraded: string | undefined;
  /** Every cluster's name (the local one too): what a destination of any cluster (`*`) allows. */
  readonly all: readonly string[];
}

export const CLUSTER_DIRECTORY_LIMITS = {
  /** How long a cluster list is reused (clusters change rarely; a snapshot of applications keeps its own names). */
  ttlMs: 30_000,
  /** Clusters kept from one list; more are ignored (Argo CD installs have tens, rarely hundreds). */
  maxClusters: 5_000,
  /** How long a failed read is not retried (a token without cluster rights would otherwise fail on every call). */
  degradedTtlMs: 5_000,
} as const;

/** The local API as Argo CD names it. */
const IN_CLUSTER_SERVER = 'https://kubernetes.default.svc';

/** A short name for a URL no registered cluster has: its host's first label ("prod-eu-1" for https://prod-eu-1.k8s...). */
export function shortServerName(server: string): string {
  if (!/^https?:\/\//.test(server)) return server;
  const host = server.replace(/^https?:\/\//, '').split(/[/:]/)[0] ?? server;
  return host === 'kubernetes.default.svc' ? 'in-cluster' : (host.split('.')[0] ?? host);
}

/** URLs compare without a trailing slash (Argo CD stores them as given). */
const normaliseServer = (server: string): string => server.replace(/\/+$/, '');

export function clusterNames(clusters: readonly Cluster[], degraded?: string): ClusterNames {
  const byServer = new Map<string, ClusterIdentity>();
  const byName = new Map<string, ClusterIdentity>();
  for (const cluster of clusters.slice(0, CLUSTER_DIRECTORY_LIMITS.maxClusters)) {
    const identity = { name: cluster.name ?? shortServerName(cluster.server), server: normaliseServer(cluster.server) };
    byServer.set(identity.server, identity);
    byName.set(identity.name, identity);
  }
  if (!byServer.has(IN_CLUSTER_SERVER)) {
    const local = { name: 'in-cluster', server: IN_CLUSTER_SERVER };
    byServer.set(local.server, local);
    if (!byName.has(local.name)) byName.set(local.name, local);
  }
  const identityOf = (destination: Destination | null | undefined): ClusterIdentity | undefined => {
    if (destination?.name !== undefined && destination.name !== '') return byName.get(destination.name) ?? { name: destination.name, server: '' };
    if (destination?.server !== undefined && destination.server !== '') {
      const server = normaliseServer(destination.server);
      return byServer.get(server) ?? { name: shortServerName(server), server };
    }
    return undefined;
  };
  const resolve = (wanted: string): ClusterIdentity | undefined => byName.get(wanted) ?? byServer.get(normaliseServer(wanted));
  return {
    degraded,
    all: [...byName.keys()],
    nameOf: (destination) => identityOf(destination)?.name ?? 'unknown',
    resolve,
    matches(destination, wanted) {
      const identity = identityOf(destination);
      if (identity === undefined) return false;
      const target = resolve(wanted);
      if (target !== undefined) return identity.name === target.name || (identity.server !== '' && identity.server === target.server);
      // A cluster Argo CD does not list: compare what the destination says, literally or by its short name.
      return identity.name === wanted || identity.server === normaliseServer(wanted);
    },
  };
}

/** Argo CD's clusters by name and URL, read once per `ttlMs` and shared by every tool call of the server. */
export class ClusterDirectory {
  private cached: { readonly at: number; readonly names: ClusterNames } | undefined;
  private pending: Promise<ClusterNames> | undefined;

  constructor(
    private readonly client: Pick<ArgoCdClient, 'listClusters'>,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * The current names. A failed cluster list (a token without cluster rights, an outage) does not fail the
   * caller: names then come from the destinations themselves and `degraded` says why.
   */
  async names(signal?: AbortSignal): Promise<ClusterNames> {
    const cached = this.cached;
    if (cached !== undefined && this.now() - cached.at < (cached.names.degraded === undefined ? CLUSTER_DIRECTORY_LIMITS.ttlMs : CLUSTER_DIRECTORY_LIMITS.degradedTtlMs)) return cached.names;
    // Shared by every caller, so no caller's signal ends it (the upstream timeout bounds it); a caller that aborts
    // stops waiting for it below.
    this.pending ??= this.client
      .listClusters()
      .then((clusters) => clusterNames(clusters))
      .catch((error: unknown) => {
        this.logger.warn({ err: describeError(error) }, 'cluster list unavailable; cluster names derived from destinations');
        return clusterNames([], `the cluster list could not be read (${describeError(error)}), so clusters named by URL are shown by host name`);
      })
      .then((names) => {
        this.cached = { at: this.now(), names };
        return names;
      })
      .finally(() => {
        this.pending = undefined;
      });
    if (signal === undefined) return this.pending;
    signal.throwIfAborted();
    return Promise.race([
      this.pending,
      new Promise<never>((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true })),
    ]);
  }
}

const directories = new WeakMap<Pick<ArgoCdClient, 'listClusters'>, ClusterDirectory>();

/** The directory of a client: one per client, so every MCP server built over it (one per HTTP request) shares the cache. */
export function clusterDirectoryFor(client: Pick<ArgoCdClient, 'listClusters'>, logger: Logger): ClusterDirectory {
  let directory = directories.get(client);
  if (directory === undefined) {
    directory = new ClusterDirectory(client, logger);
    directories.set(client, directory);
  }
  return directory;
}
