import type { Client } from '@modelcontextprotocol/client';
import { FlotillaError } from '@flotilla/core';
import type { CallTool, ToolResult } from './workflow.js';

/**
 * Tools are called through MCP, over in-memory or HTTP transport, so an agent sees exactly the bounded results
 * a remote client would. An `isError` result is a result (the answer explains it); a transport failure throws.
 */
export function mcpToolCaller(client: Client): CallTool {
  return async (call, signal) => {
    let raw: Awaited<ReturnType<Client['callTool']>>;
    try {
      raw = await client.callTool({ name: call.tool, arguments: { ...call.args } }, { signal });
    } catch (error) {
      throw new FlotillaError('upstream_unavailable', `the ${call.tool} tool could not be reached`, {
        remedy: 'Check that the MCP server is running; then ask again.',
        cause: error,
      });
    }
    const content = (raw as { content?: unknown }).content;
    const first = Array.isArray(content) ? (content[0] as { type?: string; text?: string } | undefined) : undefined;
    let body: Record<string, unknown> = {};
    if (first?.type === 'text' && typeof first.text === 'string') {
      try {
        body = JSON.parse(first.text) as Record<string, unknown>;
      } catch {
        body = { text: first.text };
      }
    }
    const result: ToolResult = { call, isError: (raw as { isError?: boolean }).isError === true, body };
    return result;
  };
}
