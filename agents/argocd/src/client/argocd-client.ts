import { FlotillaError, isFlotillaError, type Logger } from '@flotilla/core';
import type { FlotillaMetrics } from '@flotilla/metrics';
import { UpstreamHttp, type CircuitOptions, type LineVerdict, type UpstreamItems, type UpstreamLimits, type UpstreamLines } from '@flotilla/upstream';
import { grpcGatewayError, grpcStreamError } from './errors.js';
import { Application, ApplicationListItem, ApplicationSet, Cluster, Project } from './schemas.js';
import { KubeEvent, logLineSchema, ManagedResourceItem, ResourceActions, ResourceManifest, ResourceNode, type LogLine, type ManagedResource } from './resources.js';

/**
 * What list calls ask Argo CD for, through its `fields` projection (Argo CD projects by a fixed whitelist, in
 * which `spec` is one unit): names, labels and annotations, spec, sync, health and the last operation's phase.
 * Never `status.resources`, `status.history` or the operation's sync result: those are what make an unprojected
 * list several megabytes. Creation and last-sync times are kept for time windows ("synced in the last hour"). The spec's Helm values still arrive; `ApplicationListItem` drops them per item, as the
 * body streams in, so they never accumulate in memory.
 */
export const APPLICATION_LIST_FIELDS = [
  'items.metadata.name',
  'items.metadata.namespace',
  'items.metadata.labels',
  'items.metadata.annotations',
  'items.metadata.creationTimestamp',
  'items.spec',
  'items.status.sync.status',
  'items.status.health',
  'items.status.operationState.phase',
  'items.status.operationState.finishedAt',
] as const;

/** Server-side filters of GET /api/v1/applications. */
export interface ApplicationQuery {
  readonly projects?: readonly string[] | undefined;
  readonly selector?: string | undefined;
  readonly repo?: string | undefined;
  readonly name?: string | undefined;
  readonly appNamespace?: string | undefined;
  /** Also the images and URLs each application runs and serves (`status.summary`): only when a query reads them. */
  readonly summary?: boolean | undefined;
}

export interface ArgoCdClientOptions {
  readonly baseUrl: string;
  readonly token: string;
  readonly limits: UpstreamLimits;
  readonly metrics: FlotillaMetrics;
  readonly logger: Logger;
  /** The circuit breaker (CIRCUIT_DEFAULTS of @flotilla/upstream), or false for none. */
  readonly circuit?: CircuitOptions | false | undefined;
}

/** A name as one URL path segment; a lone surrogate (no Argo CD name has one) becomes U+FFFD instead of a URIError. */
const pathSegment = (name: string): string => encodeURIComponent(name.replace(/\p{Cs}/gu, '\uFFFD'));

/** Every operation label of the client's requests (their metric series start at zero). */
export const ARGOCD_OPERATIONS = [
  'list_applications',
  'get_application',
  'find_application',
  'list_projects',
  'get_project',
  'list_applicationsets',
  'list_clusters',
  'get_resource_tree',
  'get_managed_resources',
  'list_application_events',
  'list_resource_events',
  'get_logs',
  'get_resource',
  'list_resource_actions',
] as const;

/** The Argo CD REST calls Flotilla makes; each asks only for what it needs and is bounded by `limits`. */
export class ArgoCdClient {
  private readonly http: UpstreamHttp;

  constructor(options: ArgoCdClientOptions) {
    this.http = new UpstreamHttp({
      system: 'argocd',
      displayName: 'Argo CD',
      operations: ARGOCD_OPERATIONS,
      baseUrl: options.baseUrl,
      headers: { authorization: `Bearer ${options.token}` },
      limits: options.limits,
      metrics: options.metrics,
      logger: options.logger,
      errorBody: grpcGatewayError,
      streamError: grpcStreamError,
      ...(options.circuit === undefined ? {} : { circuit: options.circuit }),
    });
  }

