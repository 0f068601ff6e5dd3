import { z } from 'zod';
import type { Logger } from '@flotilla/core';
import type { ChatScript } from './script.js';

/** Bounds on every input (beyond them: the provider's 413 or 400). */
export const LLM_SIM_LIMITS = {
  /** Request body bytes (express.json's limit); larger bodies are answered 413. */
  bodyBytes: 8 * 1024 * 1024,
  /** Messages in one request. */
  messages: 10_000,
  /** Content parts or blocks in one message (and tool calls in one assistant message). */
  parts: 10_000,
  /** Tool definitions in one request (OpenAI's own limit is 128). */
  tools: 1_000,
  /** Tool calls in one scripted reply. */
  replyToolCalls: 128,
} as const;

export interface LlmFaults {
  /** The next `count` completion requests answer `status` with the provider's error body. */
  failNext?: { status: 429 | 500 | 503 | 529; count: number; retryAfterSeconds?: number };
}

export interface FakeLlmOptions {
  /** The credential clients must present; a wrong or missing one is answered 401 with the provider's body. */
  readonly apiKey: string;
  /** The "model"; default `defaultScript`. */
  readonly script?: ChatScript;
  /** Default 128,000 (OpenAI) / 200,000 (Anthropic); prompts counted above it get the provider's "too long" 400. */
  readonly contextWindow?: number;
  /** Default 127.0.0.1. */
  readonly host?: string;
  /** Default 0 (any free port). */
  readonly port?: number;
  /** Initial faults. */
  readonly faults?: LlmFaults;
  /** Requests kept in `requests`, default 10,000; the oldest go first. Each holds its body (at most 8 MiB). */
  readonly maxRecorded?: number;
  readonly logger?: Logger;
}

const count = (max: number): z.ZodNumber =>
  z.number({ message: 'must be a number' }).int('must be a whole number').min(0, 'must be >= 0').max(max, `must be at most ${max}`);

export const LlmFaultsSchema = z.strictObject({
  failNext: z
    .strictObject({
      status: z.union([z.literal(429), z.literal(500), z.literal(503), z.literal(529)], { message: 'must be 429, 500, 503 or 529' }),
      count: count(1_000_000),
      retryAfterSeconds: count(86_400).optional(),
    })
    .optional(),
});

export const FakeLlmOptionsSchema = z.strictObject({
  apiKey: z.string({ message: 'is required (the key clients must send)' }).min(1, 'must not be empty').regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces'),
  script: z.custom<ChatScript>((value) => typeof value === 'function', 'must be a function').optional(),
  contextWindow: count(100_000_000).min(1, 'must be at least 1').optional(),
  host: z.string().min(1, 'must not be empty').default('127.0.0.1'),
  port: count(65_535).default(0),
  faults: LlmFaultsSchema.prefault({}),
  maxRecorded: count(1_000_000).default(10_000),
  logger: z.unknown().optional(),
});
