import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { capturingLogger, silentLogger } from '@flotilla/core';
import { createMetrics, METRIC } from '@flotilla/metrics';
import { MemoryGuard, memorySource, readMemoryLimit, readMemoryUsage, resolveMemoryCgroup, startA2AServer, startMemoryGuard, type AnswerTurn } from './index.js';

const dirs: string[] = [];
async function cgroup(files: Readonly<Record<string, string>>): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'flotilla-cgroup-'));
  dirs.push(root);
  for (const [path, content] of Object.entries(files)) {
    await mkdir(join(root, path, '..'), { recursive: true });
    await writeFile(join(root, path), `${content}\n`);
  }
  return root;
}
afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

const capture = () => capturingLogger();

describe('cgroup memory files', () => {
  it('reads one directory\'s limit: v2 memory.max, v1 memory.limit_in_bytes; "max", v1 "unlimited", garbage and no file mean none', async () => {
    expect(await readMemoryLimit('v2', await cgroup({ 'memory.max': '268435456' }))).toBe(268_435_456);
    expect(await readMemoryLimit('v2', await cgroup({ 'memory.max': 'max' }))).toBeUndefined();
    expect(await readMemoryLimit('v1', await cgroup({ 'memory.limit_in_bytes': '536870912' }))).toBe(536_870_912);
    expect(await readMemoryLimit('v1', await cgroup({ 'memory.limit_in_bytes': '9223372036854771712' }))).toBeUndefined();
    expect(await readMemoryLimit('v2', await cgroup({}))).toBeUndefined();
    expect(await readMemoryLimit('v2', await cgroup({ 'memory.max': 'garbage' }))).toBeUndefined();
    expect(await readMemoryLimit('v2', join(await cgroup({}), 'no', 'such', 'dir'))).toBeUndefined();
  });

  it('counts the working set: usage minus inactive page cache (v2, v1); undefined without a usage file', async () => {
    expect(await readMemoryUsage('v2', await cgroup({ 'memory.current': '1000000', 'memory.stat': 'anon 600000\ninactive_file 300000\nactive_file 100000' }))).toBe(700_000);
    expect(await readMemoryUsage('v2', await cgroup({ 'memory.current': '1000000' }))).toBe(1_000_000);
    expect(await readMemoryUsage('v1', await cgroup({ 'memory.usage_in_bytes': '500', 'memory.stat': 'cache 10\ntotal_inactive_file 200' }))).toBe(300);
    expect(await readMemoryUsage('v2', await cgroup({}))).toBeUndefined();
  });
});

const GiB = 1024 ** 3;
const MiB = 1024 ** 2;
const EIGHT_GIB = String(8 * GiB);
const V1_UNLIMITED_TEXT = '9223372036854771712';

/** One mountinfo line; `root` and `mountPoint` are escaped as the kernel does (space as \040). */
function mountLine(id: number, root: string, mountPoint: string, fsType: string, superOptions: string): string {
  const escape = (path: string) => path.replaceAll('\\', '\\134').replaceAll(' ', '\\040');
  return `${id} 23 0:${id} ${escape(root)} ${escape(mountPoint)} rw,nosuid,nodev,noexec,relatime shared:${id} - ${fsType} ${fsType} ${superOptions}`;
}

/**
 * A fake host in a temp folder: `files` under it, a proc cgroup file, and a mountinfo made from the folder
 * (`mounts(tree)` gets the folder, so mount points lie inside it).
 */
async function fakeHost(spec: { readonly procCgroup: string; readonly mounts: (tree: string) => readonly string[]; readonly files: Readonly<Record<string, string>> }) {
  const tree = await cgroup({ ...spec.files, 'proc/self/cgroup': spec.procCgroup });
  await writeFile(join(tree, 'proc/self/mountinfo'), `${spec.mounts(tree).join('\n')}\n`);
  return { tree, paths: { procSelfCgroup: join(tree, 'proc/self/cgroup'), mountinfo: join(tree, 'proc/self/mountinfo') } };
}

