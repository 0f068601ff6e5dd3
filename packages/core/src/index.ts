export {
  ERROR_CODES,
  ERROR_CATEGORY,
  FlotillaError,
  isFlotillaError,
  describeError,
  type ErrorCode,
  type ErrorCategory,
  type FlotillaErrorOptions,
} from './errors.js';
export {
  PortSchema,
  HostSchema,
  HttpUrlSchema,
  TokenListSchema,
  TOKEN_MIN_CHARS,
  TOKEN_MAX_CHARS,
  TOKEN_LIST_MAX_TOKENS,
  SECRET_MAX_CHARS,
  tokenSchema,
  secretSchema,
  optionalSecretSchema,
  boundedInt,
  BooleanFlagSchema,
  LogLevelSchema,
  LOG_LEVELS,
  type LogLevel,
} from './config.js';
export { redactUrl, urlHasUserinfo, REDACTED_USERINFO } from './redact-url.js';
export {
  createLogger,
  capturingLogger,
  silentLogger,
  declareSecretKeys,
  redactDeclaredKeys,
  REDACT_PATHS,
  REDACTED,
  type Logger,
  type LoggerOptions,
} from './logger.js';
export {
  parseSettings,
  settingsHelp,
  type SettingSpec,
  type SettingsSpec,
  type Settings,
  type FlagValues,
} from './settings.js';
export {
  hostSetting,
  portSetting,
  logLevelSetting,
  upstreamSettings,
  upstreamLimitsFrom,
  UPSTREAM_SETTING_BOUNDS,
  type UpstreamSettingDefaults,
  type UpstreamSettingKey,
  type UpstreamSettingsOptions,
  type UpstreamSettingValues,
} from './common-settings.js';
export {
  releaseStartupMemory,
  releaseStartupMemoryWhenQuiet,
  IDLE_MEMORY_LIMITS,
  type StartupMemoryRelease,
  type IdleMemoryOptions,
  type IdleMemoryWatch,
} from './idle-memory.js';
export { compiledOnFirstUse } from './compiled-on-first-use.js';
