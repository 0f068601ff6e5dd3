import { execFile } from 'node:child_process';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The image entrypoint (deploy/docker/docker-entrypoint.sh) run for real with bash, against a fake cgroup
 * filesystem (FLOTILLA_CGROUP_ROOT) and a fake `node` (FLOTILLA_NODE_BIN) that prints what it was given.
 */
const ENTRYPOINT = fileURLToPath(new URL('../../deploy/docker/docker-entrypoint.sh', import.meta.url));
const MiB = 1024 * 1024;
const V1_UNLIMITED = '9223372036854771712';

const run = promisify(execFile);
let root: string;
let fakeNode: string;
let cases = 0;

interface Launch {
  /** NODE_OPTIONS node was started with; undefined when unset. */
  readonly nodeOptions: string | undefined;
  readonly argv: string[];
}

/** A fresh fake cgroup root holding the given files (relative path -> content). */
async function cgroup(files: Readonly<Record<string, string>>): Promise<string> {
  cases += 1;
  const dir = join(root, `cgroup-${cases}`);
  await mkdir(join(dir, 'memory'), { recursive: true });
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), `${content}\n`);
  }
  return dir;
}

/**
 * Runs the entrypoint against a fake cgroup root; `membership` is the process's /proc/self/cgroup (default: none, so
 * only the root is read).
 */
