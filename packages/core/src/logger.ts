import { Writable } from 'node:stream';
import { pino, type Logger, type LoggerOptions as LoggerOptionsOfPino } from 'pino';
import type { LogLevel } from './config.js';
import { redactUrl } from './redact-url.js';

export type { Logger } from 'pino';

export interface LoggerOptions {
  readonly name: string;
  readonly level?: LogLevel;
  /** Where lines go; defaults to stdout. Tests pass a stream to read them back. */
  readonly destination?: NodeJS.WritableStream;
}

/** Secrets never written, whatever object a log line carries (headers, settings, tokens), top level or one down. */
const SECRET_KEYS = ['authorization', 'x-api-key', 'cookie', 'token', 'apiKey', 'api_key', 'password', 'secret', 'botToken', 'appToken', 'signingSecret', 'agentToken', 'a2aTokens', 'llmApiKey', 'argocdToken', 'netboxToken', 'mcpToken', 'mcpTokens'];
export const REDACT_PATHS: readonly string[] = [
  ...SECRET_KEYS.map((k) => (k.includes('-') ? `["${k}"]` : k)),
  ...SECRET_KEYS.map((k) => (k.includes('-') ? `*["${k}"]` : `*.${k}`)),
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers.cookie',
  'headers.authorization',
  'headers["x-api-key"]',
];
export const REDACTED = '[redacted]';

/**
 * The one way Flotilla creates a root logger; everything below it takes a child through injection. Secrets are
 * redacted by key (REDACT_PATHS), and a URL never carries credentials, whatever key, depth, child binding, error
 * (message, stack, cause) or message it sits in: each finished line goes through `redactUrl` (pino's `streamWrite`
 * hook) before it is written. That is one native scan for `://` per line; only the authority of a URL found is
 * walked. In JSON text a URL's authority always ends at the closing quote of its string, so a line stays valid JSON.
 */
export function createLogger(options: LoggerOptions): Logger {
  const base: LoggerOptionsOfPino = {
    name: options.name,
    level: options.level ?? 'info',
    redact: { paths: [...REDACT_PATHS], censor: REDACTED },
    hooks: { streamWrite: redactUrl },
  };
  return options.destination === undefined ? pino(base) : pino(base, options.destination);
}

/** A logger whose lines (JSON text, redacted like any other) are kept in `lines`, for tests to read. */
export function capturingLogger(level: LogLevel = 'info'): { readonly logger: Logger; readonly lines: string[] } {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  return { logger: createLogger({ name: 'test', level, destination }), lines };
}

/** A logger that drops everything, for tests and library defaults. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
