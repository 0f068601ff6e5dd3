/**
 * Writes every generated observability file (rules, rule tests, Helm templates, dashboards, the chart's values table
 * in helm/README.md), or with
 * `--check` lists the stale ones and exits 1. Run after a build: `node packages/observability/dist/generate.js`.
 */
import { readFileSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { renderAlertTests } from './alert-tests.js';
import { OVERVIEW_DASHBOARD_FILE, renderOverviewDashboard } from './dashboards.js';
import { renderDashboardsConfigMapTemplate, renderPrometheusRules, renderPrometheusRuleTemplate } from './rules.js';
import { renderValuesTable, valuesDocs, withValuesTable } from './values-doc.js';

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
  /** Generated in part: the values table between its markers, from helm/flotilla/values.yaml. */
  helmReadme: 'helm/README.md',
} as const;

/** The chart's values file, the source of the README's values table. */
export const CHART_VALUES_PATH = 'helm/flotilla/values.yaml';

/** The repository root, from this module (src/ or dist/ of packages/observability). */
export const REPO_ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');

/**
 * Every generated file and its expected content. The README's expected content is the one under `source` (the
 * repository by default) with its values table regenerated from the values.yaml there.
 */
export function generatedFiles(source: string = REPO_ROOT): GeneratedFile[] {
  const dashboard = renderOverviewDashboard();
  const readme = readFileSync(join(source, GENERATED_PATHS.helmReadme), 'utf8');
  const table = renderValuesTable(valuesDocs(readFileSync(join(source, CHART_VALUES_PATH), 'utf8')));
  return [
    { path: GENERATED_PATHS.prometheusRules, content: renderPrometheusRules() },
    { path: GENERATED_PATHS.prometheusRulesTest, content: renderAlertTests() },
    { path: GENERATED_PATHS.prometheusRuleTemplate, content: renderPrometheusRuleTemplate() },
    { path: GENERATED_PATHS.dashboardsConfigMapTemplate, content: renderDashboardsConfigMapTemplate() },
    { path: GENERATED_PATHS.overviewDashboard, content: dashboard },
    { path: GENERATED_PATHS.chartOverviewDashboard, content: dashboard },
    { path: GENERATED_PATHS.helmReadme, content: withValuesTable(readme, table) },
  ];
}

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
