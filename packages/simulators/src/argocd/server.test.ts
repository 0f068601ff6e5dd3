import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sanitizeCluster } from './clusters.js';
import { generateArgoEstate } from './data.js';
import { goJson } from './grpc.js';
import { startArgoCdSimulator, type RunningSimulator } from './server.js';
import type { ArgoApplication } from './types.js';

const TOKEN = 'sim-test-token';
const estate = generateArgoEstate();
let sim: RunningSimulator;

type Json = Record<string, unknown>;
interface Answer {
  status: number;
  text: string;
  body: Json;
  headers: Headers;
}

async function call(path: string, init: { token?: string | null; method?: string; headers?: Record<string, string> } = {}): Promise<Answer> {
  const token = init.token === undefined ? TOKEN : init.token;
  const headers = { ...(token === null ? {} : { authorization: `Bearer ${token}` }), ...init.headers };
  const response = await fetch(`${sim.url}${path}`, { method: init.method ?? 'GET', headers });
  const text = await response.text();
  return { status: response.status, text, body: (text.startsWith('{') ? JSON.parse(text) : {}) as Json, headers: response.headers };
}
const items = (a: Answer): Json[] => (a.body.items as Json[] | null) ?? [];
const names = (a: Answer): string[] => items(a).map((i) => String((i.metadata as Json).name));
const appNames = (apps: readonly ArgoApplication[]): string[] => apps.map((a) => a.metadata.name);
const q = encodeURIComponent;

beforeAll(async () => {
  sim = await startArgoCdSimulator({ token: TOKEN, estate });
});
afterAll(async () => sim.close());

describe('GET /api/v1/applications', () => {
  it('returns every application, sorted by name, unpaginated, in the wire shape, several megabytes unprojected', async () => {
    const answer = await call('/api/v1/applications?limit=10&offset=5');
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('application/json');
    expect(answer.headers.get('grpc-metadata-content-type')).toBe('application/grpc');
    expect(names(answer)).toEqual(appNames(estate.applications));
    const version = (answer.body.metadata as Json).resourceVersion;
    expect(answer.text).toBe(`{"metadata":{"resourceVersion":"${String(version)}"},"items":[${estate.applications.map((a) => goJson(a)).join(',')}]}`);
    const bytes = Buffer.byteLength(answer.text);
    process.stdout.write(`unprojected list of ${estate.applications.length} applications: ${(bytes / 1024 / 1024).toFixed(2)} MiB\n`);
    expect(bytes).toBeGreaterThan(2 * 1024 * 1024);
  });

  it('filters by name, projects (repeated, OR; project only without projects), repo, appNamespace', async () => {
    const [a, b, c] = [estate.applications[10], estate.applications[200], estate.applications[500]] as [ArgoApplication, ArgoApplication, ArgoApplication];
    expect(names(await call(`/api/v1/applications?name=${a.metadata.name}`))).toEqual([a.metadata.name]);
    const two = names(await call(`/api/v1/applications?projects=${b.spec.project}&projects=${c.spec.project}`));
    expect(two).toEqual(appNames(estate.applications.filter((x) => x.spec.project === b.spec.project || x.spec.project === c.spec.project)));
    expect(names(await call(`/api/v1/applications?project=${b.spec.project}`))).toEqual(appNames(estate.applications.filter((x) => x.spec.project === b.spec.project)));
    expect(names(await call(`/api/v1/applications?projects=${b.spec.project}&project=${c.spec.project}`))).toEqual(appNames(estate.applications.filter((x) => x.spec.project === b.spec.project)));
    const multi = estate.applications.find((x) => x.spec.sources !== undefined) as ArgoApplication;
    const repo = multi.spec.sources?.[0]?.repoURL ?? '';
    expect(names(await call(`/api/v1/applications?repo=${q(repo)}`))).toContain(multi.metadata.name);
    // Only the first source counts (spec.GetSource()).
    expect(names(await call(`/api/v1/applications?repo=${q(multi.spec.sources?.[1]?.repoURL ?? '')}`))).not.toContain(multi.metadata.name);
    expect(items(await call('/api/v1/applications?appNamespace=argocd'))).toHaveLength(estate.applications.length);
    const none = await call('/api/v1/applications?appNamespace=team-a');
    expect(none.text).toMatch(/,"items":null}$/);
  });

  it('filters by label selector with every operator', async () => {
    const labelled = (test: (l: Record<string, string>) => boolean): string[] => appNames(estate.applications.filter((a) => test(a.metadata.labels ?? {})));
    const cases: [string, (l: Record<string, string>) => boolean][] = [
      ['env=prod', (l) => l.env === 'prod'],
      ['env==staging,team=payments', (l) => l.env === 'staging' && l.team === 'payments'],
      ['env!=prod', (l) => l.env !== 'prod'],
      ['env in (qa,perf)', (l) => l.env === 'qa' || l.env === 'perf'],
      ['team notin (payments,checkout),tier', (l) => l.team !== 'payments' && l.team !== 'checkout' && l.tier !== undefined],
      ['!tier,!region', (l) => l.tier === undefined && l.region === undefined],
    ];
    for (const [selector, test] of cases) {
      const found = names(await call(`/api/v1/applications?selector=${q(selector)}`));
      expect(found, selector).toEqual(labelled(test));
      expect(found.length, selector).toBeGreaterThan(0);
    }
  });

  it('answers a bad selector as Argo CD does: a plain error, so gRPC Unknown and HTTP 500', async () => {
    const bad = await call(`/api/v1/applications?selector=${q('env in (prod')}`);
    expect(bad.status).toBe(500);
    const message = "error parsing the selector: unable to parse requirement: found '', expected: ',' or ')'";
    expect(bad.body).toEqual({ error: message, code: 2, message });
  });

  it('projects with fields: whitelisted units, "-" excludes, everything else dropped', async () => {
    const projected = await call('/api/v1/applications?fields=items.metadata.name,items.status.sync.status,items.spec.project,items.status.history');
    const first = estate.applications[0] as ArgoApplication;
    expect(items(projected)[0]).toEqual({ metadata: { name: first.metadata.name }, status: { sync: { status: first.status.sync.status } } });
    expect(projected.text.startsWith('{"metadata":{"resourceVersion":')).toBe(true);
    const excluded = items(await call('/api/v1/applications?fields=-items.spec,items.status.resources'))[0] as Json;
    expect(Object.keys(excluded)).toEqual(['metadata', 'status']);
    expect(Object.keys(excluded.status as Json)).toEqual(['health', 'operationState', 'sourceHydrator', 'summary', 'sync']);
    const listFields = 'items.metadata.name,items.metadata.labels,items.spec,items.status.sync.status,items.status.health';
    const slim = await call(`/api/v1/applications?fields=${listFields}`);
    const full = await call('/api/v1/applications');
    process.stdout.write(`projected list: ${(Buffer.byteLength(slim.text) / 1024 / 1024).toFixed(2)} MiB\n`);
    expect(Buffer.byteLength(slim.text)).toBeLessThan(Buffer.byteLength(full.text) / 3);
    expect(items(slim)).toHaveLength(estate.applications.length);
  });
});

