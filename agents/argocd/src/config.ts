import { domainAccess } from '@flotilla/agent-host/mcp';
import { upstreamLimitsFrom, upstreamSettings, type Settings, type SettingsSpec } from '@flotilla/core';
import { UPSTREAM_DEFAULTS, type UpstreamLimits } from '@flotilla/upstream';

/** How Flotilla reads Argo CD: the MCP server's settings, and the agent's when it runs the tools in process. */
export const ARGOCD_UPSTREAM_SETTINGS = upstreamSettings({ system: 'Argo CD', defaults: UPSTREAM_DEFAULTS, item: 'one application, Helm values included' }) satisfies SettingsSpec;
export type ArgoCdUpstreamConfig = Settings<typeof ARGOCD_UPSTREAM_SETTINGS>;

/** The upstream limits those settings give. */
export function argoCdLimitsFrom(config: ArgoCdUpstreamConfig): UpstreamLimits {
  return { ...UPSTREAM_DEFAULTS, ...upstreamLimitsFrom(config) };
}

/** Where Argo CD is and how it is read: the root of the MCP server's settings and the agent's. */
export const ARGOCD_ACCESS = domainAccess({
  name: 'argocd',
  title: 'Argo CD',
  port: 8091,
  upstream: { urlHelp: 'Argo CD API server URL', tokenHelp: 'Argo CD API token (bearer)', tokenName: 'the Argo CD token', settings: ARGOCD_UPSTREAM_SETTINGS },
});

/** Settings of the Argo CD MCP server (`flotilla mcp argocd`); flags win over environment variables. */
export const ARGOCD_MCP_SETTINGS = ARGOCD_ACCESS.mcpSettings;
export type ArgoCdMcpConfig = Settings<typeof ARGOCD_MCP_SETTINGS>;
