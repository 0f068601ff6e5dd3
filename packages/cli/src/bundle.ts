import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

/** The bundle's entry file, in the bundle's directory. */
export const BUNDLE_ENTRY = 'flotilla.mjs';
/** Where `node packages/cli/dist/bundle.js` writes the bundle: what the image runs. */
export const DEFAULT_BUNDLE_DIR = fileURLToPath(new URL('../dist/bundle/', import.meta.url));

const HELP = `Usage: node packages/cli/dist/bundle.js [--out <dir>]

Bundles the compiled CLI (packages/cli/dist/main.js, from \`pnpm build\`) and every package it imports into one
minified ES module, ${BUNDLE_ENTRY}, plus a chunk for each part a command loads only when it runs (the simulators,
the LLM stack...), each with a source map. This is what the image runs: a piece loads a few dozen files (48 in all)
instead of ~1,350, and an idle agent holds ~12 MB less heap. It still reads js-tiktoken's rank files from
node_modules at run time, so the directory must stay inside packages/cli (the default is packages/cli/dist/bundle).

--out   the directory to write (emptied first; default ${DEFAULT_BUNDLE_DIR})
--help  this text
`;

export interface BundleResult {
  readonly entry: string;
  readonly files: number;
  readonly bytes: number;
}

/** Bundles the compiled CLI into `outDir` (emptied first). Needs the dev dependency rolldown. */
export async function bundleCli(outDir: string = DEFAULT_BUNDLE_DIR): Promise<BundleResult> {
  const { build } = await import('rolldown');
  await rm(outDir, { recursive: true, force: true });
  await build({
    // dist/main.js from this file compiled (dist/bundle.js) and from its source (src/bundle.ts, in the tests) alike.
    input: fileURLToPath(new URL('../dist/main.js', import.meta.url)),
    platform: 'node',
    logLevel: 'warn',
    output: {
      dir: outDir,
      format: 'esm',
      entryFileNames: BUNDLE_ENTRY,
      chunkFileNames: 'chunks/[name]-[hash].mjs',
      // Minified (whitespace, comments, local names): the sources V8 keeps for every loaded function are most of an
      // idle piece's heap. Function and class names stay, for stack traces and error names.
      minify: true,
      keepNames: true,
      sourcemap: true,
    },
  });
  let files = 0;
  let bytes = 0;
  for (const path of await readdir(outDir, { recursive: true })) {
    if (!path.endsWith('.mjs')) continue;
    files += 1;
    bytes += (await stat(join(outDir, path))).size;
  }
  return { entry: join(outDir, BUNDLE_ENTRY), files, bytes };
}

// Run as a script (not when a test imports bundleCli).
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  let options: { out?: string; help?: boolean };
  try {
    options = parseArgs({ options: { out: { type: 'string' }, help: { type: 'boolean' } } }).values;
  } catch (error) {
    process.stderr.write(`bundle: ${error instanceof Error ? error.message : String(error)}\n\n${HELP}`);
    process.exit(2);
  }
  if (options.help === true) {
    process.stdout.write(HELP);
  } else {
    const result = await bundleCli(options.out ?? DEFAULT_BUNDLE_DIR);
    process.stdout.write(`bundled the CLI into ${result.entry}: ${result.files} modules, ${(result.bytes / 1024 / 1024).toFixed(1)} MiB\n`);
  }
}
