import { FlotillaError } from '@flotilla/core';
import { guarded, luaScript, transaction, type RedisClient } from '@flotilla/state';
import type { JsonValue } from '../json.js';
import { isExpired, newHeader, resolveLimits, tooLarge, tooManyItems, unknownResult, type StoreOptions } from './common.js';
import type { PutResultInput, ReadRequest, ReadResponse, ResultStore, StoredResultMeta } from './types.js';

export interface RedisStoreOptions extends StoreOptions {
  /** A connected client (`redisFromUrl` of @flotilla/state); the store never closes it. */
  readonly client: RedisClient;
  /** Every key starts with it, e.g. `flotilla:netbox:`; results live under `<prefix>results:`. */
  readonly keyPrefix: string;
}

/** Items per stored chunk: a page reads one or two chunks, a filtered scan a few at a time. */
const CHUNK_ITEMS = 256;
/** Chunks read per request while a filter scans the whole result (memory stays flat). */
const SCAN_CHUNKS = 4;
/** A chunk list being written lives at most this long if its writer dies before committing it. */
const PENDING_TTL_MS = 10 * 60 * 1000;
/** After expiry or eviction an id is remembered this long, so a late reader hears "expired", not "unknown". */
const TOMBSTONE_MS = 24 * 60 * 60 * 1000;

// Removes one result's keys and bookkeeping. Shared by the scripts below (Lua has no includes: prepended).
const REMOVE = `
local function remove(p, id)
  redis.call('DEL', p .. 'meta:' .. id, p .. 'chunks:' .. id)
  local b = redis.call('HGET', p .. 'bytes', id)
  if b then redis.call('DECRBY', p .. 'used', b) end
  redis.call('HDEL', p .. 'bytes', id)
  redis.call('ZREM', p .. 'index', id)
end
local function sweep(p, now)
  local expired = redis.call('ZRANGEBYSCORE', p .. 'index', '-inf', now)
  for _, id in ipairs(expired) do remove(p, id) end
  return #expired
end
local function report(p)
  return { tonumber(redis.call('GET', p .. 'used') or '0'), redis.call('ZCARD', p .. 'index') }
end
`;

// ARGV: prefix, id, meta JSON, bytes, ttl ms, expiresAt, cap bytes, now, tombstone ms.
// Returns { expired, evicted, used bytes, entries } or { -1 } when the result cannot fit under the cap at all.
const COMMIT = `${REMOVE}
local p, id, bytes, ttl = ARGV[1], ARGV[2], tonumber(ARGV[4]), tonumber(ARGV[5])
local expired = sweep(p, ARGV[8])
local evicted = 0
while (tonumber(redis.call('GET', p .. 'used') or '0') + bytes) > tonumber(ARGV[7]) do
  local oldest = redis.call('ZRANGE', p .. 'index', 0, 0)
  if #oldest == 0 then break end
  remove(p, oldest[1])
  evicted = evicted + 1
end
if redis.call('EXISTS', p .. 'pending:' .. id) == 1 then
  redis.call('RENAME', p .. 'pending:' .. id, p .. 'chunks:' .. id)
  redis.call('PEXPIRE', p .. 'chunks:' .. id, ttl)
end
redis.call('SET', p .. 'meta:' .. id, ARGV[3], 'PX', ttl)
redis.call('SET', p .. 'known:' .. id, '1', 'PX', ttl + tonumber(ARGV[9]))
redis.call('ZADD', p .. 'index', ARGV[6], id)
redis.call('HSET', p .. 'bytes', id, bytes)
redis.call('INCRBY', p .. 'used', bytes)
for _, k in ipairs({ 'index', 'bytes', 'used' }) do
  if redis.call('PTTL', p .. k) < ttl then redis.call('PEXPIRE', p .. k, ttl) end
end
local r = report(p)
return { expired, evicted, r[1], r[2] }
`;

// ARGV: prefix, now. Returns { expired, used bytes, entries }.
const SWEEP = `${REMOVE}
local expired = sweep(ARGV[1], ARGV[2])
local r = report(ARGV[1])
return { expired, r[1], r[2] }
`;

// ARGV: prefix, id. Returns { removed (0/1), used bytes, entries }.
const EXPIRE_ONE = `${REMOVE}
local existed = redis.call('ZSCORE', ARGV[1] .. 'index', ARGV[2])
remove(ARGV[1], ARGV[2])
local r = report(ARGV[1])
return { existed and 1 or 0, r[1], r[2] }
`;

const commitScript = luaScript(COMMIT);
const sweepScript = luaScript(SWEEP);
const expireScript = luaScript(EXPIRE_ONE);

const numbers = (value: unknown): number[] => (Array.isArray(value) ? value.map((v) => Number(v)) : []);

/**
 * Spilled results in Redis, shared by every replica on the same prefix (a `read_result` or "next batch" served by
 * another replica reads the same snapshot). A result is a header (its meta, as the file store's first line) and its
 * items as chunks of 256 JSON lines in a list, both with a Redis TTL; the same caps as the other stores: items per
 * result, bytes per result (refused while serialising, before anything is kept), and bytes in all (the oldest go
 * first, atomically with the new result's commit). Ids that expired or were evicted are remembered for a day.
 * Keys under one prefix are touched by Lua scripts together: one Redis (or a primary with replicas), not Cluster.
 */
