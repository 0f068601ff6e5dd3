import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { access, mkdtemp, open, readdir, rm, stat } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { TaskState } from '@a2a-js/sdk';
import { ClientFactory, type Client } from '@a2a-js/sdk/client';
import { textRequest } from '@flotilla/agent-kit';
import { createFileResultStore, STORE_DEFAULTS } from '@flotilla/bounded-tools';
import { generateArgoEstate, generateNetBoxEstate } from '@flotilla/simulators';
import { rssOf, spawnUntilListening } from './process.js';

/**
 * Issue 8, "Load and soak": a mixed conversation load through the supervisor against the Argo CD and NetBox
 * agents, every piece its own process (the built CLI), the simulators in processes of their own so their work
 * is not counted in an agent's RSS. Then an agent is killed mid-conversation and restarted: with Redis the
 * conversation continues.
 */

export const SOAK_DEFAULTS = { questions: 1_000, clients: 20, applications: 10_000 } as const;
export const SOAK_RANGES = { questions: [10, 20_000], clients: [1, 200], applications: [1, 100_000] } as const;

/** RSS growth from the end of warm-up to the last request above which an agent counts as leaking. */
export const RSS_GROWTH_GOAL_PERCENT = 10;
/** The warm-up ends at this share of the run (request 200 of 1,000). */
const WARM_UP_SHARE = 0.2;
/** RSS is also sampled every tenth of the run, for the curve. */
const CURVE_POINTS = 10;
/** One request's time limit on the client (the supervisor's own limit per delegation is 60 s). */
const REQUEST_TIMEOUT_MS = 120_000;
/** TTL of the result planted in each agent's --data-dir before it starts; it must be swept during the run. */
const PLANTED_TTL_SECONDS = 60;
const TOKEN = 'bench-soak-token-0123456789';
const FAILURES_KEPT = 5;
/** Time limit of one inspector command (a full GC of a few hundred MiB takes well under a second). */
const INSPECTOR_TIMEOUT_MS = 30_000;

/** Which agents should answer: one, both (fan-out), or any (help: the supervisor may answer itself). */
type Domain = 'argocd' | 'netbox' | 'both' | 'any';
interface Turn {
  readonly text: string;
  /** What a right answer shows; a miss is counted as unexpected (not as failed). */
  readonly expect: RegExp;
}
interface Script {
  readonly domain: Domain;
  readonly turns: readonly Turn[];
}

/** Names the questions refer to, read from the estates the simulators serve (same seeds). */
interface EstateNames {
  readonly degradedApp: string;
  readonly healthyApp: string;
  readonly project: string;
  readonly prefix: string;
}

const turn = (text: string, expect: RegExp): Turn => ({ text, expect });
const LIST = /Page 1 of \d+|\| name \|/;
const TABLE = /\|.*\|/;

/**
 * The question mix: 32 conversations, one to three turns each, as people ask them in Slack. Each client takes
 * the next conversation in turn with a fresh contextId, so every kind is asked about equally often.
 */
function questionMix(names: EstateNames): readonly Script[] {
  const argo = (...turns: Turn[]): Script => ({ domain: 'argocd', turns });
  const netbox = (...turns: Turn[]): Script => ({ domain: 'netbox', turns });
  return [
    argo(turn('list all applications', /Page 1 of/), turn('next page', /Page 2 of/), turn('next page', /Page 3 of/)),
    argo(turn('which apps are out of sync in prod?', LIST), turn('next page', /Page 2 of/)),
    argo(turn('list all applications', /Page 1 of/), turn('only the out-of-sync ones', /OutOfSync|out of sync/i)),
    argo(turn('which applications are degraded?', LIST)),
    argo(turn(`status of ${names.degradedApp}`, new RegExp(names.degradedApp))),
    argo(turn(`show application ${names.healthyApp}`, new RegExp(names.healthyApp))),
    argo(turn('find payments', /payments/)),
    argo(turn('anything about checkout?', /checkout/)),
    argo(turn('what needs attention?', /Degraded|OutOfSync|attention/i)),
    argo(turn('list clusters', /prod-eu-1/)),
    argo(turn('list projects', /Page 1 of|\| name \|/)),
    argo(turn('list application sets', TABLE)),
    argo(turn('how many apps are in staging?', /\d/)),
    argo(turn(`apps in project ${names.project}`, new RegExp(names.project))),
    argo(turn('which apps are progressing on cluster prod-us-1?', /prod-us-1|Progressing|no /i)),
    netbox(turn('list sites', /ams1/)),
    netbox(turn('devices in ams1', LIST), turn('next page', /Page 2 of|Batch 2 of|rows 2\d/)),
    netbox(turn('which switches are offline in fra1?', /fra1|no /i)),
    netbox(turn('show device ams1-sw-001', /ams1-sw-001/)),
    netbox(turn('interfaces of ams1-sw-001', /ams1-sw-001/)),
    netbox(turn('interfaces of every switch in ams1', /Batch 1 of/), turn('next batch', /Batch 2 of/), turn('only the uncabled ones', /uncabled|cabled/i)),
    netbox(turn('interfaces of all devices at lon1', /Batch 1 of|interfaces/), turn('summary instead', /summary|by type|count/i)),
    netbox(turn('just a quick look at the interfaces of every device in sin1', /[Ss]ampled/)),
    netbox(turn('cables of ams1', /cable/i)),
    netbox(turn('vlans of fra1', /\| vid \||VLAN/i)),
    netbox(turn('prefixes at nyc1', /\d+\.\d+\.\d+\.\d+\/\d+/)),
    netbox(turn(`free ips in ${names.prefix}`, /\d+\.\d+\.\d+\.\d+/)),
    netbox(turn('find core', /core/i)),
    netbox(turn('how many routers are there', /\d/)),
    netbox(turn('show me the firewalls at lon1', /lon1/)),
    { domain: 'both', turns: [turn('which apps are out of sync in prod and which switches are offline in ams1?', /Argo CD[\s\S]*NetBox|NetBox[\s\S]*Argo CD/)] },
    { domain: 'any', turns: [turn('what can you do?', /Argo CD[\s\S]*NetBox|NetBox[\s\S]*Argo CD/)] },
  ];
}

