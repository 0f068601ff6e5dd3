import type { TokenCounter } from '@flotilla/tokens';
import type { JsonObject } from './json.js';

/** The content blocks our tools emit (a subset of MCP's). */
export type TextBlock = { type: 'text'; text: string };
export type ResourceLinkBlock = {
  type: 'resource_link';
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
};
export type ToolContentBlock = TextBlock | ResourceLinkBlock;

export interface BoundedToolResult {
  [key: string]: unknown;
  content: ToolContentBlock[];
  /** The object the JSON text carries (MCP `structuredContent`, checked against the tool's `outputSchema`); none on errors. */
  structuredContent?: JsonObject;
  isError?: boolean;
}

export interface ResultSize {
  readonly tokens: number;
  readonly bytes: number;
}

/**
 * What a tool result costs a model: the tokens of every text block plus the tokens of every other block as
 * serialised JSON; bytes are UTF-8 of the same. This is the quantity the budget bounds (`structuredContent` is the
 * same object as the text, for programs: not counted again).
 */
export function measureToolResult(result: BoundedToolResult, counter: TokenCounter): ResultSize {
  let tokens = 0;
  let bytes = 0;
  for (const block of result.content) {
    const text = block.type === 'text' ? block.text : JSON.stringify(block);
    tokens += counter.count(text);
    bytes += Buffer.byteLength(text, 'utf8');
  }
  return { tokens, bytes };
}
