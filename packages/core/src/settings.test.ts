import { describe, expect, it } from 'vitest';
import { HttpUrlSchema, parseSettings, TokenListSchema, type SettingsSpec } from './index.js';

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
