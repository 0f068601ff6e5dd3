import { createHash } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { isFlotillaError } from '@flotilla/core';
import { estateEpoch, generateArgoEstate } from './data.js';
import { startArgoCdSimulator, type RunningSimulator } from './server.js';
import type { ArgoEstate } from './types.js';
import { ARGO_ESTATE_EPOCH } from './words.js';

const TOKEN = 'sim-test-token';
const SMALL = { seed: 42, applications: 150, projects: 20, applicationSets: 15, clusters: 6 };
const LATER = '2026-01-02T03:04:05Z';
const DELTA = Date.parse(LATER) - ARGO_ESTATE_EPOCH;
const RFC3339 = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;
const running: RunningSimulator[] = [];
afterAll(async () => Promise.all(running.map((s) => s.close())));

/** Walks two estates side by side: every timestamp of `b` is `a`'s plus `delta`, everything else is equal. */
function compareShifted(a: unknown, b: unknown, delta: number, path: string, counts: { times: number }): void {
  if (typeof a === 'string' && RFC3339.test(a)) {
    expect(Date.parse(String(b)) - Date.parse(a), path).toBe(delta);
    counts.times += 1;
    return;
  }
  if (Array.isArray(a)) {
    expect(Array.isArray(b), path).toBe(true);
    a.forEach((item, i) => compareShifted(item, (b as unknown[])[i], delta, `${path}[${i}]`, counts));
    return;
  }
  if (a !== null && typeof a === 'object') {
    const right = b as Record<string, unknown>;
    expect(Object.keys(right), path).toEqual(Object.keys(a));
    for (const [key, value] of Object.entries(a)) {
      if ((key === 'iat' || key === 'exp') && typeof value === 'number') expect(right[key], `${path}.${key}`).toBe(value + delta / 1000);
      else compareShifted(value, right[key], delta, `${path}.${key}`, counts);
    }
    return;
  }
  expect(b, path).toBe(a);
}

const sha = (estate: ArgoEstate): string => createHash('sha256').update(JSON.stringify(estate)).digest('hex');

describe('the estate epoch', () => {
  it('keeps the default estate byte-identical to the one generated before the option existed', () => {
    // The hash of the default estate as the generator produced it before `epoch` and `managedFields` were added.
    expect(sha(generateArgoEstate())).toBe('6e38040908e923b707a830799bbf8e00fa932fe95e41956b31a69c6c0465b8ec');
    expect(JSON.stringify(generateArgoEstate({ ...SMALL, epoch: ARGO_ESTATE_EPOCH }))).toBe(JSON.stringify(generateArgoEstate(SMALL)));
    expect(JSON.stringify(generateArgoEstate({ ...SMALL, epoch: '2025-11-20T09:30:00Z' }))).toBe(JSON.stringify(generateArgoEstate(SMALL)));
    expect(estateEpoch(generateArgoEstate(SMALL))).toBe(ARGO_ESTATE_EPOCH);
  });

  it('moves every timestamp of the estate (and JWT iat) by epoch - ARGO_ESTATE_EPOCH, and nothing else', () => {
    const before = generateArgoEstate({ ...SMALL, managedFields: true });
    const after = generateArgoEstate({ ...SMALL, managedFields: true, epoch: LATER });
    const counts = { times: 0 };
    compareShifted(before, after, DELTA, 'estate', counts);
    expect(counts.times).toBeGreaterThan(1_500);
    expect(estateEpoch(after)).toBe(Date.parse(LATER));
    // Whole seconds, as every timestamp is.
    expect(JSON.stringify(generateArgoEstate({ ...SMALL, epoch: Date.parse(LATER) + 999 }))).toBe(JSON.stringify(generateArgoEstate({ ...SMALL, epoch: LATER })));
  });

  it("serves events and logs relative to the estate's epoch", async () => {
    const [now, later] = await Promise.all([
      startArgoCdSimulator({ token: TOKEN, estate: {} }),
      startArgoCdSimulator({ token: TOKEN, estate: { epoch: LATER } }),
    ]);
    running.push(now, later);
    const get = async (sim: RunningSimulator, path: string): Promise<string> => (await fetch(`${sim.url}${path}`, { headers: { authorization: `Bearer ${TOKEN}` } })).text();
    const stamps = (text: string, key: string): number[] => [...text.matchAll(new RegExp(`"${key}":"([^"]+)"`, 'g'))].map((m) => Date.parse(m[1] ?? ''));
    const events = '/api/v1/applications/payments-api-prod/events';
    const [a, b] = [await get(now, events), await get(later, events)];
    expect(stamps(a, 'lastTimestamp').length).toBeGreaterThan(2);
    expect(stamps(b, 'lastTimestamp')).toEqual(stamps(a, 'lastTimestamp').map((t) => t + DELTA));
    const tree = JSON.parse(await get(now, '/api/v1/applications/payments-api-prod/resource-tree')) as { nodes: { kind: string; name: string; parentRefs?: { kind: string }[] }[] };
    const pod = tree.nodes.find((n) => n.kind === 'Pod' && n.parentRefs?.[0]?.kind === 'ReplicaSet');
    const logs = `/api/v1/applications/payments-api-prod/logs?podName=${pod?.name ?? ''}&tailLines=20`;
    const [la, lb] = [await get(now, logs), await get(later, logs)];
    expect(stamps(lb, 'timeStamp')).toEqual(stamps(la, 'timeStamp').map((t) => t + DELTA));
    expect(lb.trim().split('\n').at(-1)).toContain(`"timeStamp":"${LATER}"`);
    const recent = await get(later, `/api/v1/applications/payments-api-prod/logs?podName=${pod?.name ?? ''}&sinceSeconds=600`);
    expect(stamps(recent, 'timeStampStr').every((t) => t >= Date.parse(LATER) - 600_000)).toBe(true);
  });

  it('rejects an epoch that is not an instant from 2000 to 2100', () => {
    for (const epoch of ['soon', Date.UTC(1999, 0, 1), 1.5, '2200-01-01T00:00:00Z']) {
      let caught: unknown;
      try {
        generateArgoEstate({ ...SMALL, epoch });
      } catch (error) {
        caught = error;
      }
      expect(isFlotillaError(caught) && caught.code).toBe('config_invalid');
      expect(String((caught as Error).message)).toMatch(/epoch: must be an ISO 8601 instant or epoch milliseconds from 2000 to 2100/);
    }
  });
});