/** A cgroup v2 host: the unified hierarchy at <tree>/sys/fs/cgroup with the memory controller. */
const v2Host = (procCgroup: string, files: Readonly<Record<string, string>>, root = '/') =>
  fakeHost({
    procCgroup,
    mounts: (tree) => [mountLine(30, root, join(tree, 'sys/fs/cgroup'), 'cgroup2', 'rw,nsdelegate')],
    files: { 'sys/fs/cgroup/cgroup.controllers': 'cpuset cpu io memory hugetlb pids', ...files },
  });

/** A hybrid host like a systemd VM: v1 controllers, the v2 `unified` mount without controllers. */
const HYBRID_PROC_CGROUP = (memoryLine: string) => ['9:name=systemd:/', '8:pids:/', '5:devices:/', memoryLine, '2:cpu,cpuacct:/', '0::/'].join('\n');
const hybridMounts = (memoryRoot: string) => (tree: string) => [
  `31 23 0:28 / ${join(tree, 'sys/fs/cgroup')} rw,relatime - tmpfs tmpfs rw,mode=755`,
  mountLine(32, '/', join(tree, 'sys/fs/cgroup/cpu,cpuacct'), 'cgroup', 'rw,cpu,cpuacct'),
  mountLine(35, memoryRoot, join(tree, 'sys/fs/cgroup/memory'), 'cgroup', 'rw,memory'),
  mountLine(39, '/', join(tree, 'sys/fs/cgroup/pids'), 'cgroup', 'rw,pids'),
  mountLine(41, '/', join(tree, 'sys/fs/cgroup/unified'), 'cgroup2', 'rw'),
];

