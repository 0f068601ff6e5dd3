import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

/** Starts `node <args>` and waits (30 s at most) for the pino log line with `msg` that carries a `url`. */
export async function spawnUntilListening(args: readonly string[], msg: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const url = await new Promise<string>((resolveUrl, reject) => {
    const timer = setTimeout(() => reject(new Error(`"${msg}" was not logged within 30 s`)), 30_000);
    child.once('exit', (code) => reject(new Error(`the process exited with ${String(code)} before "${msg}"`)));
    lines.on('line', (line) => {
      try {
        const entry = JSON.parse(line) as { url?: string; msg?: string };
        if (entry.msg === msg && typeof entry.url === 'string') {
          clearTimeout(timer);
          resolveUrl(entry.url);
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
