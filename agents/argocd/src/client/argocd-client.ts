import { FlotillaError, isFlotillaError, type Logger } from '@flotilla/core';
import type { FlotillaMetrics } from '@flotilla/metrics';
import { UpstreamHttp, type CircuitOptions, type UpstreamLimits } from '@flotilla/upstream';
import { Application, ApplicationListItem, ApplicationSet, Cluster, Project } from './schemas.js';

/**
 * What list calls ask Argo CD for, through its `fields` projection (Argo CD projects by a fixed whitelist, in
 * which `spec` is one unit): names, labels and annotations, spec, sync, health and the last operation's phase.
 * Never `status.resources`, `status.history` or the operation's sync result: those are what make an unprojected
 * list several megabytes. The spec's Helm values still arrive; `ApplicationListItem` drops them per item, as the
 * body streams in, so they never accumulate in memory.
 */
export const APPLICATION_LIST_FIELDS = [
  'items.metadata.name',
  'items.metadata.namespace',
  'items.metadata.labels',
  'items.metadata.annotations',
  'items.spec',
  'items.status.sync.status',
  'items.status.health',
  'items.status.operationState.phase',
] as const;

/** Server-side filters of GET /api/v1/applications. */
export interface ApplicationQuery {
  readonly projects?: readonly string[] | undefined;
  readonly selector?: string | undefined;
  readonly repo?: string | undefined;
  readonly name?: string | undefined;
  readonly appNamespace?: string | undefined;
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

/** The Argo CD REST calls Flotilla makes; each asks only for what it needs and is bounded by `limits`. */
export class ArgoCdClient {
  private readonly http: UpstreamHttp;

  constructor(options: ArgoCdClientOptions) {
    this.http = new UpstreamHttp({
      system: 'argocd',
      displayName: 'Argo CD',
      baseUrl: options.baseUrl,
      headers: { authorization: `Bearer ${options.token}` },
      limits: options.limits,
      metrics: options.metrics,
      logger: options.logger,
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
    params.set('fields', APPLICATION_LIST_FIELDS.join(','));
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
}
