import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { ChildProcess } from 'node:child_process';
import { TaskState } from '@a2a-js/sdk';
import { ClientFactory, type Client } from '@a2a-js/sdk/client';
import { textRequest } from '@flotilla/agent-kit';
import { generateArgoEstate, startArgoCdSimulator, startNetBoxSimulator } from '@flotilla/simulators';
import { rssOf, spawnUntilListening } from './process.js';

/**
 * The `hostile` suite (issue 16): upstream data and A2A requests nobody here chose, each against a fresh agent process
 * with the chart's heap (`--max-old-space-size`, 384 MiB by default: 75 % of the 512 Mi limit). For each shape: the
 * answer (its first line), the wall time and the process's peak RSS (VmHWM). Goal: every answer is an answer or a
 * clear refusal, and every peak RSS stays under the heap.
 */
export interface HostileRow {
  readonly shape: string;
  readonly answer: string;
  readonly seconds: number;
  readonly peakRssMiB: number;
  /** The longest /healthz round trip while the shape ran (the event loop's responsiveness seen from outside). */
  readonly healthzMaxMs: number;
}

export interface HostileResult {
  readonly heapMiB: number;
  readonly rows: readonly HostileRow[];
}

const TOKEN = 'bench-hostile-token-0123456789';
const KiB = 1024;
const MiB = 1024 * KiB;

/** A base64-like word of `bytes` characters: no spaces, the shape of a certificate or a secret in Helm values. */
const base64Word = (bytes: number): string => randomBytes(Math.ceil((bytes * 3) / 4)).toString('base64').slice(0, bytes);

