import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import type { Client } from '@modelcontextprotocol/client';
import {
  A2A_SERVER_SETTINGS,
  abortedOutcome,
  answerTokens,
  answerWhenConnected,
  CapabilityIndex,
  connectTools,
  MCP_CLIENT_SETTINGS,
  meteredAnswerCache,
  partialMetadata,
  redisAnswerCache,
  redisConversationLock,
  redisMemoryStore,
  startA2AGate,
  startA2AServer,
  toolsReadiness,
  type AgentDescription,
  type AgentTools,
  type AnswerTurn,
  type McpConnectLimits,
  type RunningA2AServer,
  type TurnResult,
} from '@flotilla/agent-kit';
import { createFileResultStore, createRedisResultStore, MCP_SERVER_SETTINGS, resultStoreCaps, type ResultStore } from '@flotilla/bounded-tools';
import { BooleanFlagSchema, HostSchema, HttpUrlSchema, LogLevelSchema, PortSchema, type Logger, type Settings, type SettingsSpec } from '@flotilla/core';
import { createMetrics, zeroAgentSeries, type FlotillaMetrics, type TurnOutcome, type WorkflowPath } from '@flotilla/metrics';
import { createFileSessionStore, createMemorySessionStore, createRedisSessionStore, type RateState, type SessionStore } from '@flotilla/limitations';
import { closeRedis, REDIS_SETTINGS, redisFromUrl, type RedisClient } from '@flotilla/state';
import type { RunningNetBoxSimulator } from '@flotilla/simulators';
import { loadTokenCounter } from '@flotilla/tokens';
import type { LlmMemory } from '@flotilla/llm';
import { checkModelSettings, executionMode, fastPathFailed, LLM_SETTINGS, MODE_SETTINGS, modeAnswerTurn } from '@flotilla/llm/modes';
import { NETBOX_PROMPT } from './prompt.js';
import { NETBOX_DEFAULTS } from '../client/netbox-client.js';
import { NETBOX_UPSTREAM_SETTINGS } from '../config.js';
import { connectNetBoxToolsInProcess, netBoxClientFrom } from '../server.js';
import { createNetBoxAgent } from './agent.js';
import { createNetBoxClassifier, type NetBoxIntent } from './intents.js';

export const NETBOX_AGENT_SETTINGS = {
  host: { flag: 'host', env: 'FLOTILLA_HOST', schema: HostSchema.default('127.0.0.1'), help: 'Address to listen on' },
  port: { flag: 'port', env: 'FLOTILLA_NETBOX_AGENT_PORT', schema: PortSchema.default(8094), help: 'Port of the A2A agent (card, JSON-RPC, REST)' },
  mcpUrl: { flag: 'mcp-url', env: 'FLOTILLA_NETBOX_MCP_URL', schema: HttpUrlSchema.optional(), help: 'NetBox MCP server (…/mcp); unset runs the tools in process. Reached in the background, retried with backoff while it is down (/readyz 503 meanwhile)' },
  ...MCP_CLIENT_SETTINGS,
  netboxUrl: { flag: 'netbox-url', env: 'FLOTILLA_NETBOX_URL', schema: HttpUrlSchema.optional(), help: 'NetBox URL, for in-process tools' },
  netboxToken: { flag: 'netbox-token', env: 'FLOTILLA_NETBOX_TOKEN', schema: z.string().min(1).max(4096).optional(), help: 'NetBox API token, for in-process tools', secret: true },
  local: { flag: 'local', env: 'FLOTILLA_LOCAL', schema: BooleanFlagSchema.default(false), help: 'Also start the NetBox simulator (12 sites, 600 devices) and use it', isSwitch: true },
  dataDir: { flag: 'data-dir', env: 'FLOTILLA_DATA_DIR', schema: z.string().min(1).optional(), help: 'Folder of spilled results (in-process tools); a temporary one when unset' },
  resultDiskCapMiB: { ...MCP_SERVER_SETTINGS.resultDiskCapMiB, help: 'Disk (or Redis memory, with --redis-url) the spilled results of the in-process tools may use; the oldest go first' },
  stateDir: {
    flag: 'state-dir',
    env: 'FLOTILLA_STATE_DIR',
    schema: z.string().min(1).optional(),
    help: 'Folder of progressive-disclosure sessions, so "next batch" survives a restart; in memory when unset (Redis with --redis-url)',
  },
  ...REDIS_SETTINGS,
  ...NETBOX_UPSTREAM_SETTINGS,
  logLevel: { flag: 'log-level', env: 'FLOTILLA_LOG_LEVEL', schema: LogLevelSchema.default('info'), help: 'Log level' },
  ...LLM_SETTINGS,
  ...MODE_SETTINGS,
  ...A2A_SERVER_SETTINGS,
} as const satisfies SettingsSpec;
export type NetBoxAgentConfig = Settings<typeof NETBOX_AGENT_SETTINGS>;

