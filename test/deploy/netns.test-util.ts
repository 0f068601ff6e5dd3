import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, rmdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

/**
 * Test hosts as Linux network namespaces: each "pod" gets its own namespace, an address on one bridge (which lives in
 * a hub namespace of its own, so the machine's own network is never touched), its own /etc/hosts (ip netns exec
 * binds /etc/netns/<ns>/hosts over /etc/hosts), its own mount namespace (a data volume) and, where the machine lets
 * us, its own memory cgroup with the pod's limit. Needs root and iproute2; everything it makes is removed by
 * `destroy()`.
 */
const run = promisify(execFile);

/** Output kept per process (the newest bytes), for diagnostics and log checks. */
const OUTPUT_MAX_BYTES = 2 * 1024 * 1024;

export async function sh(command: string, args: readonly string[], options: { readonly timeoutMs?: number; readonly env?: NodeJS.ProcessEnv } = {}): Promise<{ stdout: string; stderr: string }> {
  return run(command, [...args], { timeout: options.timeoutMs ?? 30_000, maxBuffer: 16 * 1024 * 1024, ...(options.env === undefined ? {} : { env: options.env }) });
}

/** Why network namespaces cannot be used here, or undefined when they can (checked by making and removing one). */
export async function netnsUnavailable(): Promise<string | undefined> {
  if (process.platform !== 'linux') return `network namespaces need Linux (this is ${process.platform})`;
  if (process.getuid?.() !== 0) return 'network namespaces need root (ip netns add); CI runs as root';
  for (const tool of ['ip', 'nsenter', 'unshare', 'ss', 'openssl']) {
    try {
      await sh('sh', ['-c', `command -v ${tool}`]);
    } catch {
      return `${tool} is not installed`;
    }
  }
  const probe = `flt-probe-${process.pid}`;
  try {
    await sh('ip', ['netns', 'add', probe]);
    await sh('ip', ['netns', 'exec', probe, 'unshare', '--mount', '--propagation', 'private', '--', 'true']);
  } catch (error) {
    return `ip netns is not permitted here (${String((error as { stderr?: unknown }).stderr ?? error).trim().slice(0, 200)})`;
  } finally {
    await sh('ip', ['netns', 'del', probe]).catch(() => undefined);
  }
  return undefined;
}

/** A memory controller this process may make child cgroups under, or undefined. */
interface MemoryCgroup {
  readonly version: 'v1' | 'v2';
  /** The folder new cgroups go under (this run's own). */
  readonly base: string;
}

/** This process's own memory cgroup folder, if it allows children with their own limit (cgroup v1, or v2 with the controller delegated). */
async function memoryCgroup(runId: string): Promise<MemoryCgroup | undefined> {
  try {
    const membership = await readFile('/proc/self/cgroup', 'utf8');
    const v1 = /^\d+:(?:[^:]*,)?memory(?:,[^:]*)?:(.*)$/m.exec(membership)?.[1];
    if (v1 !== undefined && existsSync('/sys/fs/cgroup/memory/memory.limit_in_bytes')) {
      const base = join('/sys/fs/cgroup/memory', v1, runId);
      await mkdir(base);
      return { version: 'v1', base };
    }
    const v2 = /^0::(.*)$/m.exec(membership)?.[1];
    if (v2 !== undefined && existsSync('/sys/fs/cgroup/cgroup.controllers')) {
      // v2 allows controllers only in leaf-free subtrees; a child of the root can take them when the root delegates.
      const base = join('/sys/fs/cgroup', runId);
      await mkdir(base);
      await writeFile(join(base, 'cgroup.subtree_control'), '+memory');
      return { version: 'v2', base };
    }
  } catch {
    return undefined;
  }
  return undefined;
}

export interface Host {
  readonly name: string;
  /** The network namespace. */
  readonly ns: string;
  readonly ip: string;
  /** The memory cgroup folder the host's processes join, when the machine has one for us. */
  cgroup: string | undefined;
}

