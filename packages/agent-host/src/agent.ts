import { mkdtemp } from 'node:fs/promises';
import { setTimeout as delay } from 'node:timers/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import type { Client } from '@modelcontextprotocol/client';
import {
  A2A_SERVER_SETTINGS,
  abortedOutcome,
  answerTokens,
  answerWhenConnected,
  boundedMemoryStore,
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
  queryDomainExtension,
  LIVE_LEXICON_LIMITS,
  toolsReadiness,
  type AgentDescription,
  type AgentTools,
  type AnswerCacheStore,
  type AnswerTurn,
  type CachedTurn,
  type Classification,
  type McpConnectLimits,
  type MemoryStore,
  type RunningA2AServer,
  type TurnResult,
} from '@flotilla/agent-kit';
import type { DomainDecl, Lexicon } from '@flotilla/query';
import { createFileResultStore, createRedisResultStore, MCP_SERVER_SETTINGS, resultStoreCaps, type ResultStore } from '@flotilla/bounded-tools';
import { BooleanFlagSchema, FlotillaError, HttpUrlSchema, optionalSecretSchema, type PortSchema, portSetting, type Logger, type Settings, type SettingSpec, type SettingsSpec } from '@flotilla/core';
import { createMetrics, zeroAgentSeries, type FlotillaMetrics, type TurnOutcome, type WorkflowPath } from '@flotilla/metrics';
import { loadTokenCounter, type TokenCounter } from '@flotilla/tokens';
import type { LlmMemory } from '@flotilla/llm';
import { checkModelSettings, executionMode, fastPathFailed, LLM_SETTINGS, MODE_SETTINGS, modeAnswerTurn } from '@flotilla/llm/modes';
import { closeRedis, REDIS_SETTINGS, redisFromUrl, type RedisClient } from '@flotilla/state';
import { BASE_SETTINGS, envName, LOG_LEVEL_SETTING, upstreamAccess, type DomainMcp, type UpstreamAccessSettings } from './mcp.js';

/** A simulator of the domain's upstream, started for `--local`: the CLI passes it in, so agents never load simulators. */
export interface StartedSimulator {
  readonly url: string;
  close(): Promise<void>;
}

/** Starts the domain's simulator with the token the agent's tools will send; `now` is the agent's clock. */
export type SimulatorStarter<S extends StartedSimulator = StartedSimulator> = (options: { readonly token: string; readonly now: () => number; readonly logger: Logger }) => Promise<S>;

/** The agent's turn as the host runs it: the domain's workflow (several parts, sessions…) behind one `ask`. */
export interface DomainAnswerer<I extends string> {
  /** `classification`: the question's, when the caller (hybrid mode's router) made it already: not made again. */
  ask(question: string, contextId: string, signal?: AbortSignal, classification?: Classification<I>): Promise<TurnResult<I>>;
  /**
   * The agent's own reading of a question (its typed query, else its rules), for hybrid mode's router; the rules
   * classifier's when absent.
   */
  classify?(question: string, contextId: string): Promise<Classification<I>>;
}

/** What the host hands the domain to build its agent over connected tools. */
export interface DomainAgentContext<C, I extends string, M, Cfg> {
  readonly mcp: Client;
  readonly counter: TokenCounter;
  readonly capabilities: CapabilityIndex;
  /** The memory guard's budget factor (0.5 while memory is tight). */
  readonly budgetFactor: () => number;
  /** Answers reused across turns (and replicas, with --redis-url), metered. */
  readonly answerCache: AnswerCacheStore<CachedTurn<I, M>>;
  /** What the next turn of a conversation needs ("next page"). */
  readonly memoryStore: MemoryStore<M>;
  /** The upstream client of the tools in process; undefined when they are a remote MCP server. */
  readonly upstreamClient: C | undefined;
  /** The agent's metrics (a domain's own gauges, e.g. its lexicon's size). */
  readonly metrics?: FlotillaMetrics | undefined;
  /** Aborted when the agent closes: work a domain runs beside its turns (reading its lexicon) stops with it. */
  readonly lifetime?: AbortSignal | undefined;
  /** The clock time windows are measured from; Date.now unless a test fixes it. */
  readonly now: (() => number) | undefined;
  /** Told when the domain's lexicon has read the estate's names: the card's query-domain extension then carries them. */
  readonly onLexicon?: ((lexicon: Lexicon) => void) | undefined;
  readonly config: Cfg;
}

