import { createHash } from 'node:crypto';
import type { ChainableCommander } from 'ioredis';
import { FlotillaError } from '@flotilla/core';
import { guarded, type RedisClient } from './redis.js';

/** Runs a MULTI … EXEC; a command that failed inside it (out of memory, wrong type) fails the whole call. */
export async function transaction(chain: ChainableCommander): Promise<unknown[]> {
  const replies = await chain.exec();
  if (replies === null) throw new Error('the Redis transaction was aborted');
  return replies.map(([error, reply]) => {
    if (error !== null) throw error;
    return reply;
  });
}

/**
 * A Lua script run by its SHA1 (loaded on first use, and again after Redis restarts and forgets it). Scripts run
 * atomically, so replicas sharing a Redis never see a half-done put or eviction. Keys outside KEYS are touched by
 * some scripts (evicting other entries): fine for one Redis (or a primary with replicas), not for Redis Cluster.
 */
export function luaScript(source: string): (client: RedisClient, keys: readonly string[], args: readonly (string | number)[]) => Promise<unknown> {
  const sha = createHash('sha1').update(source).digest('hex');
  return async (client, keys, args) => {
    try {
      return await client.evalsha(sha, keys.length, ...keys, ...args);
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      return client.eval(source, keys.length, ...keys, ...args);
    }
  };
}

/** The member of an id in a keyspace: a hash, so any id (up to the callers' own limits) makes a short, safe key. */
export function memberOf(id: string): string {
  return createHash('sha256').update(id).digest('hex').slice(0, 32);
}

// KEYS: value, index. ARGV: member, now, new expiresAt ('' = leave the expiry), ttl ms of the new expiry.
const GET = `
local v = redis.call('GET', KEYS[1])
local s = redis.call('ZSCORE', KEYS[2], ARGV[1])
if not v then
  if s then redis.call('ZREM', KEYS[2], ARGV[1]) end
  return false
end
if s and tonumber(s) <= tonumber(ARGV[2]) then
  redis.call('DEL', KEYS[1])
  redis.call('ZREM', KEYS[2], ARGV[1])
  return false
end
if ARGV[3] ~= '' then
  redis.call('PEXPIRE', KEYS[1], ARGV[4])
  redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
  if redis.call('PTTL', KEYS[2]) < tonumber(ARGV[4]) then redis.call('PEXPIRE', KEYS[2], ARGV[4]) end
end
return v
`;

// KEYS: value, index. ARGV: value, ttl ms, expiresAt, member, max entries, value key prefix, now.
// Returns how many entries went to make room (the oldest expiry first).
const PUT = `
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[4])
local expired = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', ARGV[7])
for _, m in ipairs(expired) do redis.call('DEL', ARGV[6] .. m) end
if #expired > 0 then redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[7]) end
local excess = redis.call('ZCARD', KEYS[2]) - tonumber(ARGV[5])
if excess > 0 then
  local old = redis.call('ZPOPMIN', KEYS[2], excess)
  for i = 1, #old, 2 do redis.call('DEL', ARGV[6] .. old[i]) end
else
  excess = 0
end
if redis.call('PTTL', KEYS[2]) < tonumber(ARGV[2]) then redis.call('PEXPIRE', KEYS[2], ARGV[2]) end
return excess
`;

// KEYS: index. ARGV: value key prefix, now. Drops expired entries; returns the live count.
const SIZE = `
local expired = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[2])
for _, m in ipairs(expired) do redis.call('DEL', ARGV[1] .. m) end
if #expired > 0 then redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[2]) end
return redis.call('ZCARD', KEYS[1])
`;

const getScript = luaScript(GET);
const putScript = luaScript(PUT);
const sizeScript = luaScript(SIZE);

export interface RedisKeyspaceOptions {
  readonly client: RedisClient;
  /** Every key of this keyspace starts with it, e.g. `flotilla:netbox:sessions:`. */
  readonly prefix: string;
  /** Entries held at once; past it the one expiring first goes. */
  readonly maxEntries: number;
  /** Largest value in bytes (UTF-8); a larger put is refused with `payload_too_large`. */
  readonly maxValueBytes: number;
  /** What a value is, for error messages ("progressive session", "conversation memory"). */
  readonly what: string;
  /** Clock (ms since epoch); expiry is checked against it as well as by Redis. */
  readonly now?: () => number;
}

/**
 * Bounded, expiring string values by id in Redis, shared by every process that uses the same prefix: a value key
 * per entry (with a Redis TTL) and a sorted set of entries by expiry (the index), kept consistent by Lua scripts.
 * Expired entries are gone for Redis's clock and for the injected one; past `maxEntries` the entry that expires
 * first goes (with one TTL for all, the least recently used).
 */
export interface RedisKeyspace {
  /** The value, or undefined when unknown or expired; `touch` moves its expiry (expiry after last use). */
  get(id: string, touch?: { readonly expiresAt: number }): Promise<string | undefined>;
  /** Keeps the value until `expiresAt`; resolves to how many other entries went to make room (past `maxEntries`). */
  put(id: string, value: string, expiresAt: number): Promise<number>;
  delete(id: string): Promise<void>;
  /** Live entries. */
  size(): Promise<number>;
}

export function createRedisKeyspace(options: RedisKeyspaceOptions): RedisKeyspace {
  const { client, prefix } = options;
  const now = options.now ?? Date.now;
  const valuePrefix = `${prefix}v:`;
  const index = `${prefix}index`;
  const ttlOf = (expiresAt: number, at: number): number => Math.max(1, Math.ceil(expiresAt - at));
  return {
    get(id, touch) {
      return guarded(`read a ${options.what}`, async () => {
        const member = memberOf(id);
        const at = now();
        const args = touch === undefined ? [member, at, '', 0] : [member, at, touch.expiresAt, ttlOf(touch.expiresAt, at)];
        const value = await getScript(client, [`${valuePrefix}${member}`, index], args);
        return typeof value === 'string' ? value : undefined;
      });
    },
    put(id, value, expiresAt) {
      const bytes = Buffer.byteLength(value, 'utf8');
      if (bytes > options.maxValueBytes) {
        return Promise.reject(
          new FlotillaError('payload_too_large', `the ${options.what} is ${bytes} bytes; the shared state store keeps at most ${options.maxValueBytes} bytes each`, {
            remedy: 'Start a new conversation, or ask for less at once.',
            details: { bytes, max_bytes: options.maxValueBytes },
          }),
        );
      }
      return guarded(`save a ${options.what}`, async () => {
        const member = memberOf(id);
        const at = now();
        return Number(await putScript(client, [`${valuePrefix}${member}`, index], [value, ttlOf(expiresAt, at), expiresAt, member, options.maxEntries, valuePrefix, at]));
      });
    },
    delete(id) {
      return guarded(`delete a ${options.what}`, async () => {
        const member = memberOf(id);
        await transaction(client.multi().del(`${valuePrefix}${member}`).zrem(index, member));
      });
    },
    size() {
      return guarded(`count ${options.what}s`, async () => Number(await sizeScript(client, [index], [valuePrefix, now()])));
    },
  };
}
