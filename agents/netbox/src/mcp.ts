/**
 * `@flotilla/agent-netbox/mcp`: the NetBox MCP server alone, as `flotilla mcp netbox` loads it: its settings, the
 * NetBox client and tools over `@flotilla/agent-host/mcp`, none of the agent (agent-kit, LangGraph, the A2A server)
 * and no simulator.
 */
export { NETBOX_MCP_SETTINGS, type NetBoxMcpConfig } from './config.js';
export { NETBOX_MCP, startNetBoxMcpServer } from './server.js';