describe('single objects and the other lists', () => {
  it('gets an application; a missing one is "permission denied" without project, NotFound with one', async () => {
    const app = estate.applications[7] as ArgoApplication;
    const got = await call(`/api/v1/applications/${app.metadata.name}`);
    expect(got.text).toBe(goJson(app));
    expect((await call(`/api/v1/applications/${app.metadata.name}?project=${app.spec.project}`)).status).toBe(200);
    expect((await call('/api/v1/applications/nope')).body).toEqual({ error: 'permission denied', code: 7, message: 'permission denied' });
    expect((await call('/api/v1/applications/nope')).status).toBe(403);
    const notFound = await call('/api/v1/applications/nope?project=default');
    expect(notFound.status).toBe(404);
    expect(notFound.body).toEqual({ error: 'applications.argoproj.io "nope" not found', code: 5, message: 'applications.argoproj.io "nope" not found' });
    expect(notFound.text).toBe('{"error":"applications.argoproj.io \\"nope\\" not found","code":5,"message":"applications.argoproj.io \\"nope\\" not found"}');
    expect((await call(`/api/v1/applications/${app.metadata.name}?project=other-project`)).status).toBe(404);
    expect((await call(`/api/v1/applications/${app.metadata.name}?projects=a&projects=b`)).body).toMatchObject({ code: 3 });
  });

  it('lists and gets projects (generic fields filter included)', async () => {
    const list = await call('/api/v1/projects');
    expect(names(list)).toEqual(estate.projects.map((p) => p.metadata.name));
    expect((list.body.metadata as Json).resourceVersion).toMatch(/^\d+$/);
    const project = estate.projects[3];
    expect((await call(`/api/v1/projects/${project?.metadata.name ?? ''}`)).text).toBe(goJson(project));
    expect((await call('/api/v1/projects/nope')).body).toEqual({ error: 'appprojects.argoproj.io "nope" not found', code: 5, message: 'appprojects.argoproj.io "nope" not found' });
    const slim = await call('/api/v1/projects?fields=items.metadata.name');
    expect(slim.body).toEqual({ items: estate.projects.map((p) => ({ metadata: { name: p.metadata.name } })) });
  });

  it('lists application sets by project and selector, and gets one', async () => {
    const sets = await call('/api/v1/applicationsets');
    expect(names(sets)).toEqual(estate.applicationSets.map((s) => s.metadata.name));
    // Go's encoder escapes <, > and & (a failing set's go-template error quotes `<.cluster>`).
    expect(sets.text).toContain('at \\u003c.cluster\\u003e');
    const set = estate.applicationSets.find((s) => !s.spec.template.spec.project.includes('{{')) ?? estate.applicationSets[0];
    const project = set?.spec.template.spec.project ?? '';
    expect(names(await call(`/api/v1/applicationsets?projects=${q(project)}`))).toEqual(estate.applicationSets.filter((s) => s.spec.template.spec.project === project).map((s) => s.metadata.name));
    expect(names(await call(`/api/v1/applicationsets?selector=${q(`team=${set?.metadata.labels?.team ?? ''}`)}`))).toContain(set?.metadata.name);
    expect((await call(`/api/v1/applicationsets/${set?.metadata.name ?? ''}`)).text).toBe(goJson(set));
    expect((await call('/api/v1/applicationsets/nope')).body).toMatchObject({ code: 5, message: 'error getting ApplicationSet: applicationsets.argoproj.io "nope" not found' });
  });

  it('lists clusters sanitised, with counts that agree, gets one by URL-encoded server or by name', async () => {
    const list = await call('/api/v1/clusters');
    expect(list.text.startsWith('{"metadata":{},"items":[')).toBe(true);
    expect(items(list).map((c) => c.name)).toEqual(estate.clusters.map((c) => c.name));
    expect(items(list).reduce((sum, c) => sum + Number((c.info as Json).applicationsCount), 0)).toBe(estate.applications.length);
    expect(list.text).not.toMatch(/bearerToken|password|keyData/);
    const cluster = estate.clusters[2];
    const server = cluster?.server ?? '';
    const sanitised = cluster === undefined ? undefined : sanitizeCluster(cluster);
    expect((await call(`/api/v1/clusters/${q(server)}`)).text).toBe(goJson(sanitised));
    expect((await call(`/api/v1/clusters/${cluster?.name ?? ''}?id.type=name`)).text).toBe(goJson(sanitised));
    expect(items(await call(`/api/v1/clusters?server=${q(server)}`)).map((c) => c.name)).toEqual([cluster?.name]);
    expect(items(await call('/api/v1/clusters?name=in-cluster')).map((c) => c.server)).toEqual(['https://kubernetes.default.svc']);
    const missing = await call(`/api/v1/clusters/${q('https://nope.example.com')}`);
    expect(missing.status).toBe(403);
    expect(missing.body).toMatchObject({ code: 7, message: 'error verifying access to update cluster: failed to get cluster with permissions check: permission denied' });
  });
});

