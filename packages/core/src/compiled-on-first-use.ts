/**
 * A JSON Schema validator provider (the MCP SDK's `jsonSchemaValidator` option) whose validators compile on their
 * first use. The MCP client compiles every listed tool's output schema at its first tool call: an agent whose first
 * call is one tool (its lexicon's `list_values`) held the compiled code of all of them (~3 MB of heap, 350 ms of CPU).
 */
export function compiledOnFirstUse<P extends { getValidator(schema: never): (input: unknown) => unknown }>(provider: P): P {
  const lazy = {
    getValidator(schema: never) {
      let compiled: ((input: unknown) => unknown) | undefined;
      return (input: unknown) => (compiled ??= provider.getValidator(schema))(input);
    },
  };
  return lazy as unknown as P;
}
