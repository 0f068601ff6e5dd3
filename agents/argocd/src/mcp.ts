/**
 * `@flotilla/agent-argocd/mcp`: the Argo CD MCP server alone, as `flotilla mcp argocd` loads it: its settings, the
 * Argo CD client and tools over `@flotilla/agent-host/mcp`, none of the agent (agent-kit, LangGraph, the A2A server)
 * and no simulator.
 */
export { ARGOCD_MCP_SETTINGS, type ArgoCdMcpConfig } from './config.js';
export { ARGOCD_MCP, startArgoCdMcpServer, type StartOptions } from './server.js';
