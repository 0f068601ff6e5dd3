import type { Client } from '@modelcontextprotocol/client';
import type { z } from 'zod';
import { FlotillaError } from '@flotilla/core';
import type { CallTool, ToolResult } from './workflow.js';

export interface McpToolCallerOptions {
  /**
   * The tools' output schemas by tool name (an agent passes its tools module's, e.g. ARGOCD_OUTPUT_SCHEMAS): a
   * successful result of a tool named here is validated with it, and one that does not match is an error, not a
   * body the agent misreads. Tools not named are read as they come.
   */
  readonly schemas?: Readonly<Record<string, z.ZodType>> | undefined;
}

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * The body of a result: its `structuredContent` (the object a Flotilla tool's JSON text carries) when the server
 * sends one; else, for servers that send none (and for error results, which carry none), the first text block
 * parsed as JSON, or `{ text }` when it is not JSON.
 */
function bodyOf(raw: { content?: unknown; structuredContent?: unknown }): Record<string, unknown> {
  if (isObject(raw.structuredContent)) return raw.structuredContent;
  const first = Array.isArray(raw.content) ? (raw.content[0] as { type?: string; text?: string } | undefined) : undefined;
  if (first?.type !== 'text' || typeof first.text !== 'string') return {};
  try {
    const parsed: unknown = JSON.parse(first.text);
    return isObject(parsed) ? parsed : { text: first.text };
  } catch {
    return { text: first.text };
  }
}

/**
 * Tools are called through MCP, over in-memory or HTTP transport, so an agent sees exactly the bounded results
 * a remote client would. An `isError` result is a result (the answer explains it); a transport failure throws, and
 * so does a successful result that does not match the tool's schema in `options.schemas`.
 */
export function mcpToolCaller(client: Client, options: McpToolCallerOptions = {}): CallTool {
  return async (call, signal) => {
    let raw: { content?: unknown; structuredContent?: unknown; isError?: unknown };
    try {
      raw = await client.callTool({ name: call.tool, arguments: { ...call.args } }, { signal });
    } catch (error) {
      throw new FlotillaError('upstream_unavailable', `the ${call.tool} tool could not be reached`, {
        remedy: 'Check that the MCP server is running; then ask again.',
        cause: error,
      });
    }
    const isError = raw.isError === true;
    let body = bodyOf(raw);
    const schema = options.schemas?.[call.tool];
    if (schema !== undefined && !isError) {
      const parsed = schema.safeParse(body);
      if (!parsed.success) {
        throw new FlotillaError('upstream_bad_response', `the ${call.tool} tool answered in a shape this agent does not read: ${parsed.error.issues[0]?.message ?? 'invalid'} at ${parsed.error.issues[0]?.path.join('.') ?? ''}`, {
          remedy: 'Run the MCP server of the same Flotilla version as the agent.',
        });
      }
      body = parsed.data as Record<string, unknown>;
    }
    const result: ToolResult = { call, isError, body };
    return result;
  };
}
