import { pino, type Logger } from 'pino';
import type { LogLevel } from './config.js';

export type { Logger } from 'pino';

export interface LoggerOptions {
  readonly name: string;
  readonly level?: LogLevel;
  /** Where lines go; defaults to stdout. Tests pass a stream to read them back. */
  readonly destination?: NodeJS.WritableStream;
}

/** The one way Flotilla creates a root logger; everything below it takes a child through injection. */
export function createLogger(options: LoggerOptions): Logger {
  const base = { name: options.name, level: options.level ?? 'info' };
  return options.destination === undefined ? pino(base) : pino(base, options.destination);
}

/** A logger that drops everything, for tests and library defaults. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
