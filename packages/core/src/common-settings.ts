import { boundedInt, HostSchema, LogLevelSchema, PortSchema, type LogLevel } from './config.js';

// Settings every process repeats, written once: the same flag, variable, bounds and help wherever they appear.

/** Where a process listens: `--host` / FLOTILLA_HOST, loopback unless told otherwise. */
export function hostSetting(defaultHost = '127.0.0.1', help = 'Address to listen on') {
  return { flag: 'host', env: 'FLOTILLA_HOST', schema: HostSchema.default(defaultHost), help } as const;
}

/** The port of one process: `--port`, its own variable (each piece has one, so `flotilla up` can set them all). */
export function portSetting(options: { readonly env: string; readonly default: number; readonly help: string }) {
  return { flag: 'port', env: options.env, schema: PortSchema.default(options.default), help: options.help } as const;
}

/** `--log-level` / FLOTILLA_LOG_LEVEL. */
export function logLevelSetting(defaultLevel: LogLevel = 'info', help = 'Log level') {
  return { flag: 'log-level', env: 'FLOTILLA_LOG_LEVEL', schema: LogLevelSchema.default(defaultLevel), help } as const;
}

const KiB = 1024;
const MiB = 1024 * KiB;

/** The bounds of the upstream settings (inclusive), whatever the upstream. */
export const UPSTREAM_SETTING_BOUNDS = {
  /** Response body, MiB. */
  maxBodyMiB: { min: 1, max: 1024 },
  /** One value of a list (an item), KiB: below 16 KiB an ordinary Argo CD application would not fit. */
  maxValueKiB: { min: 16, max: 1024 * 1024 },
  /** One request, ms. */
  timeoutMs: { min: 100, max: 300_000 },
  /** Retries of one failed request. */
  retries: { min: 0, max: 5 },
  /** Requests in flight at once. */
  concurrency: { min: 1, max: 64 },
} as const;

/** The defaults the upstream settings start from: `UPSTREAM_DEFAULTS` of @flotilla/upstream, or an agent's own. */
export interface UpstreamSettingDefaults {
  readonly maxBodyBytes: number;
  readonly maxValueBytes: number;
  readonly timeoutMs: number;
  readonly retries: number;
  readonly maxConcurrent: number;
}

/** The keys `upstreamSettings` returns. */
export type UpstreamSettingKey = 'upstreamMaxBodyMiB' | 'upstreamMaxValueKiB' | 'upstreamTimeoutMs' | 'upstreamRetries' | 'upstreamConcurrency';

export interface UpstreamSettingsOptions {
  /** The upstream's name as a person writes it ("Argo CD", "NetBox"), in every help line. */
  readonly system: string;
  readonly defaults: UpstreamSettingDefaults;
  /** What one value of a list is, in the help of `--upstream-max-value-kib` (e.g. "one application, Helm values included"). */
  readonly item?: string;
  /** A help line of a setting, when the generic one does not fit the upstream. */
  readonly help?: Partial<Readonly<Record<UpstreamSettingKey, string>>>;
}

/** "an Argo CD", "a NetBox": the article of a name, by its first letter. */
function withArticle(name: string): string {
  return `${/^[aeiou]/i.test(name) ? 'an' : 'a'} ${name}`;
}

/**
 * How a process reads one upstream REST API, as five settings (body MiB, value KiB, timeout, retries, concurrency):
 * the same flags, variables and bounds for every upstream, its name in the help, its defaults.
 */
export function upstreamSettings(options: UpstreamSettingsOptions) {
  const { system, defaults } = options;
  const b = UPSTREAM_SETTING_BOUNDS;
  const item = options.item === undefined ? '' : ` (${options.item})`;
  return {
    upstreamMaxBodyMiB: {
      flag: 'upstream-max-body-mib',
      env: 'FLOTILLA_UPSTREAM_MAX_BODY_MIB',
      schema: boundedInt(b.maxBodyMiB.min, b.maxBodyMiB.max).default(Math.ceil(defaults.maxBodyBytes / MiB)),
      help: options.help?.upstreamMaxBodyMiB ?? `Largest ${system} response body read; larger ones are refused mid-stream`,
    },
    upstreamMaxValueKiB: {
      flag: 'upstream-max-value-kib',
      env: 'FLOTILLA_UPSTREAM_MAX_VALUE_KIB',
      schema: boundedInt(b.maxValueKiB.min, b.maxValueKiB.max).default(Math.ceil(defaults.maxValueBytes / KiB)),
      help: options.help?.upstreamMaxValueKiB ?? `Largest single value of ${withArticle(system)} list${item}; a larger one is refused mid-stream, naming its field`,
    },
    upstreamTimeoutMs: {
      flag: 'upstream-timeout-ms',
      env: 'FLOTILLA_UPSTREAM_TIMEOUT_MS',
      schema: boundedInt(b.timeoutMs.min, b.timeoutMs.max).default(defaults.timeoutMs),
      help: options.help?.upstreamTimeoutMs ?? `Time limit of one ${system} request`,
    },
    upstreamRetries: {
      flag: 'upstream-retries',
      env: 'FLOTILLA_UPSTREAM_RETRIES',
      schema: boundedInt(b.retries.min, b.retries.max).default(defaults.retries),
      help: options.help?.upstreamRetries ?? `Retries of a failed ${system} request (5xx, 429, timeout, network)`,
    },
    upstreamConcurrency: {
      flag: 'upstream-concurrency',
      env: 'FLOTILLA_UPSTREAM_CONCURRENCY',
      schema: boundedInt(b.concurrency.min, b.concurrency.max).default(defaults.maxConcurrent),
      help: options.help?.upstreamConcurrency ?? `${system} requests in flight at once (identical ones share one)`,
    },
  } as const;
}

/** The values of the upstream settings, as parsed. */
export type UpstreamSettingValues = Readonly<Record<UpstreamSettingKey, number>>;

/**
 * The upstream limits the settings give, in bytes and counts: spread them over the upstream's defaults
 * (`{ ...UPSTREAM_DEFAULTS, ...upstreamLimitsFrom(config) }`) for the limits it has no setting for.
 */
export function upstreamLimitsFrom(config: UpstreamSettingValues): UpstreamSettingDefaults {
  return {
    maxBodyBytes: config.upstreamMaxBodyMiB * MiB,
    maxValueBytes: config.upstreamMaxValueKiB * KiB,
    timeoutMs: config.upstreamTimeoutMs,
    retries: config.upstreamRetries,
    maxConcurrent: config.upstreamConcurrency,
  };
}