export const NETBOX_AGENT_CARD: AgentDescription = {
  name: 'Flotilla NetBox agent',
  description: 'Answers questions about NetBox (sites, devices, interfaces, cables, VLANs, prefixes and IP addresses, read-only) within a token budget, reading large estates in few requests.',
  version: '0.1.0',
  skills: [
    {
      id: 'netbox-inventory',
      name: 'NetBox inventory',
      description: 'Sites and devices by site, role, status or tag; one device with its interfaces and IP addresses; search.',
      tags: ['netbox', 'dcim', 'inventory', 'sites', 'devices'],
      examples: ['list sites', 'devices in ams1', 'which switches are offline in fra1?', 'show device ams1-sw-001', 'how many routers are there?', 'firewalls at lon1', 'find core'],
    },
    {
      id: 'netbox-connectivity',
      name: 'NetBox interfaces and cables',
      description: 'Interfaces of every device at a site (batched, exact, or a quick sample), cables of a site or a device; long answers in batches.',
      tags: ['netbox', 'dcim', 'interfaces', 'cables'],
      examples: ['interfaces of every switch in ams1', 'cables of ams1', 'next batch', 'only the uncabled ones'],
    },
    {
      id: 'netbox-ipam',
      name: 'NetBox IPAM',
      description: 'VLANs of a site, prefixes, and the free or used addresses of a prefix.',
      tags: ['netbox', 'ipam', 'vlans', 'prefixes', 'ips', 'addresses'],
      examples: ['vlans of fra1', 'prefixes at nyc1', 'free ips in 10.1.0.0/24', 'used ips in 10.1.0.0/24'],
    },
  ],
};

/** The card skill each intent belongs to (a metric label). */
export const SKILL_OF_NETBOX_INTENT: Readonly<Record<NetBoxIntent, string>> = {
  list_sites: 'netbox-inventory',
  list_devices: 'netbox-inventory',
  device_details: 'netbox-inventory',
  search: 'netbox-inventory',
  site_interfaces: 'netbox-connectivity',
  device_interfaces: 'netbox-connectivity',
  list_cables: 'netbox-connectivity',
  next_page: 'netbox-connectivity',
  refine: 'netbox-connectivity',
  summary: 'netbox-connectivity',
  list_vlans: 'netbox-ipam',
  list_prefixes: 'netbox-ipam',
  prefix_free: 'netbox-ipam',
  prefix_used: 'netbox-ipam',
  help: 'none',
  unknown: 'none',
};

/** What only code (tests) sets: not a flag. */
export interface NetBoxAgentStartOptions {
  /** Bounds of the retries to reach --mcp-url (MCP_CONNECT_LIMITS by default); tests shorten them. */
  readonly mcpConnectLimits?: Partial<McpConnectLimits> | undefined;
}

export interface RunningNetBoxAgent {
  readonly url: string;
  /** The simulator started by --local. */
  readonly simulator: RunningNetBoxSimulator | undefined;
  readonly metrics: FlotillaMetrics;
  close(): Promise<void>;
}

/**
 * Metrics of one turn: path, outcome, limitations detected and how they were handled. `signal` is the turn's: one
 * the executor aborted counts as `timed_out` (deadline) or `failed` (shutdown), whatever the turn made of it.
 */
export function recordTurn(metrics: FlotillaMetrics, turn: TurnResult<NetBoxIntent>, seconds: number, answerTokens: number, signal?: AbortSignal): void {
  const path: WorkflowPath = turn.strategy ?? 'none';
  const outcome: TurnOutcome = abortedOutcome(signal) ?? (turn.error !== undefined ? 'failed' : 'answered');
  const skill = turn.intent === undefined ? 'none' : SKILL_OF_NETBOX_INTENT[turn.intent];
  metrics.agentTurns.inc({ agent: 'netbox', skill, path, outcome });
  metrics.agentTurnDuration.observe({ agent: 'netbox', skill, path }, seconds);
  metrics.agentAnswerTokens.observe({ agent: 'netbox' }, answerTokens);
  for (const limitation of turn.limitations) {
    if (limitation.kind !== 'low_confidence' && limitation.kind !== 'unsupported') metrics.limitationsDetected.inc({ agent: 'netbox', kind: limitation.kind });
  }
  for (const strategy of turn.handling?.strategies ?? []) metrics.limitationStrategies.inc({ agent: 'netbox', strategy });
  if (turn.detectSeconds !== undefined) metrics.limitationDetectSeconds.observe({ agent: 'netbox' }, turn.detectSeconds);
}

