import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startArgoCdSimulator, startNetBoxSimulator, type RunningNetBoxSimulator, type RunningSimulator } from '@flotilla/simulators';
import { startWithHook, writeLoaderHook, type Started } from './started.test-util.js';

/**
 * What each piece must not load at start (idle memory: issue 19), by a part of the module's resolved URL. Every
 * module reached from our code by `import` (static or dynamic) passes the loader hook below, CommonJS packages too.
 */
const HEAVY = {
  simulators: '/packages/simulators/',
  llmStack: '/packages/llm/dist/index.js',
  openai: '/node_modules/openai/',
  langchainOpenAi: '/node_modules/@langchain/openai/',
  anthropic: '/node_modules/@anthropic-ai/sdk/',
  langchainAnthropic: '/node_modules/@langchain/anthropic/',
  kubernetes: '/node_modules/@kubernetes/client-node/',
  slack: '/node_modules/@slack/',
  redis: '/node_modules/ioredis/',
  /** An ES module import of the rank data would keep its text for good; the counter reads it as JSON instead. */
  rankModule: '/node_modules/js-tiktoken/dist/ranks/',
  agentKit: '/packages/agent-kit/',
  a2a: '/node_modules/@a2a-js/sdk/',
  langchain: '/node_modules/@langchain/',
  mcpClient: '/node_modules/@modelcontextprotocol/client/',
  /** The agent half of the host (`@flotilla/agent-host`); an MCP server loads only `@flotilla/agent-host/mcp`. */
  agentHost: '/packages/agent-host/dist/index.js',
} as const;
type Heavy = keyof typeof HEAVY;

/** Neither a model client nor a simulator, nor what no agent uses without its flag (Kubernetes, Slack, Redis). */
const NOT_IN_A_RULES_AGENT: readonly Heavy[] = ['simulators', 'llmStack', 'openai', 'langchainOpenAi', 'anthropic', 'langchainAnthropic', 'kubernetes', 'slack', 'redis', 'rankModule'];
/** An MCP server besides: no agent at all (agent-kit, LangGraph, A2A) and no MCP client. */
const NOT_IN_AN_MCP_SERVER: readonly Heavy[] = [...NOT_IN_A_RULES_AGENT, 'agentKit', 'a2a', 'langchain', 'mcpClient', 'agentHost'];

const MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));
const run = promisify(execFile);
const TOKEN = 'lazy-load-token-0123456789abcdef';

let dir: string;
let hook: string;
let argocd: RunningSimulator;
let netbox: RunningNetBoxSimulator;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'flotilla-lazy-'));
  hook = await writeLoaderHook(dir);
  [argocd, netbox] = await Promise.all([startArgoCdSimulator({ token: TOKEN }), startNetBoxSimulator({ token: TOKEN })]);
});

