import { describe, expect, it } from 'vitest';
import {
  hostSetting,
  logLevelSetting,
  optionalSecretSchema,
  parseSettings,
  portSetting,
  SECRET_MAX_CHARS,
  secretSchema,
  settingsHelp,
  TOKEN_MAX_CHARS,
  TOKEN_MIN_CHARS,
  TokenListSchema,
  tokenSchema,
  upstreamLimitsFrom,
  upstreamSettings,
  type SettingsSpec,
} from './index.js';

const MiB = 1024 * 1024;
const DEFAULTS = { maxBodyBytes: 128 * MiB, maxValueBytes: 1024 * 1024, timeoutMs: 15_000, retries: 2, maxConcurrent: 4 };

function refusal(spec: SettingsSpec, flags: Record<string, string>): string {
  try {
    parseSettings(spec, flags, {}, 'test');
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected the settings to be refused');
}

describe('setting factories', () => {
  it('host, port and log level: one flag and variable each, their defaults and help', () => {
    const spec = {
      host: hostSetting(),
      port: portSetting({ env: 'FLOTILLA_TEST_PORT', default: 8099, help: 'Port of the test' }),
      logLevel: logLevelSetting('warn'),
    } as const satisfies SettingsSpec;
    expect(parseSettings(spec, {}, {}, 'test')).toEqual({ host: '127.0.0.1', port: 8099, logLevel: 'warn' });
    expect(parseSettings(spec, { port: '0' }, { FLOTILLA_HOST: '0.0.0.0', FLOTILLA_TEST_PORT: '1', FLOTILLA_LOG_LEVEL: 'debug' }, 'test')).toEqual({ host: '0.0.0.0', port: 0, logLevel: 'debug' });
    expect(refusal(spec, { port: '65536', 'log-level': 'loud', host: 'a b' })).toMatch(
      /--host \/ FLOTILLA_HOST: must be a host name[^\n]*\n {2}--port \/ FLOTILLA_TEST_PORT: must be a whole number from 0 to 65535[^\n]*\n {2}--log-level \/ FLOTILLA_LOG_LEVEL: must be one of fatal/,
    );
    expect(settingsHelp(spec)).toMatch(/--host <value> +Address to listen on \(default: "127.0.0.1"\) {2}\[env FLOTILLA_HOST\]/);
    expect(settingsHelp(spec)).toContain('Port of the test (default: 8099)');
    expect(hostSetting('0.0.0.0', 'Address every piece listens on').help).toBe('Address every piece listens on');
  });

  it('upstreamSettings: five settings, the same flags, variables and bounds for any upstream, its name in the help', () => {
    const spec = upstreamSettings({ system: 'Argo CD', defaults: DEFAULTS, item: 'one application, Helm values included' });
    expect(Object.values(spec).map((s) => `--${s.flag} ${s.env}`)).toEqual([
      '--upstream-max-body-mib FLOTILLA_UPSTREAM_MAX_BODY_MIB',
      '--upstream-max-value-kib FLOTILLA_UPSTREAM_MAX_VALUE_KIB',
      '--upstream-timeout-ms FLOTILLA_UPSTREAM_TIMEOUT_MS',
      '--upstream-retries FLOTILLA_UPSTREAM_RETRIES',
      '--upstream-concurrency FLOTILLA_UPSTREAM_CONCURRENCY',
    ]);
    expect(spec.upstreamMaxValueKiB.help).toBe('Largest single value of an Argo CD list (one application, Helm values included); a larger one is refused mid-stream, naming its field');
    expect(spec.upstreamRetries.help).toBe('Retries of a failed Argo CD request (5xx, 429, timeout, network)');
    const netbox = upstreamSettings({ system: 'NetBox', defaults: DEFAULTS, help: { upstreamRetries: 'Retries of a failed NetBox request' } });
    expect(netbox.upstreamMaxValueKiB.help).toBe('Largest single value of a NetBox list; a larger one is refused mid-stream, naming its field');
    expect(netbox.upstreamRetries.help).toBe('Retries of a failed NetBox request');

    const config = parseSettings(spec, {}, {}, 'test');
    expect(config).toEqual({ upstreamMaxBodyMiB: 128, upstreamMaxValueKiB: 1024, upstreamTimeoutMs: 15_000, upstreamRetries: 2, upstreamConcurrency: 4 });
    expect(upstreamLimitsFrom(config)).toEqual(DEFAULTS);
    expect(upstreamLimitsFrom(parseSettings(spec, { 'upstream-max-body-mib': '2', 'upstream-max-value-kib': '16' }, { FLOTILLA_UPSTREAM_CONCURRENCY: '64' }, 'test'))).toMatchObject({
      maxBodyBytes: 2 * MiB,
      maxValueBytes: 16 * 1024,
      maxConcurrent: 64,
    });
    // Each bound, just past it.
    const past = { 'upstream-max-body-mib': '1025', 'upstream-max-value-kib': '15', 'upstream-timeout-ms': '99', 'upstream-retries': '6', 'upstream-concurrency': '65' };
    const message = refusal(spec, past);
    for (const [flag, range] of [['upstream-max-body-mib', '1 to 1024'], ['upstream-max-value-kib', '16 to 1048576'], ['upstream-timeout-ms', '100 to 300000'], ['upstream-retries', '0 to 5'], ['upstream-concurrency', '1 to 64']]) {
      expect(message).toContain(`--${flag} / `);
      expect(message).toContain(`must be a whole number from ${range}`);
    }
  });
});

describe('token and secret schemas: each bound written once', () => {
  it('a token is TOKEN_MIN_CHARS to TOKEN_MAX_CHARS characters, spaces around it dropped', () => {
    const schema = tokenSchema('the agents\' token');
    expect(schema.parse(` ${'t'.repeat(TOKEN_MIN_CHARS)}\n`)).toBe('t'.repeat(TOKEN_MIN_CHARS));
    expect(schema.safeParse('t'.repeat(TOKEN_MIN_CHARS - 1)).error?.issues[0]?.message).toBe(`must be at least ${TOKEN_MIN_CHARS} characters`);
    expect(schema.safeParse('t'.repeat(TOKEN_MAX_CHARS + 1)).error?.issues[0]?.message).toBe(`must be at most ${TOKEN_MAX_CHARS} characters`);
    expect(schema.safeParse('t'.repeat(TOKEN_MAX_CHARS)).success).toBe(true);
    const spec = { token: { flag: 'token', env: 'FLOTILLA_T', schema: schema, help: 'x', secret: true } } as const satisfies SettingsSpec;
    expect(refusal(spec, {})).toContain('--token / FLOTILLA_T: is required (not set)');
    // The token list takes the same bounds.
    expect(TokenListSchema.safeParse(`${'a'.repeat(TOKEN_MIN_CHARS)},${'b'.repeat(TOKEN_MAX_CHARS)}`).success).toBe(true);
    expect(TokenListSchema.safeParse('x'.repeat(SECRET_MAX_CHARS + 1)).error?.issues[0]?.message).toBe(`must be at most ${SECRET_MAX_CHARS} characters`);
  });

  it('a secret is 1 to SECRET_MAX_CHARS characters, required or optional', () => {
    expect(secretSchema('the key').safeParse('k'.repeat(SECRET_MAX_CHARS)).success).toBe(true);
    expect(secretSchema('the key').safeParse('k'.repeat(SECRET_MAX_CHARS + 1)).error?.issues[0]?.message).toBe(`the key must be at most ${SECRET_MAX_CHARS} characters`);
    expect(optionalSecretSchema('the key').parse(undefined)).toBeUndefined();
    expect(optionalSecretSchema('the key').safeParse('').error?.issues[0]?.message).toBe('the key must not be empty');
    expect(optionalSecretSchema('the key').safeParse('k'.repeat(SECRET_MAX_CHARS + 1)).success).toBe(false);
  });
});