/** Where a domain differs from the defaults of the host (NetBox's progressive sessions, its limitation metadata). */
export interface DomainAgentHooks<I extends string, M, Cfg> {
  /**
   * The conversations' memory, made once at start: by default bounded in memory, or in Redis under
   * `<prefix><name>:memory:` with --redis-url.
   */
  memoryStore?(config: Cfg, context: { readonly redis: RedisClient | undefined; readonly keyPrefix: string; readonly metrics: FlotillaMetrics }): Promise<MemoryStore<M>>;
  /** More of the answer: a data part, metadata of its own (put before what the answer did not do). */
  reply?(turn: TurnResult<I>): { readonly data?: Readonly<Record<string, unknown>> | undefined; readonly metadata?: Readonly<Record<string, string | number | boolean>> };
}

/** A domain agent: its MCP half, and what it answers with. */
export interface DomainAgentDefinition<N extends string, U extends SettingsSpec, C, E extends object, X extends SettingsSpec, I extends string, M> {
  readonly mcp: DomainMcp<N, U, C, E>;
  readonly card: AgentDescription;
  /**
   * The domain's typed query, declared on the card (QUERY_DOMAIN_EXTENSION) with the live names its lexicon holds:
   * the supervisor routes by parsing questions with it.
   */
  readonly queryDomain?: DomainDecl;
  /** The card skill each intent belongs to (a metric label); `none` for help and unknown. */
  readonly skillOf: Readonly<Record<I, string>>;
  /** The skill of a turn when its intent alone does not say (a typed query about clusters, not applications). */
  readonly skillOfTurn?: ((turn: TurnResult<I>) => string | undefined) | undefined;
  /** Default port of `flotilla agent <name>`. */
  readonly port: number;
  /** The agent's own part of the model's system prompt (LLM and hybrid modes). */
  readonly prompt: string;
  /** Help of the settings whose words are the domain's. */
  readonly help: { readonly url: string; readonly token: string; readonly local: string };
  /** Settings of the domain's own (NetBox's --state-dir), listed after the result-store ones. */
  readonly settings?: X;
  /**
   * The intents whose plan the rules execute completely (complex and limitation-aware plans included): hybrid mode's
   * fast path takes only these, the model the rest. Every intent but `unknown` when not given.
   */
  readonly fullyExecuted?: readonly I[];
  /**
   * The intents that act on the conversation's last list ("next page", "only the degraded ones"): in hybrid mode, a
   * list the model produced is the model's to go on with.
   */
  readonly continuations?: readonly I[];
  /** The rules classifier: hybrid mode routes with it. */
  classifier(options: { readonly now: (() => number) | undefined }): { classify(question: string): Classification<I> };
  /** The domain's agent over connected tools. */
  createAgent(context: DomainAgentContext<C, I, M, Settings<DomainAgentSettings<N, U, X>>>): DomainAnswerer<I>;
  readonly hooks?: DomainAgentHooks<I, M, Settings<DomainAgentSettings<N, U, X>>>;
}

const AGENT_HEAD = { ...BASE_SETTINGS } as const satisfies SettingsSpec;
const LOCAL_SETTINGS = {
  dataDir: { flag: 'data-dir', env: 'FLOTILLA_DATA_DIR', schema: z.string().min(1).optional(), help: 'Folder of spilled results (in-process tools); a temporary one when unset' },
  resultDiskCapMiB: { ...MCP_SERVER_SETTINGS.resultDiskCapMiB, help: 'Disk (or Redis memory, with --redis-url) the spilled results of the in-process tools may use; the oldest go first' },
} as const satisfies SettingsSpec;
const AGENT_TAIL = { ...REDIS_SETTINGS, ...LOG_LEVEL_SETTING, ...LLM_SETTINGS, ...MODE_SETTINGS, ...A2A_SERVER_SETTINGS } as const satisfies SettingsSpec;
type AgentPortSettings = {
  readonly port: SettingSpec<ReturnType<typeof PortSchema.default>>;
  readonly mcpUrl: SettingSpec<ReturnType<typeof HttpUrlSchema.optional>>;
};
type LocalSwitch = { readonly local: SettingSpec<ReturnType<typeof BooleanFlagSchema.default>> };

