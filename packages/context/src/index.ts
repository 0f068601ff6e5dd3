export {
  CONTEXT_DEFAULTS,
  DEFAULT_SAFETY_MARGIN,
  type ContextBudget,
  type ContextRequest,
  type JsonValue,
  type Message,
  type ToolCall,
  type ToolDefinition,
} from './model.js';
export {
  countRequest,
  MESSAGE_OVERHEAD_TOKENS,
  TOOL_CALL_OVERHEAD_TOKENS,
  TOOL_DEFINITION_OVERHEAD_TOKENS,
  REPLY_PRIMING_TOKENS,
  type Counter,
} from './count.js';
export {
  fitRequest,
  repairToolPairs,
  dropEmptyTurns,
  isEmptyTurn,
  extractiveSummary,
  normaliseBudget,
  clearedResultText,
  SUMMARY_MAX_TOKENS,
  SUMMARY_PREFIX,
  MIN_MESSAGE_TEXT_TOKENS,
  NO_RESULT_TEXT,
  TRUNCATED_NOTE,
  type FitOptions,
  type FitResult,
  type Trim,
} from './fit.js';
export { recordFit, type ContextMetrics } from './record.js';
