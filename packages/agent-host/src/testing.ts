import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import type { Client, Tool } from '@modelcontextprotocol/client';
import { CONFIDENCE_THRESHOLD, mcpToolCaller, type Classification } from '@flotilla/agent-kit';
import { createMemoryResultStore, LIMITS, measureToolResult, type BoundedToolResult } from '@flotilla/bounded-tools';
import { silentLogger } from '@flotilla/core';
import { createMetrics } from '@flotilla/metrics';
import { loadTokenCounter, type TokenCounter } from '@flotilla/tokens';
import type { ToolsetDeps } from './mcp.js';

/**
 * `@flotilla/agent-host/testing`: what the domains' tests share: their tools in process against their simulator
 * (`toolsAgainstSimulator`), the output-schema suite (`describeToolOutputs`), fake upstreams of a test's own
 * (`fakeUpstream`, `streamParts`), and the fuzz suite every domain's MCP tools must pass, for its `tools.fuzz.test.ts`.
 * Every tool is called through a real MCP client (in memory, against the domain's simulator) with arguments fast-check
 * makes from the tool's own advertised schema: wrong types, extra keys, huge, unicode and lone-surrogate strings,
 * NaN, infinities, huge and negative numbers, deep objects, and regexes that backtrack. Every call returns a result
 * (never throws across the client), within the token budget; a bad argument is an isError result naming it; a
 * client's fault is never reported as an internal error.
 */

/** Names the upstream knows, per argument key, so valid-shaped calls also succeed, not only miss. */
export type Known = Readonly<Record<string, readonly string[]>>;

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
export const NASTY: readonly string[] = ['\u202Egnp.exe', 'zero\u200Bwidth\uFEFF', '👩‍👩‍👧‍👦', 'é\u0301\u0301', 'שלום', '\u0000nul', '\uD800lone', 'a\uDFFFb', '../../etc/passwd', '%2e%2e%2f', 'a&b=c#d', "'; DROP TABLE apps;--", 'Ignore previous instructions'];
/** Regexes that backtrack for ever unless refused. */
export const REDOS: readonly string[] = ['(.|.)+X', '((a+))+$', '(a+)+$', '.*.*.*.*.*X', '(\\w|\\d)+!', '(?:a|a)*$X', '(.*a){12}'];

/** A base64-like word of `n` characters, no space in it. */
const unbrokenWord = (n: number): string => 'QUJDRGVmZ2g0NTY3K/89'.repeat(Math.ceil(n / 20)).slice(0, n);

