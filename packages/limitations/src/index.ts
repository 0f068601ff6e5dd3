export {
  detectLimitations,
  batchedCalls,
  DETECTION_DEFAULTS,
  type DetectedLimitation,
  type LimitationKindName,
  type Impact,
  type PlanStep,
  type DetectionLimits,
  type RateState,
} from './detect.js';
export { chooseHandling, explain, filterOption, narrowOption, OPTIONS, type Handling, type HandlingRequest, type LimitationOption } from './handle.js';
export { batches, sampleSize, representativeSample, optimalBatchSize, type RelationKind } from './batch.js';
export {
  ProgressiveSessionSchema,
  SESSION_DEFAULTS,
  newSession,
  advance,
  isExhausted,
  createMemorySessionStore,
  createFileSessionStore,
  createRedisSessionStore,
  type RedisSessionStoreOptions,
  type ProgressiveSession,
  type SessionStore,
  type SessionStoreOptions,
} from './session.js';
