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

/**
 * Keys that are secret wherever they appear (headers, generic names), top level or one down. The secrets of settings
 * are not listed here: a setting declares itself `secret: true` and `parseSettings` declares its key (below).
 */
const SECRET_KEYS = ['authorization', 'x-api-key', 'cookie', 'token', 'apiKey', 'api_key', 'password', 'secret'];
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

/** Keys declared secret (by settings specs), redacted in every line of every logger, whenever it was created. */
const declaredSecretKeys = new Set<string>();
/** `"key":` for any declared key, built again when one is declared. */
let declaredKeyPattern: RegExp | undefined;

/**
 * Declares keys whose values are never logged, at any depth, by any logger (created before or after): `parseSettings`
 * declares the key, flag and variable of every `secret: true` setting it reads, so a new setting needs nothing else.
 */
export function declareSecretKeys(keys: Iterable<string>): void {
  const before = declaredSecretKeys.size;
  for (const key of keys) if (key.length > 0) declaredSecretKeys.add(key);
  if (declaredSecretKeys.size === before) return;
  const alternatives = [...declaredSecretKeys].map((k) => JSON.stringify(k).slice(1, -1).replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  declaredKeyPattern = new RegExp(`"(?:${alternatives.join('|')})":`, 'g');
}

/** The index just past the JSON value that starts at `start` of `line` (pino wrote it: well formed). */
function endOfJsonValue(line: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < line.length; i++) {
    const c = line.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) {
        inString = false;
        if (depth === 0) return i + 1;
      }
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) depth++;
    else if (c === 0x7d || c === 0x5d) {
      if (depth === 0) return i; // the end of the enclosing object: a bare value ended here
      depth--;
      if (depth === 0) return i + 1;
    } else if (c === 0x2c && depth === 0) return i;
  }
  return line.length;
}

/**
 * Replaces the value of every declared secret key in a finished JSON line. pino escapes a quote inside a string, so
 * `"key":` only ever matches a real key; a line without declared keys is one native scan.
 */
export function redactDeclaredKeys(line: string): string {
  const pattern = declaredKeyPattern;
  if (pattern === undefined) return line;
  pattern.lastIndex = 0;
  let out = '';
  let from = 0;
  for (let match = pattern.exec(line); match !== null; match = pattern.exec(line)) {
    const start = match.index + match[0].length;
    if (start < from) continue;
    const end = endOfJsonValue(line, start);
    out += `${line.slice(from, start)}"${REDACTED}"`;
    from = end;
    pattern.lastIndex = end;
  }
  return from === 0 ? line : out + line.slice(from);
}

/**
 * The one way Flotilla creates a root logger; everything below it takes a child through injection. Secrets are
 * redacted by key: the generic keys of REDACT_PATHS (top level or one down), and every key a settings spec declared
 * secret (`declareSecretKeys`, at any depth, including child bindings), and a URL never carries credentials, whatever
 * key, depth, child binding, error (message, stack, cause) or message it sits in: each finished line goes through
 * `redactUrl` and `redactDeclaredKeys` (pino's `streamWrite` hook) before it is written. That is one native scan for
 * `://` per line, and one for the declared keys; only the authority of a URL found is walked. In JSON text a URL's
 * authority always ends at the closing quote of its string, so a line stays valid JSON.
 */
export function createLogger(options: LoggerOptions): Logger {
  const base: LoggerOptionsOfPino = {
    name: options.name,
    level: options.level ?? 'info',
    redact: { paths: [...REDACT_PATHS], censor: REDACTED },
    hooks: { streamWrite: (line) => redactDeclaredKeys(redactUrl(line)) },
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
