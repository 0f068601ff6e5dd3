import { z } from 'zod';
import { FlotillaError } from './errors.js';
import { urlHasUserinfo } from './redact-url.js';

/**
 * Parse configuration once at start. `source` is usually `process.env` merged with CLI flags by the caller;
 * nothing else in Flotilla reads `process.env`. A bad value throws `config_invalid` naming every setting at
 * fault and what it allows, so the process can print it and stop.
 */
export function parseConfig<S extends z.ZodType>(schema: S, source: unknown, what = 'configuration'): z.output<S> {
  const parsed = schema.safeParse(source);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => {
    const setting = issue.path.length > 0 ? issue.path.join('.') : '(root)';
    return `  ${setting}: ${issue.message}`;
  });
  throw new FlotillaError('config_invalid', `invalid ${what}:\n${problems.join('\n')}`, {
    remedy: 'Fix the settings named above (flags or environment variables) and start again; --help lists them.',
    cause: parsed.error,
  });
}

/** A TCP port from a flag or the environment (strings are coerced). */
export const PortSchema = z.coerce
  .number({ message: 'must be a whole number from 0 to 65535' })
  .int('must be a whole number from 0 to 65535')
  .min(0, 'must be a whole number from 0 to 65535')
  .max(65535, 'must be a whole number from 0 to 65535');

/** A host name or IP address to bind to. */
export const HostSchema = z
  .string()
  .min(1, 'must not be empty')
  .max(253, 'must be at most 253 characters')
  .regex(/^[A-Za-z0-9.:\-[\]]+$/, 'must be a host name or an IP address such as 127.0.0.1 or 0.0.0.0');

/** An http(s) URL, without credentials in it (those go through token settings, which are never echoed or logged). */
export const HttpUrlSchema = z
  .string()
  .url('must be an http(s) URL such as http://127.0.0.1:8080')
  .refine((value) => /^https?:\/\//.test(value), 'must start with http:// or https://')
  .refine((value) => !urlHasUserinfo(value), 'must not carry credentials (user:password@): pass them through the token settings instead');

/**
 * Tokens a server accepts: comma-separated (two during a rotation), each 16-512 characters, at most 8.
 * Spaces around each token are dropped, and so are empty entries.
 */
export const TokenListSchema = z
  .string()
  .max(4_096, 'must be at most 4096 characters')
  .transform((value) => value.split(',').map((t) => t.trim()).filter((t) => t.length > 0))
  .pipe(z.array(z.string().min(16, 'each token must be at least 16 characters').max(512, 'each token must be at most 512 characters')).min(1, 'give at least one token').max(8, 'at most 8 tokens'));

/** A positive integer with inclusive bounds, coerced from strings; the message names the range. */
export function boundedInt(min: number, max: number): z.ZodCoercedNumber<unknown> {
  const message = `must be a whole number from ${min} to ${max}`;
  return z.coerce.number({ message }).int(message).min(min, message).max(max, message);
}

/** A boolean from a flag or the environment: true/false/1/0/yes/no. */
export const BooleanFlagSchema = z.union([
  z.boolean(),
  z
    .enum(['true', 'false', '1', '0', 'yes', 'no'], { message: 'must be true or false' })
    .transform((value) => value === 'true' || value === '1' || value === 'yes'),
]);

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export const LogLevelSchema = z.enum(LOG_LEVELS, { message: `must be one of ${LOG_LEVELS.join(', ')}` });
export type LogLevel = z.infer<typeof LogLevelSchema>;