async function launch(cgroupRoot: string, env: Readonly<Record<string, string>> = {}, args: string[] = ['mcp', 'argocd'], membership?: string): Promise<Launch> {
  const procSelfCgroup = join(cgroupRoot, 'proc-self-cgroup');
  if (membership !== undefined) await writeFile(procSelfCgroup, membership);
  const { stdout } = await run('bash', [ENTRYPOINT, ...args], {
    env: { PATH: '/usr/local/bin:/usr/bin:/bin', FLOTILLA_CGROUP_ROOT: cgroupRoot, FLOTILLA_PROC_SELF_CGROUP: procSelfCgroup, FLOTILLA_NODE_BIN: fakeNode, ...env },
  });
  const [options, ...argv] = stdout.trimEnd().split('\n');
  return { nodeOptions: options === 'NODE_OPTIONS unset' ? undefined : options?.replace(/^NODE_OPTIONS=/, ''), argv };
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'flotilla-entrypoint-'));
  fakeNode = join(root, 'node');
  await writeFile(
    fakeNode,
    '#!/bin/sh\nif [ "${NODE_OPTIONS+set}" = set ]; then echo "NODE_OPTIONS=$NODE_OPTIONS"; else echo "NODE_OPTIONS unset"; fi\nfor a in "$@"; do echo "$a"; done\n',
  );
  await chmod(fakeNode, 0o755);
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('docker entrypoint heap sizing', () => {
  it('gives the heap 75% of a cgroup v2 limit', async () => {
    const result = await launch(await cgroup({ 'memory.max': String(512 * MiB) }));
    expect(result.nodeOptions).toBe('--max-old-space-size=384');
  });

  it('sets no flag when cgroup v2 has no limit', async () => {
    const result = await launch(await cgroup({ 'memory.max': 'max' }));
    expect(result.nodeOptions).toBeUndefined();
  });

  it('reads a cgroup v1 limit', async () => {
    const result = await launch(await cgroup({ 'memory/memory.limit_in_bytes': String(1024 * MiB) }));
    expect(result.nodeOptions).toBe('--max-old-space-size=768');
  });

  it('treats the cgroup v1 "unlimited" sentinel as no limit', async () => {
    const result = await launch(await cgroup({ 'memory/memory.limit_in_bytes': V1_UNLIMITED }));
    expect(result.nodeOptions).toBeUndefined();
  });

  it('sets no flag without any cgroup memory file', async () => {
    const result = await launch(await cgroup({}));
    expect(result.nodeOptions).toBeUndefined();
  });

  it('reads the process’s own cgroup v2 (no cgroup namespace), not the machine’s root', async () => {
    const root = await cgroup({ 'memory.max': 'max', 'kubepods/pod1/ctr/memory.max': String(512 * MiB) });
    expect((await launch(root, {}, undefined, '0::/kubepods/pod1/ctr\n')).nodeOptions).toBe('--max-old-space-size=384');
  });

  it('takes the smallest limit on the way up (a limit on a parent applies too)', async () => {
    const root = await cgroup({ 'kubepods/memory.max': String(256 * MiB), 'kubepods/pod1/ctr/memory.max': 'max' });
    expect((await launch(root, {}, undefined, '0::/kubepods/pod1/ctr\n')).nodeOptions).toBe('--max-old-space-size=192');
  });

  it('reads the own cgroup v1 memory controller on a hybrid host', async () => {
    const root = await cgroup({ 'memory/memory.limit_in_bytes': V1_UNLIMITED, 'memory/process_api/abc/memory.limit_in_bytes': String(1024 * MiB) });
    const membership = '9:name=systemd:/\n4:cpuacct,memory:/process_api/abc\n0::/\n';
    expect((await launch(root, {}, undefined, membership)).nodeOptions).toBe('--max-old-space-size=768');
  });

  it('never leaves the cgroup mount for a path with ..', async () => {
    const root = await cgroup({ 'memory.max': 'max' });
    expect((await launch(root, {}, undefined, '0::/../../etc\n')).nodeOptions).toBeUndefined();
  });

  it('keeps a heap size the user already chose', async () => {
    const dir = await cgroup({ 'memory.max': String(512 * MiB) });
    const options = '--enable-source-maps --max-old-space-size=100';
    expect((await launch(dir, { NODE_OPTIONS: options })).nodeOptions).toBe(options);
    expect((await launch(dir, { NODE_OPTIONS: '--max_old_space_size=200' })).nodeOptions).toBe('--max_old_space_size=200');
  });

  it('appends to other NODE_OPTIONS', async () => {
    const result = await launch(await cgroup({ 'memory.max': String(512 * MiB) }), { NODE_OPTIONS: '--enable-source-maps' });
    expect(result.nodeOptions).toBe('--enable-source-maps --max-old-space-size=384');
  });

  it('honours FLOTILLA_HEAP_PERCENT', async () => {
    const result = await launch(await cgroup({ 'memory.max': String(512 * MiB) }), { FLOTILLA_HEAP_PERCENT: '50' });
    expect(result.nodeOptions).toBe('--max-old-space-size=256');
  });

  it('refuses a nonsensical FLOTILLA_HEAP_PERCENT', async () => {
    const dir = await cgroup({ 'memory.max': String(512 * MiB) });
    for (const percent of ['0', '101', 'lots', '-5']) {
      await expect(launch(dir, { FLOTILLA_HEAP_PERCENT: percent })).rejects.toMatchObject({
        code: 64,
        stderr: expect.stringMatching(/FLOTILLA_HEAP_PERCENT must be a whole number from 10 to 100/) as unknown,
      });
    }
  });
});

describe('docker entrypoint command', () => {
  it('runs the CLI with the arguments given', async () => {
    const result = await launch(await cgroup({}), {}, ['sim', 'argocd', '--port', '8080']);
    expect(result.argv).toEqual(['/app/packages/cli/dist/bundle/flotilla.mjs', 'sim', 'argocd', '--port', '8080']);
  });

  it('takes the piece from FLOTILLA_COMPONENT when there are no arguments, and arguments win', async () => {
    const dir = await cgroup({});
    expect((await launch(dir, { FLOTILLA_COMPONENT: 'mcp argocd' }, [])).argv).toEqual(['/app/packages/cli/dist/bundle/flotilla.mjs', 'mcp', 'argocd']);
    expect((await launch(dir, { FLOTILLA_COMPONENT: 'mcp argocd' }, ['sim', 'argocd'])).argv).toEqual([
      '/app/packages/cli/dist/bundle/flotilla.mjs',
      'sim',
      'argocd',
    ]);
  });

  it('shows the CLI help with neither', async () => {
    expect((await launch(await cgroup({}), {}, [])).argv).toEqual(['/app/packages/cli/dist/bundle/flotilla.mjs', '--help']);
  });
});
