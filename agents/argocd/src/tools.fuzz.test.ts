import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { describeToolFuzz, NASTY, REDOS } from '@flotilla/agent-host/testing';
import { generateArgoEstate, startArgoCdSimulator } from '@flotilla/simulators';
import { UPSTREAM_DEFAULTS } from '@flotilla/upstream';
import { ArgoCdClient, ARGOCD_TOOLS, connectArgoCdToolsInProcess } from './index.js';

/**
 * Every Argo CD tool under the shared fuzz suite of `@flotilla/agent-host/testing` (hostile arguments from each
 * tool's own schema, against the simulator), then Argo CD's own: logs of live pods with hostile greps, and the
 * simulator and server still answering afterwards.
 */
const TOKEN = 'fuzz-token-0123456789';
const estate = generateArgoEstate({ seed: 7, applications: 240, projects: 20, applicationSets: 15, clusters: 5 });
// Upstream data nobody here chose: long unbroken words (a certificate, a pasted secret) in a few applications' Helm
// values, names and annotations, which every list, search and detail tool measures in tokens.
for (const [i, app] of estate.applications.slice(0, 6).entries()) {
  const word = randomBytes(48 * 1024 * (i + 1)).toString('base64');
  const source = app.spec.source ?? { repoURL: 'https://git.example.com/platform/charts.git' };
  app.spec.source = { ...source, helm: { ...source.helm, values: `tls:\n  cert: ${word}\n` } };
  app.metadata.annotations = { ...app.metadata.annotations, 'example.com/blob': word.slice(0, 20_000 * (i + 1)) };
}
/** Names the simulator knows, so valid-shaped calls also succeed, not only miss; the live ones are added from its trees. */
const KNOWN: Record<string, readonly string[]> = {
  name: estate.applications.slice(0, 20).map((a) => a.metadata.name),
  project: estate.projects.slice(0, 10).map((p) => p.metadata.name),
  cluster: estate.clusters.map((c) => c.name ?? c.server),
};

/** Pods of the first applications, with their application. */
const livePods: { app: string; pod: string }[] = [];

/**
 * The resource tools' arguments, from the trees of the first applications as the simulator serves them (one
 * application's pods, kinds, names and namespaces, so a call pairs them with its own application often enough).
 */
async function learnLiveNames(url: string): Promise<void> {
  const names = KNOWN.name ?? [];
  const nodes: { kind: string; name: string; namespace?: string; group?: string }[] = [];
  for (const app of names.slice(0, 3)) {
    const response = await fetch(`${url}/api/v1/applications/${encodeURIComponent(app)}/resource-tree`, { headers: { authorization: `Bearer ${TOKEN}` } });
    const appNodes = ((await response.json()) as { nodes?: typeof nodes }).nodes ?? [];
    nodes.push(...appNodes);
    livePods.push(...appNodes.filter((n) => n.kind === 'Pod').slice(0, 10).map((n) => ({ app, pod: n.name })));
  }
  const distinct = (values: (string | undefined)[]): string[] => [...new Set(values.filter((v): v is string => v !== undefined && v !== ''))].slice(0, 30);
  KNOWN.pod = distinct(nodes.filter((n) => n.kind === 'Pod').map((n) => n.name));
  KNOWN.kind = KNOWN.resource_kind = distinct(nodes.map((n) => n.kind));
  KNOWN.resource_name = distinct(nodes.map((n) => n.name));
  KNOWN.namespace = KNOWN.resource_namespace = distinct(nodes.map((n) => n.namespace));
  KNOWN.group = distinct(nodes.map((n) => n.group ?? ''));
  KNOWN.container = ['app', 'backend', 'istio-proxy'];
  KNOWN.since = ['15m', '2h', '1d', '2025-11-20T09:00:00Z'];
  KNOWN.until = ['2025-11-20T09:29:00Z', '2025-11-20T09:30:00.5+00:00'];
  KNOWN.fields = ['spec.replicas', 'status.conditions', 'spec.template.spec.containers[0].image', 'metadata.labels'];
}

const fuzz = describeToolFuzz({
  title: 'Argo CD',
  tools: ARGOCD_TOOLS,
  known: KNOWN,
  simulator: () => startArgoCdSimulator({ token: TOKEN, estate }),
  async connect(url, deps) {
    const client = new ArgoCdClient({ baseUrl: url, token: TOKEN, limits: UPSTREAM_DEFAULTS, metrics: deps.metrics, logger: deps.logger });
    const tools = await connectArgoCdToolsInProcess({ ...deps, client });
    await learnLiveNames(url);
    return tools;
  },
});
const call = fuzz.call;

describe('Argo CD MCP tools under hostile arguments (fuzz): Argo CD\'s own', () => {
  it('reads the logs of live pods with hostile greps and time windows, within the budget', async () => {
    expect(livePods.length).toBeGreaterThan(0);
    const grep = fc.oneof(fc.constantFrom(...NASTY, ...REDOS, '!', '!!error', 'error', '"level":"error"'), fc.string({ unit: 'binary', minLength: 1, maxLength: 40 }));
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...livePods),
        fc.record({ grep, tail_lines: fc.integer({ min: 1, max: 2_000 }), since: fc.constantFrom(...(KNOWN.since ?? [])), match_case: fc.boolean(), previous: fc.boolean(), oldest_first: fc.boolean() }, { requiredKeys: [] }),
        async ({ app, pod }, args) => {
          const outcome = await call('get_logs', { name: app, pod, ...args });
          if (outcome.isError) expect(['invalid_argument', 'not_found']).toContain(outcome.body.error);
          else expect(String((outcome.body.notes as string[] | undefined)?.[0] ?? '')).toMatch(/^Read \d+ log lines/);
        },
      ),
      { numRuns: 30 },
    );
  }, 60_000);

  it('keeps the simulator and the server usable afterwards', async () => {
    const page = await call('list_applications', {});
    expect(page.isError).toBe(false);
    expect(page.body.total).toBe(estate.applications.length);
    const app = await call('get_application', { name: estate.applications[0]?.metadata.name });
    expect(app.isError).toBe(false);
    // A lone surrogate cannot be put in a URL: once an internal error (URIError), now an application not found.
    expect((await call('get_application', { name: 'payments\uD800' })).body.error).toBe('not_found');
  });
});
