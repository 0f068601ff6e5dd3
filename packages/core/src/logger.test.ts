import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, REDACTED } from './index.js';

function capture() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  return { lines, logger: createLogger({ name: 'test', level: 'info', destination }) };
}

describe('logger redaction', () => {
  it('never writes tokens, keys or credentials, at the top level or one object down', () => {
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
