/**
 * `@flotilla/llm/modes`: what an agent needs of LLM mode before it knows it will call a model (its settings, the
 * execution mode, the hybrid router), without LangChain or a provider's SDK. An agent in rules mode loads only this;
 * `@flotilla/llm` (the model clients and the tool loop, ~20 MiB) is imported once a mode calls a model.
 */
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
export {
  hybridAnswerTurn,
  modeAnswerTurn,
  executionMode,
  routeDecision,
  fastPathFailed,
  EXECUTION_MODES,
  MODE_SETTINGS,
  ROUTE_REASONS,
  type ExecutionMode,
  type HybridOptions,
  type RouteDecision,
  type RouteReason,
  type ListOwner,
  type SharedConversation,
} from './hybrid.js';
// The reasoning words are the rules' (agent-kit), named here too: hybrid mode routes by them.
export { REASONING_WORDS, reasoningWords } from '@flotilla/agent-kit';
