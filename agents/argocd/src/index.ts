export { ArgoCdClient, APPLICATION_LIST_FIELDS, type ApplicationQuery, type ArgoCdClientOptions } from './client/argocd-client.js';
export { ARGOCD_ACCESS, ARGOCD_MCP_SETTINGS, ARGOCD_UPSTREAM_SETTINGS, argoCdLimitsFrom, type ArgoCdMcpConfig, type ArgoCdUpstreamConfig } from './config.js';
export {
  ARGOCD_MCP,
  createArgoCdMcpServer,
  connectArgoCdToolsInProcess,
  startArgoCdMcpServer,
  ARGOCD_TOOLS,
  SERVER_INFO,
  type ArgoCdToolName,
  type ArgoCdToolsetDeps,
  type StartOptions,
} from './server.js';
export { APPLICATION_SECTIONS, RESOURCES_SHOWN_MAX, type ApplicationSection } from './tools/applications.js';
export { RESOURCE_TYPES, type ResourceType } from './tools/search.js';
export { SYNC_STATUSES, HEALTH_STATUSES } from './tools/views.js';
export { createArgoCdAgent, type ArgoCdAgentOptions } from './agent/agent.js';
export { ARGOCD_AGENT, startArgoCdAgent, ARGOCD_AGENT_SETTINGS, ARGOCD_AGENT_CARD, type ArgoCdAgentConfig, type ArgoCdAgentStartOptions, type RunningAgent } from './agent/start.js';
export { createArgoCdClassifier, ARGOCD_INTENTS, NOT_HEALTHY, type ArgoIntent, type ArgoCdClassifierOptions } from './agent/intents.js';
export { argoCdDomain, createArgoCdDomain, applicationFilters, describeFilters, PRESENTATION, type ArgoMemory, type ArgoCdDomainOptions } from './agent/domain.js';
export { ARGOCD_PROMPT } from './agent/prompt.js';
export { ARGOCD_DOMAIN } from './query/declare.js';
