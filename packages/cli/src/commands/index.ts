import type { Command } from '../cli.js';
import { agentArgoCdCommand } from './agent-argocd.js';
import { askCommand } from './ask.js';
import { demoCommand } from './demo.js';
import { mcpArgoCdCommand } from './mcp-argocd.js';
import { agentNetBoxCommand, mcpNetBoxCommand, simNetBoxCommand } from './netbox.js';
import { simArgoCdCommand } from './sim-argocd.js';
import { simKubernetesCommand } from './sim-kubernetes.js';
import { simAnthropicCommand, simOpenAiCommand } from './sim-llm.js';
import { slackCommand, supervisorCommand, upCommand } from './supervisor.js';

/** Every `flotilla` command, in the order `--help` lists them. */
export const COMMANDS: readonly Command[] = [
  upCommand,
  demoCommand,
  supervisorCommand,
  slackCommand,
  agentArgoCdCommand,
  agentNetBoxCommand,
  askCommand,
  simArgoCdCommand,
  simNetBoxCommand,
  simKubernetesCommand,
  simOpenAiCommand,
  simAnthropicCommand,
  mcpArgoCdCommand,
  mcpNetBoxCommand,
];
