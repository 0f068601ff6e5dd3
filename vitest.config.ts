import { readdirSync, existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// Tests run against the sources of every workspace package: map each package name to its src/index.ts, and each
// further entry its package.json exports (e.g. @flotilla/llm/modes) to the source its "@flotilla/source" condition
// names. A subpath comes first: an alias also matches the names under it.
const root = fileURLToPath(new URL('.', import.meta.url));
const alias: Record<string, string> = {};
for (const group of ['packages', 'agents']) {
  for (const dir of readdirSync(`${root}${group}`)) {
    const entry = `${root}${group}/${dir}/src/index.ts`;
    if (existsSync(entry)) {
      const manifest = (await import(`${root}${group}/${dir}/package.json`, { with: { type: 'json' } })) as {
        default: { name: string; exports?: Record<string, { '@flotilla/source'?: string }> };
      };
      for (const [subpath, conditions] of Object.entries(manifest.default.exports ?? {})) {
        const source = conditions['@flotilla/source'];
        if (subpath !== '.' && source !== undefined) alias[`${manifest.default.name}${subpath.slice(1)}`] = `${root}${group}/${dir}/${source.slice(2)}`;
      }
      alias[manifest.default.name] = entry;
    }
  }
}

/**
 * End-to-end tests: several processes or external binaries each (the rendered chart on separate network namespaces,
 * a real Prometheus, promtool, helm, the built `flotilla` command), or a conversation through the real LLM clients.
 * Their own project, with its own timeouts: `npx vitest run --project e2e` runs them alone, `--project unit` the rest,
 * and `npx vitest run` both.
 */
const E2E = ['test/**/*.test.ts', 'packages/cli/src/cli.test.ts', 'packages/cli/src/lazy-load.test.ts', 'packages/cli/src/bundle.test.ts', 'packages/observability/src/alerts.test.ts', 'packages/observability/src/chart.test.ts'];
/**
 * Timeouts sized for a loaded 2-core machine, never for an idle one: a test that waits on something does so on what
 * it waits for (an answer, a log line, an injected clock), so these only bound a hang. No test asserts on elapsed time.
 */
const UNIT_TIMEOUT_MS = 60_000;
const E2E_TIMEOUT_MS = 180_000;
/**
 * Test files run at once: two processes on two cores (vitest would take cores - 1, one file at a time there). Most
 * files wait on sockets, child processes and timers as much as they compute.
 */
const MAX_WORKERS = 2;

export default defineConfig({
  resolve: { alias },
  test: {
    exclude: ['**/node_modules/**', '**/dist/**'],
    pool: 'forks',
    maxWorkers: MAX_WORKERS,
    // On CI a JSON report as well, from which .ci/run prints the plain 'N passed, N failed' line.
    reporters: process.env.CI === 'true' ? ['default', ['json', { outputFile: 'test-results/vitest.json' }]] : ['default'],
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['packages/*/src/**/*.test.ts', 'agents/*/src/**/*.test.ts'],
          // One module graph per worker, not per file: each file re-evaluating the SDKs, LangChain and zod was half of
          // the suite's time (vitest's "import": 133 s of 271). Files keep no state across files: each builds its own
          // servers, registries and stores, and restores the clock it fakes.
          isolate: false,
          exclude: ['**/node_modules/**', '**/dist/**', ...E2E],
          testTimeout: UNIT_TIMEOUT_MS,
          hookTimeout: UNIT_TIMEOUT_MS,
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: E2E,
          testTimeout: E2E_TIMEOUT_MS,
          hookTimeout: E2E_TIMEOUT_MS,
        },
      },
    ],
  },
});
