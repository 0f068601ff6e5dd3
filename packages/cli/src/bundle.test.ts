import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startArgoCdSimulator, type RunningSimulator } from '@flotilla/simulators';
import { BUNDLE_ENTRY, bundleCli } from './bundle.js';
import { startWithHook, writeLoaderHook, type Started } from './started.test-util.js';

/**
 * The bundle the image runs (packages/cli/dist/bundle/flotilla.mjs), built here into a directory of its own from the
 * compiled CLI and run as the image runs it: a piece answers, loads nothing from node_modules, and loads only the
 * chunks its command needs.
 */

const DIST_MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));
/** Inside packages/cli, as the default: the bundle reads js-tiktoken's rank files from the package's node_modules. */
const OUT = fileURLToPath(new URL('../dist/bundle-test/', import.meta.url));
const ENTRY = join(OUT, BUNDLE_ENTRY);
const TOKEN = 'bundle-test-token-0123456789abcdef';
const run = promisify(execFile);

/** What marks a chunk as holding a part (its definition, which keepNames leaves readable). */
const PARTS = {
  simulator: 'function startArgoCdSimulator(',
  langGraph: 'StateGraph=class ',
  modelClients: 'ChatOpenAI=class ',
} as const;
type Part = keyof typeof PARTS;

let dir: string;
let hook: string;
let argocd: RunningSimulator;

beforeAll(async () => {
  expect(existsSync(DIST_MAIN), 'packages/cli/dist/main.js is missing: run pnpm build first').toBe(true);
  const result = await bundleCli(OUT);
  expect(result.entry).toBe(ENTRY);
  dir = await mkdtemp(join(tmpdir(), 'flotilla-bundle-'));
  hook = await writeLoaderHook(dir);
  argocd = await startArgoCdSimulator({ token: TOKEN });
});

afterAll(async () => {
  await argocd?.close();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  await rm(OUT, { recursive: true, force: true });
});

/** Starts the bundled `flotilla <args>` with the loader hook and resolves once it logs `msg`. */
const started = (name: string, args: readonly string[], msg: string): Promise<Started> => startWithHook({ entry: ENTRY, hook, dir, name, args, msg });

/** The parts the loaded bundle files define. */
async function partsIn(loaded: readonly string[]): Promise<Part[]> {
  const files = loaded.filter((url) => url.startsWith('file:')).map((url) => fileURLToPath(url));
  const sources = await Promise.all(files.map((file) => readFile(file, 'utf8')));
  return (Object.keys(PARTS) as Part[]).filter((part) => sources.some((source) => source.includes(PARTS[part])));
}

/** Modules resolved from anywhere but the bundle and Node itself. */
const outside = (loaded: readonly string[]): string[] => loaded.filter((url) => !url.startsWith('node:') && !url.startsWith(pathToFileURL(OUT).href));

describe('the bundled CLI (what the image runs)', () => {
  it('prints its help, and the bundler script its own', async () => {
    expect((await run(process.execPath, [ENTRY, '--help'])).stdout).toMatch(/^Usage: flotilla <command>/);
    expect((await run(process.execPath, [fileURLToPath(new URL('../dist/bundle.js', import.meta.url)), '--help'])).stdout).toMatch(/^Usage: node packages\/cli\/dist\/bundle\.js/);
  });

  it('serves the Argo CD MCP tools from bundle files only, without LangGraph, a model client or a simulator', async () => {
    const mcp = await started('mcp', ['mcp', 'argocd', '--argocd-url', argocd.url, '--argocd-token', TOKEN], 'Argo CD MCP server listening');
    const client = new Client({ name: 'bundle-test', version: '1.0.0' });
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(`http://${String(mcp.line.listen)}/mcp`)));
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain('list_applications');
      const result = await client.callTool({ name: 'list_applications', arguments: {} });
      expect(result.isError).not.toBe(true);
      expect(JSON.stringify(result.content)).toMatch(/applications/i);
      const loaded = await mcp.loaded();
      expect(loaded.length).toBeGreaterThan(1);
      expect(outside(loaded)).toEqual([]);
      expect(await partsIn(loaded)).toEqual([]);
    } finally {
      await client.close();
      await mcp.stop();
    }
  });

  it('gives back what start-up used once the agent is quiet: its young generation shrinks, its heap with it', async () => {
    const agent = await started('agent-idle', ['agent', 'argocd', '--argocd-url', argocd.url, '--argocd-token', TOKEN], 'A2A agent listening');
    try {
      // Logged at the end of the first quiet window (IDLE_MEMORY_LIMITS.quietWindowMs after start, or a later one).
      const released = await agent.logged('released start-up memory');
      const [newSpaceBefore, newSpaceAfter] = released.newSpaceMiB as [number, number];
      const [heapBefore, heapAfter] = released.heapTotalMiB as [number, number];
      // Start-up leaves the semi-spaces grown (to 32 MiB in all, seen 16 on a busy machine); V8 takes them back towards
      // their first size (1 MiB; twice what is still live in them, when more).
      expect(newSpaceBefore).toBeGreaterThanOrEqual(8);
      expect(newSpaceAfter).toBeLessThan(newSpaceBefore / 2);
      expect(heapAfter).toBeLessThan(heapBefore);
    } finally {
      await agent.stop();
    }
  });

  it('answers a question as the Argo CD agent in rules mode: LangGraph loaded, no model client and no simulator', async () => {
    const agent = await started('agent', ['agent', 'argocd', '--argocd-url', argocd.url, '--argocd-token', TOKEN], 'A2A agent listening');
    try {
      const asked = await run(process.execPath, [ENTRY, 'ask', '--agent', String(agent.line.url), 'list clusters']);
      expect(asked.stdout).toContain('13 clusters');
      const loaded = await agent.loaded();
      expect(outside(loaded)).toEqual([]);
      expect(await partsIn(loaded)).toEqual(['langGraph']);
    } finally {
      await agent.stop();
    }
  });
});
