export {
  NetBoxClient,
  NETBOX_MODELS,
  NETBOX_MODEL_NAMES,
  NETBOX_DEFAULTS,
  type NetBoxModel,
  type Filters,
  type WalkLimits,
  type WalkResult,
  type NetBoxClientOptions,
} from './client/netbox-client.js';
export { NETBOX_ACCESS, NETBOX_MCP_SETTINGS, NETBOX_UPSTREAM_SETTINGS, type NetBoxMcpConfig, type NetBoxUpstreamConfig } from './config.js';
export { NETBOX_MCP, createNetBoxMcpServer, connectNetBoxToolsInProcess, startNetBoxMcpServer, netBoxClientFrom, SERVER_INFO, type NetBoxToolsetDeps, type NetBoxToolOptions } from './server.js';
export { NETBOX_TOOLS, MAX_IDS, type NetBoxToolName } from './tools/tools.js';
export { createNetBoxAgent, sessionMemory, type NetBoxAgentOptions } from './agent/agent.js';
export { createNetBoxDomain, PRESENTATION, ITEM_TOKENS, type NetBoxDomainOptions } from './agent/domain.js';
export { createNetBoxClassifier, NETBOX_INTENTS, type NetBoxIntent } from './agent/intents.js';
export {
  NETBOX_AGENT,
  startNetBoxAgent,
  NETBOX_AGENT_SETTINGS,
  NETBOX_AGENT_CARD,
  SKILL_OF_NETBOX_INTENT,
  type NetBoxAgentConfig,
  type NetBoxAgentStartOptions,
  type RunningNetBoxAgent,
} from './agent/start.js';
export { NETBOX_PROMPT } from './agent/prompt.js';
export { NETBOX_DOMAIN } from './query/declare.js';
