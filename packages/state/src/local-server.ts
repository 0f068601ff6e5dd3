import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

/** `redis-server` on PATH (Debian's package `redis-server`; `.ci/run` installs it), or undefined. */
export function redisServerBinary(path: string = process.env.PATH ?? ''): string | undefined {
  for (const dir of path.split(delimiter)) {
    if (dir === '') continue;
    try {
      accessSync(join(dir, 'redis-server'), constants.X_OK);
      return join(dir, 'redis-server');
    } catch {
      // Not in this folder.
    }
  }
  return undefined;
}

/** Why tests that need a real Redis are skipped where `redis-server` is missing. */
export const NO_REDIS_SERVER = 'redis-server is not on PATH (CI installs it: apt-get install redis-server)';

export interface LocalRedisServer {
  readonly url: string;
  readonly port: number;
  /** Stops the server (SIGTERM, SIGKILL after 3 s) and removes its folder. */
  stop(): Promise<void>;
}

export interface LocalRedisOptions {
  /** The binary; `redis-server` from PATH by default. */
  readonly binary?: string;
  /** A fixed port (to start a server again where clients expect it); a free one by default. */
  readonly port?: number;
  /** How long to wait for the first PONG. */
  readonly readyTimeoutMs?: number;
}

/** A free TCP port on loopback (asked of the kernel, then released). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** True when something at the port answers PING with PONG. */
function pings(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    let answer = '';
    const done = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk: Buffer) => {
      answer += chunk.toString('latin1');
      if (answer.includes('\r\n')) done(answer.startsWith('+PONG'));
    });
  });
}

function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((resolve) => child.once('exit', () => resolve()));
}

/**
 * A throwaway `redis-server` on 127.0.0.1 for tests and local runs: no persistence (`--save ''`, no AOF), its own
 * temporary folder, ready when it answers PING. Redis needs an explicit port, so a free one is picked first (and
 * picked again if another process took it in between).
 */
export async function startRedisServer(options: LocalRedisOptions = {}): Promise<LocalRedisServer> {
  const binary = options.binary ?? redisServerBinary();
  if (binary === undefined) throw new Error(NO_REDIS_SERVER);
  const readyTimeoutMs = options.readyTimeoutMs ?? 10_000;
  let lastError = '';
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const port = options.port ?? (await freePort());
    const dir = await mkdtemp(join(tmpdir(), 'flotilla-redis-'));
    const child = spawn(binary, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--loglevel', 'warning'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const keep = (chunk: Buffer): void => {
      output = (output + chunk.toString('utf8')).slice(-4096);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    let spawnError: Error | undefined;
    child.once('error', (error) => {
      spawnError = error;
    });
    const killOnExit = (): void => {
      child.kill('SIGKILL');
    };
    process.once('exit', killOnExit);
    const stop = async (): Promise<void> => {
      process.off('exit', killOnExit);
      if (child.exitCode === null && child.signalCode === null) {
        const forced = setTimeout(() => child.kill('SIGKILL'), 3_000);
        child.kill('SIGTERM');
        await exited(child);
        clearTimeout(forced);
      }
      await rm(dir, { recursive: true, force: true });
    };
    const deadline = Date.now() + readyTimeoutMs;
    while (Date.now() < deadline && spawnError === undefined && child.exitCode === null) {
      if (await pings(port)) return { url: `redis://127.0.0.1:${port}`, port, stop };
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await stop();
    lastError = spawnError?.message ?? (output.trim() || `no PONG within ${readyTimeoutMs} ms`);
    if (options.port !== undefined) break;
  }
  throw new Error(`redis-server did not start: ${lastError}`);
}