  listApplications(query: ApplicationQuery, signal?: AbortSignal): Promise<ApplicationListItem[]> {
    const params = new URLSearchParams();
    for (const project of query.projects ?? []) params.append('projects', project);
    if (query.selector !== undefined) params.set('selector', query.selector);
    if (query.repo !== undefined) params.set('repo', query.repo);
    if (query.name !== undefined) params.set('name', query.name);
    if (query.appNamespace !== undefined) params.set('appNamespace', query.appNamespace);
    params.set('fields', [...APPLICATION_LIST_FIELDS, ...(query.summary === true ? ['items.status.summary'] : [])].join(','));
    return this.http.getList({ operation: 'list_applications', path: '/api/v1/applications', query: params, itemSchema: ApplicationListItem, signal });
  }

  /**
   * One application, whole: a single object is small enough, and sections are chosen by the caller. Argo CD
   * answers a missing application with 403 "permission denied" (so existence does not leak); a 403 is therefore
   * checked with a name-filtered list, which is empty when the application does not exist.
   */
  async getApplication(name: string, signal?: AbortSignal): Promise<Application> {
    try {
      return await this.http.getJson({ operation: 'get_application', path: `/api/v1/applications/${pathSegment(name)}`, schema: Application, signal });
    } catch (error) {
      if (!isFlotillaError(error) || error.code !== 'upstream_auth' || error.details.status !== 403) throw error;
      const found = await this.http.getList({
        operation: 'find_application',
        path: '/api/v1/applications',
        query: new URLSearchParams({ name, fields: 'items.metadata.name' }),
        itemSchema: ApplicationListItem,
        signal,
      });
      if (found.length > 0) throw error;
      throw new FlotillaError('not_found', `Argo CD has no application named "${name}" (or this token may not see it)`, {
        remedy: 'Check the name: search_argocd_resources or list_applications show exact names.',
        cause: error,
      });
    }
  }

  listProjects(signal?: AbortSignal): Promise<Project[]> {
    return this.http.getList({ operation: 'list_projects', path: '/api/v1/projects', itemSchema: Project, signal });
  }

  getProject(name: string, signal?: AbortSignal): Promise<Project> {
    return this.http.getJson({ operation: 'get_project', path: `/api/v1/projects/${pathSegment(name)}`, schema: Project, signal });
  }

  listApplicationSets(query: { projects?: readonly string[] | undefined; selector?: string | undefined }, signal?: AbortSignal): Promise<ApplicationSet[]> {
    const params = new URLSearchParams();
    for (const project of query.projects ?? []) params.append('projects', project);
    if (query.selector !== undefined) params.set('selector', query.selector);
    return this.http.getList({ operation: 'list_applicationsets', path: '/api/v1/applicationsets', query: params, itemSchema: ApplicationSet, signal });
  }

  listClusters(signal?: AbortSignal): Promise<Cluster[]> {
    return this.http.getList({ operation: 'list_clusters', path: '/api/v1/clusters', itemSchema: Cluster, signal });
  }

  /** The nodes of an application's resource tree (GET .../resource-tree), read node by node; orphaned nodes are not read. */
  getResourceTree(name: string, signal?: AbortSignal): Promise<ResourceNode[]> {
    return this.checked(name, 'reading the resource tree', APP_GET, () =>
      this.http.getList({ operation: 'get_resource_tree', path: `${appPath(name)}/resource-tree`, listKey: 'nodes', itemSchema: ResourceNode, signal }),
    );
  }

  /**
   * The resources an application manages, live against desired (GET .../managed-resources, filtered by Argo CD),
   * each reduced to a diff summary as it is read: the manifests themselves are never kept. An item over the
   * upstream's value cap (its four states together) is skipped unread and reported in `oversized`.
   */
  getManagedResources(name: string, filter: ResourceFilter, signal?: AbortSignal): Promise<UpstreamItems<ManagedResource>> {
    const params = new URLSearchParams();
    if (filter.kind !== undefined) params.set('kind', filter.kind);
    if (filter.name !== undefined) params.set('name', filter.name);
    if (filter.namespace !== undefined) params.set('namespace', filter.namespace);
    if (filter.group !== undefined) params.set('group', filter.group);
    return this.checked(name, 'reading the managed resources', APP_GET, () =>
      this.http.getItems({ operation: 'get_managed_resources', path: `${appPath(name)}/managed-resources`, query: params, itemSchema: ManagedResourceItem, oversizedItems: 'skip', signal }),
    );
  }