export interface QuestionRow {
  readonly question: string;
  readonly domain: Domain;
  readonly asked: number;
  readonly failed: number;
  readonly notRouted: number;
  readonly unexpected: number;
  readonly p50Ms: number;
  readonly p95Ms: number;
  /** Agents the supervisor routed it to, with how often. */
  readonly routed: Readonly<Record<string, number>>;
  /** The first 300 characters of one answer. */
  readonly sample: string;
}

/**
 * One sample of the three processes: VmRSS as it is, then a full GC is forced (over the inspector) and the live
 * V8 heap (heapUsed) and VmRSS are read again. Every sample forces a GC, so each RSS reading is taken the same
 * number of requests after the previous collection: request 200 and request 1,000 are measured alike.
 */
export interface RssPoint {
  readonly request: number;
  readonly seconds: number;
  readonly mib: Readonly<Record<ProcessName, number>>;
  readonly liveHeapMiB: Readonly<Record<ProcessName, number>>;
  readonly mibAfterGc: Readonly<Record<ProcessName, number>>;
}

type ProcessName = 'argocd agent' | 'netbox agent' | 'supervisor';
const MEASURED: readonly ProcessName[] = ['argocd agent', 'netbox agent', 'supervisor'];

export interface RssRow {
  readonly process: ProcessName;
  readonly warmMiB: number;
  readonly endMiB: number;
  readonly growthPercent: number;
  readonly peakMiB: number;
  /** Live V8 heap after a forced full GC: what a leak makes grow. */
  readonly warmLiveHeapMiB: number;
  readonly endLiveHeapMiB: number;
  readonly liveHeapGrowthPercent: number;
  /** VmRSS right after the forced GC: RSS without the garbage of the moment. */
  readonly warmMiBAfterGc: number;
  readonly endMiBAfterGc: number;
  readonly afterGcGrowthPercent: number;
}

export interface SpillCheck {
  readonly agent: 'argocd' | 'netbox';
  /** Result files (.json) in --data-dir when the load ended, their bytes, and the oldest one's age. */
  readonly files: number;
  readonly bytes: number;
  readonly oldestAgeSeconds: number;
  /** Files whose header says they expired (expires_at <= now): the goal is none. */
  readonly pastTtl: number;
  /** Largest time past its expiry of such a file. */
  readonly worstOverdueSeconds: number;
  readonly orphans: number;
  /** A result written with a 1 s TTL before the agent started, expired by then: removed at start? */
  readonly expiredBeforeStartRemoved: boolean;
  /** A result written with a 60 s TTL before the agent started: removed after it expired, during the load? */
  readonly plantedTtlSeconds: number;
  readonly plantedRemoved: boolean | 'not expired yet';
}

export interface RestartCase {
  readonly redis: boolean;
  readonly firstAnswer: string;
  readonly afterRestart: string;
  readonly continued: boolean;
  /** Seconds from SIGKILL until the restarted agent listened again. */
  readonly restartSeconds: number;
}

export interface RestartResult {
  /** Why the Redis case did not run, when it did not. */
  readonly skipped: string | undefined;
  readonly question: string;
  readonly cases: readonly RestartCase[];
}

export interface SoakResult {
  readonly questions: number;
  readonly clients: number;
  readonly applications: number;
  readonly devices: number;
  readonly seconds: number;
  readonly perSecond: number;
  readonly p50Ms: number;
  readonly p95Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  readonly failed: number;
  readonly failures: readonly string[];
  /** Completed, but the supervisor routed the question to no agent ("None of the agents I can reach covers this"). */
  readonly notRouted: number;
  readonly notRoutedQuestions: readonly string[];
  readonly unexpected: number;
  readonly unexpectedSamples: readonly string[];
  readonly warmUpRequest: number;
  readonly rss: readonly RssRow[];
  readonly rssCurve: readonly RssPoint[];
  readonly spills: readonly SpillCheck[];
  readonly storeTtlSeconds: number;
  readonly restart: RestartResult;
  /** Warnings and errors the agents and the supervisor logged during the load: how many, and the first few. */
  readonly logged: readonly { readonly process: string; readonly warnings: number; readonly errors: number; readonly first: readonly string[] }[];
  readonly perQuestion: readonly QuestionRow[];
}

