import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { loadTokenCounter } from '@flotilla/tokens';
import { benchA2A } from './a2a.js';
import { benchAnswers, formatAnswers } from './answers.js';
import { benchArgoCd, type ArgoBenchRow } from './argocd.js';
import { benchHostile, formatHostile } from './hostile.js';
import { benchLean, formatLean } from './lean.js';
import { benchTokens, ONE_LETTER_GOAL_MS } from './tokens.js';
import { benchHybrid, formatHybridBench } from './hybrid.js';
import { benchLlm, formatLlmBench } from './llm.js';
import { benchNetBox } from './netbox.js';
import { benchSoak, formatSoak, SOAK_DEFAULTS, SOAK_RANGES } from './soak.js';
import { benchSupervisorHop } from './supervisor.js';

const HELP = `Usage: pnpm bench [-- --applications 819,10000 --clients 10 --budget-tokens 2000 --out bench-results
                    --container-memory-mib 256 --server-node-args="--cpu-prof --cpu-prof-dir=/tmp/prof"
                    --suites netbox,supervisor,argocd,a2a,llm,hybrid,answers,soak,hostile,lean --netbox-latency-ms 20
                    --cli <a CLI entry: another build's, for a before/after; default: the bundle the image runs>
                    --hostile-heap-mib 384
                    --soak-questions 1000 --soak-clients 20 --soak-applications 10000]

NetBox: the N+1 scenario (interfaces of every device at a 200-device site) read naively, batched and sampled
against the simulator with --netbox-latency-ms per request: upstream requests, wall time, exact or not; and the
CPU time of limitation detection per plan. Writes <out>/netbox.json.

LLM (issue 7's context economy, in process, about a minute): tokens at session start for the Argo CD and NetBox
agents with the full tool catalog bound versus the capability index (system prompt index lines + find_tools and
load_tools), also with 1 and 3 tools loaded. Our catalogs are small (7 and 13 tools today); the reduction grows with the
catalog's size, since each tool costs a full definition in one and an index line in the other. Then the prompt
tokens per turn of a 50-turn list-everything conversation through the fake OpenAI server (its own counts) at
MAX_CONTEXT_TOKENS 16,000 and 128,000, with the trims by kind; and fitRequest's time on a 200-message history at
8k, 32k and 128k windows. Writes <out>/llm.json.

Hybrid (issue 9's execution modes, in process, under a minute): 100 realistic questions (about two thirds simple,
a few asked again) one at a time over A2A to the Argo CD and NetBox agents, in llm mode and in hybrid mode, each with
a fresh fake OpenAI server (default script): model requests, model tokens (prompt + completion, the server's own
counts), upstream calls, p50/p95 latency, answers by route (fast, discovery, fallback, cached), failed answers, and
the reduction. Writes <out>/hybrid.json.

Answers (answer quality, in process, under a minute): questions nobody tuned the rules to (answer-questions.ts:
counts, lists, one application or device, time windows, two questions in one, follow-ups, things the agents cannot
do), asked over A2A of the Argo CD agent, the NetBox agent and the supervisor, each in a new conversation unless it
is a follow-up; every expected answer computed from the simulators' estates. Each answer judged correct, honest (not
correct, but saying what it did not do) or confidently wrong (goal 0), per agent; in rules mode, then in hybrid mode
(the fake OpenAI server's default script; the questions handed to it counted apart). Lists every confidently-wrong
and honest question with its answer's start. Writes <out>/answers.json.

Soak (issue 8's load and soak, about 3 minutes): --soak-questions mixed questions (32 conversations of 1-3 turns:
lists with filters, "next page", details, searches, counts, NetBox interfaces of a site in batches, help) from
--soak-clients concurrent A2A clients, each with its own contextIds, through the supervisor to the Argo CD agent
(--soak-applications) and the NetBox agent (600 devices); simulators, agents and supervisor each their own process.
Failed requests (goal 0), p50/p95 latency and throughput; each agent's and the supervisor's RSS at the end of warm-up
(request 200 of 1,000) and at the last request (goal: growth under 10%); spilled-result files past their TTL in the
agents' --data-dir (goal none); then the NetBox agent SIGKILLed between "interfaces of every switch in ams1" and
"next batch" and restarted on the same port, without and with --redis-url (Debian's redis-server; skipped, saying
why, when missing): with Redis the conversation continues. Writes <out>/soak.json.

Hostile (issue 16, about a minute): upstream data and A2A requests nobody here chose, each against a fresh agent
process with --hostile-heap-mib of heap (384: the chart's 75 % of 512 Mi): a 768 KiB base64 word in Helm values, a
2 MiB value in one application, a 40 MB top-level string in the Argo CD list body, a 30 MB NetBox page of tiny
results, 350 messages with 900 KB contextIds, one message of 60,000 parts, 200 concurrent "next page" on one
conversation; and token counting of pathological text (1 MB of one letter: goal under 100 ms). For each: the answer,
the time, the peak RSS (goal: under the heap) and the longest /healthz round trip meanwhile. Writes <out>/hostile.json.

Lean (issue 19, about three minutes): each piece's idle RSS in its own process with Node's default flags and no
--local, 30 s after its start without a request (goal <= 100 MiB; the RSS just after start is shown too); an Argo CD MCP server's peak RSS while 10 clients page all of 10,000 applications, the worst of
5 runs on a fresh server each (goal <= 200 MiB, default flags), the last run's RSS 30 s after its paging ended, and its CPU per tool call, each a page of at most 2,000 tokens (goal <= 3 ms); a cached
rules answer ("${'which apps are out of sync in prod'}") at 50 concurrent A2A clients, 5,000 requests after 40 untimed rounds, asked by the official
SDK client as the supervisor makes it and by a plain HTTP client (goal p99 <= 100 ms and >= 500 answers/s). Every piece runs from the bundle the
image runs; --cli measures another entry (packages/cli/dist/main.js: unbundled) the same way. Writes <out>/lean.json.

Supervisor: the hop's overhead, the NetBox agent asked directly and through the supervisor (each its own
process), at --a2a-concurrency levels with --a2a-requests each. Writes <out>/supervisor.json.

Measures, for each Argo CD estate: the bytes the simulator sends for an unprojected application list and for
the projection our client asks for, the bytes actually fetched while ${'`clients`'} concurrent MCP clients page
through everything, the largest tool result in tokens, and the MCP server process's peak RSS.
The MCP server runs in its own process, with the heap the image's entrypoint gives it in a container of
--container-memory-mib (75% of it; 0 = Node's defaults). Prints a table and writes <out>/argocd.json.
Goal: peak RSS under 200 MiB at 10,000 applications.
`;

