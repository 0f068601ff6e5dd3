import type { Command } from '../cli.js';
import { demoCommand } from './demo.js';
import { mcpArgoCdCommand } from './mcp-argocd.js';
import { simArgoCdCommand } from './sim-argocd.js';

/** Every `flotilla` command, in the order `--help` lists them. */
export const COMMANDS: readonly Command[] = [demoCommand, simArgoCdCommand, mcpArgoCdCommand];
