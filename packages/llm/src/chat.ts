import { ChatAnthropic } from '@langchain/anthropic';
import { ChatOpenAICompletions } from '@langchain/openai';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { checkModelSettings, DEFAULT_MODELS, LLM_LIMITS, type LlmProvider, type LlmSettings } from './settings.js';

/** A configured model: the LangChain chat model, and what it is (for logs, metrics and the context budget). */
export interface ChatModelHandle {
  readonly provider: Exclude<LlmProvider, 'none'>;
  readonly model: string;
  readonly chat: BaseChatModel;
  /** --llm-base-url when set (errors name it); undefined for the provider's own API. */
  readonly baseUrl?: string | undefined;
}

export interface ChatModelOptions {
  /** Tokens the model may write per call (the context budget reserves them). */
  readonly maxOutputTokens: number;
  readonly timeoutMs?: number;
  readonly maxRetries?: number;
}

/**
 * The chat model the settings name, or undefined for the embedded rules. OpenAI-compatible servers are called
 * through Chat Completions (the API OpenAI, Azure OpenAI, vLLM and Ollama all serve); Anthropic through Messages.
 * The clients retry 429/5xx a bounded number of times and honour Retry-After.
 */
export function createChatModel(settings: Pick<LlmSettings, 'llmProvider' | 'llmModel' | 'llmBaseUrl' | 'llmApiKey'>, options: ChatModelOptions): ChatModelHandle | undefined {
  checkModelSettings(settings);
  const provider = settings.llmProvider;
  if (provider === 'none') return undefined;
  const model = settings.llmModel ?? DEFAULT_MODELS[provider];
  const timeout = options.timeoutMs ?? LLM_LIMITS.requestTimeoutMs;
  const maxRetries = options.maxRetries ?? LLM_LIMITS.maxRetries;
  if (provider === 'openai') {
    const chat = new ChatOpenAICompletions({
      model,
      apiKey: settings.llmApiKey ?? 'not-needed',
      maxTokens: options.maxOutputTokens,
      timeout,
      maxRetries,
      temperature: 0,
      ...(settings.llmBaseUrl === undefined ? {} : { configuration: { baseURL: settings.llmBaseUrl } }),
    });
    return { provider, model, chat, baseUrl: settings.llmBaseUrl };
  }
  const chat = new ChatAnthropic({
    model,
    apiKey: settings.llmApiKey,
    maxTokens: options.maxOutputTokens,
    maxRetries,
    temperature: 0,
    clientOptions: { timeout },
    ...(settings.llmBaseUrl === undefined ? {} : { anthropicApiUrl: settings.llmBaseUrl }),
  });
  return { provider, model, chat, baseUrl: settings.llmBaseUrl };
}
