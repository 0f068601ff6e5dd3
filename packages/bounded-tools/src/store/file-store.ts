import { createWriteStream, type WriteStream } from 'node:fs';
import { mkdir, open, readdir, readFile, rename, rm, stat, writeFile, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { LRUCache } from 'lru-cache';
import { FlotillaError } from '@flotilla/core';
import type { JsonValue } from '../json.js';
import { STORE_DEFAULTS } from '../limits.js';
import { isExpired, newHeader, resolveLimits, settle, tooLarge, tooManyItems, Tombstones, unknownResult, type StoreOptions } from './common.js';
import {
  RESULT_ID_PATTERN,
  type PutResultInput,
  type ReadRequest,
  type ReadResponse,
  type ResultStore,
  type StoredResultMeta,
} from './types.js';

/** Bytes of item lines gathered into one write of a stored result. */
export const PUT_CHUNK_BYTES = 64 * 1024;

export interface FileStoreOptions extends StoreOptions {
  /** Folder of the result files; created if missing. */
  readonly directory: string;
  /** Sweep period; 0 disables the timer (sweeps still run on put). */
  readonly sweepIntervalMs?: number;
}

interface Entry {
  meta: StoredResultMeta;
  /** Byte offset of each item line, plus one past the last: item i is bytes [offsets[i], offsets[i+1]). */
  offsets: Float64Array;
}

/** Items read from disk per chunk when a filter forces a scan: bounds memory whatever the file size. */
const SCAN_CHUNK_ITEMS = 256;
const COMMA = 0x2c;
/**
 * Result files kept open for reads: a page reads one or two byte ranges, and opening and closing the file for each
 * cost more than the read. The least recently read is closed first (once no read uses it).
 */
export const OPEN_FILES_MAX = 16;

/** An open result file, shared by the reads in flight; closed when dropped and no read uses it any more. */
interface OpenFile {
  readonly handle: Promise<FileHandle>;
  users: number;
  dropped: boolean;
  /** Set once closing began: a file is closed once, however many reads end after it was dropped. */
  closed?: Promise<void>;
}

function gone(id: string, cause: unknown): FlotillaError {
  return new FlotillaError('result_expired', `stored result ${id} is no longer on disk`, { remedy: 'Run the original tool again to get a fresh result_id.', cause });
}

/**
 * Results as JSON files in the layout of the large-response design note: one header line (id, tool, times,
 * query, total_items, counts) and then one item per line inside `"items": [...]`, so the file is valid JSON for
 * any reader while pages are read by byte range without loading the whole file. A sidecar `.idx` holds the
 * item offsets; both survive a restart. Expired results are swept; the oldest go first when the disk cap binds.
 */
export async function createFileResultStore(options: FileStoreOptions): Promise<ResultStore> {
  const limits = resolveLimits(options);
  const now = options.now ?? Date.now;
  const dir = options.directory;
  await mkdir(dir, { recursive: true });
  const entries = new Map<string, Entry>();
  const tombstones = new Tombstones();
  let used = 0;

  const report = (): void => {
    options.metrics?.resultStoreBytes.set(used);
    options.metrics?.resultStoreEntries.set(entries.size);
  };
  const paths = (id: string): { data: string; index: string } => ({
    data: join(dir, `${id}.json`),
    index: join(dir, `${id}.idx`),
  });
  /** Closes a dropped file once no read uses it; resolves when it is closed (or left to its last read). */
  const release = (file: OpenFile): Promise<void> =>
    file.dropped && file.users === 0 ? (file.closed ??= file.handle.then((handle) => handle.close()).catch(() => undefined)) : Promise.resolve();
  /** Open files, at most OPEN_FILES_MAX: the least recently read is dropped (closed after its last read) for a new one. */
  const files = new LRUCache<string, OpenFile>({
    max: OPEN_FILES_MAX,
    dispose: (file) => {
      file.dropped = true;
      void release(file);
    },
  });
  const drop = (id: string): Promise<void> => {
    const file = files.peek(id);
    if (file === undefined) return Promise.resolve();
    files.delete(id);
    return release(file);
  };
  /** Runs `read` on the result's open file (opened now if it is not), most recently used last. */
  const withFile = async <T>(id: string, read: (handle: FileHandle) => Promise<T>): Promise<T> => {
    let file = files.get(id);
    if (file === undefined) {
      const handle = open(paths(id).data, 'r');
      const opened: OpenFile = { handle, users: 0, dropped: false };
      file = opened;
      // A failed open is not kept: the next read tries again (and says the result is gone if it is).
      handle.catch(() => {
        if (files.peek(id) === opened) void drop(id);
      });
      files.set(id, file);
    }
    file.users += 1;
    try {
      return await read(await file.handle);
    } finally {
      file.users -= 1;
      void release(file);
    }
  };
  const remove = async (id: string, reason: 'ttl' | 'disk_cap'): Promise<void> => {
    const entry = entries.get(id);
    if (entry === undefined) return;
    entries.delete(id);
    void drop(id);
    used -= entry.meta.bytes;
    tombstones.add(id);
    options.metrics?.resultStoreEvictions.inc({ reason });
    report();
    const { data, index } = paths(id);
    await Promise.all([rm(data, { force: true }), rm(index, { force: true })]);
  };
  const sweepNow = async (): Promise<void> => {
    const expired = [...entries.values()].filter((entry) => isExpired(entry.meta, now()));
    for (const entry of expired) await remove(entry.meta.result_id, 'ttl');
  };

  // Rebuild the catalogue from disk: results written before a restart stay readable until they expire.
  for (const name of await readdir(dir)) {
    const id = name.endsWith('.json') ? name.slice(0, -'.json'.length) : '';
    if (!RESULT_ID_PATTERN.test(id)) {
      if (name.endsWith('.tmp')) await rm(join(dir, name), { force: true });
      continue;
    }
    try {
      const { data, index } = paths(id);
      const handle = await open(data, 'r');
      const head = Buffer.alloc(64 * 1024);
      const { bytesRead } = await handle.read(head, 0, head.length, 0);
      await handle.close();
      const firstLine = head.subarray(0, bytesRead).toString('utf8').split('\n', 1)[0] ?? '';
      const meta = JSON.parse(`${firstLine}]}`) as StoredResultMeta & { items?: unknown };
      delete meta.items;
      const raw = await readFile(index);
      const offsets = new Float64Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength));
      const bytes = (await stat(data)).size;
      entries.set(id, { meta: { ...meta, bytes }, offsets });
      used += bytes;
    } catch {
      // A half-written or foreign file: not ours to serve.
      const { data, index } = paths(id);
      await Promise.all([rm(data, { force: true }), rm(index, { force: true })]);
    }
  }
  await sweepNow();
  report();

  const interval = options.sweepIntervalMs ?? STORE_DEFAULTS.sweepIntervalMs;
  const timer = interval > 0 ? setInterval(() => void sweepNow(), interval) : undefined;
  timer?.unref();

  const get = (id: string): Entry => {
    const entry = entries.get(id);
    if (entry === undefined || isExpired(entry.meta, now())) {
      if (entry !== undefined) void remove(id, 'ttl');
      throw unknownResult(id, tombstones.has(id) || entry !== undefined, limits.ttlSeconds);
    }
    return entry;
  };

  /** The JSON of items [from, to) (to ≤ total): one read of their byte range, each line without its `,\n`. */
  const readTexts = async (id: string, entry: Entry, from: number, to: number): Promise<string[]> => {
    if (to <= from) return [];
    const start = entry.offsets[from] ?? 0;
    const end = entry.offsets[to] ?? start;
    const buffer = Buffer.allocUnsafe(end - start);
    const { bytesRead } = await withFile(id, (handle) => handle.read(buffer, 0, buffer.length, start)).catch((error: unknown) => {
      throw gone(id, error);
    });
    if (bytesRead !== buffer.length) throw gone(id, undefined);
    const texts: string[] = [];
    for (let i = from; i < to; i += 1) {
      const lineStart = (entry.offsets[i] ?? 0) - start;
      let lineEnd = (entry.offsets[i + 1] ?? end) - start - 1;
      if (buffer[lineEnd - 1] === COMMA) lineEnd -= 1;
      texts.push(buffer.toString('utf8', lineStart, lineEnd));
    }
    return texts;
  };
  const readItems = async (id: string, entry: Entry, from: number, to: number): Promise<JsonValue[]> =>
    (await readTexts(id, entry, from, to)).map((text) => JSON.parse(text) as JsonValue);

  return {
    async put(input: PutResultInput) {
      const itemsError = tooManyItems(input.items.length);
      if (itemsError !== undefined) throw itemsError;
      await sweepNow();
      const header = newHeader(input, now(), limits.ttlSeconds);
      const id = header.result_id;
      const { data, index } = paths(id);
      const tmp = `${data}.tmp`;
      const offsets = new Float64Array(input.items.length + 1);
      const stream = createWriteStream(tmp);
      // Keep a listener for the stream's whole life: a write failure (disk full) or a destroy after a cap
      // refusal must surface here, never as an uncaught 'error' event.
      let streamError: Error | undefined;
      stream.on('error', (error) => {
        streamError = error;
      });
      let position = 0;
      try {
        // Lines are gathered into chunks of about PUT_CHUNK_BYTES (at most that plus one line held here), not written
        // one by one: a list of 10,000 items made 10,000 writes the stream buffered at once, and in one run of three
        // V8 then decided to allocate stream write requests in the old generation for good (HTTP answers included:
        // the paging bench's peak went from ~180 to 204-241 MiB).
        let pending = '';
        let pendingBytes = 0;
        const flush = async (): Promise<void> => {
          if (pending === '') return;
          if (streamError !== undefined) throw streamError;
          const chunk = pending;
          pending = '';
          pendingBytes = 0;
          if (!stream.write(chunk)) await drained(stream);
        };
        const write = async (line: string): Promise<void> => {
          const bytes = Buffer.byteLength(line, 'utf8');
          position += bytes;
          if (position > limits.maxResultBytes) throw tooLarge(position, limits);
          pending += line;
          pendingBytes += bytes;
          if (pendingBytes >= PUT_CHUNK_BYTES) await flush();
        };
        await write(`${JSON.stringify(header).slice(0, -1)},"items":[\n`);
        for (let i = 0; i < input.items.length; i += 1) {
          offsets[i] = position;
          await write(`${input.texts?.[i] ?? JSON.stringify(input.items[i])}${i < input.items.length - 1 ? ',' : ''}\n`);
        }
        offsets[input.items.length] = position;
        await write(']}\n');
        await flush();
        await new Promise<void>((resolve, reject) => stream.end((error?: Error | null) => (error ? reject(error) : resolve())));
      } catch (error) {
        stream.destroy();
        await rm(tmp, { force: true });
        throw error;
      }
      // Oldest first until the new result fits under the disk cap.
      for (const [oldId] of entries) {
        if (used + position <= limits.diskCapBytes) break;
        await remove(oldId, 'disk_cap');
      }
      await writeFile(index, Buffer.from(offsets.buffer));
      await rename(tmp, data);
      const meta: StoredResultMeta = { ...header, bytes: position };
      entries.set(id, { meta, offsets });
      used += position;
      report();
      return meta;
    },

    meta(resultId) {
      return settle(() => get(resultId).meta);
    },

    async read(resultId, request: ReadRequest): Promise<ReadResponse> {
      const entry = get(resultId);
      const total = entry.meta.total_items;
      if (request.filter === undefined) {
        const from = Math.min(request.offset, total);
        const to = Math.min(request.offset + request.limit, total);
        return { meta: entry.meta, items: await readItems(resultId, entry, from, to), total };
      }
      // A filter needs a full scan to know the matching total; read in fixed chunks to keep memory flat.
      const items: JsonValue[] = [];
      let matched = 0;
      for (let from = 0; from < total; from += SCAN_CHUNK_ITEMS) {
        for (const item of await readItems(resultId, entry, from, Math.min(from + SCAN_CHUNK_ITEMS, total))) {
          if (!request.filter(item)) continue;
          if (matched >= request.offset && items.length < request.limit) items.push(item);
          matched += 1;
        }
      }
      return { meta: entry.meta, items, total: matched };
    },

    async readTexts(resultId, offset, limit) {
      const entry = get(resultId);
      const total = entry.meta.total_items;
      return { meta: entry.meta, texts: await readTexts(resultId, entry, Math.min(offset, total), Math.min(offset + limit, total)) };
    },
    sweep: sweepNow,

    async close() {
      if (timer !== undefined) clearInterval(timer);
      await Promise.all([...files.keys()].map(drop));
    },
  };
}

function drained(stream: WriteStream): Promise<void> {
  return new Promise((resolve, reject) => {
    const onDrain = (): void => {
      stream.off('error', onError);
      resolve();
    };
    const onError = (error: Error): void => {
      stream.off('drain', onDrain);
      reject(error);
    };
    stream.once('drain', onDrain);
    stream.once('error', onError);
  });
}
