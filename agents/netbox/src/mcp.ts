/**
 * `@flotilla/agent-netbox/mcp`: the NetBox MCP server alone, as `flotilla mcp netbox` loads it: its settings, the
 * NetBox client and tools, none of the agent (agent-kit, LangGraph, the A2A server) and no simulator.
 */
export { NETBOX_MCP_SETTINGS, type NetBoxMcpConfig } from './config.js';
export { startNetBoxMcpServer } from './server.js';