/** An HTTP proxy to `target` that lets `override` answer some requests itself (the hostile shapes). */
async function startProxy(target: string, override: (req: IncomingMessage, res: ServerResponse) => boolean): Promise<{ url: string; close(): Promise<void> }> {
  const upstream = new URL(target);
  const server: Server = createServer((req, res) => {
    if (override(req, res)) return;
    const forward = httpRequest(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: { ...req.headers, host: upstream.host } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}

/** Fetches the whole body of `path` from `target` (the simulator's real answer, to wrap in a hostile one). */
async function fetchText(target: string, req: IncomingMessage): Promise<string> {
  const response = await fetch(new URL(req.url ?? '/', target), { headers: { authorization: String(req.headers.authorization ?? '') } });
  return response.text();
}

/** Writes `size` bytes of `unit` repeated, in 64 KiB chunks, honouring back-pressure. */
async function writeRepeated(res: ServerResponse, unit: string, size: number): Promise<void> {
  const chunk = unit.repeat(Math.ceil((64 * KiB) / unit.length));
  for (let written = 0; written < size; written += chunk.length) {
    if (!res.write(chunk)) await new Promise<void>((done) => res.once('drain', done));
  }
}

interface Reply {
  readonly state: string;
  readonly answer: string;
}

async function ask(url: string, text: string, contextId: string = randomUUID(), shared?: Client): Promise<Reply> {
  const client = shared ?? (await new ClientFactory().createFromUrl(url));
  try {
    const result = await client.sendMessage(textRequest(text, contextId), { signal: AbortSignal.timeout(120_000) });
    if (!('artifacts' in result)) return { state: 'message', answer: '' };
    const answer = (result.artifacts[0]?.parts ?? []).flatMap((p) => (p.content?.$case === 'text' ? [p.content.value] : [])).join('\n');
    return { state: TaskState[result.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED] ?? 'unknown', answer };
  } catch (error) {
    return { state: 'error', answer: error instanceof Error ? error.message : String(error) };
  }
}

/** A raw JSON-RPC SendMessage (the official client refuses to build the hostile ones). */
async function rawSend(url: string, message: Record<string, unknown>): Promise<{ status: number; body: string }> {
  const response = await fetch(`${url}/a2a/jsonrpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message } }),
    signal: AbortSignal.timeout(120_000),
  });
  return { status: response.status, body: await response.text() };
}

/** Polls /healthz every 50 ms while `work` runs; the longest round trip. */
async function whileProbing<T>(url: string, work: () => Promise<T>): Promise<{ value: T; healthzMaxMs: number }> {
  let running = true;
  let worst = 0;
  const probe = (async () => {
    while (running) {
      const started = performance.now();
      try {
        await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(120_000) });
      } catch {
        // a refused probe still measured its wait
      }
      worst = Math.max(worst, performance.now() - started);
      await new Promise((done) => setTimeout(done, 50));
    }
  })();
  try {
    const value = await work();
    running = false;
    await probe;
    return { value, healthzMaxMs: worst };
  } finally {
    running = false;
  }
}

const firstLine = (text: string): string => (text.split('\n').find((l) => l.trim().length > 0) ?? '').slice(0, 160);

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  child.kill('SIGTERM');
  const force = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(force);
}

/** Runs `shape` against a fresh agent process started with `args`; its row. */
async function measure(
  shape: string,
  args: readonly string[],
  run: (url: string) => Promise<string>,
): Promise<HostileRow> {
  const { child, url } = await spawnUntilListening(args, 'A2A agent listening');
  try {
    const started = performance.now();
    const { value: answer, healthzMaxMs } = await whileProbing(url, () => run(url));
    const seconds = (performance.now() - started) / 1000;
    const alive = child.exitCode === null;
    const peakRssMiB = child.pid === undefined || !alive ? Number.NaN : (await rssOf(child.pid)).peak;
    return { shape, answer: alive ? answer : `the agent died (exit ${String(child.exitCode)}): ${answer}`, seconds, peakRssMiB, healthzMaxMs };
  } finally {
    await stop(child);
  }
}

export async function benchHostile(options: { cli: string; heapMiB: number; progress: (line: string) => void }): Promise<HostileResult> {
  const node = [`--max-old-space-size=${options.heapMiB}`, options.cli];
  const argoAgent = (argocdUrl: string): string[] => [...node, 'agent', 'argocd', '--port', '0', '--argocd-url', argocdUrl, '--argocd-token', TOKEN, '--log-level', 'info'];
  const rows: HostileRow[] = [];
  const say = (row: HostileRow): void => {
    rows.push(row);
    options.progress(`  ${row.shape}: ${row.seconds.toFixed(1)} s, peak RSS ${row.peakRssMiB.toFixed(0)} MiB\n`);
  };

  // Upstream data, Argo CD: an estate whose applications carry hostile Helm values.
  const estate = generateArgoEstate({ applications: 819 });
  const [longWordApp, hugeValueApp] = estate.applications;
  if (longWordApp === undefined || hugeValueApp === undefined) throw new Error('the estate has no applications');
  const withValues = (app: typeof longWordApp, values: string): void => {
    const source = app.spec.source ?? app.spec.sources?.[0] ?? { repoURL: 'https://git.example.com/platform/charts.git' };
    app.spec.source = { ...source, helm: { ...source.helm, values } };
    delete app.spec.sources;
  };
  withValues(longWordApp, `tls:\n  cert: ${base64Word(768 * KiB)}\n`);
  withValues(hugeValueApp, `blob: ${base64Word(2 * MiB)}\n`);
  const argo = await startArgoCdSimulator({ token: TOKEN, estate });
  try {
    options.progress('hostile: a 768 KiB base64 word in one application\'s Helm values...\n');
    say(await measure('Argo CD: 768 KiB base64 word in Helm values; "show application <it>"', argoAgent(argo.url), async (url) => {
      const reply = await ask(url, `show application ${longWordApp.metadata.name}`);
      return `${reply.state}: ${firstLine(reply.answer)}`;
    }));
    options.progress('hostile: a 2 MiB value in one application...\n');
    say(await measure('Argo CD: one 2 MiB Helm values string; "list all applications"', argoAgent(argo.url), async (url) => {
      const reply = await ask(url, 'list all applications');
      return `${reply.state}: ${firstLine(reply.answer)}`;
    }));

    // A 40 MB top-level string beside `items` in the list body.
    const junk = await startProxy(argo.url, (req, res) => {
      if (req.method !== 'GET' || !(req.url ?? '').startsWith('/api/v1/applications?') && req.url !== '/api/v1/applications') return false;
      void (async () => {
        const body = await fetchText(argo.url, req);
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"junk":"');
        await writeRepeated(res, 'a', 40 * MiB);
        res.end(`",${body.slice(1)}`);
      })().catch(() => res.destroy());
      return true;
    });
    try {
      options.progress('hostile: a 40 MB top-level string in the list body...\n');
      say(await measure('Argo CD: 40 MB top-level string in the list body; "list all applications"', argoAgent(junk.url), async (url) => {
        const reply = await ask(url, 'list all applications');
        return `${reply.state}: ${firstLine(reply.answer)}`;
      }));
    } finally {
      await junk.close();
    }

  } finally {
    await argo.close();
  }

  // A2A input, against an agent on an ordinary estate.
  const plain = await startArgoCdSimulator({ token: TOKEN });
  try {
    options.progress('hostile: 350 conversations with 900 KB contextIds...\n');
    say(await measure('A2A: 350 messages with 900 KB contextIds', argoAgent(plain.url), async (url) => {
      const contextId = 'c'.repeat(900 * 1000);
      const statuses = new Map<string, number>();
      for (let i = 0; i < 350; i += 1) {
        const { status, body } = await rawSend(url, { messageId: randomUUID(), role: 'ROLE_USER', contextId: `${i}${contextId}`, parts: [{ text: 'list projects' }] });
        const code = /"code":\s*(-?\d+)/.exec(body)?.[1];
        const key = `HTTP ${status}${code === undefined ? '' : ` ${code}`}`;
        statuses.set(key, (statuses.get(key) ?? 0) + 1);
      }
      return [...statuses].map(([k, n]) => `${n}× ${k}`).join(', ');
    }));
    options.progress('hostile: one request of 60,000 one-character parts...\n');
    say(await measure('A2A: one message of 60,000 one-character parts', argoAgent(plain.url), async (url) => {
      const parts = Array.from({ length: 60_000 }, () => ({ text: 'a' }));
      const { status, body } = await rawSend(url, { messageId: randomUUID(), role: 'ROLE_USER', contextId: randomUUID(), parts });
      return `HTTP ${status}: ${body.slice(0, 140)}`;
    }));
    options.progress('hostile: 200 concurrent "next page" on one conversation...\n');
    say(await measure('A2A: 200 concurrent "next page" on one contextId', argoAgent(plain.url), async (url) => {
      const contextId = randomUUID();
      const client = await new ClientFactory().createFromUrl(url);
      await ask(url, 'list all applications', contextId, client);
      const replies = await Promise.all(Array.from({ length: 200 }, () => ask(url, 'next page', contextId, client)));
      const pages = replies.map((r) => /Page (\d+) of/.exec(r.answer)?.[1]).filter((p): p is string => p !== undefined);
      const busy = replies.filter((r) => /busy with your last question/i.test(r.answer)).length;
      const other = replies.filter((r) => !/Page (\d+) of/.test(r.answer) && !/busy with your last question/i.test(r.answer));
      const sample = other[0] === undefined ? '' : ` (e.g. ${other[0].state}: ${firstLine(other[0].answer).slice(0, 80)})`;
      return `${pages.length} pages (${new Set(pages).size} distinct: ${[...new Set(pages)].join(', ')}), ${busy} busy, ${other.length} other${sample}`;
    }));
  } finally {
    await plain.close();
  }

  // Upstream data, NetBox: one 30 MB page of tiny results (NetBox ignoring `limit`).
  const netbox = await startNetBoxSimulator({ token: TOKEN });
  const page = await startProxy(netbox.url, (req, res) => {
    if (req.method !== 'GET' || !(req.url ?? '').startsWith('/api/dcim/sites/')) return false;
    void (async () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"count":300000,"next":null,"previous":null,"results":[');
      const item = (i: number): string => `{"id":${i},"name":"s${i}","slug":"s${i}","status":{"value":"active","label":"Active"}}`;
      let written = 0;
      let batch: string[] = [];
      for (let i = 1; written < 30 * MiB; i += 1) {
        const text = `${i > 1 ? ',' : ''}${item(i)}`;
        written += text.length;
        batch.push(text);
        if (batch.length === 1_000) {
          if (!res.write(batch.join(''))) await new Promise<void>((done) => res.once('drain', done));
          batch = [];
        }
      }
      res.end(`${batch.join('')}]}`);
    })().catch(() => res.destroy());
    return true;
  });
  try {
    options.progress('hostile: a 30 MB NetBox page of tiny results...\n');
    say(await measure('NetBox: one 30 MB page of tiny results; "list sites"', [...node, 'agent', 'netbox', '--port', '0', '--netbox-url', page.url, '--netbox-token', TOKEN, '--log-level', 'info'], async (url) => {
      const reply = await ask(url, 'list sites');
      return `${reply.state}: ${firstLine(reply.answer)}`;
    }));
  } finally {
    await page.close();
    await netbox.close();
  }
  return { heapMiB: options.heapMiB, rows };
}

/** The suite's table (markdown), with the goal. */
export function formatHostile(result: HostileResult, markdown: (header: readonly string[], body: readonly (readonly string[])[]) => string): string {
  const over = result.rows.filter((r) => !(r.peakRssMiB < result.heapMiB));
  return `\n${markdown(
    ['shape', 'answer', 'seconds', 'peak RSS MiB', 'longest /healthz ms'],
    result.rows.map((r) => [r.shape, r.answer.replaceAll('|', '\\|'), r.seconds.toFixed(2), r.peakRssMiB.toFixed(0), r.healthzMaxMs.toFixed(0)]),
  )}Goal: peak RSS under the chart's heap (${result.heapMiB} MiB) for every shape: ${over.length === 0 ? 'met' : `missed by ${over.map((r) => r.shape).join('; ')}`}.\n`;
}
