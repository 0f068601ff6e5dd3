export {
  LLM_SETTINGS,
  LLM_LIMITS,
  LLM_PROVIDERS,
  TOOL_DISCOVERY_MODES,
  DEFAULT_MODELS,
  checkModelSettings,
  contextBudgetFor,
  type LlmProvider,
  type LlmSettings,
  type ToolDiscoveryMode,
} from './settings.js';
export { createChatModel, type ChatModelHandle, type ChatModelOptions } from './chat.js';
export { toLangChain, fromAiMessage, toBindable, replyText, RESUME_TEXT } from './convert.js';
export { META_TOOLS, FIND_TOOLS, LOAD_TOOLS, runMetaTool, freshLoaded, type LoadedTool, type MetaOutcome } from './discovery.js';
export { systemPrompt, SHARED_RULES } from './prompts.js';
export { createLlmAgent, type LlmAgentOptions, type LlmTurn, type LlmMemory, type LlmLimits, type DiscoveryOutcome } from './agent.js';
export { llmAnswerTurn, type LlmAnswerOptions } from './answer.js';
export { hybridAnswerTurn, modeAnswerTurn, executionMode, isFastPath, fastPathFailed, EXECUTION_MODES, MODE_SETTINGS, type ExecutionMode, type HybridOptions } from './hybrid.js';
