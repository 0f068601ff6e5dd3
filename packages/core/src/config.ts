import { z } from 'zod';
import { urlHasUserinfo } from './redact-url.js';

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

/** Fewest characters of a bearer token Flotilla accepts or sends (`openssl rand -hex 24` gives 48): guessing stays out of reach. */
export const TOKEN_MIN_CHARS = 16;
/** Most characters of one bearer token (a header stays small; nothing we issue comes near). */
export const TOKEN_MAX_CHARS = 512;
/** Most tokens a server accepts at once: two during a rotation, with room for one per caller. */
export const TOKEN_LIST_MAX_TOKENS = 8;
/** Longest secret or free-form value a setting takes (an API key, a token list, a file path). */
export const SECRET_MAX_CHARS = 4_096;

const tokenMin = `must be at least ${TOKEN_MIN_CHARS} characters`;
const tokenMax = `must be at most ${TOKEN_MAX_CHARS} characters`;

/**
 * Tokens a server accepts: comma-separated (two during a rotation), each TOKEN_MIN_CHARS-TOKEN_MAX_CHARS characters,
 * at most TOKEN_LIST_MAX_TOKENS. Spaces around each token are dropped, and so are empty entries.
 */
export const TokenListSchema = z
  .string()
  .max(SECRET_MAX_CHARS, `must be at most ${SECRET_MAX_CHARS} characters`)
  .transform((value) => value.split(',').map((t) => t.trim()).filter((t) => t.length > 0))
  .pipe(
    z
      .array(z.string().min(TOKEN_MIN_CHARS, `each token ${tokenMin}`).max(TOKEN_MAX_CHARS, `each token ${tokenMax}`))
      .min(1, 'give at least one token')
      .max(TOKEN_LIST_MAX_TOKENS, `at most ${TOKEN_LIST_MAX_TOKENS} tokens`),
  );

/**
 * A required bearer token one side sends (`what` names it when missing): TOKEN_MIN_CHARS-TOKEN_MAX_CHARS characters,
 * spaces around it dropped (a Secret mounted from a file often ends in a newline).
 */
export function tokenSchema(what: string): z.ZodString {
  return z.string({ message: `${what} is required` }).trim().min(TOKEN_MIN_CHARS, tokenMin).max(TOKEN_MAX_CHARS, tokenMax);
}

/** A required non-empty secret of an upstream (its API token, in the form it issues): 1-SECRET_MAX_CHARS characters. */
export function secretSchema(what: string): z.ZodString {
  return z.string({ message: `${what} is required` }).min(1, `${what} must not be empty`).max(SECRET_MAX_CHARS, `${what} must be at most ${SECRET_MAX_CHARS} characters`);
}

/** An optional secret (unset: the feature it enables is off): when given, 1-SECRET_MAX_CHARS characters. */
export function optionalSecretSchema(what: string): z.ZodOptional<z.ZodString> {
  return secretSchema(what).optional();
}

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