describe('metadata.managedFields on applications', () => {
  it('are off by default, and on request are the last metadata field, as argocd-server and the controller write them', () => {
    expect(generateArgoEstate(SMALL).applications.some((a) => a.metadata.managedFields !== undefined)).toBe(false);
    const estate = generateArgoEstate({ ...SMALL, managedFields: true });
    for (const app of estate.applications) {
      expect(Object.keys(app.metadata).at(-1)).toBe('managedFields');
      const [spec, status] = app.metadata.managedFields ?? [];
      expect(spec).toMatchObject({ operation: 'Update', apiVersion: 'argoproj.io/v1alpha1', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { '.': {}, 'f:destination': expect.any(Object) as unknown, 'f:project': {} } } });
      expect(['argocd-server', 'argocd-applicationset-controller', 'kubectl-client-side-apply']).toContain(spec?.manager);
      expect(status).toMatchObject({ manager: 'argocd-application-controller', operation: 'Update', time: app.status.reconciledAt, fieldsV1: { 'f:status': { 'f:health': expect.any(Object) as unknown } } });
      if (app.metadata.ownerReferences !== undefined) expect(spec?.manager).toBe('argocd-applicationset-controller');
    }
  });

  it('are served by get and by the unprojected list, and dropped by the fields projection (not in its whitelist)', async () => {
    const estate = generateArgoEstate({ ...SMALL, managedFields: true });
    const sim = await startArgoCdSimulator({ token: TOKEN, estate });
    running.push(sim);
    const get = async (path: string): Promise<string> => (await fetch(`${sim.url}${path}`, { headers: { authorization: `Bearer ${TOKEN}` } })).text();
    const name = estate.applications[3]?.metadata.name ?? '';
    expect(await get(`/api/v1/applications/${name}`)).toContain('"managedFields":[{"manager":');
    expect(await get('/api/v1/applications')).toContain('"managedFields"');
    expect(await get('/api/v1/applications?fields=items.metadata.name,items.metadata.labels,items.spec')).not.toContain('managedFields');
    expect(await get('/api/v1/applications?fields=-items.spec')).not.toContain('managedFields');
  });
});
