import { execFile, spawn, type ChildProcessByStdio } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startArgoCdSimulator, type RunningSimulator } from '@flotilla/simulators';
import { BUNDLE_ENTRY, bundleCli } from './bundle.js';

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
  // A loader hook (its own thread) appends the URL of every module resolved to the file the environment names.
  await writeFile(
    join(dir, 'hooks.mjs'),
    "import { appendFileSync } from 'node:fs';\n" +
      'export async function resolve(specifier, context, next) {\n' +
      '  const resolved = await next(specifier, context);\n' +
      "  appendFileSync(process.env.FLOTILLA_TEST_LOADED, resolved.url + '\\n');\n" +
      '  return resolved;\n' +
      '}\n',
  );
  await writeFile(join(dir, 'register.mjs'), `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(join(dir, 'hooks.mjs')).href)});\n`);
  hook = pathToFileURL(join(dir, 'register.mjs')).href;
  argocd = await startArgoCdSimulator({ token: TOKEN });
});

afterAll(async () => {
  await argocd?.close();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  await rm(OUT, { recursive: true, force: true });
});

interface Started {
  readonly child: ChildProcessByStdio<null, Readable, Readable>;
  readonly line: Record<string, unknown>;
  /** The URLs of every module resolved so far. */
  loaded(): Promise<readonly string[]>;
  stop(): Promise<void>;
}

/** Starts the bundled `flotilla <args>` with the loader hook and resolves once it logs `msg`. */
async function started(name: string, args: readonly string[], msg: string): Promise<Started> {
  const file = join(dir, `${name}.loaded`);
  await writeFile(file, '');
  const child = spawn(process.execPath, ['--import', hook, ENTRY, ...args, '--port', '0', '--log-level', 'info'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: process.env.PATH ?? '', FLOTILLA_TEST_LOADED: file },
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const line = await new Promise<Record<string, unknown>>((resolve, reject) => {
    let buffered = '';
    child.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const text of lines) {
        if (!text.startsWith('{')) continue;
        const entry = JSON.parse(text) as Record<string, unknown>;
        if (entry.msg === msg) resolve(entry);
      }
    });
    child.once('exit', (code) => reject(new Error(`flotilla ${args.join(' ')} (bundled) exited early with ${String(code)}: ${stderr}`)));
  });
  return {
    child,
    line,
    loaded: async () => (await readFile(file, 'utf8')).split('\n').filter((url) => url.length > 0),
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

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