/** Settings of `flotilla agent <name>`, in the order `--help` lists them. */
export type DomainAgentSettings<N extends string, U extends SettingsSpec, X extends SettingsSpec> = typeof AGENT_HEAD &
  AgentPortSettings &
  typeof MCP_CLIENT_SETTINGS &
  UpstreamAccessSettings<N, false> &
  U &
  LocalSwitch &
  typeof LOCAL_SETTINGS &
  X &
  typeof AGENT_TAIL;

/** The settings every domain agent has, whatever its domain: what the host itself reads. */
type CommonAgentConfig = Settings<typeof AGENT_HEAD & AgentPortSettings & typeof MCP_CLIENT_SETTINGS & LocalSwitch & typeof LOCAL_SETTINGS & typeof AGENT_TAIL>;

/** What only code (tests, benchmarks, the CLI) sets: not a flag. */
export interface DomainAgentStartOptions<S extends StartedSimulator = StartedSimulator> {
  /** The clock time windows ("synced in the last hour") are measured from; Date.now by default. */
  readonly now?: (() => number) | undefined;
  /** Bounds of the retries to reach --mcp-url (MCP_CONNECT_LIMITS by default); tests shorten them. */
  readonly mcpConnectLimits?: Partial<McpConnectLimits> | undefined;
  /** Starts the upstream's simulator for --local (the CLI's registry passes it); without it --local is refused. */
  readonly simulator?: SimulatorStarter<S> | undefined;
}

export interface RunningDomainAgent<S extends StartedSimulator = StartedSimulator> {
  readonly url: string;
  /** The simulator started by --local. */
  readonly simulator: S | undefined;
  readonly metrics: FlotillaMetrics;
  close(): Promise<void>;
}

/** A domain agent, ready to start: its settings and the MCP half's. */
export interface DomainAgent<N extends string, U extends SettingsSpec, C, E extends object, X extends SettingsSpec, I extends string, M> {
  readonly definition: DomainAgentDefinition<N, U, C, E, X, I, M>;
  readonly name: N;
  /** Settings of `flotilla agent <name>`; flags win over environment variables. */
  readonly settings: DomainAgentSettings<N, U, X>;
  /**
   * The agent over A2A, with its tools over MCP (remote, or in process against the upstream or the simulator).
   * With --redis-url, conversation memory, the answer cache and (in-process tools) spilled results and the snapshot
   * index live in Redis under `<redis-key-prefix><name>:`, so replicas continue each other's conversations; an
   * unreachable Redis stops the start with an error naming the setting. A remote MCP server that is not up does not:
   * the agent serves at once, not ready, and connects when it comes up (MCP_CONNECT_LIMITS).
   */
  startAgent<S extends StartedSimulator = StartedSimulator>(config: Settings<DomainAgentSettings<N, U, X>>, logger: Logger, options?: DomainAgentStartOptions<S>): Promise<RunningDomainAgent<S>>;
}

/**
 * Metrics of one turn: path, outcome, answer tokens, and the limitations detected and how they were handled. `signal`
 * is the turn's: one the executor aborted counts as `timed_out` (deadline) or `failed` (shutdown), whatever the turn made of it.
 */
export function recordTurn<I extends string>(metrics: FlotillaMetrics, agent: string, skill: string, turn: TurnResult<I>, seconds: number, tokens: number, signal?: AbortSignal): void {
  const path: WorkflowPath = turn.strategy ?? 'none';
  const outcome: TurnOutcome = abortedOutcome(signal) ?? (turn.error !== undefined ? 'failed' : 'answered');
  metrics.agentTurns.inc({ agent, skill, path, outcome });
  metrics.agentTurnDuration.observe({ agent, skill, path }, seconds);
  metrics.agentAnswerTokens.observe({ agent }, tokens);
  for (const limitation of turn.limitations) {
    if (limitation.kind !== 'low_confidence' && limitation.kind !== 'unsupported') metrics.limitationsDetected.inc({ agent, kind: limitation.kind });
  }
  for (const strategy of turn.handling?.strategies ?? []) metrics.limitationStrategies.inc({ agent, strategy });
  if (turn.detectSeconds !== undefined) metrics.limitationDetectSeconds.observe({ agent }, turn.detectSeconds);
}