export interface Process {
  readonly host: Host;
  readonly child: ChildProcess;
  /** stdout and stderr so far (the newest OUTPUT_MAX_BYTES). */
  output(): string;
  exited(): { code: number | null; signal: NodeJS.Signals | null } | undefined;
}

export interface StartOptions {
  readonly env: Readonly<Record<string, string>>;
  readonly command: readonly string[];
  /** A tmpfs of this size mounted at /var/lib (the pod's data volume at /var/lib/flotilla). */
  readonly dataVolume?: { readonly sizeBytes: number } | undefined;
  /** Files put at /var/run/secrets/kubernetes.io/serviceaccount (name -> content): the pod's ServiceAccount token. */
  readonly serviceAccount?: Readonly<Record<string, string>> | undefined;
  /** Memory limit of the host's cgroup, in bytes. */
  readonly memoryLimitBytes?: number | undefined;
}

export class Network {
  private readonly hosts: Host[] = [];
  private readonly processes: Process[] = [];
  private readonly hub: string;
  private cgroups: MemoryCgroup | undefined;
  private scratch: string | undefined;

  private constructor(
    private readonly runId: string,
    /** The first three octets of the bridge's /24. */
    private readonly subnet: string,
  ) {
    this.hub = `${runId}-hub`;
  }

  /** A bridge in a hub namespace; hosts are added with `addHost`. */
  static async create(subnet: string, scratch: string): Promise<Network> {
    const network = new Network(`flt${process.pid % 100_000}`, subnet);
    network.scratch = scratch;
    await sh('ip', ['netns', 'add', network.hub]);
    await sh('ip', ['-n', network.hub, 'link', 'add', 'br0', 'type', 'bridge']);
    await sh('ip', ['-n', network.hub, 'link', 'set', 'br0', 'up']);
    network.cgroups = await memoryCgroup(`${network.runId}-cg`);
    return network;
  }

  /** Whether pods get a memory cgroup of their own (with the rendered limit). */
  get hasCgroups(): boolean {
    return this.cgroups !== undefined;
  }

