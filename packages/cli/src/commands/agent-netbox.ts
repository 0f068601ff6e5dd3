import { NETBOX_AGENT_SETTINGS, startNetBoxAgent } from '@flotilla/agent-netbox';
import { defineCommand } from '../cli.js';
import { listing } from './catalogue.js';

export const agentNetBoxCommand = defineCommand({
  ...listing('agent netbox'),
  description:
    'The agent answers questions through its MCP tools: a remote NetBox MCP server (--mcp-url), or the tools in process against\n' +
    'NetBox (--netbox-url, --netbox-token), or against a local simulator (--local). Limitations are detected before any list is\n' +
    'read: N+1 queries are batched, large answers come in batches ("next batch"), --state-dir keeps those sessions across restarts,\n' +
    'and --redis-url shares them (with conversations and stored results) between replicas.',
  settings: NETBOX_AGENT_SETTINGS,
  examples: [
    'flotilla agent netbox --local',
    'flotilla agent netbox --mcp-url http://127.0.0.1:8093/mcp',
    'flotilla agent netbox --netbox-url https://netbox.example.com --netbox-token "$NETBOX_TOKEN" --state-dir /var/lib/flotilla/sessions',
    'FLOTILLA_REDIS_URL=redis://redis:6379 flotilla agent netbox --netbox-url https://netbox.example.com --netbox-token "$NETBOX_TOKEN"',
  ],
  run: ({ settings, logger }) => startNetBoxAgent(settings, logger),
});
