import { z } from 'zod';
import { ClockSchema } from '../clock.js';

const fraction = z.number({ message: 'must be a number' }).min(0, 'must be from 0 to 1').max(1, 'must be from 0 to 1');

export const NetBoxFaultsSchema = z.strictObject({
  /** Added before every answer. */
  latencyMs: z.number({ message: 'must be a number' }).int('must be a whole number of milliseconds').min(0, 'must be >= 0').max(600_000, 'must be at most 600000').default(0),
  /** Fraction of authenticated API requests answered 503. */
  errorRate: fraction.default(0),
  /** Fraction of list responses cut off midway, their connection destroyed. */
  truncateRate: fraction.default(0),
  /** Seed of the fault sequences; defaults to the estate's seed. */
  seed: z.number().int().min(0).max(2 ** 32 - 1).optional(),
});

export const NetBoxRateLimitSchema = z.strictObject({
  requestsPerSecond: z.number({ message: 'must be a number' }).positive('must be > 0').max(1_000_000, 'must be at most 1000000'),
  burst: z.number({ message: 'must be a number' }).int('must be a whole number').min(1, 'must be at least 1').max(1_000_000, 'must be at most 1000000'),
});

export const NetBoxSimulatorOptionsSchema = z.strictObject({
  host: z.string().min(1, 'must not be empty').default('127.0.0.1'),
  port: z.number({ message: 'must be a number' }).int('must be a whole number').min(0, 'must be 0 (any free port) to 65535').max(65_535, 'must be 0 (any free port) to 65535').default(0),
  token: z.string({ message: 'is required (the API token clients must send)' }).min(1, 'must not be empty').regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces'),
  estate: z.unknown().optional(),
  faults: NetBoxFaultsSchema.prefault({}),
  rateLimit: NetBoxRateLimitSchema.optional(),
  maxPageSize: z.number({ message: 'must be a number' }).int('must be a whole number').min(1, 'must be at least 1').max(100_000, 'must be at most 100000').default(1000),
  clock: ClockSchema,
  logger: z.unknown().optional(),
});