const percentile = (sorted: readonly number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;

interface Reply {
  readonly state: string;
  readonly answer: string;
  readonly routed: string;
  readonly failedAgents: string;
}

async function ask(client: Client, text: string, contextId: string): Promise<Reply> {
  const result = await client.sendMessage(textRequest(text, contextId), { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  if (!('artifacts' in result)) return { state: 'a message, not a task', answer: '', routed: '', failedAgents: '' };
  const artifact = result.artifacts[0];
  const answer = (artifact?.parts ?? []).flatMap((part) => (part.content?.$case === 'text' ? [part.content.value] : [])).join('\n');
  const meta = artifact?.metadata ?? {};
  const str = (v: unknown): string => (typeof v === 'string' ? v : '');
  const state = result.status?.state;
  return { state: state === undefined ? 'none' : (TaskState[state] ?? String(state)), answer, routed: str(meta.routed), failedAgents: str(meta.failed) };
}

/**
 * Why a reply counts as a failed request, or undefined when it does not: a transport error or a task that did
 * not complete, an agent's "I could not answer", the supervisor's "I could not get an answer" (the delegation
 * failed or timed out), an agent named as failed in a fan-out, or no agent available.
 */
function failureOf(reply: Reply): string | undefined {
  if (reply.state !== 'TASK_STATE_COMPLETED') return `task ${reply.state}: ${reply.answer.slice(0, 200)}`;
  if (/^I could not (answer|get an answer)/.test(reply.answer)) return reply.answer.slice(0, 300);
  if (reply.failedAgents.length > 0) return `no answer from ${reply.failedAgents}: ${reply.answer.slice(0, 200)}`;
  if (/^No domain agent is available/.test(reply.answer)) return reply.answer.slice(0, 300);
  return undefined;
}

/** The supervisor found no agent for a question meant for one (a completed task, so not a failed request). */
const NOT_ROUTED = /None of the agents I can reach covers this/;

const routedRight = (domain: Domain, routed: string): boolean => {
  const agents = routed.split(',').filter((a) => a.length > 0);
  if (domain === 'any') return true;
  return domain === 'both' ? agents.includes('argocd') && agents.includes('netbox') : agents.length === 1 && agents[0] === domain;
};

async function stopProcess(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((done) => child.once('exit', done));
  child.kill(signal);
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const address = server.address();
  await new Promise((done) => server.close(done));
  if (address === null || typeof address === 'string') throw new Error('no free port');
  return address.port;
}

/**
 * A Chrome DevTools Protocol session with a child process started with --inspect, over the inspector's WebSocket
 * (Node 20 has no WebSocket client without a flag, and this package no ws dependency: the few frames needed are
 * written here). Used for two commands only: a full GC, and process.memoryUsage().
 */
interface Inspector {
  call(method: string, params?: Record<string, unknown>): Promise<Record<string, unknown>>;
  close(): void;
}

async function connectInspector(port: number): Promise<Inspector> {
  const targets = (await (await fetch(`http://127.0.0.1:${port}/json/list`, { signal: AbortSignal.timeout(5_000) })).json()) as { webSocketDebuggerUrl?: string }[];
  const wsUrl = new URL(targets[0]?.webSocketDebuggerUrl ?? '');
  const socket = await new Promise<Socket>((resolve, reject) => {
    const req = httpRequest({
      host: wsUrl.hostname,
      port: wsUrl.port,
      path: wsUrl.pathname,
      headers: { Connection: 'Upgrade', Upgrade: 'websocket', 'Sec-WebSocket-Key': randomBytes(16).toString('base64'), 'Sec-WebSocket-Version': '13' },
    });
    req.on('upgrade', (_response, upgraded: Socket) => resolve(upgraded));
    req.on('response', (response) => reject(new Error(`the inspector refused the WebSocket upgrade (HTTP ${String(response.statusCode)})`)));
    req.on('error', reject);
    req.end();
  });
  const pending = new Map<number, (reply: Record<string, unknown>) => void>();
  let buffered = Buffer.alloc(0);
  socket.on('data', (chunk: Buffer) => {
    buffered = Buffer.concat([buffered, chunk]);
    // Server frames are unmasked; CDP replies are single text frames.
    for (;;) {
      if (buffered.length < 2) return;
      let length = (buffered[1] ?? 0) & 0x7f;
      let offset = 2;
      if (length === 126) {
        if (buffered.length < 4) return;
        length = buffered.readUInt16BE(2);
        offset = 4;
      } else if (length === 127) {
        if (buffered.length < 10) return;
        length = Number(buffered.readBigUInt64BE(2));
        offset = 10;
      }
      if (buffered.length < offset + length) return;
      const opcode = (buffered[0] ?? 0) & 0x0f;
      const payload = buffered.subarray(offset, offset + length).toString('utf8');
      buffered = buffered.subarray(offset + length);
      if (opcode !== 1) continue;
      const message = JSON.parse(payload) as { id?: number } & Record<string, unknown>;
      const resolve = message.id === undefined ? undefined : pending.get(message.id);
      if (message.id !== undefined && resolve !== undefined) {
        pending.delete(message.id);
        resolve(message);
      }
    }
  });
  socket.on('error', () => socket.destroy());
  let nextId = 0;
  return {
    call(method, params = {}) {
      nextId += 1;
      const id = nextId;
      const text = Buffer.from(JSON.stringify({ id, method, params }), 'utf8');
      const mask = randomBytes(4);
      const head =
        text.length < 126
          ? Buffer.from([0x81, 0x80 | text.length])
          : text.length < 65_536
            ? Buffer.from([0x81, 0x80 | 126, text.length >> 8, text.length & 0xff])
            : Buffer.concat([Buffer.from([0x81, 0x80 | 127]), Buffer.from(new BigUint64Array([BigInt(text.length)]).buffer).reverse()]);
      const masked = Buffer.from(text.map((byte, i) => byte ^ (mask[i % 4] ?? 0)));
      socket.write(Buffer.concat([head, mask, masked]));
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          pending.delete(id);
          reject(new Error(`inspector ${method}: no reply within ${INSPECTOR_TIMEOUT_MS / 1000} s`));
        }, INSPECTOR_TIMEOUT_MS);
        pending.set(id, (reply) => {
          clearTimeout(timer);
          resolve(reply);
        });
      });
    },
    close() {
      socket.destroy();
    },
  };
}

/** Forces a full GC in the process and returns its live heap and RSS afterwards, in MiB (NaN when unreadable). */
async function collectAndMeasure(inspector: Inspector): Promise<{ liveHeapMiB: number; rssMiB: number }> {
  try {
    await inspector.call('HeapProfiler.collectGarbage');
    const reply = await inspector.call('Runtime.evaluate', { expression: 'JSON.stringify(process.memoryUsage())', returnByValue: true });
    const value = ((reply.result as { result?: { value?: unknown } } | undefined)?.result?.value ?? '{}') as string;
    const usage = JSON.parse(value) as { heapUsed?: number; rss?: number };
    return { liveHeapMiB: (usage.heapUsed ?? Number.NaN) / 1024 / 1024, rssMiB: (usage.rss ?? Number.NaN) / 1024 / 1024 };
  } catch {
    return { liveHeapMiB: Number.NaN, rssMiB: Number.NaN };
  }
}

/** Counts a process's pino warnings (level 40) and errors (50+) and keeps the first few. */
interface LogWatch {
  warnings: number;
  errors: number;
  readonly first: string[];
}

