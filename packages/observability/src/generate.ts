/**
 * Writes every generated observability file (rules, rule tests, Helm templates, dashboards), or with
 * `--check` lists the stale ones and exits 1. Run after a build: `node packages/observability/dist/generate.js`.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { renderAlertTests } from './alert-tests.js';
import { OVERVIEW_DASHBOARD_FILE, renderOverviewDashboard } from './dashboards.js';
import { renderDashboardsConfigMapTemplate, renderPrometheusRules, renderPrometheusRuleTemplate } from './rules.js';

export interface GeneratedFile {
  /** Path relative to the repository root, with forward slashes. */
  readonly path: string;
  readonly content: string;
}

export const GENERATED_PATHS = {
  prometheusRules: 'packages/observability/generated/prometheus-rules.yaml',
  prometheusRulesTest: 'packages/observability/generated/prometheus-rules.test.yaml',
  prometheusRuleTemplate: 'helm/flotilla/templates/prometheusrule.yaml',
  dashboardsConfigMapTemplate: 'helm/flotilla/templates/dashboards-configmap.yaml',
  overviewDashboard: `dashboards/${OVERVIEW_DASHBOARD_FILE}`,
  chartOverviewDashboard: `helm/flotilla/dashboards/${OVERVIEW_DASHBOARD_FILE}`,
} as const;

/** Every generated file and its expected content. */
export function generatedFiles(): GeneratedFile[] {
  const dashboard = renderOverviewDashboard();
  return [
    { path: GENERATED_PATHS.prometheusRules, content: renderPrometheusRules() },
    { path: GENERATED_PATHS.prometheusRulesTest, content: renderAlertTests() },
    { path: GENERATED_PATHS.prometheusRuleTemplate, content: renderPrometheusRuleTemplate() },
    { path: GENERATED_PATHS.dashboardsConfigMapTemplate, content: renderDashboardsConfigMapTemplate() },
    { path: GENERATED_PATHS.overviewDashboard, content: dashboard },
    { path: GENERATED_PATHS.chartOverviewDashboard, content: dashboard },
  ];
}

/** The repository root, from this module (src/ or dist/ of packages/observability). */
export const REPO_ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');

async function readOrNull(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/** Generated files whose copy on disk (under root) is missing or differs. */
export async function staleFiles(root: string = REPO_ROOT, files: readonly GeneratedFile[] = generatedFiles()): Promise<string[]> {
  const stale: string[] = [];
  for (const file of files) {
    if ((await readOrNull(join(root, file.path))) !== file.content) stale.push(file.path);
  }
  return stale;
}

/** Writes the generated files under root; returns the paths whose content changed. */
export async function writeGeneratedFiles(root: string = REPO_ROOT, files: readonly GeneratedFile[] = generatedFiles()): Promise<string[]> {
  const changed = await staleFiles(root, files);
  for (const file of files.filter((f) => changed.includes(f.path))) {
    const target = join(root, file.path);
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, file.content, 'utf8');
  }
  return changed;
}

/** The CLI: `generate [--check] [--root <dir>]`; returns the exit code. */
export async function main(argv: readonly string[] = process.argv.slice(2), out: NodeJS.WritableStream = process.stdout): Promise<number> {
  const check = argv.includes('--check');
  const rootIndex = argv.indexOf('--root');
  const root = rootIndex >= 0 && argv[rootIndex + 1] !== undefined ? resolve(argv[rootIndex + 1] ?? '') : REPO_ROOT;
  const unknown = argv.filter((a, i) => a !== '--check' && a !== '--root' && !(i > 0 && argv[i - 1] === '--root'));
  if (unknown.length > 0) {
    out.write(`unknown arguments: ${unknown.join(' ')}\nusage: generate [--check] [--root <dir>]\n`);
    return 2;
  }
  if (check) {
    const stale = await staleFiles(root);
    if (stale.length === 0) {
      out.write('observability: generated files are up to date\n');
      return 0;
    }
    out.write(`observability: stale generated files (run the generator):\n${stale.map((p) => `  ${p}\n`).join('')}`);
    return 1;
  }
  const changed = await writeGeneratedFiles(root);
  out.write(changed.length === 0 ? 'observability: nothing to write\n' : `observability: wrote\n${changed.map((p) => `  ${p}\n`).join('')}`);
  return 0;
}

const invoked = process.argv[1];
if (invoked !== undefined && import.meta.url === pathToFileURL(resolve(invoked)).href) {
  main().then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
