import { describe, expect, it } from 'vitest';
import { generateArgoEstate } from './data.js';
import { APPLICATION_FIELD_WHITELIST, parseFields, projectFields, projectJsonFields, selectedFields } from './fields.js';
import { goJson } from './grpc.js';
import type { ArgoApplication } from './types.js';

const estate = generateArgoEstate({ seed: 11, applications: 120, projects: 12, applicationSets: 8, clusters: 5 });
const app = estate.applications.find((a) => a.status.operationState?.syncResult !== undefined) as ArgoApplication;

describe('the fields parameter', () => {
  it('parses like Go: first value, leading "-" excludes, split on commas without trimming', () => {
    expect(parseFields(undefined)).toBeUndefined();
    expect(parseFields('')).toBeUndefined();
    expect(parseFields('items.spec,items.metadata.name')).toEqual({ fields: new Set(['items.spec', 'items.metadata.name']), exclude: false });
    expect(parseFields('-items.spec')).toEqual({ fields: new Set(['items.spec']), exclude: true });
    expect(parseFields('items.spec, items.metadata.name')?.fields.has('items.metadata.name')).toBe(false);
  });

  it('keeps only whitelisted paths, each as one unit', () => {
    expect(selectedFields('items.metadata.name,items.spec.project,items.status.history,bogus')).toEqual(['metadata.name']);
    expect(selectedFields('-items.spec')).toEqual(APPLICATION_FIELD_WHITELIST.filter((f) => f !== 'spec'));
    expect(projectFields(app, 'items.spec.project')).toEqual({});
  });

  it('builds nested maps with sorted keys, as Go marshals them', () => {
    const projected = projectFields(app, 'items.status.sync.status,items.spec,items.metadata.name,items.metadata.labels,items.status.health');
    expect(Object.keys(projected)).toEqual(['metadata', 'spec', 'status']);
    expect(Object.keys(projected.metadata as object)).toEqual(['labels', 'name']);
    expect(projected.status).toEqual({ health: app.status.health, sync: { status: app.status.sync.status } });
    expect(projected.spec).toBe(app.spec);
    expect(goJson(projected).startsWith(`{"metadata":{"labels":${goJson(app.metadata.labels)},"name":"${app.metadata.name}"},"spec":`)).toBe(true);
  });

  it("reproduces Argo CD's getters: typed nils are null, Go nils are absent, operation.sync is the sync result", () => {
    const excluded = projectFields(app, '-items.spec,items.status.resources');
    const metadata = excluded.metadata as Record<string, unknown>;
    expect(metadata.deletionTimestamp ?? null).toBeNull();
    expect('deletionTimestamp' in metadata).toBe(true);
    expect(excluded.spec).toBeUndefined();
    const status = excluded.status as Record<string, Record<string, unknown>>;
    expect(status.resources).toBeUndefined();
    expect(status.history).toBeUndefined();
    expect(status.sourceHydrator).toEqual({});
    expect(status.operationState?.operation).toEqual({ sync: app.status.operationState?.syncResult });
    expect(status.operationState?.phase).toBe(app.status.operationState?.phase);
    const noOperation: ArgoApplication = { ...app, status: { ...app.status, operationState: undefined, resources: [] } };
    const bare = projectFields(noOperation, '-items.spec');
    expect((bare.status as Record<string, unknown>).operationState).toBeUndefined();
    expect((bare.status as Record<string, unknown>).resources).toBeUndefined();
    expect(bare.operation).toBeUndefined();
  });
});

describe('the generic JSON fields filter (project list)', () => {
  const doc = { metadata: { resourceVersion: '9' }, items: estate.projects };

  it('keeps a key when a field starts with its path, drops the rest (list metadata too)', () => {
    const out = projectJsonFields(doc, { fields: new Set(['items.metadata.name']), exclude: false }) as { metadata?: unknown; items: Record<string, unknown>[] };
    expect(out.metadata).toBeUndefined();
    expect(out.items.map((p) => p.metadata)).toEqual(estate.projects.map((p) => ({ name: p.metadata.name })));
    const withMeta = projectJsonFields(doc, { fields: new Set(['metadata', 'items.spec.description']), exclude: false }) as Record<string, unknown>;
    expect(Object.keys(withMeta)).toEqual(['items', 'metadata']);
  });

  it('excludes listed paths and re-marshals every key sorted', () => {
    const out = projectJsonFields(doc, { fields: new Set(['items.spec', 'items.status']), exclude: true }) as { items: Record<string, unknown>[] };
    const first = out.items[0] ?? {};
    expect(Object.keys(first)).toEqual(['metadata']);
    const metaKeys = Object.keys(first.metadata as object);
    expect(metaKeys).toEqual([...metaKeys].sort());
  });
});