function watchLogs(child: ChildProcess): LogWatch {
  const watch: LogWatch = { warnings: 0, errors: 0, first: [] };
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  lines.on('line', (line) => {
    if (!line.includes('"level":4') && !line.includes('"level":5') && !line.includes('"level":6')) return;
    try {
      const entry = JSON.parse(line) as { level?: number; msg?: string } & Record<string, unknown>;
      const level = entry.level ?? 0;
      if (level < 40) return;
      if (level >= 50) watch.errors += 1;
      else watch.warnings += 1;
      if (watch.first.length < FAILURES_KEPT) {
        const { level: _level, time: _time, pid: _pid, hostname: _host, ...rest } = entry;
        watch.first.push(JSON.stringify(rest).slice(0, 300));
      }
    } catch {
      // not a log line
    }
  });
  return watch;
}

const exists = async (path: string): Promise<boolean> =>
  access(path).then(
    () => true,
    () => false,
  );

/** Writes a real spilled result with the store's own code: what an earlier run of the agent would have left. */
async function plantResult(directory: string, ttlSeconds: number): Promise<{ path: string; expiresAt: number }> {
  const store = await createFileResultStore({ directory, ttlSeconds, sweepIntervalMs: 0 });
  const meta = await store.put({ tool: 'soak_planted', item_kind: 'item', query: { planted: true }, counts: {}, items: [{ n: 1 }, { n: 2 }] });
  await store.close();
  return { path: join(directory, `${meta.result_id}.json`), expiresAt: Date.parse(meta.expires_at) };
}

/** The result files in a data dir: how many, how big, how old, and any whose header says they expired. */
async function inspectDataDir(directory: string, now: number): Promise<Omit<SpillCheck, 'agent' | 'expiredBeforeStartRemoved' | 'plantedTtlSeconds' | 'plantedRemoved'>> {
  const names = await readdir(directory);
  const results = names.filter((n) => n.endsWith('.json'));
  const indexes = new Set(names.filter((n) => n.endsWith('.idx')).map((n) => n.slice(0, -'.idx'.length)));
  let bytes = 0;
  let oldest = now;
  let pastTtl = 0;
  let worstOverdue = 0;
  for (const name of results) {
    const path = join(directory, name);
    indexes.delete(name.slice(0, -'.json'.length));
    let header: string;
    try {
      bytes += (await stat(path)).size;
      const handle = await open(path, 'r');
      const head = Buffer.alloc(16 * 1024);
      const { bytesRead } = await handle.read(head, 0, head.length, 0);
      await handle.close();
      header = head.subarray(0, bytesRead).toString('utf8').split('\n', 1)[0] ?? '';
    } catch {
      continue; // swept while we looked
    }
    const created = Date.parse(/"created_at":"([^"]+)"/.exec(header)?.[1] ?? '');
    const expires = Date.parse(/"expires_at":"([^"]+)"/.exec(header)?.[1] ?? '');
    if (Number.isFinite(created)) oldest = Math.min(oldest, created);
    if (!Number.isFinite(expires) || expires <= now) {
      pastTtl += 1;
      worstOverdue = Math.max(worstOverdue, Number.isFinite(expires) ? (now - expires) / 1000 : Number.POSITIVE_INFINITY);
    }
  }
  return { files: results.length, bytes, oldestAgeSeconds: (now - oldest) / 1000, pastTtl, worstOverdueSeconds: worstOverdue, orphans: indexes.size };
}

/** A throwaway redis-server on a free port (no persistence), or why there is none. */
async function startRedis(): Promise<{ url: string; child: ChildProcess } | { missing: string }> {
  const port = await freePort();
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: ['ignore', 'pipe', 'ignore'] });
  return new Promise((resolve) => {
    let out = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      resolve({ missing: `redis-server did not get ready within 10 s: ${out.slice(-300)}` });
    }, 10_000);
    child.once('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      resolve({ missing: error.code === 'ENOENT' ? 'redis-server is not installed (Debian: apt-get install redis-server)' : `redis-server did not start: ${error.message}` });
    });
    child.stdout?.on('data', (chunk: Buffer) => {
      out = (out + chunk.toString('utf8')).slice(-4_096);
      if (out.includes('Ready to accept connections')) {
        clearTimeout(timer);
        resolve({ url: `redis://127.0.0.1:${port}`, child });
      }
    });
  });
}

/** `--help` of a CLI command, to find out whether a setting exists in this build. */
async function helpOf(cli: string, args: readonly string[]): Promise<string> {
  const child = spawn(process.execPath, [cli, ...args, '--help'], { stdio: ['ignore', 'pipe', 'ignore'] });
  let text = '';
  child.stdout?.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  await new Promise((done) => child.once('exit', done));
  return text;
}

const firstLines = (text: string, lines = 2): string => text.split('\n').slice(0, lines).join(' / ').slice(0, 240);

/**
 * Kill-and-restart: the NetBox agent on a fixed port behind its own supervisor. "interfaces of every switch in
 * ams1" (batch 1), SIGKILL, the agent started again on the same port, "next batch" in the same contextId through
 * the supervisor. Once without Redis (sessions in memory: the control) and once with --redis-url.
 */
