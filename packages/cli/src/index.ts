export {
  resolveCommand,
  findCommand,
  parseCommandArgs,
  settingsFor,
  commandHelp,
  rootHelp,
  defineCommand,
  type Command,
  type CommandListing,
  type CommandContext,
  type Output,
  type Running,
  type Resolution,
} from './cli.js';
export { demoCommand, DEMO_SETTINGS } from './commands/demo.js';
export { simArgoCdCommand, SIM_ARGOCD_SETTINGS } from './commands/sim-argocd.js';
export { simOpenAiCommand, simAnthropicCommand, SIM_OPENAI_SETTINGS, SIM_ANTHROPIC_SETTINGS } from './commands/sim-llm.js';
export { DOMAIN_AGENTS, SUPERVISOR_DEFAULT_PORT, type DomainAgentEntry, type HostedAgent, type HostedMcp, type SimulatorStarter } from './commands/registry.js';
export { COMMANDS } from './commands/index.js';
export { CATALOGUE, type CatalogueEntry } from './commands/catalogue.js';
