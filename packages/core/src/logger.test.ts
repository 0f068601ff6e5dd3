import { describe, expect, it } from 'vitest';
import { capturingLogger, declareSecretKeys, REDACTED, redactUrl, type Logger } from './index.js';

const capture = () => capturingLogger();

describe('logger redaction', () => {
  it('never writes tokens, keys or credentials, at the top level or one object down', () => {
    // The settings' own keys are secret because their specs say so (parseSettings declares them; settings.test.ts).
    declareSecretKeys(['llmApiKey', 'a2aTokens', 'argocdToken', 'botToken', 'signingSecret']);
    const { lines, logger } = capture();
    const secret = 'very-secret-value-0123456789';
    logger.info({ token: secret, apiKey: secret, authorization: `Bearer ${secret}`, 'x-api-key': secret }, 'top level');
    logger.info({ config: { llmApiKey: secret, a2aTokens: [secret], argocdToken: secret, botToken: secret, signingSecret: secret, port: 8090 } }, 'settings');
    logger.info({ req: { headers: { authorization: `Bearer ${secret}`, 'x-api-key': secret, host: 'a' } } }, 'request');
    logger.info({ headers: { authorization: secret } }, 'headers');
    logger.child({ component: 'x' }).warn({ upstream: { token: secret } }, 'child');
    const output = lines.join('');
    expect(lines).toHaveLength(5);
    expect(output).not.toContain(secret);
    expect(output).toContain(REDACTED);
    // What is not secret stays.
    expect(output).toContain('"port":8090');
    expect(output).toContain('"host":"a"');
  });
});

describe('logger: URLs never carry credentials', () => {
  const secret = 'url-secret-0123456789';
  const lines = (): { lines: string[]; logger: Logger } => capture();

  it('redacts userinfo in any string of the logged object, top level and one down, in arrays, at any depth', () => {
    const { lines: out, logger } = lines();
    logger.info({ upstream: `https://admin:${secret}@argocd.example.com/api`, port: 8090 }, 'top level');
    logger.info({ config: { mcpUrl: `http://bot:${secret}@mcp:8091/mcp`, agents: [`http://u:${secret}@a:1`] } }, 'one down');
    logger.info({ redis: `redis://default:${secret}@redis:6379/0`, deep: { deeper: { target: `http://u:${secret}@h:2/x` } } }, 'redis, and any depth');
    logger.info({ note: `see https://${secret}@host/ and http://plain.example/a@b` }, 'user only');
    const output = out.join('');
    expect(out).toHaveLength(4);
    expect(output).not.toContain(secret);
    expect(output).toContain('https://[redacted]@argocd.example.com/api');
    expect(output).toContain('redis://[redacted]@redis:6379/0');
    expect(output).toContain('http://[redacted]@h:2/x');
    // An @ in a path is not userinfo, and what is not a URL stays.
    expect(output).toContain('http://plain.example/a@b');
    expect(output).toContain('"port":8090');
  });

  it('redacts userinfo in the message, in formatted arguments, in child bindings and in logged errors', () => {
    const { lines: out, logger } = lines();
    logger.info(`connecting to http://u:${secret}@host:1/x`);
    logger.warn('fetching %s failed', `https://u:${secret}@host:2/`);
    logger.child({ upstream: `http://u:${secret}@child:3` }).info('child');
    const error = Object.assign(new Error(`connect ECONNREFUSED http://u:${secret}@db:4`, { cause: new Error(`inner http://v:${secret}@db:5`) }), { where: `http://w:${secret}@db:6` });
    logger.error({ err: error }, 'failed');
    logger.error(error);
    const output = out.join('');
    expect(out).toHaveLength(5);
    expect(output).not.toContain(secret);
    const [, , , logged, bare] = out.map((line) => JSON.parse(line) as { msg: string; err: { message: string; stack: string; where: string } });
    expect(logged?.err.message).toContain('http://[redacted]@db:4');
    expect(logged?.err.stack).toContain('http://[redacted]@db:5');
    expect(logged?.err.where).toBe('http://[redacted]@db:6');
    expect(bare?.msg).toContain('http://[redacted]@db:4');
  });

  it('keeps key redaction working beside it, and leaves the logged object untouched', () => {
    const { lines: out, logger } = lines();
    const object = { token: secret, url: `http://u:${secret}@h:1`, nested: { password: secret, url: `http://u:${secret}@h:2` } };
    logger.info(object, 'both');
    expect(out.join('')).not.toContain(secret);
    expect(out.join('')).toContain(REDACTED);
    expect(object.url).toBe(`http://u:${secret}@h:1`);
    expect(object.nested.url).toBe(`http://u:${secret}@h:2`);
  });
});

describe('redactUrl', () => {
  it('replaces the userinfo of every URL in a text, whatever the scheme, and nothing else', () => {
    expect(redactUrl('http://user:secret@host:8080/path?q=a@b#f@g')).toBe('http://[redacted]@host:8080/path?q=a@b#f@g');
    expect(redactUrl('http://user@host')).toBe('http://[redacted]@host');
    // Characters URL parsers accept in a password are redacted with it.
    for (const odd of ['pa|ss', 'pa{ss}', 'pa<ss>', 'pa`ss']) expect(redactUrl(`http://user:${odd}@host/x`)).toBe('http://[redacted]@host/x');
    expect(redactUrl('rediss://default:p%40ss@redis.example.com:6380/0')).toBe('rediss://[redacted]@redis.example.com:6380/0');
    expect(redactUrl('a=http://u:p@h1,b=http://h2,c=http://v:q@h3')).toBe('a=http://[redacted]@h1,b=http://h2,c=http://[redacted]@h3');
    expect(redactUrl('a=http://h1,b=http://u:p@h2')).toBe('a=http://h1,b=http://[redacted]@h2');
    expect(redactUrl('"http://u:p@[::1]:80/x" and http://plain/x@y')).toBe('"http://[redacted]@[::1]:80/x" and http://plain/x@y');
    const plain = 'no url here, just user@example.com';
    expect(redactUrl(plain)).toBe(plain);
    expect(redactUrl(redactUrl('http://u:p@h'))).toBe('http://[redacted]@h');
  });

  it('stays linear on hostile input (no backtracking): many separators, many @', () => {
    const separators = `${'://'.repeat(100_000)}u:p@h`;
    expect(redactUrl(separators).endsWith('://[redacted]@h')).toBe(true);
    expect(redactUrl(separators)).not.toContain('u:p');
    const ats = `http://${'@'.repeat(200_000)}host/${'x@'.repeat(100_000)}`;
    expect(redactUrl(ats).startsWith('http://[redacted]@host/x@')).toBe(true);
  });
});
