import { ARGOCD_MCP_SETTINGS, startArgoCdMcpServer } from '@flotilla/agent-argocd/mcp';
import { defineCommand } from '../cli.js';
import { listing } from './catalogue.js';

export const mcpArgoCdCommand = defineCommand({
  ...listing('mcp argocd'),
  description:
    'Tools: list_applications, get_application, list_projects, list_applicationsets, list_clusters, search_argocd_resources,\n' +
    'read_result. Every result is measured in tokens and fits the budget; large ones are stored and paged with read_result.',
  settings: ARGOCD_MCP_SETTINGS,
  examples: [
    'flotilla mcp argocd --argocd-url http://127.0.0.1:8080 --argocd-token dev-token',
    'FLOTILLA_ARGOCD_URL=https://argocd.example.com FLOTILLA_ARGOCD_TOKEN=... flotilla mcp argocd --host 0.0.0.0 --budget-tokens 4000',
  ],
  run: ({ settings, logger }) => startArgoCdMcpServer(settings, { logger }),
});