  /**
   * Events of the application itself, or of one of its resources (GET .../events): Argo CD serves a resource's
   * events only when its name, namespace and uid match a node of the application's resource tree.
   */
  listEvents(name: string, resource: { name: string; namespace: string; uid: string } | undefined, signal?: AbortSignal): Promise<KubeEvent[]> {
    const params = new URLSearchParams();
    if (resource !== undefined) {
      params.set('resourceName', resource.name);
      params.set('resourceNamespace', resource.namespace);
      params.set('resourceUID', resource.uid);
    }
    return this.checked(name, 'reading events', APP_GET, () =>
      this.http.getList({ operation: resource === undefined ? 'list_application_events' : 'list_resource_events', path: `${appPath(name)}/events`, query: params, itemSchema: KubeEvent, signal }),
    );
  }

  /**
   * Container log lines (GET .../logs, a stream of one JSON LogEntry per line, never followed), read line by line
   * within `read`'s caps: the response is abandoned at the first cap reached. Returns what was read and the query
   * Argo CD was sent.
   */
  async getLogs(name: string, query: LogQuery, read: LogReadLimits, signal?: AbortSignal): Promise<{ readonly lines: UpstreamLines<LogLine>; readonly asked: URLSearchParams }> {
    const params = new URLSearchParams();
    if (query.podName !== undefined) params.set('podName', query.podName);
    if (query.kind !== undefined) params.set('kind', query.kind);
    if (query.resourceName !== undefined) params.set('resourceName', query.resourceName);
    if (query.namespace !== undefined) params.set('namespace', query.namespace);
    if (query.container !== undefined) params.set('container', query.container);
    params.set('tailLines', String(query.tailLines));
    if (query.sinceSeconds !== undefined) params.set('sinceSeconds', String(query.sinceSeconds));
    if (query.sinceTimeMs !== undefined) {
      // metav1.Time is a message: grpc-gateway takes its fields as sinceTime.seconds and sinceTime.nanos.
      params.set('sinceTime.seconds', String(Math.floor(query.sinceTimeMs / 1000)));
      params.set('sinceTime.nanos', String((query.sinceTimeMs % 1000) * 1_000_000));
    }
    if (query.untilTime !== undefined) params.set('untilTime', query.untilTime);
    if (query.filter !== undefined) params.set('filter', query.filter);
    if (query.matchCase === true) params.set('matchCase', 'true');
    if (query.previous === true) params.set('previous', 'true');
    params.set('follow', 'false');
    const lines = await this.checked(name, 'reading logs', LOGS_GET, () =>
      this.http.getLines({
        operation: 'get_logs',
        path: `${appPath(name)}/logs`,
        query: params,
        lineSchema: logLineSchema(read.lineMaxChars, read.matches),
        maxLines: read.maxLines,
        maxBytes: read.maxBytes,
        oversizedLines: 'skip',
        select: read.select,
        signal,
      }),
    );
    return { lines, asked: params };
  }

  /** One live object of the application (GET .../resource): its manifest as a JSON string. */
  async getResource(name: string, ref: ResourceRef, signal?: AbortSignal): Promise<string> {
    const response = await this.checked(name, 'reading a live resource', APP_GET, () =>
      this.http.getJson({ operation: 'get_resource', path: `${appPath(name)}/resource`, query: resourceQuery(ref), schema: ResourceManifest, signal }),
    );
    return response.manifest;
  }

  /** The actions Argo CD offers for one resource (GET .../resource/actions); listed only, never run. */
  async listResourceActions(name: string, ref: ResourceRef, signal?: AbortSignal): Promise<NonNullable<ResourceActions['actions']>> {
    const response = await this.checked(name, 'listing resource actions', APP_GET, () =>
      this.http.getJson({ operation: 'list_resource_actions', path: `${appPath(name)}/resource/actions`, query: resourceQuery(ref), schema: ResourceActions, signal }),
    );
    return response.actions ?? [];
  }

