import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateArgoEstate, ARGO_ESTATE_DEFAULTS } from './estate.js';
import { APPLICATION_FIELD_WHITELIST } from './fields.js';
import { parseLabelSelector, SelectorError } from './selector.js';
import { startArgoCdSimulator, type RunningSimulator } from './server.js';

const TOKEN = 'sim-test-token';
let sim: RunningSimulator;
const estate = generateArgoEstate();

type Json = Record<string, unknown> & { items?: Json[] | null };
async function get(path: string, token: string | null = TOKEN): Promise<{ status: number; body: Json; bytes: number }> {
  const response = await fetch(`${sim.url}${path}`, { headers: token === null ? {} : { authorization: `Bearer ${token}` } });
  const text = await response.text();
  return { status: response.status, body: JSON.parse(text) as Json, bytes: Buffer.byteLength(text) };
}
const names = (body: Json): string[] => (body.items ?? []).map((i) => String((i.metadata as Json).name));

beforeAll(async () => {
  sim = await startArgoCdSimulator({ token: TOKEN, estate });
});
afterAll(async () => sim.close());

describe('Argo CD estate', () => {
  it('is deterministic and at the scale of the design note by default', () => {
    expect(JSON.stringify(generateArgoEstate())).toBe(JSON.stringify(estate));
    expect(JSON.stringify(generateArgoEstate({ seed: 2 }))).not.toBe(JSON.stringify(estate));
    expect(estate.applications).toHaveLength(ARGO_ESTATE_DEFAULTS.applications);
    expect(estate.projects).toHaveLength(236);
    expect(estate.applicationSets).toHaveLength(287);
    expect(estate.clusters).toHaveLength(13);
    expect(new Set(estate.applications.map((a) => a.metadata.name)).size).toBe(819);
    const sync = new Set(estate.applications.map((a) => a.status.sync?.status));
    expect([...sync].sort()).toEqual(['OutOfSync', 'Synced', 'Unknown']);
  });

  it('scales to 10,000 applications with unique names', () => {
    const big = generateArgoEstate({ applications: 10_000 });
    expect(new Set(big.applications.map((a) => a.metadata.name)).size).toBe(10_000);
  });
});

describe('Argo CD simulator API', () => {
  it('returns every application, sorted by name, several megabytes unprojected', async () => {
    const { status, body, bytes } = await get('/api/v1/applications');
    expect(status).toBe(200);
    expect(names(body)).toEqual(estate.applications.map((a) => a.metadata.name));
    expect([...names(body)].sort()).toEqual(names(body));
    expect(bytes).toBeGreaterThan(5 * 1024 * 1024);
    expect((body.metadata as Json).resourceVersion).toBeTypeOf('string');
  });

  it('filters by name, repeated projects, repo and label selector', async () => {
    const first = estate.applications[0];
    if (first === undefined) throw new Error('empty estate');
    expect(names((await get(`/api/v1/applications?name=${first.metadata.name}`)).body)).toEqual([first.metadata.name]);
    const [p1, p2] = [estate.applications[1]?.spec.project ?? '', estate.applications[2]?.spec.project ?? ''];
    const both = (await get(`/api/v1/applications?projects=${p1}&projects=${p2}`)).body;
    expect(names(both)).toEqual(estate.applications.filter((a) => a.spec.project === p1 || a.spec.project === p2).map((a) => a.metadata.name));
    const repo = first.spec.source?.repoURL ?? first.spec.sources?.[0]?.repoURL ?? '';
    const byRepo = names((await get(`/api/v1/applications?repo=${encodeURIComponent(repo)}`)).body);
    expect(byRepo).toContain(first.metadata.name);
    const sel = (await get(`/api/v1/applications?selector=${encodeURIComponent('env in (prod,qa),team!=payments')}`)).body;
    expect(names(sel)).toEqual(estate.applications.filter((a) => ['prod', 'qa'].includes(a.metadata.labels?.env ?? '') && a.metadata.labels?.team !== 'payments').map((a) => a.metadata.name));
    const empty = await get('/api/v1/applications?name=none-such');
    expect(empty.body.items).toBeNull();
    const bad = await get(`/api/v1/applications?selector=${encodeURIComponent('env in (prod')}`);
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: 3 });
  });

  it('projects by the fields whitelist, including and excluding', async () => {
    const included = (await get('/api/v1/applications?fields=items.metadata.name,items.status.sync.status,items.spec.project')).body;
    const item = included.items?.[0] as Json;
    expect(Object.keys(item).sort()).toEqual(['metadata', 'status']);
    expect(Object.keys(item.metadata as Json)).toEqual(['name']);
    expect(item.status).toEqual({ sync: { status: estate.applications[0]?.status.sync?.status } });
    const excluded = (await get('/api/v1/applications?fields=-items.spec,items.status.resources')).body.items?.[0] as Json;
    expect(excluded.spec).toBeUndefined();
    expect((excluded.status as Json).resources).toBeUndefined();
    expect((excluded.status as Json).health).toBeDefined();
    expect((excluded.status as Json).history).toBeUndefined();
    expect(APPLICATION_FIELD_WHITELIST).toContain('spec');
  });

  it('serves single objects, projects, application sets and clusters', async () => {
    const app = estate.applications[5];
    expect((await get(`/api/v1/applications/${app?.metadata.name ?? ''}`)).body).toEqual(JSON.parse(JSON.stringify(app)));
    const missing = await get('/api/v1/applications/nope');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ error: 'applications.argoproj.io "nope" not found', code: 5, message: 'applications.argoproj.io "nope" not found' });
    expect((await get('/api/v1/projects')).body.items).toHaveLength(236);
    expect((await get('/api/v1/applicationsets')).body.items).toHaveLength(287);
    const clusters = (await get('/api/v1/clusters')).body.items ?? [];
    expect(clusters).toHaveLength(13);
    const counted = clusters.reduce((sum, c) => sum + Number((c.info as Json).applicationsCount), 0);
    expect(counted).toBe(819);
  });

  it('requires a bearer token, like Argo CD', async () => {
    expect(await get('/api/v1/applications', null)).toMatchObject({ status: 401, body: { code: 16, error: 'no session information' } });
    expect((await get('/api/v1/clusters', 'wrong')).status).toBe(401);
    expect((await fetch(`${sim.url}/api/version`)).status).toBe(200);
  });

  it('counts requests and bytes', async () => {
    sim.resetStats();
    const { bytes } = await get('/api/v1/clusters');
    expect(sim.stats()).toEqual({ requests: 1, bytesSent: bytes });
  });
});

