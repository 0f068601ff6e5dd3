import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pathToFileURL } from 'node:url';

/**
 * Writes a loader hook into `dir` (it runs on its own thread) that appends the URL of every module resolved to the
 * file the environment names (FLOTILLA_TEST_LOADED); returns the `--import` URL that registers it.
 */
export async function writeLoaderHook(dir: string): Promise<string> {
  await writeFile(
    join(dir, 'hooks.mjs'),
    "import { appendFileSync } from 'node:fs';\n" +
      'export async function resolve(specifier, context, next) {\n' +
      '  const resolved = await next(specifier, context);\n' +
      "  appendFileSync(process.env.FLOTILLA_TEST_LOADED, resolved.url + '\\n');\n" +
      '  return resolved;\n' +
      '}\n',
  );
  await writeFile(join(dir, 'register.mjs'), `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(join(dir, 'hooks.mjs')).href)});\n`);
  return pathToFileURL(join(dir, 'register.mjs')).href;
}

export interface Started {
  readonly child: ChildProcessByStdio<null, Readable, Readable>;
  /** The fields of the log line waited for. */
  readonly line: Record<string, unknown>;
  /** The fields of the first log line with message `msg` (logged before this call or after). */
  logged(msg: string): Promise<Record<string, unknown>>;
  /** The URLs of every module resolved so far. */
  loaded(): Promise<readonly string[]>;
  stop(): Promise<void>;
}

/**
 * Starts `node --import <hook> <entry> <args> --port 0 --log-level info` (a minimal environment) and resolves once it
 * logs `msg`; the modules it resolves are listed in `<dir>/<name>.loaded`.
 */
export async function startWithHook(options: { readonly entry: string; readonly hook: string; readonly dir: string; readonly name: string; readonly args: readonly string[]; readonly msg: string }): Promise<Started> {
  const file = join(options.dir, `${options.name}.loaded`);
  await writeFile(file, '');
  const child = spawn(process.execPath, ['--import', options.hook, options.entry, ...options.args, '--port', '0', '--log-level', 'info'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: process.env.PATH ?? '', FLOTILLA_TEST_LOADED: file },
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const lines: Record<string, unknown>[] = [];
  const waiting = new Set<() => void>();
  let buffered = '';
  child.stdout.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('utf8');
    const texts = buffered.split('\n');
    buffered = texts.pop() ?? '';
    for (const text of texts) if (text.startsWith('{')) lines.push(JSON.parse(text) as Record<string, unknown>);
    for (const wake of waiting) wake();
  });
  const logged = (msg: string): Promise<Record<string, unknown>> =>
    new Promise((resolve, reject) => {
      const look = (): void => {
        const found = lines.find((entry) => entry.msg === msg);
        if (found !== undefined) {
          waiting.delete(look);
          resolve(found);
        } else if (child.exitCode !== null || child.signalCode !== null) {
          waiting.delete(look);
          reject(new Error(`${options.entry} ${options.args.join(' ')} exited (${String(child.exitCode ?? child.signalCode)}) before logging "${msg}": ${stderr}`));
        }
      };
      waiting.add(look);
      look();
    });
  child.once('exit', () => {
    for (const wake of waiting) wake();
  });
  const line = await logged(options.msg);
  return {
    child,
    line,
    logged,
    loaded: async () => (await readFile(file, 'utf8')).split('\n').filter((url) => url.length > 0),
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