describe('the process\'s own memory cgroup', () => {
  it('v2 in a cgroup namespace (0::/): the mount point is the container, limit and usage from there', async () => {
    const { tree, paths } = await v2Host('0::/', { 'sys/fs/cgroup/memory.max': String(512 * MiB), 'sys/fs/cgroup/memory.current': '100000000', 'sys/fs/cgroup/memory.stat': 'anon 1\ninactive_file 20000000' });
    const dir = join(tree, 'sys/fs/cgroup');
    expect(await resolveMemoryCgroup(paths)).toEqual({ version: 'v2', dir, mountPoint: dir, limitBytes: 512 * MiB, limitDir: dir });
    const source = await memorySource({ paths });
    expect(source).toMatchObject({ limitBytes: 512 * MiB, limitSource: 'cgroup', usageSource: `cgroup v2 ${dir}` });
    expect(await source.usage()).toBe(80_000_000);
  });

  it('v2 without a namespace (0::/kubepods/pod1/ctr): the leaf\'s limit and working set, never the root\'s 8 GiB', async () => {
    const { tree, paths } = await v2Host('0::/kubepods/pod1/ctr', {
      'sys/fs/cgroup/memory.current': EIGHT_GIB,
      'sys/fs/cgroup/kubepods/memory.max': 'max',
      'sys/fs/cgroup/kubepods/pod1/memory.max': String(GiB),
      'sys/fs/cgroup/kubepods/pod1/ctr/memory.max': String(256 * MiB),
      'sys/fs/cgroup/kubepods/pod1/ctr/memory.current': '1000',
    });
    const leaf = join(tree, 'sys/fs/cgroup/kubepods/pod1/ctr');
    expect(await resolveMemoryCgroup(paths)).toMatchObject({ version: 'v2', dir: leaf, limitBytes: 256 * MiB, limitDir: leaf });
    expect(await (await memorySource({ paths })).usage()).toBe(1000);
  });

  it('v2 with limits only on ancestors: the smallest wins and usage is that ancestor\'s', async () => {
    const { tree, paths } = await v2Host('0::/kubepods/pod1/ctr', {
      'sys/fs/cgroup/memory.current': EIGHT_GIB,
      'sys/fs/cgroup/kubepods/memory.max': String(4 * GiB),
      'sys/fs/cgroup/kubepods/memory.current': String(3 * GiB),
      'sys/fs/cgroup/kubepods/pod1/memory.max': String(GiB),
      'sys/fs/cgroup/kubepods/pod1/memory.current': String(100 * MiB),
      'sys/fs/cgroup/kubepods/pod1/ctr/memory.max': 'max',
      'sys/fs/cgroup/kubepods/pod1/ctr/memory.current': '1000',
    });
    const pod = join(tree, 'sys/fs/cgroup/kubepods/pod1');
    expect(await resolveMemoryCgroup(paths)).toMatchObject({ dir: join(pod, 'ctr'), limitBytes: GiB, limitDir: pod });
    const source = await memorySource({ paths });
    expect(source.usageSource).toBe(`cgroup v2 ${pod}`);
    expect(await source.usage()).toBe(100 * MiB);
  });

  it('v1 on a hybrid host (4:memory:/process_api/abc, a controller-less v2 unified mount): the v1 memory cgroup', async () => {
    const { tree, paths } = await fakeHost({
      procCgroup: HYBRID_PROC_CGROUP('4:memory:/process_api/abc'),
      mounts: hybridMounts('/'),
      files: {
        'sys/fs/cgroup/unified/cgroup.controllers': 'hugetlb',
        'sys/fs/cgroup/unified/memory.current': EIGHT_GIB,
        'sys/fs/cgroup/memory/memory.limit_in_bytes': V1_UNLIMITED_TEXT,
        'sys/fs/cgroup/memory/memory.usage_in_bytes': EIGHT_GIB,
        'sys/fs/cgroup/memory/process_api/memory.limit_in_bytes': V1_UNLIMITED_TEXT,
        'sys/fs/cgroup/memory/process_api/abc/memory.limit_in_bytes': String(512 * MiB),
        'sys/fs/cgroup/memory/process_api/abc/memory.usage_in_bytes': '300',
        'sys/fs/cgroup/memory/process_api/abc/memory.stat': 'cache 150\ntotal_inactive_file 100',
      },
    });
    const leaf = join(tree, 'sys/fs/cgroup/memory/process_api/abc');
    expect(await resolveMemoryCgroup(paths)).toEqual({ version: 'v1', dir: leaf, mountPoint: join(tree, 'sys/fs/cgroup/memory'), limitBytes: 512 * MiB, limitDir: leaf });
    expect(await (await memorySource({ paths })).usage()).toBe(200);
  });

  it('v1 with combined controllers (5:cpuacct,memory:/x) and the mount whose super options name memory', async () => {
    const { tree, paths } = await fakeHost({
      procCgroup: '5:cpuacct,memory:/x\n3:cpu:/y\n0::/',
      mounts: (t) => [mountLine(32, '/', join(t, 'cg/cpu'), 'cgroup', 'rw,cpu'), mountLine(33, '/', join(t, 'cg/cpuacct,memory'), 'cgroup', 'rw,cpuacct,memory')],
      files: { 'cg/cpuacct,memory/x/memory.limit_in_bytes': '1048576', 'cg/cpu/y/memory.limit_in_bytes': '1' },
    });
    expect(await resolveMemoryCgroup(paths)).toMatchObject({ version: 'v1', dir: join(tree, 'cg/cpuacct,memory/x'), limitBytes: 1_048_576 });
  });

  it('v1 with the container\'s own cgroup bind-mounted (mount root /docker/abc = the cgroup path): the mount point itself', async () => {
    const { tree, paths } = await fakeHost({
      procCgroup: '11:memory:/docker/abc\n0::/',
      mounts: (t) => [mountLine(35, '/docker/abc', join(t, 'sys/fs/cgroup/memory'), 'cgroup', 'rw,memory')],
      files: { 'sys/fs/cgroup/memory/memory.limit_in_bytes': String(768 * MiB), 'sys/fs/cgroup/memory/memory.usage_in_bytes': '4096' },
    });
    const dir = join(tree, 'sys/fs/cgroup/memory');
    expect(await resolveMemoryCgroup(paths)).toEqual({ version: 'v1', dir, mountPoint: dir, limitBytes: 768 * MiB, limitDir: dir });
    expect(await (await memorySource({ paths })).usage()).toBe(4096);
  });

  it('a path outside the mount\'s root is the mount point; octal escapes are decoded; ".." never leaves the mount point', async () => {
    const outside = await v2Host('0::/kubepods/x', { 'sys/fs/cgroup/memory.max': '4096' }, '/elsewhere');
    expect(await resolveMemoryCgroup(outside.paths)).toMatchObject({ dir: join(outside.tree, 'sys/fs/cgroup'), limitBytes: 4096 });

    const { tree, paths } = await fakeHost({
      procCgroup: '0::/../../escape',
      mounts: (t) => [mountLine(30, '/', join(t, 'cgroup v2'), 'cgroup2', 'rw')],
      files: { 'cgroup v2/cgroup.controllers': 'memory', 'cgroup v2/memory.max': '8192', 'escape/memory.max': '1' },
    });
    expect(await readFile(paths.mountinfo, 'utf8')).toContain('cgroup\\040v2');
    expect(await resolveMemoryCgroup(paths)).toMatchObject({ dir: join(tree, 'cgroup v2'), limitBytes: 8192 });
  });

  it('prefers v2 when its hierarchy has the memory controller, even with a v1 memory line', async () => {
    const { tree, paths } = await fakeHost({
      procCgroup: '4:memory:/v1path\n0::/v2path',
      mounts: (t) => [mountLine(35, '/', join(t, 'v1'), 'cgroup', 'rw,memory'), mountLine(41, '/', join(t, 'v2'), 'cgroup2', 'rw')],
      files: { 'v2/cgroup.controllers': 'cpu memory', 'v2/v2path/memory.max': '2048', 'v1/v1path/memory.limit_in_bytes': '1024' },
    });
    expect(await resolveMemoryCgroup(paths)).toMatchObject({ version: 'v2', dir: join(tree, 'v2/v2path'), limitBytes: 2048 });
  });

  it('no limit on the path and --memory-limit-mib: the setting against the process RSS, not the root\'s 8 GiB', async () => {
    const { tree, paths } = await v2Host('0::/system.slice/agent.service', {
      'sys/fs/cgroup/memory.current': EIGHT_GIB,
      'sys/fs/cgroup/memory.stat': 'inactive_file 0',
      'sys/fs/cgroup/system.slice/memory.max': 'max',
      'sys/fs/cgroup/system.slice/agent.service/memory.max': 'max',
      'sys/fs/cgroup/system.slice/agent.service/memory.current': EIGHT_GIB,
    });
    expect(await resolveMemoryCgroup(paths)).toEqual({
      version: 'v2',
      dir: join(tree, 'sys/fs/cgroup/system.slice/agent.service'),
      mountPoint: join(tree, 'sys/fs/cgroup'),
      limitBytes: undefined,
      limitDir: undefined,
    });
    const source = await memorySource({ paths, limitBytes: 512 * MiB });
    expect(source).toMatchObject({ limitBytes: 512 * MiB, limitSource: 'setting', usageSource: 'process rss' });
    const used = await source.usage();
    expect(used).toBeGreaterThan(0);
    expect(used).toBeLessThan(4 * GiB);
    // Without the setting there is no limit at all.
    expect(await memorySource({ paths })).toMatchObject({ limitBytes: undefined, limitSource: 'none', usageSource: 'process rss' });
  });

  it('the setting with a cgroup limit: the setting is the limit, the cgroup\'s working set the usage', async () => {
    const { tree, paths } = await v2Host('0::/ctr', { 'sys/fs/cgroup/ctr/memory.max': String(GiB), 'sys/fs/cgroup/ctr/memory.current': '5000', 'sys/fs/cgroup/memory.current': EIGHT_GIB });
    const source = await memorySource({ paths, limitBytes: 512 * MiB });
    expect(source).toMatchObject({ limitBytes: 512 * MiB, limitSource: 'setting', usageSource: `cgroup v2 ${join(tree, 'sys/fs/cgroup/ctr')}` });
    expect(await source.usage()).toBe(5000);
  });

  it('missing /proc files or no cgroup mount: no cgroup, usage is RSS', async () => {
    const empty = await cgroup({});
    const missing = { procSelfCgroup: join(empty, 'proc/self/cgroup'), mountinfo: join(empty, 'proc/self/mountinfo') };
    expect(await resolveMemoryCgroup(missing)).toBeUndefined();
    const source = await memorySource({ paths: missing, limitBytes: 512 * MiB });
    expect(source).toMatchObject({ limitBytes: 512 * MiB, limitSource: 'setting', usageSource: 'process rss', cgroup: undefined });
    expect(await source.usage()).toBeLessThan(4 * GiB);

    const unmounted = await fakeHost({ procCgroup: '0::/a', mounts: (t) => [`31 23 0:28 / ${join(t, 'sys')} rw - sysfs sysfs rw`], files: {} });
    expect(await resolveMemoryCgroup(unmounted.paths)).toBeUndefined();
  });

  it('falls back to RSS with one warning when the cgroup usage can no longer be read', async () => {
    const { tree, paths } = await v2Host('0::/ctr', { 'sys/fs/cgroup/ctr/memory.max': String(GiB), 'sys/fs/cgroup/ctr/memory.current': '5000' });
    const { lines, logger } = capture();
    const source = await memorySource({ paths, logger });
    expect(await source.usage()).toBe(5000);
    await rm(join(tree, 'sys/fs/cgroup/ctr/memory.current'));
    const fallback = await source.usage();
    expect(fallback).toBeGreaterThan(5000);
    expect(fallback).toBeLessThan(4 * GiB);
    await source.usage();
    expect(lines.filter((l) => l.includes('cannot read the cgroup usage'))).toHaveLength(1);
  });

  it('an unreadable /proc file is a warning and RSS, never an error', async () => {
    const { lines, logger } = capture();
    // A folder where the file should be: reading it fails with EISDIR.
    const tree = await cgroup({ 'proc/self/cgroup/x': '', 'proc/self/mountinfo': '' });
    const source = await memorySource({ paths: { procSelfCgroup: join(tree, 'proc/self/cgroup'), mountinfo: join(tree, 'proc/self/mountinfo') }, logger, limitBytes: 512 * MiB });
    expect(source).toMatchObject({ limitSource: 'setting', usageSource: 'process rss' });
    expect(lines.some((l) => l.includes('cannot read the process cgroup'))).toBe(true);
  });
});