describe('authentication, version, routing', () => {
  it("requires a bearer token on /api/v1, answering 401 with Argo CD's body", async () => {
    const none = await call('/api/v1/applications', { token: null });
    expect(none.status).toBe(401);
    expect(none.body).toEqual({ error: 'no session information', code: 16, message: 'no session information' });
    expect((await call('/api/v1/clusters', { token: 'wrong' })).body).toMatchObject({ code: 16, message: 'no session information' });
    const jwt = await call('/api/v1/clusters', { token: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl' });
    expect(jwt.body).toMatchObject({ code: 16, message: 'invalid session: token signature is invalid: signature is invalid' });
    expect((await call('/api/v1/projects', { token: null, headers: { cookie: `theme=dark; argocd.token=${TOKEN}` } })).status).toBe(200);
  });

  it('answers /api/version without auth (version only) and in full with it; /healthz', async () => {
    const anonymous = await call('/api/version', { token: null });
    expect(Object.keys(anonymous.body)).toEqual(['Version']);
    expect(String(anonymous.body.Version)).toMatch(/^v3\.\d+\.\d+\+[0-9a-f]{7}$/);
    expect((await call('/api/version')).body).toMatchObject({ Version: anonymous.body.Version, GoVersion: expect.stringMatching(/^go1\./) as unknown, Platform: 'linux/amd64' });
    const health = await call('/healthz', { token: null });
    expect([health.status, health.text]).toEqual([200, 'ok']);
  });

  it('routes unknown paths to 404, writes to a read-only 403, other methods to 405', async () => {
    expect(await call('/api/v1/repositories')).toMatchObject({ status: 404, body: { code: 5, message: 'Not Found' } });
    expect((await call('/nowhere')).status).toBe(404);
    expect(await call('/api/v1/applications', { method: 'POST' })).toMatchObject({ status: 403, body: { code: 7 } });
    expect((await call('/api/v1/applications/x', { method: 'DELETE', token: null })).status).toBe(401);
    expect(await call('/api/v1/clusters', { method: 'PATCH' })).toMatchObject({ status: 405, body: { message: 'Method Not Allowed' } });
  });

  it('counts requests and body bytes', async () => {
    sim.resetStats();
    const first = await call('/api/v1/clusters');
    const second = await call('/api/v1/applications/nope');
    expect(sim.stats()).toEqual({ requests: 2, bytesSent: Buffer.byteLength(first.text) + Buffer.byteLength(second.text), logLinesGenerated: 0, logStreamsOpen: 0, logStreamsWaiting: 0 });
  });
});
