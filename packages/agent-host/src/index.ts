/**
 * `@flotilla/agent-host`: a domain agent defined once (`defineDomainAgent`) over agent-kit, bounded-tools, llm and
 * state. The MCP half (`defineDomainMcp`, `@flotilla/agent-host/mcp`) is light and loads none of the agent.
 */
export {
  defineDomainAgent,
  recordTurn,
  type DomainAgent,
  type DomainAgentContext,
  type DomainAgentDefinition,
  type DomainAgentHooks,
  type DomainAgentSettings,
  type DomainAgentStartOptions,
  type DomainAnswerer,
  type RunningDomainAgent,
  type SimulatorStarter,
  type StartedSimulator,
} from './agent.js';
import type { DomainWorkflowOptions } from './workflow.js';
export { createDomainWorkflow, type DomainWorkflowOptions } from './workflow.js';
/**
 * What a domain's `createXAgent` takes: the shared workflow's options, less what the domain itself brings (its
 * classifier, domain, cacheable intents and output schemas). A domain extends it with options of its own.
 */
export type DomainAgentOptions<I extends string, M> = Omit<DomainWorkflowOptions<I, M>, 'classifier' | 'domain' | 'cacheableIntents' | 'outputSchemas'>;
export {
  defineDomainMcp,
  envName,
  upstreamAccess,
  type DomainMcp,
  type DomainMcpDefinition,
  domainAccess,
  type DomainAccess,
  type DomainAccessDefinition,
  type DomainMcpSettings,
  type McpStartOptions,
  type ToolsetDeps,
  type UpstreamAccessSettings,
} from './mcp.js';