describe('startMemoryGuard on a host without a cgroup namespace', () => {
  it('stays ok and accepting with --memory-limit-mib set while the cgroup root says 8 GiB, and says what it measures', async () => {
    // A limit far above this process's RSS (a test worker runs many files), far below the root's 8 GiB.
    const limitBytes = Math.max(512, Math.ceil(process.memoryUsage().rss / MiB) * 4) * MiB;
    const { paths } = await v2Host('0::/user.slice/user-1000.slice/session-3.scope', {
      'sys/fs/cgroup/memory.current': EIGHT_GIB,
      'sys/fs/cgroup/memory.stat': 'inactive_file 0',
      'sys/fs/cgroup/user.slice/memory.max': 'max',
    });
    const { lines, logger } = capture();
    const guard = await startMemoryGuard({ agent: 'toy', metrics: createMetrics(), logger, limitBytes, cgroup: paths });
    try {
      expect(await guard.check()).toBe('ok');
      expect(guard.accepting).toBe(true);
      // Measured something (the process RSS), far below the 8 GiB the cgroup root reports.
      expect(guard.ratio).toBeGreaterThan(0);
      const on = lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.msg === 'memory guard on');
      expect(on).toMatchObject({ limitBytes, limitSource: 'setting', usageSource: 'process rss' });
    } finally {
      guard.stop();
    }
  });
});

