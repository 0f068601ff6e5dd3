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
  parseConfig,
  PortSchema,
  HostSchema,
  HttpUrlSchema,
  TokenListSchema,
  boundedInt,
  BooleanFlagSchema,
  LogLevelSchema,
  LOG_LEVELS,
  type LogLevel,
} from './config.js';
export { redactUrl, urlHasUserinfo, REDACTED_USERINFO } from './redact-url.js';
export { createLogger, capturingLogger, silentLogger, REDACT_PATHS, REDACTED, type Logger, type LoggerOptions } from './logger.js';
export {
  parseSettings,
  settingsHelp,
  secretSchema,
  type SettingSpec,
  type SettingsSpec,
  type Settings,
  type FlagValues,
} from './settings.js';