export function createRedisResultStore(options: RedisStoreOptions): ResultStore {
  const limits = resolveLimits(options);
  const now = options.now ?? Date.now;
  const { client } = options;
  const p = `${options.keyPrefix}results:`;
  const report = (used: number, entries: number): void => {
    options.metrics?.resultStoreBytes.set(used);
    options.metrics?.resultStoreEntries.set(entries);
  };
  const evicted = (reason: 'ttl' | 'disk_cap', count: number): void => {
    if (count > 0) options.metrics?.resultStoreEvictions.inc({ reason }, count);
  };

  const meta = (id: string): Promise<StoredResultMeta> =>
    guarded('read a stored result', async () => {
      const [raw, known] = await Promise.all([client.get(`${p}meta:${id}`), client.exists(`${p}known:${id}`)]);
      if (raw === null) throw unknownResult(id, known === 1, limits.ttlSeconds);
      const found = JSON.parse(raw) as StoredResultMeta;
      if (isExpired(found, now())) {
        const [removed = 0, used = 0, entries = 0] = numbers(await expireScript(client, [], [p, id]));
        evicted('ttl', removed);
        report(used, entries);
        throw unknownResult(id, true, limits.ttlSeconds);
      }
      return found;
    });

  /** The JSON of items [from, to) of a result (to ≤ total), unparsed. */
  const readTexts = async (id: string, from: number, to: number): Promise<string[]> => {
    if (to <= from) return [];
    const first = Math.floor(from / CHUNK_ITEMS);
    const last = Math.floor((to - 1) / CHUNK_ITEMS);
    const chunks = await guarded('read a stored result', () => client.lrange(`${p}chunks:${id}`, first, last));
    if (chunks.length !== last - first + 1) {
      throw new FlotillaError('result_expired', `stored result ${id} is no longer in the shared store`, {
        remedy: 'Run the original tool again to get a fresh result_id.',
      });
    }
    return chunks.flatMap((chunk) => chunk.split('\n')).slice(from - first * CHUNK_ITEMS, to - first * CHUNK_ITEMS);
  };
  const readItems = async (id: string, from: number, to: number): Promise<JsonValue[]> => (await readTexts(id, from, to)).map((text) => JSON.parse(text) as JsonValue);

  return {
    async put(input: PutResultInput) {
      const itemsError = tooManyItems(input.items.length);
      if (itemsError !== undefined) throw itemsError;
      const header = newHeader(input, now(), limits.ttlSeconds);
      const id = header.result_id;
      const pending = `${p}pending:${id}`;
      return guarded('store a result', async () => {
        // Written as it is serialised, a few chunks at a time, under a pending key that the commit renames; a
        // result past the byte cap (the memory store's accounting) is refused and its pending chunks dropped.
        let bytes = 0;
        let chunk: string[] = [];
        let group: string[] = [];
        const flush = async (): Promise<void> => {
          if (group.length === 0) return;
          await transaction(client.multi().rpush(pending, ...group).pexpire(pending, PENDING_TTL_MS));
          group = [];
        };
        try {
          for (let i = 0; i < input.items.length; i += 1) {
            const line = input.texts?.[i] ?? JSON.stringify(input.items[i]);
            bytes += Buffer.byteLength(line, 'utf8') + 2;
            if (bytes > limits.maxResultBytes) throw tooLarge(bytes, limits);
            chunk.push(line);
            if (chunk.length < CHUNK_ITEMS) continue;
            group.push(chunk.join('\n'));
            chunk = [];
            if (group.length >= SCAN_CHUNKS) await flush();
          }
          if (chunk.length > 0) group.push(chunk.join('\n'));
          await flush();
          const stored: StoredResultMeta = { ...header, bytes };
          const ttlMs = limits.ttlSeconds * 1000;
          const [expired = 0, capped = 0, used = 0, entries = 0] = numbers(
            await commitScript(client, [], [p, id, JSON.stringify(stored), bytes, ttlMs, Date.parse(stored.expires_at), limits.diskCapBytes, now(), TOMBSTONE_MS]),
          );
          evicted('ttl', expired);
          evicted('disk_cap', capped);
          report(used, entries);
          return stored;
        } catch (error) {
          await client.del(pending).catch(() => undefined);
          throw error;
        }
      });
    },

    meta,

    async read(resultId, request: ReadRequest): Promise<ReadResponse> {
      const found = await meta(resultId);
      const total = found.total_items;
      if (request.filter === undefined) {
        const from = Math.min(request.offset, total);
        const to = Math.min(request.offset + request.limit, total);
        return { meta: found, items: await readItems(resultId, from, to), total };
      }
      // A filter needs a full scan to know the matching total; read a few chunks at a time.
      const items: JsonValue[] = [];
      let matched = 0;
      const step = CHUNK_ITEMS * SCAN_CHUNKS;
      for (let from = 0; from < total; from += step) {
        for (const item of await readItems(resultId, from, Math.min(from + step, total))) {
          if (!request.filter(item)) continue;
          if (matched >= request.offset && items.length < request.limit) items.push(item);
          matched += 1;
        }
      }
      return { meta: found, items, total: matched };
    },

    async readTexts(resultId, offset, limit) {
      const found = await meta(resultId);
      const total = found.total_items;
      return { meta: found, texts: await readTexts(resultId, Math.min(offset, total), Math.min(offset + limit, total)) };
    },

    sweep() {
      return guarded('sweep stored results', async () => {
        const [expired = 0, used = 0, entries = 0] = numbers(await sweepScript(client, [], [p, now()]));
        evicted('ttl', expired);
        report(used, entries);
      });
    },

    close() {
      return Promise.resolve();
    },

    shared: { client, keyPrefix: options.keyPrefix },
  };
}
