import { performance } from 'node:perf_hooks';
import type { McpServer, StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import type { z } from 'zod';
import { FlotillaError, describeError, isFlotillaError, type Logger } from '@flotilla/core';
import { zeroToolSeries, type ToolOutcome } from '@flotilla/metrics';
import { measureToolResult, type BoundedToolResult, type ResultSize } from './measure.js';
import { errorResult, type RenderContext, type Rendered } from './page.js';
import type { ToolPayload, ToolSpec } from './types.js';

/**
 * The SDK validates tool input before the handler runs and, on a bad argument, answers an isError result of its
 * own ("Input validation error: …": no remedy, and the call never reaches our metrics). We hand it a schema that
 * only advertises the zod schema's JSON Schema (for `tools/list`) and accepts any value, and validate in the
 * handler ourselves, so a bad argument becomes our isError result that names the valid range, counted like every
 * other call. Output schemas are advertised the same way: the SDK would otherwise parse every successful result's
 * `structuredContent` again (a deep copy of each page: a fifth of a paging call's garbage) though the kit built it
 * from the very JSON its text carries; clients validate it against the advertised JSON Schema (the agents with the
 * zod schemas themselves, `mcpToolCaller`), and the tools' tests check every tool's output against its schema.
 */
function advertiseOnly(schema: z.ZodType): StandardSchemaWithJSON {
  let advertised = advertisedSchemas.get(schema);
  if (advertised === undefined) {
    const std = schema['~standard'];
    advertised = { '~standard': { version: 1, vendor: 'flotilla', validate: (value: unknown) => ({ value }), jsonSchema: std.jsonSchema } };
    advertisedSchemas.set(schema, advertised);
  }
  return advertised;
}

/**
 * Advertised input schemas, built once per process, not once per MCP server: the HTTP server keeps a server per
 * request in flight (`mcpServerPool`). Keyed by the tool's own schema object, so a tool whose input is a module
 * constant shares it across servers.
 */
const advertisedSchemas = new WeakMap<z.ZodType, StandardSchemaWithJSON>();

function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const path = issue.path.join('.');
      if (issue.code === 'unrecognized_keys') return `unknown argument(s): ${issue.keys.join(', ')}`;
      return path.length > 0 && !issue.message.startsWith(path) ? `${path}: ${issue.message}` : issue.message;
    })
    .join('; ');
}

/**
 * Registers one tool on the server: arguments validated (bad → isError naming the range), the payload rendered,
 * failures turned into isError results (a bug logged with its stack, answered with a stable message), every call
 * measured and counted. A successful result carries `structuredContent`, advertised as `spec.output` (see advertiseOnly).
 */
export function registerTool<S extends z.ZodObject>(
  server: McpServer,
  ctx: RenderContext,
  logger: Logger,
  spec: ToolSpec<S>,
  render: (tool: string, payload: ToolPayload) => Promise<Rendered>,
): void {
  const { metrics, counter } = ctx;
  // Its series at zero now, so the first large read or error after a start reaches the alerts.
  zeroToolSeries(metrics, spec.name);
  // One child logger per tool, not per call: pino builds its bindings (and redaction) on each child.
  const log = logger.child({ tool: spec.name });
  server.registerTool(
    spec.name,
    {
      title: spec.title,
      description: spec.description,
      inputSchema: advertiseOnly(spec.input),
      ...(spec.output === undefined ? {} : { outputSchema: advertiseOnly(spec.output) }),
      annotations: { readOnlyHint: true },
    },
    async (rawArgs: unknown, sdkCtx) => {
      const started = performance.now();
      let outcome: ToolOutcome = 'ok';
      let result: BoundedToolResult;
      let size: ResultSize | undefined;
      try {
        const parsed = spec.input.safeParse(rawArgs ?? {});
        if (!parsed.success) {
          throw new FlotillaError('invalid_argument', `invalid arguments for ${spec.name}: ${describeIssues(parsed.error)}`, {
            remedy: 'Correct the arguments named above and call again; tools/list shows the schema.',
          });
        }
        const payload = await spec.run(parsed.data, { tool: spec.name, logger: log, signal: sdkCtx.mcpReq.signal });
        ({ result, size } = await render(spec.name, payload));
      } catch (error) {
        if (isFlotillaError(error)) {
          outcome = 'tool_error';
          log.info({ code: error.code, err: describeError(error) }, 'tool call failed');
          result = errorResult(ctx, error);
        } else {
          // A bug: logged with its stack and counted; the caller gets a stable message, the server stays up.
          outcome = 'exception';
          log.error({ err: error }, 'tool call raised an unexpected error');
          result = errorResult(ctx, new FlotillaError('internal', `${spec.name} failed unexpectedly; the error was logged`));
        }
      }
      // Sizes were counted while fitting; anything rendered elsewhere (errors) is measured here.
      size ??= measureToolResult(result, counter);
      metrics.toolCalls.inc({ tool: spec.name, outcome });
      metrics.toolResultBytes.observe({ tool: spec.name }, size.bytes);
      metrics.toolResultTokens.observe({ tool: spec.name }, size.tokens);
      metrics.toolDuration.observe({ tool: spec.name }, (performance.now() - started) / 1000);
      return result;
    },
  );
}