const RSS_GOAL_MIB = 200;
/** The entrypoint's default share of the container memory limit given to Node's heap. */
const HEAP_PERCENT = 75;

async function main(): Promise<void> {
  // `pnpm bench -- --suites llm` passes the `--` on to the script: drop it, or every option would be a positional.
  const args = process.argv.slice(2);
  const { values } = parseArgs({
    args: args[0] === '--' ? args.slice(1) : args,
    options: {
      applications: { type: 'string', default: '819,10000' },
      clients: { type: 'string', default: '10' },
      'budget-tokens': { type: 'string', default: '2000' },
      out: { type: 'string', default: 'bench-results' },
      'container-memory-mib': { type: 'string', default: '256' },
      'server-node-args': { type: 'string', default: '' },
      'a2a-concurrency': { type: 'string', default: '10,50' },
      'a2a-requests': { type: 'string', default: '200' },
      suites: { type: 'string', default: 'netbox,supervisor,argocd,a2a,llm,hybrid,answers,soak,hostile,lean' },
      'hostile-heap-mib': { type: 'string', default: '384' },
      'soak-questions': { type: 'string', default: String(SOAK_DEFAULTS.questions) },
      'soak-clients': { type: 'string', default: String(SOAK_DEFAULTS.clients) },
      'soak-applications': { type: 'string', default: String(SOAK_DEFAULTS.applications) },
      'netbox-latency-ms': { type: 'string', default: '20' },
      cli: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(HELP);
    return;
  }
  const suites = new Set(values.suites.split(','));
  const unknownSuites = [...suites].filter((s) => !['netbox', 'supervisor', 'argocd', 'a2a', 'llm', 'hybrid', 'answers', 'soak', 'hostile', 'lean'].includes(s));
  const latencyMs = Number(values['netbox-latency-ms']);
  if (unknownSuites.length > 0 || !Number.isInteger(latencyMs) || latencyMs < 0 || latencyMs > 5_000) {
    process.stderr.write('bench: --suites takes netbox, supervisor, argocd, a2a, llm, hybrid, answers, soak, hostile, lean (comma-separated); --netbox-latency-ms 0-5000\n');
    process.exitCode = 2;
    return;
  }
  const soak = { questions: Number(values['soak-questions']), clients: Number(values['soak-clients']), applications: Number(values['soak-applications']) };
  const badSoak = (Object.keys(SOAK_RANGES) as (keyof typeof SOAK_RANGES)[]).filter((k) => !Number.isInteger(soak[k]) || soak[k] < SOAK_RANGES[k][0] || soak[k] > SOAK_RANGES[k][1]);
  if (badSoak.length > 0) {
    process.stderr.write(
      `bench: ${(Object.keys(SOAK_RANGES) as (keyof typeof SOAK_RANGES)[]).map((k) => `--soak-${k} takes a whole number ${SOAK_RANGES[k][0]}-${SOAK_RANGES[k][1]}`).join(', ')}\n`,
    );
    process.exitCode = 2;
    return;
  }
  await mkdir(values.out, { recursive: true });
  const markdown = (header: readonly string[], body: readonly (readonly string[])[]): string => {
    const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => (row[i] ?? '').length)));
    const line = (cells: readonly string[]): string => `| ${cells.map((c, i) => c.padStart(widths[i] ?? 0)).join(' | ')} |\n`;
    return `${line(header)}|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|\n${body.map(line).join('')}`;
  };
  if (suites.has('netbox')) {
    process.stdout.write(`netbox: interfaces of every device at a 200-device site, ${latencyMs} ms per NetBox request...\n`);
    const nb = await benchNetBox({ counter: await loadTokenCounter(), latencyMs });
    process.stdout.write(
      `\n${markdown(
        ['strategy', 'NetBox requests', 'interfaces', 'exact', 'seconds'],
        nb.nPlusOne.map((r) => [r.strategy, String(r.upstreamCalls), r.interfaces.toLocaleString('en-US'), r.exact ? 'yes' : 'no', r.seconds.toFixed(2)]),
      )}`,
    );
    process.stdout.write(
      `\nLimitation detection + handling, CPU per plan:\n${markdown(
        ['plan', 'limitations', 'mean µs', 'p99 µs'],
        nb.detection.map((r) => [r.plan, r.limitations, r.meanMicros.toFixed(1), r.p99Micros.toFixed(1)]),
      )}`,
    );
    await writeFile(`${values.out}/netbox.json`, `${JSON.stringify({ date: new Date().toISOString(), node: process.version, ...nb }, null, 2)}\n`);
    process.stdout.write(`Wrote ${values.out}/netbox.json\n\n`);
  }
  if (suites.has('llm')) {
    const llm = await benchLlm({ counter: await loadTokenCounter(), progress: (line) => process.stdout.write(line) });
    process.stdout.write(formatLlmBench(llm, markdown));
    await writeFile(`${values.out}/llm.json`, `${JSON.stringify({ date: new Date().toISOString(), node: process.version, ...llm }, null, 2)}\n`);
    process.stdout.write(`Wrote ${values.out}/llm.json\n\n`);
  }
  if (suites.has('hybrid')) {
    const hybrid = await benchHybrid({ progress: (line) => process.stdout.write(line) });
    process.stdout.write(formatHybridBench(hybrid, markdown));
    await writeFile(`${values.out}/hybrid.json`, `${JSON.stringify({ date: new Date().toISOString(), node: process.version, ...hybrid }, null, 2)}\n`);
    process.stdout.write(`Wrote ${values.out}/hybrid.json\n\n`);
  }
  if (suites.has('answers')) {
    const answers = await benchAnswers({ progress: (line) => process.stdout.write(line) });
    process.stdout.write(formatAnswers(answers, markdown));
    await writeFile(`${values.out}/answers.json`, `${JSON.stringify({ date: new Date().toISOString(), node: process.version, ...answers }, null, 2)}\n`);
    process.stdout.write(`Wrote ${values.out}/answers.json\n\n`);
  }
  // The pieces run as the image runs them: from the bundle (packages/cli/dist/bundle/flotilla.mjs, which `pnpm bench`
  // builds first); --cli packages/cli/dist/main.js measures the same CLI unbundled.
  const cliPath = values.cli ?? fileURLToPath(new URL('../../../packages/cli/dist/bundle/flotilla.mjs', import.meta.url));
  if (!existsSync(cliPath)) {
    process.stderr.write(`bench: ${cliPath} is missing: run \`pnpm bundle\` (\`pnpm bench\` bundles first), or pass --cli\n`);
    process.exit(2);
  }
  if (suites.has('lean')) {
    const lean = await benchLean({ cli: cliPath, progress: (line) => process.stdout.write(line) });
    process.stdout.write(formatLean(lean, markdown));
    await writeFile(`${values.out}/lean.json`, `${JSON.stringify({ date: new Date().toISOString(), node: process.version, ...lean }, null, 2)}\n`);
    process.stdout.write(`Wrote ${values.out}/lean.json\n\n`);
  }
  if (suites.has('supervisor')) {
    const levels = values['a2a-concurrency'].split(',').map(Number);
    const requests = Number(values['a2a-requests']);
    if (levels.some((n) => !Number.isInteger(n) || n < 1 || n > 200) || !Number.isInteger(requests) || requests < 1 || requests > 10_000) {
      process.stderr.write('bench: --a2a-concurrency takes whole numbers 1-200 (comma-separated), --a2a-requests 1-10000\n');
      process.exitCode = 2;
      return;
    }
    process.stdout.write(`supervisor: the hop's overhead, ${requests} requests per level...\n`);
    const hop = await benchSupervisorHop({ cli: cliPath, levels, requests });
    process.stdout.write(
      `\n${markdown(
        ['route', 'concurrency', 'requests', 'p50 ms', 'p99 ms', 'failures'],
        hop.rows.map((r) => [r.route, String(r.concurrency), String(r.requests), r.p50Ms.toFixed(1), r.p99Ms.toFixed(1), String(r.failures)]),
      )}`,
    );
    for (const level of levels) {
      const direct = hop.rows.find((r) => r.concurrency === level && r.route === 'direct to the NetBox agent');
      const via = hop.rows.find((r) => r.concurrency === level && r.route === 'through the supervisor');
      if (direct !== undefined && via !== undefined) process.stdout.write(`Supervisor hop at concurrency ${level}: +${(via.p50Ms - direct.p50Ms).toFixed(1)} ms p50, +${(via.p99Ms - direct.p99Ms).toFixed(1)} ms p99.\n`);
    }
    process.stdout.write(`Peak RSS of the supervisor: ${hop.supervisorPeakRssMiB.toFixed(1)} MiB.\n`);
    await writeFile(`${values.out}/supervisor.json`, `${JSON.stringify({ date: new Date().toISOString(), node: process.version, ...hop }, null, 2)}\n`);
    process.stdout.write(`Wrote ${values.out}/supervisor.json\n\n`);
  }
  if (suites.has('hostile')) {
    const heapMiB = Number(values['hostile-heap-mib']);
    if (!Number.isInteger(heapMiB) || heapMiB < 64 || heapMiB > 16_384) {
      process.stderr.write('bench: --hostile-heap-mib takes a whole number 64-16384\n');
      process.exitCode = 2;
      return;
    }
    process.stdout.write('hostile: token counting of pathological text (the old encoder on 16k letters only)...\n');
    const tokens = await benchTokens();
    process.stdout.write(
      `\n${markdown(
        ['text', 'characters', 'tokens', 'ms'],
        tokens.rows.map((r) => [r.shape, r.chars.toLocaleString('en-US'), r.tokens.toLocaleString('en-US'), r.ms.toFixed(2)]),
      )}`,
    );
    const oneLetter = tokens.rows.filter((r) => /one (repeated )?letter/i.test(r.shape) && r.chars >= 1_000_000 && !/old/i.test(r.shape));
    process.stdout.write(`Goal: 1 MB of one letter counted in under ${ONE_LETTER_GOAL_MS} ms: ${oneLetter.length > 0 && oneLetter.every((r) => r.ms < ONE_LETTER_GOAL_MS) ? 'met' : 'missed'} (${oneLetter.map((r) => `${r.ms.toFixed(0)} ms`).join(', ')}).\n\n`);
    process.stdout.write(`hostile: inputs nobody here chose, each against a fresh agent with a ${heapMiB} MiB heap...\n`);
    const hostile = await benchHostile({ cli: cliPath, heapMiB, progress: (line) => process.stdout.write(line) });
    process.stdout.write(formatHostile(hostile, markdown));
    await writeFile(`${values.out}/hostile.json`, `${JSON.stringify({ date: new Date().toISOString(), node: process.version, tokens: tokens.rows, ...hostile }, null, 2)}\n`);
    process.stdout.write(`Wrote ${values.out}/hostile.json\n\n`);
  }
  if (suites.has('soak')) {
    process.stdout.write(`soak: ${soak.questions} mixed questions from ${soak.clients} clients through the supervisor, ${soak.applications} applications and 600 devices...\n`);
    const result = await benchSoak({ cli: cliPath, ...soak, progress: (line) => process.stdout.write(line) });
    process.stdout.write(formatSoak(result, markdown));
    await writeFile(`${values.out}/soak.json`, `${JSON.stringify({ date: new Date().toISOString(), node: process.version, ...result }, null, 2)}\n`);
    process.stdout.write(`Wrote ${values.out}/soak.json\n\n`);
  }
  if (!suites.has('argocd') && !suites.has('a2a')) return;
  const estates = values.applications.split(',').map(Number);
  const clients = Number(values.clients);
  const budgetTokens = Number(values['budget-tokens']);
  if (estates.some((n) => !Number.isInteger(n) || n < 1 || n > 100_000) || !Number.isInteger(clients) || clients < 1 || clients > 50) {
    process.stderr.write('bench: --applications takes whole numbers 1-100000 (comma-separated), --clients 1-50\n');
    process.exitCode = 2;
    return;
  }
  // The MCP server runs as the image runs it: deploy/docker/docker-entrypoint.sh gives Node's heap 75% of the
  // container's memory limit. 0 runs it with Node's defaults (the heap then grows with the host's memory).
  const containerMiB = Number(values['container-memory-mib']);
  if (!Number.isInteger(containerMiB) || containerMiB < 0 || containerMiB > 65_536) {
    process.stderr.write('bench: --container-memory-mib takes a whole number of MiB (0 for no limit)\n');
    process.exitCode = 2;
    return;
  }
  const heapArgs = containerMiB > 0 ? [`--max-old-space-size=${Math.floor((containerMiB * HEAP_PERCENT) / 100)}`] : [];
  const serverNodeArgs = [...heapArgs, ...values['server-node-args'].split(' ').filter((a) => a.length > 0)];
  process.stdout.write(`MCP server process: node ${serverNodeArgs.join(' ') || '(default flags)'}\n`);
  const cli = cliPath;
  const counter = await loadTokenCounter();
  const rows: ArgoBenchRow[] = [];
  for (const applications of suites.has('argocd') ? estates : []) {
    process.stdout.write(`argocd: ${applications} applications, ${clients} concurrent clients...\n`);
    rows.push(await benchArgoCd({ cli, applications, clients, budgetTokens, counter, serverNodeArgs }));
  }
  const mib = (bytes: number): string => (bytes / 1024 / 1024).toFixed(1);
  if (rows.length > 0) {
    process.stdout.write(
    `\n${markdown(
      ['apps', 'unprojected MiB', 'projected MiB', 'fetched MiB', 'upstream reqs', 'tool calls', 'items paged', 'max tokens', 'peak RSS MiB', 'seconds'],
      rows.map((r) => [
        String(r.applications),
        mib(r.unprojectedBytes),
        mib(r.projectedBytes),
        mib(r.fetchedBytes),
        String(r.upstreamRequests),
        String(r.toolCalls),
        String(r.itemsPaged),
        `${r.largestResultTokens}/${r.budgetTokens}`,
        r.peakRssMiB.toFixed(1),
        r.seconds.toFixed(1),
      ]),
    )}`,
    );
    const worst = Math.max(...rows.map((r) => r.peakRssMiB));
    process.stdout.write(`\nPeak RSS of the MCP server: ${worst.toFixed(1)} MiB (goal < ${RSS_GOAL_MIB} MiB): ${worst < RSS_GOAL_MIB ? 'met' : 'NOT met'}.\n`);
    await writeFile(
      `${values.out}/argocd.json`,
      `${JSON.stringify({ date: new Date().toISOString(), node: process.version, clients, containerMemoryMiB: containerMiB, serverNodeArgs, rows }, null, 2)}\n`,
    );
    process.stdout.write(`Wrote ${values.out}/argocd.json\n`);
  }
  if (!suites.has('a2a')) return;
  const levels = values['a2a-concurrency'].split(',').map(Number);
  const a2aRequests = Number(values['a2a-requests']);
  if (levels.some((n) => !Number.isInteger(n) || n < 1 || n > 200) || !Number.isInteger(a2aRequests) || a2aRequests < 1 || a2aRequests > 10_000) {
    process.stderr.write('bench: --a2a-concurrency takes whole numbers 1-200 (comma-separated), --a2a-requests 1-10000\n');
    process.exitCode = 2;
    return;
  }
  process.stdout.write(`\na2a: Argo CD agent, paged list ("list all applications" / "next page"), ${a2aRequests} requests per level...\n`);
  const a2a = await benchA2A({ cli, nodeArgs: serverNodeArgs, levels, requests: a2aRequests });
  process.stdout.write(
    `\n${markdown(
      ['concurrency', 'requests', 'p50 ms', 'p99 ms', 'req/s', 'failures'],
      a2a.rows.map((r) => [String(r.concurrency), String(r.requests), r.p50Ms.toFixed(0), r.p99Ms.toFixed(0), r.perSecond.toFixed(1), String(r.failures)]),
    )}`,
  );
  process.stdout.write(`Peak RSS of the agent (tools in process): ${a2a.peakRssMiB.toFixed(1)} MiB.\n`);
  await writeFile(`${values.out}/a2a.json`, `${JSON.stringify({ date: new Date().toISOString(), node: process.version, serverNodeArgs, ...a2a }, null, 2)}\n`);
}

await main();
