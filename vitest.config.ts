import { readdirSync, existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// Tests run against the sources of every workspace package: map each package name to its src/index.ts.
const root = fileURLToPath(new URL('.', import.meta.url));
const alias: Record<string, string> = {};
for (const group of ['packages', 'agents']) {
  for (const dir of readdirSync(`${root}${group}`)) {
    const entry = `${root}${group}/${dir}/src/index.ts`;
    if (existsSync(entry)) {
      const manifest = (await import(`${root}${group}/${dir}/package.json`, { with: { type: 'json' } })) as {
        default: { name: string };
      };
      alias[manifest.default.name] = entry;
    }
  }
}

export default defineConfig({
  resolve: { alias },
  test: {
    include: ['packages/*/src/**/*.test.ts', 'agents/*/src/**/*.test.ts', 'test/**/*.test.ts'],
    exclude: ['**/node_modules/**', '**/dist/**'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // On CI a JSON report as well, from which .ci/run prints the plain 'N passed, N failed' line.
    reporters: process.env.CI === 'true' ? ['default', ['json', { outputFile: 'test-results/vitest.json' }]] : ['default'],
  },
});
