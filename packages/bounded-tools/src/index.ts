export { LIMITS, STORE_DEFAULTS } from './limits.js';
export type { JsonValue, JsonObject } from './json.js';
export {
  measureToolResult,
  type BoundedToolResult,
  type ToolContentBlock,
  type TextBlock,
  type ResourceLinkBlock,
  type ResultSize,
} from './measure.js';
export {
  PAGE_SHAPE,
  computeCounts,
  queryFingerprint,
  encodeCursor,
  resolveOffset,
  stableStringify,
  type PageRequest,
  type CountKey,
  type Counts,
} from './paging.js';
export {
  SEARCH_SHAPE,
  SEARCH_MODES,
  compileMatcher,
  searchItems,
  type SearchMode,
  type SearchOptions,
  type SearchFields,
  type SearchMatch,
  type SearchOutcome,
  type Matcher,
} from './search.js';
export { fitItems, fitObject, pageText, PageItems, ITEM_SEPARATOR, PRICED_ITEM_MAX_CHARS, READ_AHEAD_ITEMS, ENVELOPE_CACHE, type FitOutcome, type ClippedItem, type ItemSource, type ItemCosts, type PageEnvelope } from './fit.js';
export { CostMemo, COST_MEMO_LIMITS, costMemoFor } from './memo.js';
export {
  createBoundedTools,
  compileFilter,
  READ_RESULT_TOOL,
  type BoundedTools,
  type BoundedToolsOptions,
  type ToolCallContext,
  type ToolPayload,
  type ObjectPayload,
  type ListPayload,
  type PagePayload,
  type StoredPagePayload,
  type ToolSpec,
  type ListToolSpec,
  type LoadedList,
} from './kit.js';
export {
  listPageOutput,
  objectOutput,
  ANY_ITEM_SCHEMA,
  CLIPPED_ITEM_SCHEMA,
  COUNTS_SCHEMA,
  READ_RESULT_OUTPUT,
  RESULT_SUMMARY_SCHEMA,
  TRUNCATED_OBJECT_SCHEMA,
  type ListPageOutput,
} from './output.js';
export {
  RESULT_ID_PATTERN,
  newResultId,
  resultUri,
  type ResultStore,
  type StoredResultMeta,
  type PutResultInput,
  type ReadRequest,
  type ReadResponse,
  type ReadTextsResponse,
} from './store/types.js';
export { createMemoryResultStore } from './store/memory-store.js';
export { createFileResultStore, type FileStoreOptions } from './store/file-store.js';
export { createRedisResultStore, type RedisStoreOptions } from './store/redis-store.js';
export type { StoreOptions, StoreLimits } from './store/common.js';
export { serveMcpOverHttp, connectInProcess, mcpServerPool, MCP_SERVER_POOL_MAX, type McpServerPool, type RunningMcpServer, type McpHttpOptions } from './serve.js';
export { MCP_SERVER_SETTINGS, resultStoreCaps, resultStoreFor, type McpServerSettings } from './settings.js';
export { SNAPSHOT_DEFAULTS, SNAPSHOT_SHAPE, SNAPSHOT_TTL_RANGE, createSnapshotCache, type SnapshotCache, type SnapshotCacheOptions, type SnapshotPage, type SnapshotHit, type SnapshotExtras, type SnapshotListPayload, type SnapshotLoad } from './snapshot.js';
export {
  QUERY_OUTPUT,
  QUERY_OUTPUT_LIMITS,
  LIST_VALUES_LIMITS,
  VALUE_ITEM,
  listValuesFilters,
  valueFields,
  OVERFLOW_HINT,
  checkQueryFields,
  conjuncts,
  cutText,
  fieldNotes,
  fieldsUsed,
  groupsOut,
  queryOutcome,
  rowColumns,
  rowOf,
  valueOut,
  type QueryOutcomeOptions,
} from './query-tool.js';