async function killAndRestart(options: { cli: string; netboxUrl: string; progress: (line: string) => void }): Promise<RestartResult> {
  const question = 'interfaces of every switch in ams1';
  const help = await helpOf(options.cli, ['agent', 'netbox']);
  const redisMissing = help.includes('--redis-url') ? undefined : 'this build of `flotilla agent netbox` has no --redis-url setting yet';
  const redis = redisMissing === undefined ? await startRedis() : { missing: redisMissing };
  const port = await freePort();
  const dataDir = await mkdtemp(join(tmpdir(), 'flotilla-soak-restart-'));
  const startAgent = (redisUrl: string | undefined): Promise<{ child: ChildProcess; url: string }> =>
    spawnUntilListening(
      [
        options.cli, 'agent', 'netbox', '--port', String(port), '--netbox-url', options.netboxUrl, '--netbox-token', TOKEN,
        '--data-dir', dataDir, '--log-level', 'info', ...(redisUrl === undefined ? [] : ['--redis-url', redisUrl]),
      ],
      'A2A agent listening',
    );
  const cases: RestartCase[] = [];
  let agent: { child: ChildProcess; url: string } | undefined;
  let supervisor: { child: ChildProcess; url: string } | undefined;
  try {
    agent = await startAgent(undefined);
    supervisor = await spawnUntilListening(
      [options.cli, 'supervisor', '--port', '0', '--agents', `netbox=http://127.0.0.1:${port}`, '--log-level', 'info'],
      'A2A agent listening',
    );
    const client = await new ClientFactory().createFromUrl(supervisor.url);
    const runCase = async (redisUrl: string | undefined): Promise<void> => {
      const contextId = randomUUID();
      const first = await ask(client, question, contextId);
      const killedAt = performance.now();
      if (agent !== undefined) await stopProcess(agent.child, 'SIGKILL');
      agent = undefined;
      agent = await startAgent(redisUrl);
      const restartSeconds = (performance.now() - killedAt) / 1000;
      // The supervisor may have re-read the card while the agent was down; its retry backs off from 1 s.
      let after = await ask(client, 'next batch', contextId);
      for (let tries = 0; tries < 15 && /^No domain agent is available/.test(after.answer); tries += 1) {
        await new Promise((done) => setTimeout(done, 1_000));
        after = await ask(client, 'next batch', contextId);
      }
      cases.push({
        redis: redisUrl !== undefined,
        firstAnswer: firstLines(first.answer),
        afterRestart: firstLines(after.answer),
        // Batch 1 must have come first, or a "Batch 2" would not show that anything continued.
        continued: /Batch 1 of/.test(first.answer) && /Batch 2 of/.test(after.answer),
        restartSeconds,
      });
      options.progress(`  ${redisUrl === undefined ? 'without Redis (control)' : 'with Redis'}: after the restart "${firstLines(after.answer, 1).slice(0, 120)}"\n`);
    };
    await runCase(undefined);
    if (!('missing' in redis)) {
      await stopProcess(agent.child);
      agent = undefined;
      agent = await startAgent(redis.url);
      await runCase(redis.url);
    }
  } finally {
    if (supervisor !== undefined) await stopProcess(supervisor.child);
    if (agent !== undefined) await stopProcess(agent.child);
    if (!('missing' in redis)) await stopProcess(redis.child);
    await rm(dataDir, { recursive: true, force: true });
  }
  return { skipped: 'missing' in redis ? redis.missing : undefined, question, cases };
}

