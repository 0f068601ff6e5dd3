import { ARGOCD_AGENT_SETTINGS, startArgoCdAgent } from '@flotilla/agent-argocd';
import { defineCommand } from '../cli.js';
import { listing } from './catalogue.js';

export const agentArgoCdCommand = defineCommand({
  ...listing('agent argocd'),
  description:
    'The agent answers questions through its MCP tools: a remote Argo CD MCP server (--mcp-url), or the tools in process against\n' +
    'Argo CD (--argocd-url, --argocd-token), or against a local simulator (--local). Conversations continue by A2A contextId;\n' +
    'with --redis-url they live in Redis, shared by every replica of the agent.',
  settings: ARGOCD_AGENT_SETTINGS,
  examples: [
    'flotilla agent argocd --local',
    'flotilla agent argocd --mcp-url http://127.0.0.1:8091/mcp',
    'flotilla agent argocd --argocd-url https://argocd.example.com --argocd-token "$ARGOCD_TOKEN" --host 0.0.0.0',
  ],
  run: ({ settings, logger }) => startArgoCdAgent(settings, logger),
});
