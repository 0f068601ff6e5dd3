import type { Request, Response } from 'express';
import { parseFields, projectFields, projectJsonFields } from './fields.js';
import { GrpcCode, GrpcError, PERMISSION_DENIED, goJson, sendJson } from './grpc.js';
import { SelectorError, parseLabelSelector } from './selector.js';
import { sendWhole, streamList } from './stream.js';
import { sanitizeCluster } from './clusters.js';
import type { ArgoApplication, ArgoApplicationSet, ArgoCluster, ArgoEstate, ArgoProject, ArgoSource } from './types.js';
import { ARGOCD_NAMESPACE } from './words.js';

/** The estate with the lookups and list resource versions the handlers need, built once per server. */
export interface EstateIndex {
  readonly estate: ArgoEstate;
  readonly applications: ReadonlyMap<string, ArgoApplication>;
  readonly projects: ReadonlyMap<string, ArgoProject>;
  readonly applicationSets: ReadonlyMap<string, ArgoApplicationSet>;
  /** Informer resource versions: past every object's own. */
  readonly versions: { readonly applications: string; readonly projects: string; readonly applicationSets: string };
}

function newestVersion(objects: readonly { metadata: { resourceVersion: string } }[], bump: number): string {
  return String(objects.reduce((max, o) => Math.max(max, Number(o.metadata.resourceVersion) || 0), 0) + bump);
}

export function indexEstate(estate: ArgoEstate): EstateIndex {
  return {
    estate,
    applications: new Map(estate.applications.map((a) => [a.metadata.name, a])),
    projects: new Map(estate.projects.map((p) => [p.metadata.name, p])),
    applicationSets: new Map(estate.applicationSets.map((s) => [s.metadata.name, s])),
    versions: {
      applications: newestVersion(estate.applications, 17),
      projects: newestVersion(estate.projects, 5),
      applicationSets: newestVersion(estate.applicationSets, 3),
    },
  };
}

/** Per-request decisions the server makes (fault injection). */
export interface RouteContext {
  readonly index: EstateIndex;
  /** Whether this list response is to be cut off (consumes one draw of the truncation sequence). */
  truncate(): boolean;
}

/** Go's `URL.Query().Get(name)`: the first value, '' when absent counts as absent here. */
export function first(req: Request, name: string): string | undefined {
  const value = req.query[name];
  const one = Array.isArray(value) ? value[0] : value;
  return typeof one === 'string' && one !== '' ? one : undefined;
}

/** Every value of a repeated parameter, or undefined when it is not in the query at all. */
function all(req: Request, name: string): string[] | undefined {
  const value = req.query[name];
  if (value === undefined) return undefined;
  return (Array.isArray(value) ? value : [value]).filter((v): v is string => typeof v === 'string');
}

/** `projects` when given, else the older `project` (getProjectsFromApplicationQuery). */
const projectsOf = (req: Request): string[] => all(req, 'projects') ?? all(req, 'project') ?? [];

function selectorOf(req: Request): (labels: Readonly<Record<string, string>> | undefined) => boolean {
  try {
    return parseLabelSelector(first(req, 'selector') ?? '');
  } catch (error) {
    // A plain Go error, so gRPC code Unknown: HTTP 500, not 400.
    if (error instanceof SelectorError) throw new GrpcError(GrpcCode.Unknown, `error parsing the selector: ${error.message}`);
    throw error;
  }
}

/** `spec.GetSource()`: the first of several sources. */
const primarySource = (app: ArgoApplication): ArgoSource | undefined => app.spec.sources?.[0] ?? app.spec.source;

/** GET /api/v1/applications: every match, sorted by name, no pagination; `fields` projects by the whitelist. */
export async function listApplications(req: Request, res: Response, ctx: RouteContext): Promise<void> {
  const matches = selectorOf(req);
  const namespace = first(req, 'appNamespace');
  const name = first(req, 'name');
  const projects = new Set(projectsOf(req));
  const repo = first(req, 'repo');
  const items = ctx.index.estate.applications.filter(
    (a) =>
      (namespace === undefined || a.metadata.namespace === namespace) &&
      (name === undefined || a.metadata.name === name) &&
      (projects.size === 0 || projects.has(a.spec.project === '' ? 'default' : a.spec.project)) &&
      (repo === undefined || primarySource(a)?.repoURL === repo) &&
      matches(a.metadata.labels),
  );
  const selection = parseFields(first(req, 'fields'));
  const serialise = selection === undefined ? goJson : (app: ArgoApplication) => goJson(projectFields(app, selection));
  await streamList(res, { resourceVersion: ctx.index.versions.applications }, items, serialise, ctx.truncate());
}

/**
 * The application a request names, with Argo CD's RBAC-guarded lookup (getAppEnforceRBAC): an application
 * namespace other than Argo CD's own is "permission denied"; without a project, a missing application is
 * "permission denied" too (so existence does not leak); with one, it is NotFound, and so is an application in
 * another project.
 */
