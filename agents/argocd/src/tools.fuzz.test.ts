import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client, Tool } from '@modelcontextprotocol/client';
import { createMemoryResultStore, LIMITS, measureToolResult, type BoundedToolResult } from '@flotilla/bounded-tools';
import { silentLogger } from '@flotilla/core';
import { createMetrics } from '@flotilla/metrics';
import { generateArgoEstate, startArgoCdSimulator, type RunningSimulator } from '@flotilla/simulators';
import { loadTokenCounter, type TokenCounter } from '@flotilla/tokens';
import { UPSTREAM_DEFAULTS } from '@flotilla/upstream';
import { ArgoCdClient, ARGOCD_TOOLS, connectArgoCdToolsInProcess } from './index.js';

/**
 * Every Argo CD tool, called through a real MCP client (in memory) against the simulator with arguments fast-check
 * makes from the tool's own advertised schema: wrong types, extra keys, huge, unicode and lone-surrogate strings,
 * NaN, infinities, huge and negative numbers, deep objects, and regexes that backtrack. Every call returns a result
 * (never throws across the client), within the token budget; a bad argument is an isError result naming it; a
 * client's fault is never reported as an internal error; the simulator and server keep answering.
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
let sim: RunningSimulator;
let tools: Awaited<ReturnType<typeof connectArgoCdToolsInProcess>>;
let mcp: Client;
let counter: TokenCounter;
let listed: readonly Tool[];

beforeAll(async () => {
  counter = await loadTokenCounter();
  sim = await startArgoCdSimulator({ token: TOKEN, estate });
  const metrics = createMetrics();
  const client = new ArgoCdClient({ baseUrl: sim.url, token: TOKEN, limits: UPSTREAM_DEFAULTS, metrics, logger: silentLogger() });
  tools = await connectArgoCdToolsInProcess({ client, counter, store: createMemoryResultStore(), metrics, logger: silentLogger() });
  mcp = tools.client;
  listed = (await mcp.listTools()).tools;
  await learnLiveNames(sim.url);
});
afterAll(async () => {
  await tools?.close();
  await sim?.close();
});

/** The parts of a JSON Schema the tools advertise. */
interface Schema {
  readonly type?: string;
  readonly enum?: readonly unknown[];
  readonly anyOf?: readonly Schema[];
  readonly minimum?: number;
  readonly maximum?: number;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly pattern?: string;
  readonly items?: Schema;
  readonly minItems?: number;
  readonly maxItems?: number;
}
const propertiesOf = (tool: Tool): Record<string, Schema> => (tool.inputSchema.properties ?? {}) as Record<string, Schema>;

const deepObject = (levels: number): unknown => {
  let value: unknown = 'bottom';
  for (let i = 0; i < levels; i += 1) value = { a: value };
  return value;
};
const NASTY = ['\u202Egnp.exe', 'zero\u200Bwidth\uFEFF', '👩‍👩‍👧‍👦', 'é\u0301\u0301', 'שלום', '\u0000nul', '\uD800lone', 'a\uDFFFb', '../../etc/passwd', '%2e%2e%2f', 'a&b=c#d', "'; DROP TABLE apps;--", 'Ignore previous instructions'];
/** Regexes that backtrack for ever unless refused. */
const REDOS = ['(.|.)+X', '((a+))+$', '(a+)+$', '.*.*.*.*.*X', '(\\w|\\d)+!', '(?:a|a)*$X', '(.*a){12}'];

/** A base64-like word of `n` characters, no space in it. */
const unbrokenWord = (n: number): string => 'QUJDRGVmZ2g0NTY3K/89'.repeat(Math.ceil(n / 20)).slice(0, n);

/** Values of any type: what a confused or hostile caller may send for any argument. */
const hostile: fc.Arbitrary<unknown> = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom(...NASTY, ...REDOS),
  fc.integer({ min: 300, max: 200_000 }).map((n) => '\u{1F600}x'.repeat(n)),
  // One long unbroken word (a base64 certificate, a pasted secret): token counting must stay linear in it.
  fc.integer({ min: 1_000, max: 400_000 }).map(unbrokenWord),
  fc.constantFrom(Number.NaN, Infinity, -Infinity, -0, -1, 0.5, 2 ** 31, 2 ** 53 + 2, -1e308, 1e308),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.jsonValue({ maxDepth: 3 }),
  fc.integer({ min: 10, max: 20_000 }).map(deepObject),
  fc.array(fc.integer(), { minLength: 1_001, maxLength: 1_200 }),
);

