import { describe, expect, it } from 'vitest';
import { isFlotillaError } from '@flotilla/core';
import { ARGO_ESTATE_DEFAULTS, generateArgoEstate } from './data.js';
import type { ArgoEstate } from './types.js';

const estate = generateArgoEstate();
const sorted = (names: string[]): boolean => names.every((n, i) => i === 0 || (names[i - 1] ?? '') < n);
const tally = (values: string[]): Record<string, number> => values.reduce<Record<string, number>>((t, v) => ({ ...t, [v]: (t[v] ?? 0) + 1 }), {});

describe('the generated Argo CD estate', () => {
  it('is deterministic: the same seed gives byte-identical JSON, another seed another estate', () => {
    const small = { seed: 42, applications: 150, projects: 20, applicationSets: 15, clusters: 6 };
    expect(JSON.stringify(generateArgoEstate(small))).toBe(JSON.stringify(generateArgoEstate(small)));
    expect(JSON.stringify(generateArgoEstate({ ...small, seed: 43 }))).not.toBe(JSON.stringify(generateArgoEstate(small)));
  });

  it('has the scale of a real estate by default, unique names sorted as Argo CD lists them', () => {
    expect(ARGO_ESTATE_DEFAULTS).toMatchObject({ applications: 819, projects: 236, applicationSets: 287, clusters: 13 });
    expect(estate.applications).toHaveLength(819);
    expect(estate.projects).toHaveLength(236);
    expect(estate.applicationSets).toHaveLength(287);
    expect(estate.clusters).toHaveLength(13);
    for (const list of [estate.applications, estate.projects, estate.applicationSets]) {
      const names = list.map((o) => o.metadata.name);
      expect(new Set(names).size).toBe(names.length);
      expect(sorted(names)).toBe(true);
    }
    expect(estate.applications.map((a) => a.metadata.name)).toContain('payments-api-prod');
    expect(estate.projects.map((p) => p.metadata.name)).toContain('default');
    expect(estate.clusters.at(-1)).toMatchObject({ name: 'in-cluster', server: 'https://kubernetes.default.svc' });
    expect(estate.clusters.filter((c) => /^https:\/\/[a-z]+-[a-z]+-\d+\.k8s\.example\.internal$/.test(c.server))).toHaveLength(12);
  });

  it('carries realistic weight and a realistic mix of states', () => {
    const apps = estate.applications;
    expect(Object.keys(tally(apps.map((a) => a.status.sync.status))).sort()).toEqual(['OutOfSync', 'Synced', 'Unknown']);
    expect(Object.keys(tally(apps.map((a) => a.status.health.status))).sort()).toEqual(['Degraded', 'Healthy', 'Missing', 'Progressing', 'Suspended', 'Unknown']);
    expect(tally(apps.map((a) => a.status.sync.status)).Synced).toBeGreaterThan(apps.length / 2);
    const values = apps.map((a) => a.spec.source?.helm?.values ?? a.spec.sources?.[0]?.helm?.values).filter((v): v is string => v !== undefined);
    expect(values.length).toBeGreaterThan(apps.length / 4);
    expect(Math.max(...values.map((v) => v.length))).toBeGreaterThan(2_500);
    expect(values.every((v) => v.split('\n').length > 40)).toBe(true);
    expect(apps.filter((a) => a.spec.sources !== undefined).length).toBeGreaterThan(40);
    for (const app of apps) {
      expect(app.status.resources?.length).toBeGreaterThanOrEqual(5);
      expect(app.status.resources?.length).toBeLessThanOrEqual(40);
      expect(app.status.history?.length).toBeGreaterThanOrEqual(1);
      expect(app.status.history?.length).toBeLessThanOrEqual(10);
      expect(app.status.summary.images?.length).toBeGreaterThan(0);
      expect(app.status.reconciledAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      expect(app.spec.sources === undefined ? app.status.sourceType : app.status.sourceTypes).toBeDefined();
    }
    expect(apps.filter((a) => a.status.conditions !== undefined).length).toBeGreaterThan(20);
    expect(apps.filter((a) => a.operation !== undefined).length).toBeGreaterThan(0);
  });

  it('keeps its cross-references consistent', () => {
    const check = (e: ArgoEstate): void => {
      const projects = new Set(e.projects.map((p) => p.metadata.name));
      const servers = new Set(e.clusters.map((c) => c.server));
      const clusterNames = new Set(e.clusters.map((c) => c.name));
      const sets = new Map(e.applicationSets.map((s) => [s.metadata.name, s]));
      for (const app of e.applications) {
        expect(projects.has(app.spec.project)).toBe(true);
        const { server, name } = app.spec.destination;
        expect(server !== undefined ? servers.has(server) : clusterNames.has(name ?? '')).toBe(true);
        const owner = app.metadata.ownerReferences?.[0];
        if (owner !== undefined) {
          const set = sets.get(owner.name);
          expect(set?.metadata.uid).toBe(owner.uid);
          expect(set?.status.resources?.map((r) => r.name)).toContain(app.metadata.name);
        }
      }
      expect(e.clusters.reduce((sum, c) => sum + c.info.applicationsCount, 0)).toBe(e.applications.length);
      for (const cluster of e.clusters) {
        expect(JSON.stringify(cluster.config)).not.toMatch(/bearerToken|password|keyData|"args"/);
        if (cluster.info.applicationsCount === 0) expect(cluster.connectionState.message).toBe('Cluster has no applications and is not being monitored.');
      }
    };
    check(estate);
    check(generateArgoEstate({ seed: 5, applications: 40, projects: 1, applicationSets: 0, clusters: 1 }));
    expect(estate.applications.filter((a) => a.metadata.ownerReferences !== undefined).length).toBeGreaterThan(300);
  });

  it('rejects bad options with a config error naming each field', () => {
    let caught: unknown;
    try {
      generateArgoEstate({ applications: -1, clusters: 0, projects: 1.5 });
    } catch (error) {
      caught = error;
    }
    expect(isFlotillaError(caught) && caught.code).toBe('config_invalid');
    expect(String((caught as Error).message)).toMatch(/applications: must be at least 0.*projects: must be a whole number.*clusters: must be at least 1/);
  });
});