export function resolveApplication(ctx: RouteContext, name: string, project: string, appNamespace: string | undefined): ArgoApplication {
  if ((appNamespace ?? ARGOCD_NAMESPACE) !== ARGOCD_NAMESPACE) throw new GrpcError(GrpcCode.PermissionDenied, PERMISSION_DENIED);
  const app = ctx.index.applications.get(name);
  const notFound = new GrpcError(GrpcCode.NotFound, `applications.argoproj.io "${name}" not found`);
  if (app === undefined) throw project === '' ? new GrpcError(GrpcCode.PermissionDenied, PERMISSION_DENIED) : notFound;
  if (project !== '' && (app.spec.project || 'default') !== project) throw notFound;
  return app;
}

/** GET /api/v1/applications/{name}: `projects` (or `project`) holds at most one project. */
export function getApplication(req: Request, res: Response, ctx: RouteContext): void {
  const projects = projectsOf(req);
  if (projects.length > 1) throw new GrpcError(GrpcCode.InvalidArgument, 'multiple projects specified - the get endpoint accepts either zero or one project');
  sendJson(res, 200, resolveApplication(ctx, String(req.params.name), projects[0] ?? '', first(req, 'appNamespace')));
}

/** GET /api/v1/projects: straight from the Kubernetes API (name order); `fields` uses the generic JSON filter. */
export async function listProjects(req: Request, res: Response, ctx: RouteContext): Promise<void> {
  const metadata = { resourceVersion: ctx.index.versions.projects };
  const items = ctx.index.estate.projects;
  const selection = parseFields(first(req, 'fields'));
  if (selection === undefined) {
    await streamList(res, metadata, items, goJson, ctx.truncate());
    return;
  }
  await sendWhole(res, goJson(projectJsonFields({ metadata, items: items.length === 0 ? null : items }, selection)), ctx.truncate());
}

export function getProject(req: Request, res: Response, ctx: RouteContext): void {
  const name = String(req.params.name);
  const project = ctx.index.projects.get(name);
  if (project === undefined) throw new GrpcError(GrpcCode.NotFound, `appprojects.argoproj.io "${name}" not found`);
  sendJson(res, 200, project);
}

/** GET /api/v1/applicationsets: `projects` (the template's project, literally) and `selector`; sorted by name. */
export async function listApplicationSets(req: Request, res: Response, ctx: RouteContext): Promise<void> {
  const matches = selectorOf(req);
  const namespace = first(req, 'appsetNamespace');
  const projects = new Set(all(req, 'projects') ?? []);
  const items = ctx.index.estate.applicationSets.filter(
    (s) =>
      (namespace === undefined || s.metadata.namespace === namespace) &&
      (projects.size === 0 || projects.has(s.spec.template.spec.project || 'default')) &&
      matches(s.metadata.labels),
  );
  await streamList(res, { resourceVersion: ctx.index.versions.applicationSets }, items, goJson, ctx.truncate());
}

export function getApplicationSet(req: Request, res: Response, ctx: RouteContext): void {
  const name = String(req.params.name);
  const namespace = first(req, 'appsetNamespace') ?? ARGOCD_NAMESPACE;
  // Unconfirmed wording: security.NamespaceNotPermittedError.
  if (namespace !== ARGOCD_NAMESPACE) throw new GrpcError(GrpcCode.PermissionDenied, `namespace '${namespace}' is not permitted`);
  const set = ctx.index.applicationSets.get(name);
  if (set === undefined) throw new GrpcError(GrpcCode.NotFound, `error getting ApplicationSet: applicationsets.argoproj.io "${name}" not found`);
  sendJson(res, 200, set);
}

/** ClusterID: `id.type` is `server` (default), `name` or `name_escaped`. */
function clusterMatcher(type: string | undefined, value: string): (c: ArgoCluster) => boolean {
  if (type === 'name') return (c) => c.name === value;
  if (type === 'name_escaped') return (c) => c.name === decodeURIComponent(value);
  return (c) => c.server === value;
}

/**
 * GET /api/v1/clusters: `id.value`/`id.type`, `name`, `server`; each filter keeps its first match only. Each
 * cluster goes out as `Cluster.Sanitized()` makes it (no CA, certificate or key data, no exec provider).
 */
export async function listClusters(req: Request, res: Response, ctx: RouteContext): Promise<void> {
  let items: readonly ArgoCluster[] = ctx.index.estate.clusters;
  const keepFirst = (match: (c: ArgoCluster) => boolean): void => {
    const found = items.find(match);
    items = found === undefined ? [] : [found];
  };
  const id = first(req, 'id.value');
  if (id !== undefined) keepFirst(clusterMatcher(first(req, 'id.type'), id));
  const name = first(req, 'name');
  if (name !== undefined) keepFirst((c) => c.name === name);
  const server = first(req, 'server');
  if (server !== undefined) keepFirst((c) => c.server === server);
  await streamList(res, {}, items, (c) => goJson(sanitizeCluster(c)), ctx.truncate());
}

/**
 * GET /api/v1/clusters/{id.value}: the server URL, URL-encoded. A missing cluster is "permission denied", as in
 * Argo CD. Sanitised like the list.
 */
export function getCluster(req: Request, res: Response, ctx: RouteContext): void {
  const cluster = ctx.index.estate.clusters.find(clusterMatcher(first(req, 'id.type'), String(req.params.id)));
  if (cluster === undefined) {
    throw new GrpcError(GrpcCode.PermissionDenied, `error verifying access to update cluster: failed to get cluster with permissions check: ${PERMISSION_DENIED}`);
  }
  sendJson(res, 200, sanitizeCluster(cluster));
}