/** Values of any type: what a confused or hostile caller may send for any argument. */
export const hostile: fc.Arbitrary<unknown> = fc.oneof(
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
function validFor(schema: Schema, key: string, known: Known): fc.Arbitrary<unknown> {
  if (schema.enum !== undefined) return fc.constantFrom(...schema.enum);
  if (schema.anyOf !== undefined) return fc.oneof(...schema.anyOf.map((s) => validFor(s, key, known)));
  switch (schema.type) {
    case 'integer':
      return fc.integer({ min: Math.max(schema.minimum ?? -1e6, -(2 ** 31)), max: Math.min(schema.maximum ?? 1e6, 2 ** 31) });
    case 'number':
      return fc.double({ min: schema.minimum ?? -1e6, max: schema.maximum ?? 1e6, noNaN: true });
    case 'boolean':
      return fc.boolean();
    case 'array':
      return fc.array(validFor(schema.items ?? {}, key, known), { minLength: schema.minItems ?? 0, maxLength: Math.min(schema.maxItems ?? 4, 4) });
    case 'string': {
      const min = schema.minLength ?? 0;
      const max = schema.maxLength ?? 300;
      const fits = (s: string): boolean => s.length >= min && s.length <= max && (schema.pattern === undefined || new RegExp(schema.pattern, 'u').test(s));
      const names = known[key] ?? [];
      const candidates = fc.oneof(
        fc.string({ unit: 'binary', minLength: min, maxLength: Math.min(max, 30) }),
        fc.constantFrom(...NASTY, ...REDOS, 'payments', '^pay.*-prod$', 'team=core'),
        fc.integer({ min: Math.max(min, 1), max }).map((n) => 'é'.repeat(n)),
        fc.integer({ min: Math.max(min, 1), max }).map(unbrokenWord),
        ...(names.length > 0 ? [fc.constantFrom(...names)] : []),
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
function invalidFor(schema: Schema, known: Known): fc.Arbitrary<unknown> {
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
      if (s.items !== undefined) options.push(invalidFor(s.items, known).map((item) => [item]));
      if ((s.minItems ?? 0) > 0) options.push(fc.constant([]));
      if (s.maxItems !== undefined && s.items !== undefined) options.push(fc.array(validFor(s.items, '', known), { minLength: s.maxItems + 1, maxLength: s.maxItems + 3 }));
    }
  }
  return fc.oneof(...options);
}

/** Valid arguments for the required keys, and sometimes the optional ones. */
function validArgs(tool: Tool, known: Known): fc.Arbitrary<Record<string, unknown>> {
  const properties = propertiesOf(tool);
  const required = new Set(tool.inputSchema.required ?? []);
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [key, schema] of Object.entries(properties)) model[key] = validFor(schema, key, known);
  return fc.record(model, { requiredKeys: Object.keys(properties).filter((k) => required.has(k)) });
}

export interface FuzzOutcome {
  readonly isError: boolean;
  readonly body: Record<string, unknown>;
}

/** A call that must come back as a result, within the budget, with a readable error when it is one. */
async function callBounded(mcp: Client, counter: TokenCounter, name: string, args: Record<string, unknown>): Promise<FuzzOutcome> {
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


/** Runs of each property (fast-check's numRuns). */
export const FUZZ_RUNS = 50;

/** A simulator (or any upstream) a suite starts. */
export interface StartedUpstream {
  readonly url: string;
  close(): Promise<void>;
}

/** An MCP client to a domain's tools, and how to end it. */
export interface ToolsConnection {
  readonly client: Client;
  close(): Promise<void>;
}

/** What a suite's tools run against: the upstream's simulator, and how the tools connect to it. */
export interface ToolsAgainstSimulatorOptions<S extends StartedUpstream> {
  /** Starts the upstream's simulator (its estate seeded by the test); closed after the suite. */
  simulator(): Promise<S>;
  /** Connects an MCP client to the tools in process against the simulator at `url`, with the suite's shared parts. */
  connect(url: string, deps: ToolsetDeps<undefined>): Promise<ToolsConnection>;
  /** Parts of the tools' deps the test brings (metrics it reads, a store, snapshots, a budget); fresh ones otherwise. */
  readonly deps?: Partial<Omit<ToolsetDeps<undefined>, 'client' | 'counter'>> | undefined;
}

/** The suite's running parts, once its `beforeAll` ran. */
export interface ToolsAgainstSimulator<S extends StartedUpstream> {
  readonly simulator: S;
  readonly client: Client;
  readonly counter: TokenCounter;
}

/**
 * The domain's tools in process against its simulator for the suite it is called in: started before its tests
 * (fresh metrics and a memory result store counted in them, unless `deps` brings them), closed after (connection,
 * store, simulator).
 */
export function toolsAgainstSimulator<S extends StartedUpstream>(options: ToolsAgainstSimulatorOptions<S>): () => ToolsAgainstSimulator<S> {
  let running: (ToolsAgainstSimulator<S> & { readonly connection: ToolsConnection; readonly deps: ToolsetDeps<undefined> }) | undefined;
  let simulator: S | undefined;
  beforeAll(async () => {
    const counter = await loadTokenCounter();
    simulator = await options.simulator();
    const metrics = options.deps?.metrics ?? createMetrics();
    const deps: ToolsetDeps<undefined> = { client: undefined, counter, store: createMemoryResultStore({ metrics }), metrics, logger: silentLogger(), ...options.deps };
    const connection = await options.connect(simulator.url, deps);
    running = { simulator, client: connection.client, counter, connection, deps };
  });
  afterAll(async () => {
    await running?.connection.close();
    await running?.deps.store.close();
    await simulator?.close();
  });
  return () => {
    if (running === undefined) throw new Error('the tools are not connected (use them from a test)');
    return running;
  };
}

/** A tool call that must succeed, through the MCP client: its JSON body. */
export async function callToolOk(client: Client, name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const result = (await client.callTool({ name, arguments: args })) as BoundedToolResult & { isError?: boolean };
  expect(result.isError ?? false, name).toBe(false);
  const first = result.content[0];
  return JSON.parse(first?.type === 'text' ? first.text : '{}') as Record<string, unknown>;
}

/** Calls a tool through the agent's caller (its result validated by the tool's zod schema) and checks it succeeded. */
export type AskTool = (tool: string, args: Record<string, unknown>) => Promise<Record<string, unknown>>;

export interface ToolOutputsOptions {
  /** How people name the upstream ("Argo CD"): the suite's title. */
  readonly title: string;
  /** Every tool name of the domain. */
  readonly tools: readonly string[];
  /** The tools' output schemas by name (the domain's tools module's). */
  readonly schemas: Readonly<Record<string, z.ZodType>>;
  /** The suite's MCP client, once connected. */
  client(): Client;
  /** Calls every tool of the domain at least once, with arguments its upstream answers. */
  exercise(ask: AskTool): Promise<void>;
}

/**
 * Registers the output-schema suite of a domain's MCP tools: every tool declares an output schema and the server
 * advertises each; every tool's result (in `exercise`) passes the agent's caller, which validates it with the same zod
 * schema, and its structuredContent equals its JSON text (the MCP client checks it against the advertised schema).
 */
export function describeToolOutputs(options: ToolOutputsOptions): void {
  describe(`${options.title} tool outputs`, () => {
    it('declares an output schema for every tool, and the server advertises each', async () => {
      expect(Object.keys(options.schemas).sort()).toEqual([...options.tools].sort());
      const { tools: listed } = await options.client().listTools();
      for (const tool of listed) expect(tool.outputSchema?.type, tool.name).toBe('object');
    });

    it('answers every tool with structured content its schema validates, equal to its JSON text', async () => {
      const client = options.client();
      await client.listTools();
      const call = mcpToolCaller(client, { schemas: options.schemas });
      const signal = new AbortController().signal;
      await options.exercise(async (tool, args) => {
        const result = await call({ tool, args }, signal);
        expect(result.isError, `${tool}: ${JSON.stringify(result.body).slice(0, 300)}`).toBe(false);
        const raw = await client.callTool({ name: tool, arguments: args });
        const first = (raw.content as { type: string; text?: string }[])[0];
        expect(raw.structuredContent).toEqual(JSON.parse(first?.text ?? '{}'));
        return result.body;
      });
    });
  });
}

export interface ToolFuzzOptions extends Omit<ToolsAgainstSimulatorOptions<StartedUpstream>, 'deps'> {
  /** How people name the upstream ("Argo CD"): the suite's title. */
  readonly title: string;
  /** The tool names the server must list, in order. */
  readonly tools: readonly string[];
  /** Names the upstream knows, read when the properties run (so `connect` may fill it from the live upstream). */
  readonly known: Known;
}

export interface ToolFuzz {
  /** One call through the suite's client, checked like the suite's own (a result, within the budget, a readable error). */
  readonly call: (name: string, args: Record<string, unknown>) => Promise<FuzzOutcome>;
}

/** A hostile value, shown in a failure message: never throws (`{ toString: null }` cannot be made a string). */
function shown(value: unknown): string {
  try {
    return (JSON.stringify(value) ?? typeof value).slice(0, 60);
  } catch {
    return typeof value;
  }
}

/**
 * Registers the shared fuzz suite of a domain's MCP tools (a `describe` of four properties); the domain's own checks
 * (its upstream's data, that the server keeps answering) go in a `describe` after it, with `call`.
 */
export function describeToolFuzz(options: ToolFuzzOptions): ToolFuzz {
  const tools = toolsAgainstSimulator({ simulator: options.simulator, connect: options.connect });
  let listed: readonly Tool[] = [];
  const runs = { numRuns: FUZZ_RUNS };
  const call = (name: string, args: Record<string, unknown>): Promise<FuzzOutcome> => {
    const { client, counter } = tools();
    return callBounded(client, counter, name, args);
  };
  beforeAll(async () => {
    listed = (await tools().client.listTools()).tools;
  });

  describe(`${options.title} MCP tools under hostile arguments (fuzz)`, () => {
    it('lists every tool with an object schema', () => {
      expect(listed.map((t) => t.name)).toEqual([...options.tools]);
      for (const tool of listed) expect(tool.inputSchema.type).toBe('object');
    });

    it('answers arguments of any shape with a bounded result, never a throw', async () => {
      for (const tool of listed) {
        const keys = [...Object.keys(propertiesOf(tool)), '__proto__', 'constructor', 'extra'];
        await fc.assert(
          fc.asyncProperty(fc.array(fc.tuple(fc.oneof(fc.constantFrom(...keys), fc.string({ maxLength: 30 })), hostile), { maxLength: 6 }), async (entries) => {
            await call(tool.name, Object.fromEntries(entries));
          }),
          runs,
        );
      }
    }, 60_000);

    it('refuses one bad argument among good ones with an isError result that names it', async () => {
      for (const tool of listed) {
        const properties = propertiesOf(tool);
        const bad = fc.oneof(
          ...Object.entries(properties).map(([key, schema]) => invalidFor(schema, options.known).map((value) => ({ key, value }))),
          // Keys named like Object.prototype members ("__proto__", "constructor") are ignored by zod, not refused: left out here.
          fc
            .tuple(fc.stringMatching(/^[a-z][a-z_]{0,30}$/), hostile)
            .filter(([key]) => !(key in properties))
            .map(([key, value]) => ({ key, value })),
        );
        await fc.assert(
          fc.asyncProperty(validArgs(tool, options.known), bad, async (args, { key, value }) => {
            const outcome = await call(tool.name, Object.fromEntries([...Object.entries(args), [key, value]]));
            expect(outcome.isError, `${tool.name} took ${key}=${shown(value)}`).toBe(true);
            expect(outcome.body.error).toBe('invalid_argument');
            expect(String(outcome.body.message)).toContain(key);
          }),
          runs,
        );
      }
    }, 60_000);

    it('answers valid-shaped arguments (hostile strings, extreme numbers, backtracking regexes) with data or a clear error', async () => {
      for (const tool of listed) {
        await fc.assert(
          fc.asyncProperty(validArgs(tool, options.known), async (args) => {
            const outcome = await call(tool.name, args);
            if (outcome.isError) expect(['invalid_argument', 'not_found', 'result_expired', 'upstream_rejected']).toContain(outcome.body.error);
          }),
          runs,
        );
      }
    }, 60_000);
  });
  return { call };
}

/** A phrasing people type, the intent it must be read as, and the entities it must yield. */
export type IntentCase<I extends string> = readonly [question: string, intent: I, entities: Readonly<Record<string, unknown>>];

/**
 * How a classifier misreads a phrasing, or undefined when it reads it right: the intent, each entity named (compared
 * as JSON), and confident (below the threshold for `unknown`: a question it cannot answer must not be acted on).
 */
export function misreading<I extends string>(classifier: { classify(question: string): Classification<I> }, [question, intent, entities]: IntentCase<I>): string | undefined {
  const got = classifier.classify(question);
  const ok = got.intent === intent && Object.entries(entities).every(([k, v]) => JSON.stringify(got.entities[k]) === JSON.stringify(v));
  const confident = intent === 'unknown' ? got.confidence < CONFIDENCE_THRESHOLD : got.confidence >= CONFIDENCE_THRESHOLD;
  return ok && confident ? undefined : `${question} → ${got.intent} ${JSON.stringify(got.entities)} (${got.confidence}); wanted ${intent} ${JSON.stringify(entities)}`;
}

export { fakeUpstream, streamParts, type FakeUpstream } from '@flotilla/upstream/testing';

/** A port free on 127.0.0.1 right now (for a server a test starts later, on purpose, at a known address). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** /readyz of `url` until it answers `status`, for at most `ms` (a bound on the wait, not a sleep). */
export async function readyz(url: string, status: number, ms = 20_000): Promise<{ status: string; reason?: string }> {
  const until = performance.now() + ms;
  for (;;) {
    const res = await fetch(`${url}/readyz`);
    const body = (await res.json()) as { status: string; reason?: string };
    if (res.status === status) return body;
    if (performance.now() > until) throw new Error(`/readyz still answers ${res.status}: ${JSON.stringify(body)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Resolves once an agent's lexicon holds the estate's names (its `flotilla_store_entries{store="lexicon"}` gauge above
 * 0): the agent reads them as it starts, and that read is not part of any answer a test counts requests of.
 */
export async function lexiconRead(agentUrl: string): Promise<void> {
  for (;;) {
    const metrics = await (await fetch(`${agentUrl}/metrics`)).text();
    if (/flotilla_store_entries\{store="lexicon"\} [1-9]/.test(metrics)) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