describe('fault injection', () => {
  it('answers 503, drops connections mid-body and adds latency', async () => {
    const faulty = await startArgoCdSimulator({ token: TOKEN, estate: { applications: 50 }, faults: { errorRate: 1 } });
    const cut = await startArgoCdSimulator({ token: TOKEN, estate: { applications: 50 }, faults: { truncateRate: 1 } });
    const slow = await startArgoCdSimulator({ token: TOKEN, estate: { applications: 5 }, faults: { latencyMs: 300 } });
    try {
      const down = await fetch(`${faulty.url}/api/v1/applications`, { headers: { authorization: `Bearer ${TOKEN}` } });
      expect(down.status).toBe(503);
      expect(await down.json()).toMatchObject({ code: 14 });
      const response = await fetch(`${cut.url}/api/v1/applications`, { headers: { authorization: `Bearer ${TOKEN}` } });
      await expect(response.text()).rejects.toThrow();
      const started = performance.now();
      await fetch(`${slow.url}/api/v1/clusters`, { headers: { authorization: `Bearer ${TOKEN}` } });
      expect(performance.now() - started).toBeGreaterThanOrEqual(290);
    } finally {
      await Promise.all([faulty.close(), cut.close(), slow.close()]);
    }
  });
});

describe('label selectors', () => {
  it('implements every operator and rejects bad syntax', () => {
    const labels = { env: 'prod', team: 'core' };
    expect(parseLabelSelector('env=prod,team==core')(labels)).toBe(true);
    expect(parseLabelSelector('env!=prod')(labels)).toBe(false);
    expect(parseLabelSelector('env in (dev, prod)')(labels)).toBe(true);
    expect(parseLabelSelector('env notin (dev,prod)')(labels)).toBe(false);
    expect(parseLabelSelector('team')(labels)).toBe(true);
    expect(parseLabelSelector('!tier')(labels)).toBe(true);
    expect(parseLabelSelector('!team')(labels)).toBe(false);
    expect(parseLabelSelector('')(labels)).toBe(true);
    expect(parseLabelSelector('env=')({ env: '' })).toBe(true);
    for (const bad of ['env in (prod', 'env=a=b', '=x', 'env==a b', ',', 'a b']) expect(() => parseLabelSelector(bad)).toThrow(SelectorError);
  });
});
