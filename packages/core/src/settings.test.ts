import { describe, expect, it } from 'vitest';
import { capturingLogger, HttpUrlSchema, optionalSecretSchema, parseSettings, REDACTED, TokenListSchema, tokenSchema, type SettingsSpec } from './index.js';

const SPEC = {
  upstream: { flag: 'upstream-url', env: 'FLOTILLA_UPSTREAM_URL', schema: HttpUrlSchema.optional(), help: 'An upstream' },
  other: { flag: 'other-url', env: 'FLOTILLA_OTHER_URL', schema: HttpUrlSchema.optional(), help: 'Another URL' },
} as const satisfies SettingsSpec;

function problem(flags: Record<string, string>, env: Record<string, string> = {}): string {
  try {
    parseSettings(SPEC, flags, env, 'test');
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected the settings to be refused');
}

describe('HttpUrlSchema: no credentials in URLs', () => {
  it('refuses user:password@ and user@, saying where credentials go', () => {
    for (const url of ['http://user:secret-0123456789@host:8080/x', 'https://user@host', 'http://:secret-0123456789@host']) {
      const parsed = HttpUrlSchema.safeParse(url);
      expect(parsed.success).toBe(false);
      expect(parsed.error?.issues[0]?.message).toMatch(/must not carry credentials.*token settings/);
    }
    expect(HttpUrlSchema.safeParse('http://127.0.0.1:8080/mcp').success).toBe(true);
    expect(HttpUrlSchema.safeParse('https://host.example.com/path/@scope/x?mail=a@b').success).toBe(true);
  });

  it('shows the refused value with its userinfo redacted, from a flag or the environment', () => {
    const fromFlag = problem({ 'upstream-url': 'http://admin:secret-0123456789@argocd.example.com' });
    expect(fromFlag).toContain('--upstream-url / FLOTILLA_UPSTREAM_URL: must not carry credentials');
    expect(fromFlag).toContain('got "http://[redacted]@argocd.example.com"');
    expect(fromFlag).not.toContain('secret-0123456789');
    const fromEnv = problem({}, { FLOTILLA_UPSTREAM_URL: 'https://admin@argocd.example.com' });
    expect(fromEnv).toContain('got "https://[redacted]@argocd.example.com"');
    expect(fromEnv).not.toContain('admin');
    // Any shown raw value is redacted, whatever the failing check was.
    const invalid = problem({ 'other-url': 'ftp://u:secret-0123456789@host' });
    expect(invalid).toContain('got "ftp://[redacted]@host"');
    expect(invalid).not.toContain('secret-0123456789');
  });
});

describe('TokenListSchema', () => {
  it('takes 1 to 8 comma-separated tokens of 16 to 512 characters', () => {
    expect(TokenListSchema.parse(' old-token-0123456789 , new-token-0123456789,')).toEqual(['old-token-0123456789', 'new-token-0123456789']);
    expect(TokenListSchema.safeParse('short').error?.issues[0]?.message).toBe('each token must be at least 16 characters');
    expect(TokenListSchema.safeParse(' , ').error?.issues[0]?.message).toBe('give at least one token');
    expect(TokenListSchema.safeParse(Array.from({ length: 9 }, (_, i) => `token-${i}-0123456789abcdef`).join(',')).error?.issues[0]?.message).toBe('at most 8 tokens');
    expect(TokenListSchema.safeParse('x'.repeat(513)).error?.issues[0]?.message).toBe('each token must be at most 512 characters');
  });
});

describe('a setting declared secret is never logged, whatever its name', () => {
  it('parseSettings declares it to every logger, one created before parsing too, at any depth and in child bindings', () => {
    const secret = 'grafana-secret-0123456789';
    const early = capturingLogger();
    const spec = {
      grafanaToken: { flag: 'grafana-token', env: 'FLOTILLA_GRAFANA_TOKEN', schema: optionalSecretSchema('the Grafana token'), help: 'Grafana token', secret: true },
      grafanaUrl: { flag: 'grafana-url', env: 'FLOTILLA_GRAFANA_URL', schema: HttpUrlSchema.optional(), help: 'Grafana' },
    } as const satisfies SettingsSpec;
    const config = parseSettings(spec, { 'grafana-url': 'http://grafana:3000' }, { FLOTILLA_GRAFANA_TOKEN: secret }, 'test');
    expect(config.grafanaToken).toBe(secret);
    const late = capturingLogger();
    for (const { logger } of [early, late]) {
      logger.info(config, 'top level');
      logger.info({ config, list: [1, { n: 2 }] }, 'one down');
      logger.info({ a: { b: { grafanaToken: { nested: [secret, '}"]'] } }, after: 'kept' } }, 'deeper, a value with brackets');
      logger.child({ grafanaToken: secret }).info('child binding');
      logger.info({ env: { FLOTILLA_GRAFANA_TOKEN: secret }, flags: { 'grafana-token': secret } }, 'as a variable and a flag');
      logger.info({ note: `"grafanaToken":"${secret}" in a string is escaped, and no key` }, 'text');
    }
    for (const { lines } of [early, late]) {
      expect(lines).toHaveLength(6);
      const output = lines.slice(0, 5).join('');
      expect(output).not.toContain(secret);
      // Each line stays JSON, and what is not secret stays.
      const parsed = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(parsed[0]).toMatchObject({ grafanaToken: REDACTED, grafanaUrl: 'http://grafana:3000' });
      expect(parsed[1]).toMatchObject({ config: { grafanaToken: REDACTED }, list: [1, { n: 2 }] });
      expect(parsed[2]).toMatchObject({ a: { b: { grafanaToken: REDACTED }, after: 'kept' } });
      expect(parsed[3]).toMatchObject({ grafanaToken: REDACTED });
      expect(parsed[4]).toMatchObject({ env: { FLOTILLA_GRAFANA_TOKEN: REDACTED }, flags: { 'grafana-token': REDACTED } });
      expect(parsed[5]?.note).toContain(secret);
    }
  });

  it('a refused parse still declares its secrets', () => {
    const secret = 'refused-secret-0123456789';
    const spec = { vaultToken: { flag: 'vault-token', env: 'FLOTILLA_VAULT_TOKEN', schema: tokenSchema('the Vault token'), help: 'Vault', secret: true } } as const satisfies SettingsSpec;
    expect(() => parseSettings(spec, { 'vault-token': 'short', other: 'x' }, {}, 'test')).toThrow(/--vault-token \/ FLOTILLA_VAULT_TOKEN: must be at least 16 characters \(given\)/);
    const { lines, logger } = capturingLogger();
    logger.info({ vaultToken: secret, port: 1 }, 'x');
    expect(lines.join('')).not.toContain(secret);
    expect(lines.join('')).toContain('"port":1');
  });
});