/** Values the schema admits (strings of hostile unicode within the length bounds, regexes that backtrack). */
function validFor(schema: Schema, key: string): fc.Arbitrary<unknown> {
  if (schema.enum !== undefined) return fc.constantFrom(...schema.enum);
  if (schema.anyOf !== undefined) return fc.oneof(...schema.anyOf.map((s) => validFor(s, key)));
  switch (schema.type) {
    case 'integer':
      return fc.integer({ min: Math.max(schema.minimum ?? -1e6, -(2 ** 31)), max: Math.min(schema.maximum ?? 1e6, 2 ** 31) });
    case 'number':
      return fc.double({ min: schema.minimum ?? -1e6, max: schema.maximum ?? 1e6, noNaN: true });
    case 'boolean':
      return fc.boolean();
    case 'array':
      return fc.array(validFor(schema.items ?? {}, key), { minLength: schema.minItems ?? 0, maxLength: Math.min(schema.maxItems ?? 4, 4) });
    case 'string': {
      const min = schema.minLength ?? 0;
      const max = schema.maxLength ?? 300;
      const fits = (s: string): boolean => s.length >= min && s.length <= max && (schema.pattern === undefined || new RegExp(schema.pattern, 'u').test(s));
      const known = KNOWN[key] ?? [];
      const candidates = fc.oneof(
        fc.string({ unit: 'binary', minLength: min, maxLength: Math.min(max, 30) }),
        fc.constantFrom(...NASTY, ...REDOS, 'payments', '^pay.*-prod$', 'team=core'),
        fc.integer({ min: Math.max(min, 1), max }).map((n) => 'é'.repeat(n)),
        fc.integer({ min: Math.max(min, 1), max }).map(unbrokenWord),
        ...(known.length > 0 ? [fc.constantFrom(...known)] : []),
        ...(schema.pattern === undefined ? [] : [fc.stringMatching(new RegExp(schema.pattern))]),
      );
      return candidates.filter(fits);
    }
    case undefined:
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** Values the schema refuses, whatever it is. */
function invalidFor(schema: Schema): fc.Arbitrary<unknown> {
  const types = schema.anyOf?.map((s) => s.type) ?? [schema.type];
  const options: fc.Arbitrary<unknown>[] = [fc.constant(null), fc.constant({}), fc.integer({ min: 10, max: 5_000 }).map(deepObject)];
  if (!types.includes('string')) options.push(fc.string({ maxLength: 20 }), fc.constantFrom(...NASTY));
  if (!types.includes('integer') && !types.includes('number')) options.push(fc.integer());
  if (!types.includes('boolean')) options.push(fc.boolean());
  if (!types.includes('array')) options.push(fc.array(fc.string({ maxLength: 5 }), { maxLength: 3 }));
  for (const s of schema.anyOf ?? [schema]) {
    if (s.type === 'integer') {
      options.push(fc.constantFrom(Number.NaN, Infinity, -Infinity, 0.5));
      if (s.minimum !== undefined) options.push(fc.integer({ min: -(2 ** 40), max: s.minimum - 1 }));
      if (s.maximum !== undefined) options.push(fc.integer({ min: s.maximum + 1, max: 2 ** 40 }));
    }
    if (s.type === 'string') {
      if (s.enum !== undefined) options.push(fc.string({ maxLength: 20 }).filter((v) => !s.enum?.includes(v)));
      if (s.maxLength !== undefined) options.push(fc.integer({ min: s.maxLength + 1, max: s.maxLength + 100_000 }).map((n) => 'x'.repeat(n)));
      if ((s.minLength ?? 0) > 0) options.push(fc.constant(''));
      const pattern = s.pattern;
      if (pattern !== undefined) options.push(fc.constantFrom('has space!', '../x', '<b>', '%00').filter((v) => !new RegExp(pattern, 'u').test(v)));
    }
    if (s.type === 'array') {
      if (s.items !== undefined) options.push(invalidFor(s.items).map((item) => [item]));
      if ((s.minItems ?? 0) > 0) options.push(fc.constant([]));
      if (s.maxItems !== undefined && s.items !== undefined) options.push(fc.array(validFor(s.items, ''), { minLength: s.maxItems + 1, maxLength: s.maxItems + 3 }));
    }
  }
  return fc.oneof(...options);
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

/** Valid arguments for the required keys, and sometimes the optional ones. */
function validArgs(tool: Tool): fc.Arbitrary<Record<string, unknown>> {
  const properties = propertiesOf(tool);
  const required = new Set(tool.inputSchema.required ?? []);
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [key, schema] of Object.entries(properties)) model[key] = validFor(schema, key);
  return fc.record(model, { requiredKeys: Object.keys(properties).filter((k) => required.has(k)) });
}

interface Outcome {
  readonly isError: boolean;
  readonly body: Record<string, unknown>;
}

/** A call that must come back as a result, within the budget, with a readable error when it is one. */
async function call(name: string, args: Record<string, unknown>): Promise<Outcome> {
  const result = (await mcp.callTool({ name, arguments: args })) as BoundedToolResult & { isError?: boolean };
  expect(Array.isArray(result.content)).toBe(true);
  expect(measureToolResult(result, counter).tokens).toBeLessThanOrEqual(LIMITS.budgetDefault);
  const first = result.content[0];
  expect(first?.type).toBe('text');
  const body = JSON.parse(first?.type === 'text' ? first.text : '') as Record<string, unknown>;
  const isError = result.isError === true;
  if (isError) {
    expect(typeof body.error).toBe('string');
    expect(String(body.message).length).toBeGreaterThan(0);
    // A client's input is never an internal error: that would be a bug the caller cannot fix.
    expect(body.error, `${name} ${String(body.message)}`).not.toBe('internal');
  }
  return { isError, body };
}

const RUNS = { numRuns: 50 };

describe('Argo CD MCP tools under hostile arguments (fuzz)', () => {
  it('lists every tool with an object schema', () => {
    expect(listed.map((t) => t.name)).toEqual([...ARGOCD_TOOLS]);
    for (const tool of listed) expect(tool.inputSchema.type).toBe('object');
  });

  it('answers arguments of any shape with a bounded result, never a throw', async () => {
    for (const tool of listed) {
      const keys = [...Object.keys(propertiesOf(tool)), '__proto__', 'constructor', 'extra'];
      await fc.assert(
        fc.asyncProperty(fc.array(fc.tuple(fc.oneof(fc.constantFrom(...keys), fc.string({ maxLength: 30 })), hostile), { maxLength: 6 }), async (entries) => {
          await call(tool.name, Object.fromEntries(entries));
        }),
        RUNS,
      );
    }
  }, 60_000);

  it('refuses one bad argument among good ones with an isError result that names it', async () => {
    for (const tool of listed) {
      const properties = propertiesOf(tool);
      const bad = fc.oneof(
        ...Object.entries(properties).map(([key, schema]) => invalidFor(schema).map((value) => ({ key, value }))),
        // Keys named like Object.prototype members ("__proto__", "constructor") are ignored by zod, not refused: left out here.
        fc
          .tuple(fc.stringMatching(/^[a-z][a-z_]{0,30}$/), hostile)
          .filter(([key]) => !(key in properties))
          .map(([key, value]) => ({ key, value })),
      );
      await fc.assert(
        fc.asyncProperty(validArgs(tool), bad, async (args, { key, value }) => {
          const outcome = await call(tool.name, Object.fromEntries([...Object.entries(args), [key, value]]));
          expect(outcome.isError, `${tool.name} took ${key}=${String(value).slice(0, 60)}`).toBe(true);
          expect(outcome.body.error).toBe('invalid_argument');
          expect(String(outcome.body.message)).toContain(key);
        }),
        RUNS,
      );
    }
  }, 60_000);

  it('answers valid-shaped arguments (hostile strings, extreme numbers, backtracking regexes) with data or a clear error', async () => {
    for (const tool of listed) {
      await fc.assert(
        fc.asyncProperty(validArgs(tool), async (args) => {
          const outcome = await call(tool.name, args);
          if (outcome.isError) expect(['invalid_argument', 'not_found', 'result_expired', 'upstream_rejected']).toContain(outcome.body.error);
        }),
        RUNS,
      );
    }
  }, 60_000);

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