  /** A host: its namespace, a veth to the bridge with the next address, loopback up. */
  async addHost(name: string): Promise<Host> {
    const index = this.hosts.length + 10;
    const host: Host = { name, ns: `${this.runId}-${index}`, ip: `${this.subnet}.${index}`, cgroup: undefined };
    await sh('ip', ['netns', 'add', host.ns]);
    this.hosts.push(host);
    await sh('ip', ['link', 'add', `v${index}`, 'netns', this.hub, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', host.ns]);
    await sh('ip', ['-n', this.hub, 'link', 'set', `v${index}`, 'master', 'br0', 'up']);
    await sh('ip', ['-n', host.ns, 'addr', 'add', `${host.ip}/24`, 'dev', 'eth0']);
    await sh('ip', ['-n', host.ns, 'link', 'set', 'eth0', 'up']);
    await sh('ip', ['-n', host.ns, 'link', 'set', 'lo', 'up']);
    return host;
  }

  /** Writes the hosts file every namespace sees (name resolution as cluster DNS would give it). */
  async writeHosts(lines: readonly string[]): Promise<void> {
    for (const host of this.hosts) {
      const dir = join('/etc/netns', host.ns);
      await mkdir(dir, { recursive: true });
      await writeFile(join(dir, 'hosts'), ['127.0.0.1 localhost', '::1 localhost ip6-localhost', `${host.ip} ${host.name}`, ...lines, ''].join('\n'));
    }
  }

  /** Runs a command in the host's namespace and waits for it. */
  exec(host: Host, command: readonly string[], timeoutMs = 60_000): Promise<{ stdout: string; stderr: string }> {
    return sh('ip', ['netns', 'exec', host.ns, ...command], { timeoutMs });
  }

  /**
   * Starts a long-running process on the host with exactly `env` (nothing inherited), in its own mount namespace
   * (data volume, ServiceAccount files) and memory cgroup.
   */
  async start(host: Host, options: StartOptions): Promise<Process> {
    let cgroup = '';
    if (this.cgroups !== undefined && options.memoryLimitBytes !== undefined) {
      cgroup = join(this.cgroups.base, host.name);
      await mkdir(cgroup, { recursive: true });
      await writeFile(join(cgroup, this.cgroups.version === 'v1' ? 'memory.limit_in_bytes' : 'memory.max'), String(options.memoryLimitBytes));
      host.cgroup = cgroup;
    }
    let saDir = '';
    if (options.serviceAccount !== undefined) {
      saDir = join(this.scratch ?? '/tmp', `${host.name}-serviceaccount`);
      await mkdir(saDir, { recursive: true });
      for (const [file, content] of Object.entries(options.serviceAccount)) await writeFile(join(saDir, file), content);
    }
    // $1 cgroup folder, $2 data volume size, $3 ServiceAccount files, $4 hosts file; then the command. Not
    // `ip netns exec`: it mounts a fresh /sys, which would hide the cgroup filesystem a pod sees; its hosts file
    // binding is done here instead.
    const script = [
      'set -eu',
      'if [ -n "$1" ]; then echo $$ > "$1/cgroup.procs"; fi',
      'if [ -f "$4" ]; then mount --bind "$4" /etc/hosts; fi',
      'if [ -n "$2" ]; then mount -t tmpfs -o "size=$2,mode=0755" flotilla-data /var/lib && mkdir -p /var/lib/flotilla; fi',
      'if [ -n "$3" ]; then mount -t tmpfs -o size=1m,mode=0755 flotilla-run /run && mkdir -p /run/secrets/kubernetes.io/serviceaccount && cp "$3"/* /run/secrets/kubernetes.io/serviceaccount/; fi',
      'shift 4',
      'exec "$@"',
    ].join('\n');
    const child = spawn(
      'nsenter',
      [
        `--net=/run/netns/${host.ns}`,
        '--',
        'unshare',
        '--mount',
        '--propagation',
        'private',
        '--',
        '/bin/sh',
        '-c',
        script,
        'pod',
        cgroup,
        options.dataVolume === undefined ? '' : String(options.dataVolume.sizeBytes),
        saDir,
        join('/etc/netns', host.ns, 'hosts'),
        ...options.command,
      ],
      { env: { ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    const keep = (chunk: Buffer): void => {
      output += chunk.toString('utf8');
      if (output.length > OUTPUT_MAX_BYTES) output = output.slice(-OUTPUT_MAX_BYTES);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.on('exit', (code, signal) => {
      exit = { code, signal };
    });
    const started: Process = { host, child, output: () => output, exited: () => exit };
    this.processes.push(started);
    return started;
  }

  /** Stops every process (SIGTERM, then SIGKILL after 5 s), removes namespaces, hosts files and cgroups. */
  async destroy(): Promise<void> {
    await Promise.all(
      this.processes.map(
        (p) =>
          new Promise<void>((resolve) => {
            if (p.exited() !== undefined || p.child.exitCode !== null) return resolve();
            const kill = setTimeout(() => p.child.kill('SIGKILL'), 5_000);
            p.child.once('exit', () => {
              clearTimeout(kill);
              resolve();
            });
            p.child.kill('SIGTERM');
          }),
      ),
    );
    for (const host of this.hosts) {
      // Anything left in the namespace (a grandchild) goes with it.
      await sh('ip', ['netns', 'pids', host.ns])
        .then(({ stdout }) => {
          for (const pid of stdout.split('\n').filter((l) => /^\d+$/.test(l.trim()))) process.kill(Number(pid), 'SIGKILL');
        })
        .catch(() => undefined);
      await sh('ip', ['netns', 'del', host.ns]).catch(() => undefined);
      await rm(join('/etc/netns', host.ns), { recursive: true, force: true });
      if (host.cgroup !== undefined) await rmdir(host.cgroup).catch(() => undefined);
    }
    await sh('ip', ['netns', 'del', this.hub]).catch(() => undefined);
    if (this.cgroups !== undefined) await rmdir(this.cgroups.base).catch(() => undefined);
  }
}