/**
 * Defines a domain agent over the host: the settings tables, and `startAgent` with everything every agent shares
 * (Redis, stores, the A2A gate and server, the capability index, rules/llm/hybrid modes, metrics, readiness, the MCP
 * connect retry, --local). The domain brings only its card, classifier, agent and hooks.
 */
export function defineDomainAgent<N extends string, U extends SettingsSpec, C, E extends object, X extends SettingsSpec = Record<never, never>, I extends string = string, M = unknown>(
  definition: DomainAgentDefinition<N, U, C, E, X, I, M>,
): DomainAgent<N, U, C, E, X, I, M> {
  const { name, title, upstream } = definition.mcp.definition.access;
  const access = {
    [`${name}Url`]: { flag: `${name}-url`, env: envName(name, 'URL'), schema: HttpUrlSchema.optional(), help: definition.help.url },
    [`${name}Token`]: { flag: `${name}-token`, env: envName(name, 'TOKEN'), schema: optionalSecretSchema(upstream.tokenName), help: definition.help.token, secret: true },
  } as unknown as UpstreamAccessSettings<N, false>;
  const settings: DomainAgentSettings<N, U, X> = {
    ...AGENT_HEAD,
    port: portSetting({ env: envName(name, 'AGENT_PORT'), default: definition.port, help: 'Port of the A2A agent (card, JSON-RPC, REST)' }),
    mcpUrl: {
      flag: 'mcp-url',
      env: envName(name, 'MCP_URL'),
      schema: HttpUrlSchema.optional(),
      help: `${title} MCP server (…/mcp); unset runs the tools in process. Reached in the background, retried with backoff while it is down (/readyz 503 meanwhile)`,
    },
    ...MCP_CLIENT_SETTINGS,
    ...access,
    ...upstream.settings,
    local: { flag: 'local', env: 'FLOTILLA_LOCAL', schema: BooleanFlagSchema.default(false), help: definition.help.local, isSwitch: true },
    ...LOCAL_SETTINGS,
    ...((definition.settings ?? {}) as X),
    ...AGENT_TAIL,
  };
  type Config = Settings<DomainAgentSettings<N, U, X>>;

  async function startWith<S extends StartedSimulator>(config: Config, logger: Logger, redis: RedisClient | undefined, keyPrefix: string, options: DomainAgentStartOptions<S>): Promise<RunningDomainAgent<S>> {
    const common = config as unknown as CommonAgentConfig;
    const mode = executionMode(common.mode, common.llmProvider);
    // A wrong LLM setting is a configuration error now, not something the background connect to the tools could fix.
    checkModelSettings(common);
    // LangChain and the provider's SDK are loaded only for a mode that calls a model: in rules mode, never.
    const llmStack = mode === 'rules' ? undefined : await import('@flotilla/llm');
    const counter = await loadTokenCounter();
    const metrics = createMetrics({ defaultMetrics: true });
    // The domain's memory store (a hook may touch the disk and fail) before the gate: a failed start leaves no guard running.
    const memoryStore: MemoryStore<M> =
      (await definition.hooks?.memoryStore?.(config, { redis, keyPrefix, metrics })) ??
      (redis === undefined ? boundedMemoryStore<M>({ metrics }) : redisMemoryStore<M>({ client: redis, keyPrefix: `${keyPrefix}memory:` }));
    const classifier = definition.classifier({ now: options.now });
    const lifetime = new AbortController();
    const gate = await startA2AGate(common, { agent: name, metrics, logger });
    let upstreamClient: C | undefined;
    // The card's query-domain extension: the declaration at once, its live names as the lexicon reads them.
    const published: { server?: RunningA2AServer } = {};
    let domainExtension = definition.queryDomain === undefined ? undefined : queryDomainExtension(definition.queryDomain);
    let lexiconRead: () => void = () => undefined;
    const firstLexicon = new Promise<void>((resolve) => {
      lexiconRead = resolve;
    });
    let prepared = false;
    const onLexicon = (lexicon: Lexicon): void => {
      lexiconRead();
      if (definition.queryDomain === undefined) return;
      domainExtension = queryDomainExtension(definition.queryDomain, lexicon);
      published.server?.setExtension(domainExtension);
    };
    /** The answer over connected tools: their capability index, the domain's workflow and the model's loop over them. */
    const prepare = async (mcp: Client): Promise<AnswerTurn> => {
      const capabilities = await CapabilityIndex.fromClient(mcp);
      const llm = llmStack?.llmAnswerTurn({
        agent: name,
        settings: common,
        mcp,
        index: capabilities,
        prompt: definition.prompt,
        counter,
        metrics,
        logger,
        budgetFactor: gate.budgetFactor,
        memoryStore: redis === undefined ? undefined : redisMemoryStore<LlmMemory>({ client: redis, keyPrefix: `${keyPrefix}llm-memory:` }),
      });
      const agent = definition.createAgent({
        mcp,
        counter,
        capabilities,
        budgetFactor: gate.budgetFactor,
        memoryStore,
        answerCache: meteredAnswerCache<CachedTurn<I, M>>(metrics, { store: redis === undefined ? undefined : redisAnswerCache({ client: redis, keyPrefix: `${keyPrefix}answers:` }), logger }),
        upstreamClient,
        metrics,
        lifetime: lifetime.signal,
        now: options.now,
        onLexicon,
        config,
      });
      prepared = true;
      /** The rules workflow's answer (the fast path in hybrid mode), and whether it really answered. */
      const rulesTurn = async (question: string, contextId: string, _progress: (note: string) => void, signal?: AbortSignal, classification?: Classification<I>) => {
        const started = performance.now();
        let turn: TurnResult<I>;
        try {
          turn = await agent.ask(question, contextId, signal, classification);
        } catch (error) {
          // Aborted (deadline, shutdown): counted here, once; the executor answers it.
          const aborted = abortedOutcome(signal);
          if (aborted !== undefined) metrics.agentTurns.inc({ agent: name, skill: 'none', path: 'none', outcome: aborted });
          throw error;
        }
        // Counted once, when the answer was written (or cached): not again per request.
        const tokens = answerTokens(turn, counter);
        const skill = turn.intent === undefined ? 'none' : (definition.skillOfTurn?.(turn) ?? definition.skillOf[turn.intent]);
        recordTurn(metrics, name, skill, turn, (performance.now() - started) / 1000, tokens, signal);
        const extra = definition.hooks?.reply?.(turn);
        const metadata = {
          intent: turn.intent ?? 'none',
          confidence: turn.confidence,
          strategy: turn.strategy ?? 'none',
          tool_calls: turn.toolCalls,
          cached: turn.cached,
          answer_tokens: tokens,
          ...extra?.metadata,
          // What the answer says it did not do (words not understood, filters not applied): a partial answer.
          ...partialMetadata(turn.data),
        };
        const reply = { answer: turn.answer, options: turn.options, ...(extra?.data === undefined ? {} : { data: extra.data }), metadata };
        return { reply, failed: fastPathFailed(turn), listed: turn.listed === true };
      };
      return modeAnswerTurn(mode, {
        agent: name,
        classify: (q, contextId) => agent.classify?.(q, contextId) ?? classifier.classify(q),
        fast: rulesTurn,
        discovery: llm?.turn,
        conversation: llm?.conversation,
        metrics,
        fullyExecuted: definition.fullyExecuted,
        continuations: definition.continuations,
      });
    };
    const { url: upstreamUrl, token: upstreamToken } = upstreamAccess(name, config);
    let tools: AgentTools<S, AnswerTurn>;
    try {
      tools = await connectTools({
        agent: name,
        logger: logger.child({ component: 'mcp-client' }),
        mcpUrl: common.mcpUrl,
        mcpToken: common.mcpToken,
        local: common.local,
        connectLimits: options.mcpConnectLimits,
        upstreamUrl,
        upstreamToken,
        upstreamFlags: `--${name}-url and --${name}-token`,
        // The composition root (the CLI) owns the simulators: the agent's package never loads one.
        startSimulator: (token) => {
          if (options.simulator === undefined) {
            return Promise.reject(
              new FlotillaError('config_invalid', `--local needs the ${title} simulator, and this start was given none`, {
                remedy: `run \`flotilla agent ${name} --local\` (the CLI brings the simulator), or give --${name}-url and --${name}-token`,
              }),
            );
          }
          return options.simulator({ token, now: options.now ?? Date.now, logger: logger.child({ component: `${name}-sim` }) });
        },
        inProcess: async (url, token) => {
          const store: ResultStore =
            redis === undefined
              ? await createFileResultStore({ directory: resolve(common.dataDir ?? (await mkdtemp(join(tmpdir(), `flotilla-${name}-`)))), ...resultStoreCaps(common.resultDiskCapMiB), metrics })
              : createRedisResultStore({ client: redis, keyPrefix, ...resultStoreCaps(common.resultDiskCapMiB), metrics });
          const client = definition.mcp.clientFrom(url, token, config, metrics, logger.child({ component: `${name}-client` }));
          upstreamClient = client;
          const connected = await definition.mcp.connectInProcess({
            client,
            counter,
            store,
            metrics,
            logger: logger.child({ component: `${name}-mcp` }),
            budgetFactor: gate.budgetFactor,
            ...definition.mcp.toolOptionsFrom(config),
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
        agent: definition.card,
        host: common.host,
        port: common.port,
        publicUrl: common.publicUrl,
        logger,
        metrics,
        auth: gate.auth,
        guard: gate.guard,
        readiness: toolsReadiness(tools),
        onReject: gate.onReject,
        onQueueDepth: gate.onQueueDepth,
        turnTimeoutMs: common.turnTimeoutMs,
        // With replicas, a conversation's turns are ordered across them (a lease in Redis), not only within this one.
        conversationLock: redis === undefined ? undefined : redisConversationLock({ client: redis, keyPrefix: `${keyPrefix}turn-lock:`, logger: logger.child({ component: 'conversation-lock' }) }),
        answer: answerWhenConnected(tools, () => metrics.agentTurns.inc({ agent: name, skill: 'none', path: 'none', outcome: 'rejected' })),
      });
    } catch (error) {
      lifetime.abort();
      await tools.close();
      gate.guard.stop();
      throw error;
    }
    published.server = a2a;
    if (domainExtension !== undefined) a2a.setExtension(domainExtension);
    // Every turn series exists from the start, at zero: the first failed turn after a start can alert.
    zeroAgentSeries(
      metrics,
      name,
      definition.card.skills.map((s) => s.id),
    );
    // A server that is up is connected before the start returns (the demo asks at once); one that is not stays retried.
    await tools.firstAttempt;
    // Connected: the card carries the estate's names once the lexicon has read them, waited for as long as a first
    // question would wait (a supervisor reading the card at once routes by them); a slower read lands on the card later.
    if (prepared && definition.queryDomain !== undefined) {
      const waited = new AbortController();
      await Promise.race([firstLexicon, delay(LIVE_LEXICON_LIMITS.firstWaitMs, undefined, { signal: waited.signal }).catch(() => undefined)]);
      waited.abort();
    }
    return {
      url: a2a.url,
      simulator: tools.simulator,
      metrics,
      async close() {
        lifetime.abort();
        await a2a.close();
        gate.guard.stop();
        await tools.close();
        if (redis !== undefined) await closeRedis(redis);
      },
    };
  }

  return {
    definition,
    name,
    settings,
    async startAgent<S extends StartedSimulator = StartedSimulator>(config: Config, logger: Logger, options: DomainAgentStartOptions<S> = {}): Promise<RunningDomainAgent<S>> {
      const common = config as unknown as CommonAgentConfig;
      const redis: RedisClient | undefined = common.redisUrl === undefined ? undefined : await redisFromUrl(common.redisUrl, { logger });
      const keyPrefix = `${common.redisKeyPrefix}${name}:`;
      try {
        return await startWith(config, logger, redis, keyPrefix, options);
      } catch (error) {
        if (redis !== undefined) await closeRedis(redis);
        throw error;
      }
    },
  };
}
