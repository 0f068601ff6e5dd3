import { z } from 'zod';
import { boundedInt, FlotillaError, HttpUrlSchema, optionalSecretSchema, type Settings, type SettingsSpec } from '@flotilla/core';
import { CONTEXT_DEFAULTS, type ContextBudget } from '@flotilla/context';

export const LLM_PROVIDERS = ['none', 'openai', 'anthropic'] as const;
export type LlmProvider = (typeof LLM_PROVIDERS)[number];

export const TOOL_DISCOVERY_MODES = ['index', 'full'] as const;
export type ToolDiscoveryMode = (typeof TOOL_DISCOVERY_MODES)[number];

/** The model used when a provider is chosen and no model is named. */
export const DEFAULT_MODELS: Readonly<Record<Exclude<LlmProvider, 'none'>, string>> = {
  openai: 'gpt-4o-mini',
  anthropic: 'claude-sonnet-4-5',
};

/**
 * Bounds of LLM mode. The per-question caps stop a model that loops; each is enforced in the tool loop and tested.
 */
export const LLM_LIMITS = {
  /** Model calls one question may make (the last one is made without tools, so it must answer). */
  maxModelCalls: 8,
  /** Tool calls one question may make; calls past it get a result saying so (never dropped). */
  maxToolCalls: 12,
  /** Tool calls one model reply may make; the rest get a "not run" result. */
  maxToolCallsPerReply: 4,
  /** Tokens of one tool message the model reads (tools bound their own results; this caps any server). */
  toolMessageMaxTokens: 4_000,
  /** Tokens of a model's answer (as the rules workflow). */
  answerMaxTokens: 4_000,
  /** One model call's deadline. */
  requestTimeoutMs: 60_000,
  /** Retries of one model call (429, 5xx, connection errors), by the provider's client. */
  maxRetries: 2,
  /** LLM summaries of older turns per question (more fall back to the extractive summary). */
  summariesPerQuestion: 1,
  /** Tokens of the transcript a summary call reads. */
  summaryInputMaxTokens: 6_000,
  /** Conversations whose history and loaded tools are kept in memory (least recently used dropped). */
  conversationsMax: 1_000,
  /** Loaded tool definitions stay bound this long in a conversation. */
  loadedToolTtlMs: 5 * 60_000,
  /** Tools one load_tools call may load. */
  loadPerCall: 4,
} as const;

/** Bounds of MAX_CONTEXT_TOKENS: a window below 2,000 tokens cannot hold a system prompt, tools and a reply. */
export const MAX_CONTEXT_TOKENS_MIN = 2_000;
export const MAX_CONTEXT_TOKENS_MAX = 2_000_000;

/** Settings of LLM mode, shared by every agent's settings table. */
export const LLM_SETTINGS = {
  llmProvider: {
    flag: 'llm-provider',
    env: 'FLOTILLA_LLM_PROVIDER',
    schema: z.enum(LLM_PROVIDERS, { message: `must be one of ${LLM_PROVIDERS.join(', ')}` }).default('none'),
    help: 'Model behind the agent: none (the embedded rules), openai (any OpenAI-compatible API) or anthropic',
  },
  llmModel: { flag: 'llm-model', env: 'FLOTILLA_LLM_MODEL', schema: z.string().min(1).max(200).optional(), help: `Model name (default ${DEFAULT_MODELS.openai} / ${DEFAULT_MODELS.anthropic})` },
  llmBaseUrl: {
    flag: 'llm-base-url',
    env: 'FLOTILLA_LLM_BASE_URL',
    schema: HttpUrlSchema.optional(),
    help: 'API base URL (Azure OpenAI, vLLM, Ollama …/v1; a proxy for Anthropic); the provider default when unset',
  },
  llmApiKey: { flag: 'llm-api-key', env: 'FLOTILLA_LLM_API_KEY', schema: optionalSecretSchema('the API key'), help: 'API key of the model provider', secret: true },
  maxContextTokens: {
    flag: 'max-context-tokens',
    env: 'MAX_CONTEXT_TOKENS',
    schema: boundedInt(MAX_CONTEXT_TOKENS_MIN, MAX_CONTEXT_TOKENS_MAX).optional(),
    help: `Context window every model request must fit (default ${CONTEXT_DEFAULTS.openai.maxContextTokens} openai, ${CONTEXT_DEFAULTS.anthropic.maxContextTokens} anthropic)`,
  },
  minMessagesToKeep: {
    flag: 'min-messages-to-keep',
    env: 'MIN_MESSAGES_TO_KEEP',
    schema: boundedInt(0, 100).optional(),
    help: `Most recent messages never summarised away (default ${CONTEXT_DEFAULTS.openai.minMessagesToKeep})`,
  },
  toolDiscovery: {
    flag: 'tool-discovery',
    env: 'FLOTILLA_TOOL_DISCOVERY',
    schema: z.enum(TOOL_DISCOVERY_MODES, { message: `must be one of ${TOOL_DISCOVERY_MODES.join(', ')}` }).default('index'),
    help: 'index: the model starts with a capability index and loads tools it needs; full: every tool bound upfront',
  },
} as const satisfies SettingsSpec;
export type LlmSettings = Settings<typeof LLM_SETTINGS>;

