import { z } from 'zod';
import { FlotillaError } from '@flotilla/core';
import { ClockSchema } from '../clock.js';
import { LOG_LIMITS } from './logs.js';

/** Parses `input` with `schema`, or throws a `config_invalid` FlotillaError naming every bad field. */
export function parseOptions<S extends z.ZodType>(schema: S, input: unknown, what: string): z.output<S> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : '(options)'}: ${issue.message}`);
  throw new FlotillaError('config_invalid', `Invalid ${what}: ${problems.join('; ')}`, {
    remedy: 'Fix the named option(s); every count is a whole number and every rate a fraction from 0 to 1.',
  });
}

const fraction = z.number({ message: 'must be a number' }).min(0, 'must be from 0 to 1').max(1, 'must be from 0 to 1');

export const ArgoFaultsSchema = z.strictObject({
  /** Added before every answer (health checks excepted). */
  latencyMs: z.number({ message: 'must be a number' }).int('must be a whole number of milliseconds').min(0, 'must be >= 0').max(600_000, 'must be at most 600000').default(0),
  /** Fraction of authenticated /api/v1 requests answered 503 (code 14). */
  errorRate: fraction.default(0),
  /** Fraction of list responses cut off midway, their connection destroyed. */
  truncateRate: fraction.default(0),
  /** Seed of the fault sequence; defaults to the estate's seed. */
  seed: z.number().int().min(0).max(2 ** 32 - 1).optional(),
});

const wholeNumber = (min: number, max: number) =>
  z
    .number({ message: 'must be a number' })
    .int('must be a whole number')
    .min(min, `must be at least ${min}`)
    .max(max, `must be at most ${max.toLocaleString('en-US')}`);

/** Per-application log sizes (keyed by application name). */
const AppLogSchema = z.strictObject({
  linesPerPod: wholeNumber(0, LOG_LIMITS.linesPerPodMax).optional(),
  /** One line of each of the application's pods' logs is this long (to test clients that cut lines). */
  longLineChars: wholeNumber(1, LOG_LIMITS.longLineCharsMax).optional(),
});

export const LogOptionsSchema = z.strictObject({
  /** Lines a pod that has run for a day logs; a younger pod logs in proportion. */
  linesPerPod: wholeNumber(0, LOG_LIMITS.linesPerPodMax).default(LOG_LIMITS.linesPerPodDefault),
  /** How long a `follow=true` stream stays open after the existing lines before it ends. */
  followMs: wholeNumber(0, LOG_LIMITS.followMsMax).default(LOG_LIMITS.followMsDefault),
  apps: z.record(z.string(), AppLogSchema).default({}),
});
export type LogOptions = z.output<typeof LogOptionsSchema>;

export const SimulatorOptionsSchema = z.strictObject({
  host: z.string().min(1, 'must not be empty').default('127.0.0.1'),
  port: z.number({ message: 'must be a number' }).int('must be a whole number').min(0, 'must be 0 (any free port) to 65535').max(65_535, 'must be 0 (any free port) to 65535').default(0),
  token: z.string({ message: 'is required (the bearer token clients must send)' }).min(1, 'must not be empty').regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces'),
  estate: z.unknown().optional(),
  faults: ArgoFaultsSchema.prefault({}),
  logs: LogOptionsSchema.prefault({}),
  clock: ClockSchema,
  logger: z.unknown().optional(),
});
