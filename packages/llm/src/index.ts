// The settings, modes and hybrid router, also served alone (without LangChain) as `@flotilla/llm/modes`.
export * from './modes.js';
export { contextTokensNeeded, MAX_CONTEXT_TOKENS_MIN, MAX_CONTEXT_TOKENS_MAX } from './settings.js';
export { createChatModel, type ChatModelHandle, type ChatModelOptions } from './chat.js';
export { toLangChain, fromAiMessage, toBindable, replyText, RESUME_TEXT } from './convert.js';
export { META_TOOLS, FIND_TOOLS, LOAD_TOOLS, runMetaTool, freshLoaded, type LoadedTool, type MetaOutcome } from './discovery.js';
export { systemPrompt, SHARED_RULES } from './prompts.js';
export { createLlmAgent, RULES_TURN_LIMITS, type LlmAgentOptions, type LlmTurn, type LlmMemory, type LlmLimits, type DiscoveryOutcome } from './agent.js';
export { llmAnswerTurn, type LlmAnswer, type LlmAnswerOptions } from './answer.js';