/**
 * The NetBox agent over A2A, with its tools over MCP (remote, or in process against NetBox or the simulator).
 * With --redis-url, progressive sessions, LLM conversations, the answer cache and (in-process tools) spilled
 * results and the snapshot index live in Redis under `<redis-key-prefix>netbox:`, so several replicas continue
 * each other's conversations and reuse each other's answers; an unreachable Redis
 * stops the start with an error naming the setting. A remote MCP server that is not up does not: the agent serves at
 * once, not ready, and connects when it comes up (MCP_CONNECT_LIMITS).
 */
export async function startNetBoxAgent(config: NetBoxAgentConfig, logger: Logger, options: NetBoxAgentStartOptions = {}): Promise<RunningNetBoxAgent> {
  const redis: RedisClient | undefined = config.redisUrl === undefined ? undefined : await redisFromUrl(config.redisUrl, { logger });
  const keyPrefix = `${config.redisKeyPrefix}netbox:`;
  try {
    return await startWith(config, logger, redis, keyPrefix, options);
  } catch (error) {
    if (redis !== undefined) await closeRedis(redis);
    throw error;
  }
}

async function startWith(config: NetBoxAgentConfig, logger: Logger, redis: RedisClient | undefined, keyPrefix: string, options: NetBoxAgentStartOptions): Promise<RunningNetBoxAgent> {
  const mode = executionMode(config.mode, config.llmProvider);
  // A wrong LLM setting is a configuration error now, not something the background connect to the tools could fix.
  checkModelSettings(config);
  // LangChain and the provider's SDK are loaded only for a mode that calls a model: in rules mode, never.
  const llmStack = mode === 'rules' ? undefined : await import('@flotilla/llm');
  const counter = await loadTokenCounter();
  const metrics = createMetrics({ defaultMetrics: true });
  const gate = await startA2AGate(config, { agent: 'netbox', metrics, logger });
  let rate: (() => RateState | undefined) | undefined;
  const sessions: SessionStore =
    redis !== undefined
      ? createRedisSessionStore({ client: redis, keyPrefix })
      : config.stateDir === undefined
        ? createMemorySessionStore({ metrics })
        : await createFileSessionStore(resolve(config.stateDir));
  const classifier = createNetBoxClassifier();
  /** The answer over connected tools: their capability index, the rules workflow and the model's loop over them. */
  const prepare = async (mcp: Client): Promise<AnswerTurn> => {
    const capabilities = await CapabilityIndex.fromClient(mcp);
    const llm = llmStack?.llmAnswerTurn({
      agent: 'netbox',
      settings: config,
      mcp,
      index: capabilities,
      prompt: NETBOX_PROMPT,
      counter,
      metrics,
      logger,
      budgetFactor: gate.budgetFactor,
      memoryStore: redis === undefined ? undefined : redisMemoryStore<LlmMemory>({ client: redis, keyPrefix: `${keyPrefix}llm-memory:` }),
    });
    const agent = createNetBoxAgent({ mcp, counter, capabilities, sessions, rate, budgetFactor: gate.budgetFactor, answerCache: meteredAnswerCache(metrics, { store: redis === undefined ? undefined : redisAnswerCache({ client: redis, keyPrefix: `${keyPrefix}answers:` }), logger }) });
    /** The rules workflow's answer (the fast path in hybrid mode), and whether it really answered. */
    const rulesTurn = async (question: string, contextId: string, _progress: (note: string) => void, signal?: AbortSignal) => {
      const started = performance.now();
      let turn: TurnResult<NetBoxIntent>;
      try {
        turn = await agent.ask(question, contextId, signal);
      } catch (error) {
        // Aborted (deadline, shutdown): counted here, once; the executor answers it.
        const aborted = abortedOutcome(signal);
        if (aborted !== undefined) metrics.agentTurns.inc({ agent: 'netbox', skill: 'none', path: 'none', outcome: aborted });
        throw error;
      }
      // Counted once, when the answer was written (or cached): not again per request.
      const tokens = answerTokens(turn, counter);
      recordTurn(metrics, turn, (performance.now() - started) / 1000, tokens, signal);
      const metadata = {
        intent: turn.intent ?? 'none',
        confidence: turn.confidence,
        strategy: turn.strategy ?? 'none',
        tool_calls: turn.toolCalls,
        cached: turn.cached,
        answer_tokens: tokens,
        limitations: turn.limitations.map((l) => l.kind).join(','),
        handling: (turn.handling?.strategies ?? []).join(','),
        // What the answer says it did not do (words not understood, filters not applied): a partial answer.
        ...partialMetadata(turn.data),
      };
      return { reply: { answer: turn.answer, options: turn.options, data: turn.data, metadata }, failed: fastPathFailed(turn) };
    };
    return modeAnswerTurn(mode, { agent: 'netbox', classify: (q) => classifier.classify(q), fast: rulesTurn, discovery: llm, metrics });
  };
  let tools: AgentTools<RunningNetBoxSimulator, AnswerTurn>;
  try {
    tools = await connectTools({
      agent: 'netbox',
      logger: logger.child({ component: 'mcp-client' }),
      mcpUrl: config.mcpUrl,
      mcpToken: config.mcpToken,
      local: config.local,
      connectLimits: options.mcpConnectLimits,
      upstreamUrl: config.netboxUrl,
      upstreamToken: config.netboxToken,
      upstreamFlags: '--netbox-url and --netbox-token',
      // The simulator's code is loaded only with --local.
      startSimulator: async (token) => {
        const { startNetBoxSimulator } = await import('@flotilla/simulators');
        return startNetBoxSimulator({ token, logger: logger.child({ component: 'netbox-sim' }) });
      },
      inProcess: async (url, token) => {
        const store: ResultStore =
          redis === undefined
            ? await createFileResultStore({ directory: resolve(config.dataDir ?? (await mkdtemp(join(tmpdir(), 'flotilla-netbox-')))), ...resultStoreCaps(config.resultDiskCapMiB), metrics })
            : createRedisResultStore({ client: redis, keyPrefix, ...resultStoreCaps(config.resultDiskCapMiB), metrics });
        const client = netBoxClientFrom(url, token, config, metrics, logger.child({ component: 'netbox-client' }));
        const limiter = client.limiter;
        if (limiter !== undefined) rate = () => ({ available: limiter.available(), ratePerSecond: limiter.settings.ratePerSecond });
        const connected = await connectNetBoxToolsInProcess({
          client,
          counter,
          store,
          metrics,
          logger: logger.child({ component: 'netbox-mcp' }),
          walk: { ...NETBOX_DEFAULTS.walk, maxCalls: config.walkMaxCalls },
          budgetFactor: gate.budgetFactor,
        });
        return {
          client: connected.client,
          async close() {
            await connected.close();
            await store.close();
          },
        };
      },
      prepare,
    });
  } catch (error) {
    gate.guard.stop();
    throw error;
  }
  logger.info({ mode }, 'execution mode');
  let a2a: RunningA2AServer;
  try {
    // Up at once, also while a remote MCP server is still being reached: card, probes and metrics answer, /readyz says
    // why it is not ready, and a question is answered that the tools are not connected yet.
    a2a = await startA2AServer({
      agent: NETBOX_AGENT_CARD,
      host: config.host,
      port: config.port,
      publicUrl: config.publicUrl,
      logger,
      metrics,
      auth: gate.auth,
      guard: gate.guard,
      readiness: toolsReadiness(tools),
      onReject: gate.onReject,
      onQueueDepth: gate.onQueueDepth,
      turnTimeoutMs: config.turnTimeoutMs,
      // With replicas, a conversation's turns are ordered across them (a lease in Redis), not only within this one.
      conversationLock: redis === undefined ? undefined : redisConversationLock({ client: redis, keyPrefix: `${keyPrefix}turn-lock:`, logger: logger.child({ component: 'conversation-lock' }) }),
      answer: answerWhenConnected(tools, () => metrics.agentTurns.inc({ agent: 'netbox', skill: 'none', path: 'none', outcome: 'rejected' })),
    });
  } catch (error) {
    await tools.close();
    gate.guard.stop();
    throw error;
  }
  // Every turn series exists from the start, at zero: the first failed turn after a start can alert.
  zeroAgentSeries(metrics, 'netbox', NETBOX_AGENT_CARD.skills.map((s) => s.id));
  // A server that is up is connected before the start returns (the demo asks at once); one that is not stays retried.
  await tools.firstAttempt;
  return {
    url: a2a.url,
    simulator: tools.simulator,
    metrics,
    async close() {
      await a2a.close();
      gate.guard.stop();
      await tools.close();
      if (redis !== undefined) await closeRedis(redis);
    },
  };
}
