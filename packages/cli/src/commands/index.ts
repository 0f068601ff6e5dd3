import type { Command } from '../cli.js';
import { CATALOGUE } from './catalogue.js';

/**
 * Every `flotilla` command loaded, in the order `--help` lists them: for tests and tools that inspect them all. The
 * `flotilla` command itself loads only the one it runs (CATALOGUE).
 */
export const COMMANDS: readonly Command[] = await Promise.all(CATALOGUE.map((entry) => entry.load()));