/** The context budget of a provider with the settings' overrides. */
export function contextBudgetFor(provider: LlmProvider, settings: Pick<LlmSettings, 'maxContextTokens' | 'minMessagesToKeep'>): ContextBudget {
  const base = CONTEXT_DEFAULTS[provider === 'none' ? 'rules' : provider];
  return {
    ...base,
    ...(settings.maxContextTokens === undefined ? {} : { maxContextTokens: settings.maxContextTokens }),
    ...(settings.minMessagesToKeep === undefined ? {} : { minMessagesToKeep: settings.minMessagesToKeep }),
    // A small window cannot reserve as much for the answer as a large one.
    reservedOutputTokens: Math.min(base.reservedOutputTokens, Math.floor((settings.maxContextTokens ?? base.maxContextTokens) / 8)),
  };
}

/**
 * The smallest MAX_CONTEXT_TOKENS (rounded up to a thousand, within the setting's bounds) whose budget, as
 * `contextBudgetFor` makes it (the reply's reserve grows with the window, up to the provider's), leaves `requestTokens`
 * for a request.
 */
export function contextTokensNeeded(requestTokens: number, reserveMax: number = CONTEXT_DEFAULTS.openai.reservedOutputTokens): number {
  const room = (n: number): number => n - Math.min(reserveMax, Math.floor(n / 8));
  let n = Math.max(MAX_CONTEXT_TOKENS_MIN, Math.ceil(requestTokens));
  // room(n) grows by at least 7/8 of every step, so this ends within a few rounds.
  while (room(n) < requestTokens) n += Math.max(1, Math.ceil(requestTokens - room(n)));
  return Math.min(MAX_CONTEXT_TOKENS_MAX, Math.ceil(n / 1_000) * 1_000);
}

/**
 * Throws `config_invalid` when the settings name a provider the model cannot be called with (a hosted API without a
 * key). Checked at start, also in rules mode, without loading the model clients: `createChatModel` checks the same.
 */
export function checkModelSettings(settings: Pick<LlmSettings, 'llmProvider' | 'llmBaseUrl' | 'llmApiKey'>): void {
  const provider = settings.llmProvider;
  // Local OpenAI-compatible servers (Ollama, vLLM) take no key; the hosted APIs need one.
  if (provider !== 'none' && settings.llmApiKey === undefined && (provider === 'anthropic' || settings.llmBaseUrl === undefined)) {
    throw new FlotillaError('config_invalid', `--llm-provider ${provider} needs an API key (--llm-api-key or FLOTILLA_LLM_API_KEY)`, {
      // A keyless local server is an OpenAI-compatible one; Anthropic's API always wants a key.
      remedy:
        provider === 'openai'
          ? 'Set --llm-api-key (FLOTILLA_LLM_API_KEY), or --llm-base-url for a local server that takes none, or --llm-provider none for the embedded rules.'
          : 'Set --llm-api-key (FLOTILLA_LLM_API_KEY), or --llm-provider none for the embedded rules.',
    });
  }
}