/** The soak: see the module comment. `progress` gets one line per tenth of the run. */
export async function benchSoak(options: {
  cli: string;
  questions: number;
  clients: number;
  applications: number;
  progress: (line: string) => void;
}): Promise<SoakResult> {
  const argoEstate = generateArgoEstate({ applications: options.applications });
  const apps = argoEstate.applications;
  const netboxEstate = generateNetBoxEstate();
  const names: EstateNames = {
    degradedApp: apps.find((a) => a.status.health?.status === 'Degraded')?.metadata.name ?? 'payments-api-prod',
    healthyApp: apps.find((a) => a.status.health?.status === 'Healthy' && a.metadata.name.includes('prod'))?.metadata.name ?? 'payments-api-prod',
    project: apps[Math.floor(apps.length / 2)]?.spec.project ?? 'default',
    prefix: netboxEstate.prefixes.find((p) => p.prefix.endsWith('/24'))?.prefix ?? '10.1.0.0/24',
  };
  const devices = netboxEstate.devices.length;
  const scripts = questionMix(names);

  const root = await mkdtemp(join(tmpdir(), 'flotilla-soak-'));
  const dirs = { argocd: join(root, 'argocd'), netbox: join(root, 'netbox') } as const;
  const planted = {
    argocd: { expired: await plantResult(dirs.argocd, 1), live: await plantResult(dirs.argocd, PLANTED_TTL_SECONDS) },
    netbox: { expired: await plantResult(dirs.netbox, 1), live: await plantResult(dirs.netbox, PLANTED_TTL_SECONDS) },
  };
  // The 1 s results must have expired before the agents read their data dirs.
  await new Promise((done) => setTimeout(done, Math.max(0, planted.netbox.expired.expiresAt - Date.now()) + 200));

  const children: ChildProcess[] = [];
  const inspectors: [ProcessName, Inspector][] = [];
  const logs = new Map<string, LogWatch>();
  const started = async (args: readonly string[], msg: string, name?: string): Promise<{ child: ChildProcess; url: string }> => {
    const running = await spawnUntilListening(args, msg);
    children.push(running.child);
    if (name !== undefined) logs.set(name, watchLogs(running.child));
    return running;
  };
  try {
    options.progress(`  starting the simulators (${options.applications.toLocaleString('en-US')} applications; ${devices} devices), the agents and the supervisor...\n`);
    const [argoSim, netboxSim] = await Promise.all([
      started([options.cli, 'sim', 'argocd', '--port', '0', '--token', TOKEN, '--applications', String(options.applications), '--log-level', 'info'], 'Argo CD simulator listening'),
      started([options.cli, 'sim', 'netbox', '--port', '0', '--token', TOKEN, '--log-level', 'info'], 'NetBox simulator listening'),
    ]);
    // The measured processes listen for the inspector on loopback (published over HTTP only), for the forced GCs.
    const inspectPorts: Record<ProcessName, number> = { 'argocd agent': await freePort(), 'netbox agent': await freePort(), supervisor: await freePort() };
    const inspect = (p: ProcessName): string[] => [`--inspect=127.0.0.1:${inspectPorts[p]}`, '--inspect-publish-uid=http'];
    const [argoAgent, netboxAgent] = await Promise.all([
      started(
        [...inspect('argocd agent'), options.cli, 'agent', 'argocd', '--port', '0', '--argocd-url', argoSim.url, '--argocd-token', TOKEN, '--data-dir', dirs.argocd, '--log-level', 'info'],
        'A2A agent listening',
        'argocd agent',
      ),
      started(
        [...inspect('netbox agent'), options.cli, 'agent', 'netbox', '--port', '0', '--netbox-url', netboxSim.url, '--netbox-token', TOKEN, '--data-dir', dirs.netbox, '--log-level', 'info'],
        'A2A agent listening',
        'netbox agent',
      ),
    ]);
    const expiredBeforeStartRemoved = { argocd: !(await exists(planted.argocd.expired.path)), netbox: !(await exists(planted.netbox.expired.path)) };
    const supervisor = await started(
      [...inspect('supervisor'), options.cli, 'supervisor', '--port', '0', '--agents', `argocd=${argoAgent.url},netbox=${netboxAgent.url}`, '--log-level', 'info'],
      'A2A agent listening',
      'supervisor',
    );
    const pids: Record<ProcessName, number> = {
      'argocd agent': argoAgent.child.pid ?? 0,
      'netbox agent': netboxAgent.child.pid ?? 0,
      supervisor: supervisor.child.pid ?? 0,
    };

    const warmUp = Math.max(1, Math.round(options.questions * WARM_UP_SHARE));
    const marks = new Set<number>([warmUp, options.questions]);
    for (let i = 1; i <= CURVE_POINTS; i += 1) marks.add(Math.round((options.questions * i) / CURVE_POINTS));
    for (const p of MEASURED) inspectors.push([p, await connectInspector(inspectPorts[p])]);
    const inspectorOf = (p: ProcessName): Inspector | undefined => inspectors.find(([name]) => name === p)?.[1];
    const curve: RssPoint[] = [];
    const sampling: Promise<void>[] = [];
    const t0 = performance.now();
    const measure = async (request: number): Promise<RssPoint> => {
      const seconds = (performance.now() - t0) / 1000;
      const entries = await Promise.all(
        MEASURED.map(async (p) => {
          const rss = (await rssOf(pids[p])).now;
          const inspector = inspectorOf(p);
          const after = inspector === undefined ? { liveHeapMiB: Number.NaN, rssMiB: Number.NaN } : await collectAndMeasure(inspector);
          return [p, rss, after] as const;
        }),
      );
      const by = (pick: (entry: (typeof entries)[number]) => number): Record<ProcessName, number> => Object.fromEntries(entries.map((e) => [e[0], pick(e)])) as Record<ProcessName, number>;
      return { request, seconds, mib: by((e) => e[1]), liveHeapMiB: by((e) => e[2].liveHeapMiB), mibAfterGc: by((e) => e[2].rssMiB) };
    };
    const describe = (point: RssPoint): string => MEASURED.map((p) => `${p} ${point.mib[p].toFixed(0)}/${point.liveHeapMiB[p].toFixed(0)}`).join(', ');
    const sample = (request: number): void => {
      sampling.push(
        measure(request).then((point) => {
          curve.push(point);
          options.progress(`  ${request}/${options.questions} in ${point.seconds.toFixed(0)} s; RSS/live heap MiB ${describe(point)}\n`);
        }),
      );
    };

    interface Stats {
      question: string;
      domain: Domain;
      asked: number;
      failed: number;
      notRouted: number;
      unexpected: number;
      latencies: number[];
      routed: Record<string, number>;
      sample: string;
    }
    const stats = new Map<string, Stats>();
    const latencies: number[] = [];
    const failures: string[] = [];
    const unexpectedSamples: string[] = [];
    let failed = 0;
    let notRouted = 0;
    let unexpected = 0;
    let issued = 0;
    let done = 0;
    let nextScript = 0;
    await Promise.all(
      Array.from({ length: options.clients }, async () => {
        const client = await new ClientFactory().createFromUrl(supervisor.url);
        while (issued < options.questions) {
          const scriptNo = nextScript % scripts.length;
          const script = scripts[scriptNo] as Script;
          nextScript += 1;
          const contextId = randomUUID();
          for (const [turnNo, { text, expect }] of script.turns.entries()) {
            if (issued >= options.questions) break;
            issued += 1;
            const t = performance.now();
            let reply: Reply;
            try {
              reply = await ask(client, text, contextId);
            } catch (error) {
              reply = { state: `transport error (${error instanceof Error ? error.message : String(error)})`, answer: '', routed: '', failedAgents: '' };
            }
            const ms = performance.now() - t;
            latencies.push(ms);
            const key = `${scriptNo}:${turnNo}`;
            const label = turnNo === 0 ? text : `${text} (after "${script.turns[0]?.text ?? ''}")`;
            const s = stats.get(key) ?? { question: label, domain: script.domain, asked: 0, failed: 0, notRouted: 0, unexpected: 0, latencies: [], routed: {}, sample: '' };
            stats.set(key, s);
            s.asked += 1;
            s.latencies.push(ms);
            s.routed[reply.routed || '(none)'] = (s.routed[reply.routed || '(none)'] ?? 0) + 1;
            if (s.sample === '') s.sample = reply.answer.slice(0, 300);
            const failure = failureOf(reply);
            if (failure !== undefined) {
              failed += 1;
              s.failed += 1;
              if (failures.length < FAILURES_KEPT) failures.push(`"${label}": ${failure}`);
            } else if (script.domain !== 'any' && NOT_ROUTED.test(reply.answer)) {
              notRouted += 1;
              s.notRouted += 1;
            } else if (!expect.test(reply.answer) || !routedRight(script.domain, reply.routed)) {
              unexpected += 1;
              s.unexpected += 1;
              if (unexpectedSamples.length < FAILURES_KEPT && !unexpectedSamples.some((u) => u.startsWith(`"${label}"`))) unexpectedSamples.push(`"${label}" (routed to ${reply.routed || 'nobody'}): ${firstLines(reply.answer)}`);
            }
            done += 1;
            if (marks.has(done)) sample(done);
          }
        }
      }),
    );
    const seconds = (performance.now() - t0) / 1000;
    await Promise.all(sampling);
    curve.sort((a, b) => a.request - b.request);
    const peaks = Object.fromEntries(await Promise.all(MEASURED.map(async (p) => [p, (await rssOf(pids[p])).peak] as const))) as Record<ProcessName, number>;
    const at = (request: number): RssPoint | undefined => curve.find((point) => point.request === request);
    const rss: RssRow[] = MEASURED.map((p) => {
      const warm = at(warmUp);
      const end = at(options.questions);
      const warmMiB = warm?.mib[p] ?? Number.NaN;
      const endMiB = end?.mib[p] ?? Number.NaN;
      const warmLive = warm?.liveHeapMiB[p] ?? Number.NaN;
      const endLive = end?.liveHeapMiB[p] ?? Number.NaN;
      const warmAfterGc = warm?.mibAfterGc[p] ?? Number.NaN;
      const endAfterGc = end?.mibAfterGc[p] ?? Number.NaN;
      return {
        process: p,
        warmMiB,
        endMiB,
        growthPercent: ((endMiB - warmMiB) / warmMiB) * 100,
        peakMiB: peaks[p],
        warmLiveHeapMiB: warmLive,
        endLiveHeapMiB: endLive,
        liveHeapGrowthPercent: ((endLive - warmLive) / warmLive) * 100,
        warmMiBAfterGc: warmAfterGc,
        endMiBAfterGc: endAfterGc,
        afterGcGrowthPercent: ((endAfterGc - warmAfterGc) / warmAfterGc) * 100,
      };
    });

    const now = Date.now();
    const spills: SpillCheck[] = [];
    for (const agent of ['argocd', 'netbox'] as const) {
      const live = planted[agent].live;
      const gone = !(await exists(live.path));
      spills.push({
        agent,
        ...(await inspectDataDir(dirs[agent], now)),
        expiredBeforeStartRemoved: expiredBeforeStartRemoved[agent],
        plantedTtlSeconds: PLANTED_TTL_SECONDS,
        plantedRemoved: gone ? true : live.expiresAt > now ? 'not expired yet' : false,
      });
    }
    latencies.sort((a, b) => a - b);
    const perQuestion: QuestionRow[] = [...stats.values()].map((s) => {
      const sorted = [...s.latencies].sort((a, b) => a - b);
      return { question: s.question, domain: s.domain, asked: s.asked, failed: s.failed, notRouted: s.notRouted, unexpected: s.unexpected, p50Ms: percentile(sorted, 50), p95Ms: percentile(sorted, 95), routed: s.routed, sample: s.sample };
    });

    const logged = [...logs.entries()].map(([process, watch]) => ({ process, warnings: watch.warnings, errors: watch.errors, first: [...watch.first] }));
    options.progress('  kill and restart: the NetBox agent SIGKILLed between "interfaces of every switch in ams1" and "next batch"...\n');
    const restart = await killAndRestart({ cli: options.cli, netboxUrl: netboxSim.url, progress: options.progress });
    return {
      questions: latencies.length,
      clients: options.clients,
      applications: options.applications,
      devices,
      seconds,
      perSecond: latencies.length / seconds,
      p50Ms: percentile(latencies, 50),
      p95Ms: percentile(latencies, 95),
      p99Ms: percentile(latencies, 99),
      maxMs: latencies[latencies.length - 1] ?? Number.NaN,
      failed,
      failures,
      notRouted,
      notRoutedQuestions: perQuestion.filter((q) => q.notRouted > 0).map((q) => q.question),
      unexpected,
      unexpectedSamples,
      warmUpRequest: warmUp,
      rss,
      rssCurve: curve,
      spills,
      storeTtlSeconds: STORE_DEFAULTS.ttlSeconds,
      restart,
      logged,
      perQuestion,
    };
  } finally {
    // Detach first: a process with a debugger session attached waits for it to go before it exits.
    for (const [, inspector] of inspectors) inspector.close();
    for (const child of children.reverse()) await stopProcess(child);
    await rm(root, { recursive: true, force: true });
  }
}

