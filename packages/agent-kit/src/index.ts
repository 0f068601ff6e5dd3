export {
  createRulesClassifier,
  understoodWords,
  normalise,
  CONFIDENCE_THRESHOLD,
  QUESTION_MAX_CHARS,
  TYPO_LIMITS,
  MEANING_CHANGERS,
  editDistance,
  type Correction,
  type Extracted,
  type Span,
  type RulesClassifier,
  type RulesClassifierOptions,
  type IntentRule,
  type WeightedPattern,
  type EntityExtractor,
  type Classification,
  type Complexity,
  type Entities,
  type EntityValue,
  CLASSIFICATION_MEMO,
} from './rules.js';
export { questionParts, QUESTION_PARTS } from './parts.js';
export { REASONING_WORDS, reasoningWords, reasoningNote } from './reasoning.js';
export {
  STRATEGIES,
  type Strategy,
  type ToolCall,
  type ToolResult,
  type Limitation,
  type Assessment,
  type MemoryStore,
  type WorkflowError,
  type AgentModel,
  type AgentDomain,
  type AssessInput,
  type RespondInput,
  type Answer,
  type CallTool,
  type TurnResult,
  type CachedTurn,
  type RanTurn,
  type RunTurn,
  type AskTurn,
  type CountedAnswer,
  type Unanswered,
} from './domain.js';
export {
  accountingNote,
  partialMetadata,
  unappliedEntities,
  notApplied,
  combineTurns,
  createWorkflow,
  rulesModel,
  WORKFLOW_LIMITS,
  type WorkflowOptions,
  answerTokens,
} from './workflow.js';
export { mcpToolCaller } from './mcp.js';
export {
  startA2AServer,
  advertisedBaseUrl,
  type AdvertisedSource,
  type A2AServerOptions,
  type RunningA2AServer,
  type AgentDescription,
  type A2AAuth,
  presentsToken,
  API_KEY_HEADER,
  QUERY_DOMAIN_EXTENSION,
  queryDomainExtension,
} from './a2a.js';
export { A2A_LIMITS, jsonRpcBinding, restBinding, type A2AProtocolOptions } from './a2a-protocol.js';
export { WorkflowExecutor, PROGRESS_NOTE_MAX_CHARS, PROGRESS_MIN_INTERVAL_MS, WORKING_NOTE_AFTER_MS, type AnswerTurn, type ProgressNote } from './executor.js';
export {
  TURN_LIMITS,
  TurnAborted,
  abortedOutcome,
  timedOutAnswer,
  BUSY_ANSWER,
  SHUTTING_DOWN_ANSWER,
  type TurnLimits,
  type WorkflowExecutorOptions,
} from './executor.js';
export {
  ConversationQueue,
  CONVERSATION_QUEUE_LIMITS,
  redisConversationLock,
  REDIS_CONVERSATION_LOCK_DEFAULTS,
  type ConversationQueueOptions,
  type ConversationSlot,
  type ConversationTicket,
  type ConversationLock,
  type ConversationLockAttempt,
  type HeldConversationLock,
  type RedisConversationLockOptions,
} from './conversation-queue.js';
export { markdownTable, countLines, toolErrorText, helpText, helpAnswer, cannotAnswerText, nextPageAnswer, type NextPageAnswerOptions } from './present.js';
export { oneValue, withoutPaging, pageOffset, pageShortfall, type PagePosition, type PageShortfall } from './paging.js';
export {
  answerWhenConnected,
  connectTools,
  MCP_CLIENT_SETTINGS,
  MCP_CONNECT_LIMITS,
  McpClientTokenSchema,
  toolsNotConnectedAnswer,
  toolsReadiness,
  type AgentTools,
  type ConnectToolsOptions,
  type McpConnectLimits,
  type ToolsConnection,
} from './tools.js';
export { textRequest } from './request.js';
export { CapabilityIndex, CAPABILITY_LIMITS, oneLine, type Capability, type ToolDefinition } from './capabilities.js';
export {
  MemoryGuard,
  startMemoryGuard,
  memorySource,
  resolveMemoryCgroup,
  readMemoryLimit,
  readMemoryUsage,
  MEMORY_GUARD_DEFAULTS,
  type GuardState,
  type MemoryGuardOptions,
  type CgroupPaths,
  type CgroupVersion,
  type MemoryCgroup,
  type MemorySource,
} from './memory-guard.js';
export { A2A_SERVER_SETTINGS, A2ATokensSchema, PublicUrlSchema, startA2AGate, type A2AGate, type A2AServerSettings } from './gate.js';
export { a2aClientFactory, connectA2AAgent } from './a2a-client.js';
export { HTTP_FETCH_LIMITS, keepAliveFetch } from './http-fetch.js';
export { boundedMemoryStore, CONVERSATIONS_MAX, CONVERSATION_STORE_LIMITS, type BoundedMemoryStoreOptions, type StoreMetrics } from './memory-store.js';
export { redisMemoryStore, REDIS_MEMORY_DEFAULTS, type RedisMemoryStoreOptions } from './redis-memory-store.js';
export { BoundedTaskStore, TASK_STORE_LIMITS, type BoundedTaskStoreOptions } from './task-store.js';
export {
  AnswerCache,
  meteredAnswerCache,
  redisAnswerCache,
  ANSWER_CACHE_DEFAULTS,
  REDIS_ANSWER_CACHE_DEFAULTS,
  answerKey,
  asksForFreshData,
  withAnswerCache,
  type AnswerCacheDecoratorOptions,
  type AnswerCacheStore,
  type RedisAnswerCacheOptions,
  type MeteredAnswerCacheOptions,
  type CacheEvent,
} from './answer-cache.js';
export {
  liveParser,
  parseMemo,
  planTyped,
  typedTurn,
  typedForRouting,
  respondTyped,
  typedAnswers,
  typedOf,
  LIVE_LEXICON_LIMITS,
  cellText,
  type TypedAnswerOptions,
  type TypedPresentation,
  type TypedQuestion,
  readableParts,
  routingReading,
  actTurn,
  actPage,
  typedPageTurn,
  EDITS_LAST_ENTITY,
} from './typed.js';