  /**
   * Runs one call about an application, turning Argo CD's answers into what a caller can act on: its 403 for a
   * missing application (so existence does not leak) into not_found when a name-filtered list is empty, else an
   * explanation of the permission missing; its 400 "... not found as part of application" into not_found.
   */
  private async checked<T>(name: string, what: string, permission: string, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      if (!isFlotillaError(error)) throw error;
      if (error.code === 'upstream_auth' && error.details.status === 403) {
        const found = await this.http.getList({
          operation: 'find_application',
          path: '/api/v1/applications',
          query: new URLSearchParams({ name, fields: 'items.metadata.name' }),
          itemSchema: ApplicationListItem,
        });
        if (found.length === 0) {
          throw new FlotillaError('not_found', `Argo CD has no application named "${name}" (or this token may not see it)`, {
            remedy: 'Check the name: search_argocd_resources or list_applications show exact names.',
            cause: error,
          });
        }
        throw new FlotillaError('upstream_auth', `Argo CD refused ${what} of application "${name}" (403): the token Flotilla uses can see the application but lacks the permission`, {
          remedy: `Ask an Argo CD admin to grant the Flotilla token's role ${permission} for this application's project (argocd-rbac-cm), or answer without it.`,
          details: { status: 403 },
          cause: error,
        });
      }
      if (error.code === 'upstream_rejected' && /not found as part of application/i.test(error.message)) {
        throw new FlotillaError('not_found', error.message, {
          remedy: 'get_resource_tree lists the resources of the application (kind, name, namespace, group).',
          details: error.details,
          cause: error,
        });
      }
      throw error;
    }
  }
}

/** The Argo CD RBAC permission each call needs, as a policy line names it. */
const APP_GET = '"applications, get"';
const LOGS_GET = '"logs, get" (and "applications, get")';

const appPath = (name: string): string => `/api/v1/applications/${pathSegment(name)}`;

/** Server-side filters of managed-resources (each exact; unset matches all). */
export interface ResourceFilter {
  readonly kind?: string | undefined;
  readonly name?: string | undefined;
  readonly namespace?: string | undefined;
  readonly group?: string | undefined;
}

/** One resource of an application, as Argo CD finds it in the tree: group "" for the core group, namespace "" for cluster-scoped. */
export interface ResourceRef {
  readonly kind: string;
  readonly name: string;
  readonly namespace: string;
  readonly group: string;
  readonly version?: string | undefined;
}

function resourceQuery(ref: ResourceRef): URLSearchParams {
  const params = new URLSearchParams({ namespace: ref.namespace, resourceName: ref.name, group: ref.group, kind: ref.kind });
  if (ref.version !== undefined) params.set('version', ref.version);
  return params;
}

/** What get_logs asks Argo CD for (ApplicationPodLogsQuery); `podName`, or `kind` and `resourceName`, or neither (every pod). */
export interface LogQuery {
  readonly podName?: string | undefined;
  readonly kind?: string | undefined;
  readonly resourceName?: string | undefined;
  readonly namespace?: string | undefined;
  readonly container?: string | undefined;
  /** Lines per pod from the end of its log. */
  readonly tailLines: number;
  readonly sinceSeconds?: number | undefined;
  readonly sinceTimeMs?: number | undefined;
  /** RFC 3339. */
  readonly untilTime?: string | undefined;
  /** Substring; a leading "!" keeps the lines without it. */
  readonly filter?: string | undefined;
  readonly matchCase?: boolean | undefined;
  readonly previous?: boolean | undefined;
}

/** How much of a log stream one read takes, and what it keeps. */
export interface LogReadLimits {
  readonly maxLines: number;
  readonly maxBytes: number;
  /** Characters kept of one line. */
  readonly lineMaxChars: number;
  /** A grep run on each whole line before it is cut (LogLine.matched). */
  readonly matches?: ((content: string) => boolean) | undefined;
  readonly select?: ((line: LogLine) => LineVerdict) | undefined;
}