describe('memory guard', () => {
  it('tightens above 75%, sheds above 90%, and comes back down with hysteresis', async () => {
    let used = 0;
    const guard = new MemoryGuard({ limitBytes: 1_000, usage: () => used });
    const at = async (bytes: number) => {
      used = bytes;
      return guard.check();
    };
    expect(await at(500)).toBe('ok');
    expect(guard.budgetFactor).toBe(1);
    expect(await at(760)).toBe('tight');
    expect(guard.budgetFactor).toBe(0.5);
    expect(guard.accepting).toBe(true);
    expect(await at(910)).toBe('shed');
    expect(guard.accepting).toBe(false);
    // Just under the threshold is not enough to leave a state (no flapping at the edge).
    expect(await at(880)).toBe('shed');
    expect(await at(840)).toBe('tight');
    expect(await at(720)).toBe('tight');
    expect(await at(690)).toBe('ok');
  });

  it('stays ok without a known limit, and refuses nonsense thresholds', async () => {
    const guard = new MemoryGuard({ limitBytes: undefined, usage: () => 10 ** 12 });
    expect(await guard.check()).toBe('ok');
    expect(() => new MemoryGuard({ limitBytes: 1, tightRatio: 0.9, shedRatio: 0.8 })).toThrow(RangeError);
  });
});