type Markdown = (header: readonly string[], body: readonly (readonly string[])[]) => string;

/** The printed report: load figures, RSS, spilled results, kill-and-restart, and the questions one by one. */
export function formatSoak(r: SoakResult, markdown: Markdown): string {
  const out: string[] = [];
  const ms = (v: number): string => v.toFixed(0);
  const signed = (percent: number): string => `${percent >= 0 ? '+' : ''}${percent.toFixed(1)}%`;
  out.push(
    `\n${markdown(
      ['questions', 'clients', 'apps', 'devices', 'seconds', 'req/s', 'p50 ms', 'p95 ms', 'p99 ms', 'max ms', 'failed', 'not routed', 'unexpected'],
      [
        [
          String(r.questions), String(r.clients), String(r.applications), String(r.devices), r.seconds.toFixed(1), r.perSecond.toFixed(1),
          ms(r.p50Ms), ms(r.p95Ms), ms(r.p99Ms), ms(r.maxMs), String(r.failed), String(r.notRouted), String(r.unexpected),
        ],
      ],
    )}`,
  );
  out.push(`Failed requests: ${r.failed} (goal 0): ${r.failed === 0 ? 'met' : 'NOT met'}.\n`);
  for (const f of r.failures) out.push(`  failed: ${f}\n`);
  for (const l of r.logged) {
    if (l.warnings + l.errors > 0) out.push(`Logged by the ${l.process} during the load: ${l.warnings} warnings, ${l.errors} errors; first: ${l.first.join(' | ')}\n`);
  }
  if (r.notRouted > 0) {
    out.push(`Not routed (the supervisor answered "None of the agents I can reach covers this" to a question one agent answers): ${r.notRouted}, for ${r.notRoutedQuestions.map((q) => `"${q}"`).join(', ')}\n`);
  }
  if (r.unexpected > 0) out.push(`Answered, but not as expected (wrong agent or an answer without what the question asks for): ${r.unexpected}\n`);
  for (const u of r.unexpectedSamples) out.push(`  unexpected: ${u}\n`);

  const w = r.warmUpRequest;
  const e = r.questions;
  out.push(
    `\nMemory at request ${w} (after warm-up) and at request ${e}: VmRSS from /proc as it was; then a full GC is forced over the inspector and ` +
      `VmRSS and the live V8 heap are read again (every sample forces one, so each "as sampled" reading comes the same number of requests after a collection):\n${markdown(
        ['process', `RSS @${w}`, `RSS @${e}`, 'growth', `after GC @${w}`, `after GC @${e}`, 'growth', `live heap @${w}`, `live heap @${e}`, 'growth', 'peak RSS'],
        r.rss.map((row) => [
          row.process,
          row.warmMiB.toFixed(1),
          row.endMiB.toFixed(1),
          signed(row.growthPercent),
          row.warmMiBAfterGc.toFixed(1),
          row.endMiBAfterGc.toFixed(1),
          signed(row.afterGcGrowthPercent),
          row.warmLiveHeapMiB.toFixed(1),
          row.endLiveHeapMiB.toFixed(1),
          signed(row.liveHeapGrowthPercent),
          row.peakMiB.toFixed(1),
        ]),
      )}`,
  );
  out.push('RSS as sampled / live heap, MiB, by request:\n');
  for (const p of MEASURED) out.push(`  ${p}: ${r.rssCurve.map((point) => `${point.request}:${point.mib[p].toFixed(0)}/${point.liveHeapMiB[p].toFixed(0)}`).join(' ')}\n`);
  const agents = r.rss.filter((row) => row.process !== 'supervisor');
  const verdict = (pick: (row: RssRow) => number): string =>
    `${agents.map((row) => `${row.process} ${signed(pick(row))}`).join(', ')}: ${agents.every((row) => pick(row) < RSS_GROWTH_GOAL_PERCENT) ? 'met' : 'NOT met'}`;
  out.push(`Agent RSS flat after warm-up (growth < ${RSS_GROWTH_GOAL_PERCENT}% from request ${w} to ${e}), as sampled: ${verdict((row) => row.growthPercent)}.\n`);
  out.push(`  the same right after a full GC: ${verdict((row) => row.afterGcGrowthPercent)}.\n`);
  out.push(`No leak (live heap after a full GC grows < ${RSS_GROWTH_GOAL_PERCENT}%): ${verdict((row) => row.liveHeapGrowthPercent)}.\n`);
  const sup = r.rss.find((row) => row.process === 'supervisor');
  if (sup !== undefined) out.push(`  supervisor: RSS ${signed(sup.growthPercent)} as sampled, ${signed(sup.afterGcGrowthPercent)} after GC, live heap ${signed(sup.liveHeapGrowthPercent)}.\n`);

  out.push(
    `\nSpilled results in each agent's --data-dir when the load ended (the agents keep results ${r.storeTtlSeconds} s, the store's default; they have no setting for it):\n${markdown(
      ['agent', 'files', 'MiB', 'oldest s', 'past TTL', 'orphan .idx', 'expired before start: removed', `planted ${PLANTED_TTL_SECONDS} s TTL: removed`],
      r.spills.map((s) => [
        s.agent,
        String(s.files),
        (s.bytes / 1024 / 1024).toFixed(1),
        s.oldestAgeSeconds.toFixed(0),
        s.pastTtl === 0 ? '0' : `${s.pastTtl} (up to ${s.worstOverdueSeconds.toFixed(0)} s over)`,
        String(s.orphans),
        s.expiredBeforeStartRemoved ? 'yes' : 'NO',
        s.plantedRemoved === true ? 'yes' : s.plantedRemoved === false ? 'NO' : 'not expired yet (run too short)',
      ]),
    )}`,
  );
  const spillOk = r.spills.every((s) => s.pastTtl === 0 && s.expiredBeforeStartRemoved && s.plantedRemoved !== false);
  out.push(`No spilled-result file past its TTL: ${spillOk ? 'met' : 'NOT met'}.\n`);

  out.push(`\nKill and restart (NetBox agent, "${r.restart.question}", SIGKILL, restart on the same port, "next batch" in the same contextId through the supervisor):\n`);
  for (const c of r.restart.cases) {
    out.push(
      `  ${c.redis ? 'with Redis (--redis-url)' : 'without Redis (control)'}: ${c.continued ? 'continued (batch 2)' : 'did NOT continue'}; restarted in ${c.restartSeconds.toFixed(1)} s\n` +
        `    before: ${c.firstAnswer}\n    after:  ${c.afterRestart}\n`,
    );
  }
  if (r.restart.skipped !== undefined) out.push(`  with Redis: skipped (${r.restart.skipped}).\n`);
  const redisCase = r.restart.cases.find((c) => c.redis);
  out.push(`With Redis configured the conversation continues after a restart: ${redisCase === undefined ? 'not run' : redisCase.continued ? 'met' : 'NOT met'}.\n`);

  out.push(
    `\nThe questions (each conversation a fresh contextId; follow-ups in the same one):\n${markdown(
      ['question', 'asked', 'failed', 'not routed', 'unexpected', 'p50 ms', 'p95 ms', 'routed to'],
      r.perQuestion.map((q) => [
        q.question.length > 90 ? `${q.question.slice(0, 87)}...` : q.question,
        String(q.asked),
        String(q.failed),
        String(q.notRouted),
        String(q.unexpected),
        ms(q.p50Ms),
        ms(q.p95Ms),
        Object.entries(q.routed).map(([agent, n]) => (Object.keys(q.routed).length > 1 ? `${agent} ${n}` : agent)).join(', '),
      ]),
    )}`,
  );
  return out.join('');
}