afterAll(async () => {
  await Promise.all([argocd?.close(), netbox?.close()]);
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

/** Starts the built `flotilla <args>` with the loader hook and resolves once it logs `msg`. */
async function started(name: string, args: readonly string[], msg: string): Promise<Started> {
  expect(existsSync(MAIN), 'packages/cli/dist/main.js is missing: run pnpm build first').toBe(true);
  return startWithHook({ entry: MAIN, hook, dir, name, args, msg });
}

/** Which of `kinds` the modules include, with one module of each as the evidence. */
function found(loaded: readonly string[], kinds: readonly Heavy[]): Record<string, string> {
  return Object.fromEntries(kinds.flatMap((kind) => loaded.filter((url) => url.includes(HEAVY[kind])).slice(0, 1).map((url) => [kind, url])));
}

describe('each built piece loads only what it runs (no --local, default flags)', () => {
  it('the Argo CD MCP server loads no agent, MCP client, model client, simulator, Kubernetes, Slack or Redis code', async () => {
    const mcp = await started('mcp-argocd', ['mcp', 'argocd', '--argocd-url', argocd.url, '--argocd-token', TOKEN], 'Argo CD MCP server listening');
    try {
      const loaded = await mcp.loaded();
      // The hook saw the server itself (so an empty list cannot pass).
      expect(loaded.some((url) => url.endsWith('/agents/argocd/dist/server.js'))).toBe(true);
      expect(loaded.some((url) => url.endsWith('/packages/agent-host/dist/mcp.js'))).toBe(true);
      expect(found(loaded, NOT_IN_AN_MCP_SERVER)).toEqual({});
    } finally {
      await mcp.stop();
    }
  });

  it('the NetBox MCP server loads no agent, MCP client, model client, simulator, Kubernetes, Slack or Redis code', async () => {
    const mcp = await started('mcp-netbox', ['mcp', 'netbox', '--netbox-url', netbox.url, '--netbox-token', TOKEN], 'NetBox MCP server listening');
    try {
      const loaded = await mcp.loaded();
      expect(loaded.some((url) => url.endsWith('/agents/netbox/dist/server.js'))).toBe(true);
      expect(found(loaded, NOT_IN_AN_MCP_SERVER)).toEqual({});
    } finally {
      await mcp.stop();
    }
  });

  it('the Argo CD agent in rules mode loads no model client and no simulator, also once it has answered', async () => {
    const agent = await started('agent-argocd', ['agent', 'argocd', '--argocd-url', argocd.url, '--argocd-token', TOKEN], 'A2A agent listening');
    try {
      const asked = await run(process.execPath, [MAIN, 'ask', '--agent', String(agent.line.url), 'list clusters']);
      expect(asked.stdout).toContain('13 clusters');
      const loaded = await agent.loaded();
      expect(loaded.some((url) => url.endsWith('/packages/llm/dist/modes.js'))).toBe(true);
      expect(found(loaded, NOT_IN_A_RULES_AGENT)).toEqual({});
    } finally {
      await agent.stop();
    }
  });

  it('the NetBox agent in rules mode loads no model client and no simulator, also once it has answered', async () => {
    const agent = await started('agent-netbox', ['agent', 'netbox', '--netbox-url', netbox.url, '--netbox-token', TOKEN], 'A2A agent listening');
    try {
      const asked = await run(process.execPath, [MAIN, 'ask', '--agent', String(agent.line.url), 'list sites']);
      expect(asked.stdout).toContain('12 sites:');
      const loaded = await agent.loaded();
      expect(loaded.some((url) => url.endsWith('/packages/llm/dist/modes.js'))).toBe(true);
      expect(found(loaded, NOT_IN_A_RULES_AGENT)).toEqual({});
    } finally {
      await agent.stop();
    }
  });

  it('an agent given a model loads the model stack at start, and still no simulator', async () => {
    // A local OpenAI-compatible server takes no key; nothing calls it before a question.
    const agent = await started(
      'agent-argocd-llm',
      ['agent', 'argocd', '--argocd-url', argocd.url, '--argocd-token', TOKEN, '--llm-provider', 'openai', '--llm-base-url', 'http://127.0.0.1:9/v1'],
      'A2A agent listening',
    );
    try {
      const loaded = await agent.loaded();
      expect(Object.keys(found(loaded, ['llmStack', 'langchainOpenAi', 'openai']))).toEqual(['llmStack', 'langchainOpenAi', 'openai']);
      expect(found(loaded, ['simulators', 'kubernetes', 'slack', 'redis'])).toEqual({});
    } finally {
      await agent.stop();
    }
  });

  it('an agent with --local gets its simulator from the CLI, and its MCP half loads no simulator either way', async () => {
    const agent = await started('agent-netbox-local', ['agent', 'netbox', '--local'], 'A2A agent listening');
    try {
      const asked = await run(process.execPath, [MAIN, 'ask', '--agent', String(agent.line.url), 'list sites']);
      expect(asked.stdout).toContain('12 sites:');
      const loaded = await agent.loaded();
      // The simulator is loaded from the CLI's registry (the composition root), never from the agent's package.
      expect(Object.keys(found(loaded, ['simulators']))).toEqual(['simulators']);
      expect(loaded.some((url) => url.endsWith('/packages/cli/dist/commands/registry.js'))).toBe(true);
    } finally {
      await agent.stop();
    }
  });

  it('the supervisor without --kubernetes loads no Kubernetes client, simulator, model client or Slack code', async () => {
    const supervisor = await started('supervisor', ['supervisor', '--agents', `argocd=${argocd.url}`], 'supervisor ready');
    try {
      const loaded = await supervisor.loaded();
      expect(loaded.some((url) => url.endsWith('/agents/supervisor/dist/start.js'))).toBe(true);
      expect(found(loaded, ['kubernetes', 'simulators', 'llmStack', 'openai', 'anthropic', 'slack', 'redis', 'rankModule'])).toEqual({});
    } finally {
      await supervisor.stop();
    }
  });
});