const rpc = (text: string) => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'SendMessage',
  params: { message: { messageId: `m-${Math.random()}`, role: 'ROLE_USER', parts: [{ text }], contextId: 'ctx-guard' } },
});

describe('A2A server gate: credentials, then memory', () => {
  it('answers 401 without a valid token and 503 + Retry-After while shedding, doing no work; metrics say why', async () => {
    let turns = 0;
    const answer: AnswerTurn = () => {
      turns += 1;
      return Promise.resolve({ answer: 'done', options: [], metadata: {} });
    };
    const metrics = createMetrics();
    let used = 100;
    const guard = await startMemoryGuard({ agent: 'toy', metrics, logger: silentLogger(), limitBytes: 1_000, usage: () => used });
    const token = 'a2a-token-0123456789abcdef';
    const server = await startA2AServer({
      agent: { name: 'toy', description: 'toy agent', version: '0.0.1', skills: [] },
      answer,
      host: '127.0.0.1',
      port: 0,
      logger: silentLogger(),
      metrics,
      auth: { tokens: [token] },
      guard,
      onReject: (reason) => metrics.a2aRejected.inc({ agent: 'toy', reason }),
    });
    const post = (headers: Record<string, string>, text = 'hello') =>
      fetch(`${server.url}/a2a/jsonrpc`, { method: 'POST', headers: { 'content-type': 'application/json', 'A2A-Version': '1.0', ...headers }, body: JSON.stringify(rpc(text)) });
    try {
      // The card is public and declares both schemes.
      const card = (await (await fetch(server.cardUrl)).json()) as { securitySchemes: Record<string, unknown> };
      expect(Object.keys(card.securitySchemes).sort()).toEqual(['apiKey', 'bearer']);

      const bad: Record<string, string>[] = [{}, { authorization: 'Bearer wrong-token-0123456789' }, { authorization: token }, { "x-api-key": `${token}x` }];
      for (const headers of bad) {
        const refused = await post(headers);
        expect(refused.status).toBe(401);
        expect(refused.headers.get('www-authenticate')).toMatch(/^Bearer/);
      }
      expect(turns).toBe(0);
      expect((await post({ authorization: `Bearer ${token}` })).status).toBe(200);
      expect((await post({ 'X-API-Key': token })).status).toBe(200);
      expect(turns).toBe(2);

      used = 950;
      await guard.check();
      const busy = await post({ authorization: `Bearer ${token}` });
      expect(busy.status).toBe(503);
      expect(busy.headers.get('retry-after')).toBe('5');
      expect(((await busy.json()) as { message: string }).message).toMatch(/busy.*retry in 5 s/);
      expect((await fetch(`${server.url}/readyz`)).status).toBe(503);
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
      expect(turns).toBe(2);

      used = 100;
      await guard.check();
      expect((await post({ authorization: `Bearer ${token}` })).status).toBe(200);
      expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
      expect(turns).toBe(3);

      const exposed = await metrics.registry.metrics();
      expect(exposed).toContain(`${METRIC.a2aRejected}{agent="toy",reason="unauthorized"} 4`);
      expect(exposed).toContain(`${METRIC.a2aRejected}{agent="toy",reason="busy"} 1`);
      expect(exposed).toContain(`${METRIC.memoryGuardState}{agent="toy",state="ok"} 1`);
      expect(exposed).toContain(`${METRIC.memoryUsageRatio}{agent="toy"} 0.1`);
    } finally {
      guard.stop();
      await server.close();
    }
  });

  it('checks credentials before the protocol, counts protocol refusals as invalid_request, and meters the task store', async () => {
    let turns = 0;
    const answer: AnswerTurn = () => {
      turns += 1;
      return Promise.resolve({ answer: 'done', options: [], metadata: {} });
    };
    const metrics = createMetrics();
    const token = 'a2a-token-0123456789abcdef';
    const server = await startA2AServer({
      agent: { name: 'toy', description: 'toy agent', version: '0.0.1', skills: [] },
      answer,
      host: '127.0.0.1',
      port: 0,
      logger: silentLogger(),
      metrics,
      auth: { tokens: [token] },
      onReject: (reason) => metrics.a2aRejected.inc({ agent: 'toy', reason }),
    });
    const post = (body: string, headers: Record<string, string> = { authorization: `Bearer ${token}` }) =>
      fetch(`${server.url}/a2a/jsonrpc`, { method: 'POST', headers: { 'content-type': 'application/json', 'A2A-Version': '1.0', ...headers }, body });
    try {
      // Without a token even a broken body is a 401: nothing is read before the credentials.
      expect((await post('{"jsonrpc":', {})).status).toBe(401);
      const broken = await post('{"jsonrpc":');
      expect(broken.status).toBe(200);
      expect(await broken.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
      const long = rpc('hello');
      (long.params.message as { contextId: string }).contextId = 'c'.repeat(300);
      expect(await (await post(JSON.stringify(long))).json()).toMatchObject({ error: { code: -32602, message: 'message.contextId is 300 characters; at most 256 printable characters' } });
      expect(turns).toBe(0);
      expect((await post(JSON.stringify(rpc('hello')))).status).toBe(200);
      expect(turns).toBe(1);

      const exposed = await metrics.registry.metrics();
      expect(exposed).toContain(`${METRIC.a2aRejected}{agent="toy",reason="unauthorized"} 1`);
      expect(exposed).toContain(`${METRIC.a2aRejected}{agent="toy",reason="invalid_request"} 2`);
      expect(exposed).toContain(`${METRIC.storeEntries}{store="task"} 1`);
      expect(exposed).toMatch(new RegExp(`${METRIC.storeBytes}\\{store="task"\\} [1-9]\\d*`));
    } finally {
      await server.close();
    }
  });

  it('refuses to start with a short token', async () => {
    await expect(
      startA2AServer({ agent: { name: 't', description: 't', version: '0', skills: [] }, answer: () => Promise.reject(new Error('no')), host: '127.0.0.1', port: 0, logger: silentLogger(), auth: { tokens: ['short'] } }),
    ).rejects.toThrow(/at least 16 characters/);
  });
});
