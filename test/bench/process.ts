import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

/** Starts `node <args>` and waits (30 s at most) for the pino log line with `msg` that carries a `url` (or a `listen` address). */
export async function spawnUntilListening(args: readonly string[], msg: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const url = await new Promise<string>((resolveUrl, reject) => {
    const timer = setTimeout(() => reject(new Error(`"${msg}" was not logged within 30 s`)), 30_000);
    child.once('exit', (code) => reject(new Error(`the process exited with ${String(code)} before "${msg}"`)));
    lines.on('line', (line) => {
      try {
        const entry = JSON.parse(line) as { url?: string; listen?: string; msg?: string };
        // Agents log the URL they advertise; MCP servers the address they bound (`listen`, host:port).
        const url = typeof entry.url === 'string' ? entry.url : typeof entry.listen === 'string' ? `http://${entry.listen.replace(/^0\.0\.0\.0:/, '127.0.0.1:')}` : undefined;
        if (entry.msg === msg && url !== undefined) {
          clearTimeout(timer);
          resolveUrl(url);
        }
      } catch {
        // not a log line
      }
    });
  });
  return { child, url };
}

/** Peak and current resident set of a process, from /proc (Linux). */
export async function rssOf(pid: number): Promise<{ peak: number; now: number }> {
  const { readFile } = await import('node:fs/promises');
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string): number => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 'NaN');
  return { peak: kib('VmHWM') / 1024, now: kib('VmRSS') / 1024 };
}

/** CPU time (user + system) a process has used, in ms, from /proc (Linux). */
export async function cpuMsOf(pid: number): Promise<number> {
  const stat = await (await import('node:fs/promises')).readFile(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces, inside parentheses): utime is the 14th field, stime the 15th.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (ticks * 1000) / 100; // USER_HZ is 100 on Linux
}

