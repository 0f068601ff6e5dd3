import { NETBOX_MCP_SETTINGS, startNetBoxMcpServer } from '@flotilla/agent-netbox/mcp';
import { defineCommand } from '../cli.js';
import { listing } from './catalogue.js';

export const mcpNetBoxCommand = defineCommand({
  ...listing('mcp netbox'),
  description:
    'Tools: list_sites, list_devices, list_vlans, list_prefixes, list_ip_addresses, list_modules, list_cables, list_interfaces,\n' +
    'count_netbox_objects, get_netbox_object, get_prefix_usage, search_netbox, read_result. Lists page through NetBox itself;\n' +
    'interfaces of many devices are read in few requests; every NetBox request shares one rate limiter.',
  settings: NETBOX_MCP_SETTINGS,
  examples: [
    'flotilla mcp netbox --netbox-url http://127.0.0.1:8000 --netbox-token dev-token',
    'FLOTILLA_NETBOX_URL=https://netbox.example.com FLOTILLA_NETBOX_TOKEN=... flotilla mcp netbox --host 0.0.0.0 --netbox-rate-limit 10',
  ],
  run: ({ settings, logger }) => startNetBoxMcpServer(settings, { logger }),
});
