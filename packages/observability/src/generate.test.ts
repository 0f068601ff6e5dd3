import { readFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { GENERATED_PATHS, REPO_ROOT, generatedFiles, main } from './generate.js';
import { withTempDir } from './observability.test-util.js';

function sink(): { stream: Writable; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  return { stream, text: () => chunks.join('') };
}

function onDisk(path: string): string | null {
  try {
    return readFileSync(join(REPO_ROOT, path), 'utf8');
  } catch {
    return null;
  }
}

describe('generated files', () => {
  it.each(generatedFiles().map((f) => [f.path, f] as const))('%s is up to date (else run: pnpm run generate)', (_path, file) => {
    expect(onDisk(file.path) === file.content, `${file.path} is stale: run pnpm run generate`).toBe(true);
  });

  it('cover the rules, their tests, both Helm templates and both dashboard copies', () => {
    expect(generatedFiles().map((f) => f.path)).toEqual(Object.values(GENERATED_PATHS));
    const byPath = new Map(generatedFiles().map((f) => [f.path, f.content]));
    expect(byPath.get(GENERATED_PATHS.chartOverviewDashboard)).toBe(byPath.get(GENERATED_PATHS.overviewDashboard));
  });
});

describe('the generator CLI', () => {
  it('writes every file, then --check passes; a changed file makes --check fail and list it', async () => {
    await withTempDir(async (root) => {
      const check = sink();
      expect(await main(['--check', '--root', root], check.stream)).toBe(1);
      for (const path of Object.values(GENERATED_PATHS)) expect(check.text()).toContain(path);

      const write = sink();
      expect(await main(['--root', root], write.stream)).toBe(0);
      expect(write.text()).toContain(GENERATED_PATHS.prometheusRules);
      for (const file of generatedFiles()) expect(await readFile(join(root, file.path), 'utf8')).toBe(file.content);

      const again = sink();
      expect(await main(['--check', '--root', root], again.stream)).toBe(0);
      expect(again.text()).toContain('up to date');

      await writeFile(join(root, GENERATED_PATHS.overviewDashboard), '{}\n');
      const stale = sink();
      expect(await main(['--check', '--root', root], stale.stream)).toBe(1);
      expect(stale.text()).toContain(GENERATED_PATHS.overviewDashboard);
      expect(stale.text()).not.toContain(GENERATED_PATHS.prometheusRules);
    });
  });

  it('refuses unknown arguments', async () => {
    const out = sink();
    expect(await main(['--bogus'], out.stream)).toBe(2);
    expect(out.text()).toContain('usage');
  });
});
