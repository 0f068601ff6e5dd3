// Plan helpers every domain's paged lists share: reading an entity, a list's arguments whichever page, where the
// page a person asks for starts, and what is missing of a page the token budget cut short.
import type { ToolResult } from './domain.js';
import type { EntityValue } from './rules.js';

/** The first value of an entity (one read several times holds a list). */
export const oneValue = (value: EntityValue | undefined): string | undefined => (typeof value === 'string' ? value : value?.[0]);

/** A tool call's arguments without `limit` and `offset`: the list itself, whichever page of it. */
export function withoutPaging(args: Readonly<Record<string, unknown>> | undefined): Record<string, unknown> {
  const { limit: _limit, offset: _offset, ...rest } = args ?? {};
  return rest;
}

/** Where a paged answer stands: what "next", "previous" and "page 3" are counted from. */
export interface PagePosition {
  /** The first row of the page shown last. */
  readonly shown: number;
  /** The first row of the page after it. */
  readonly next: number;
  /** Rows a page. */
  readonly size: number;
}

/**
 * The first row of the page a person asks for: the `page` entity reads "first", "previous", a page number, or
 * (anything else, or nothing) the next page. Past the end when the list is over: the caller compares with its total.
 */
export function pageOffset(wanted: string | undefined, at: PagePosition): number {
  if (wanted === 'first') return 0;
  if (wanted === 'previous') return Math.max(0, at.shown - at.size);
  if (wanted !== undefined && /^\d+$/.test(wanted)) return (Number(wanted) - 1) * at.size;
  return at.next;
}

/** The rows a page should show and the tool did not return: from `offset`, `limit` of them. */
export interface PageShortfall {
  /** The first result: its call is the list to read on. */
  readonly first: ToolResult;
  readonly offset: number;
  readonly limit: number;
}

/**
 * What the token budget cut off a page: the results of a list call (and of the follow-ups that filled it so far)
 * against where the page shown should end (`pageEnd`, from the page's first row and the list's total). Undefined
 * when nothing is missing, a result is an error, or the tool says there is no next row.
 */
export function pageShortfall(results: readonly ToolResult[], pageEnd: (start: number, total: number) => number): PageShortfall | undefined {
  const first = results[0];
  const last = results[results.length - 1];
  if (first === undefined || last === undefined || first.isError || last.isError) return undefined;
  const next = last.body.next_offset;
  if (typeof next !== 'number') return undefined;
  const end = pageEnd(Number(first.body.offset ?? 0), Number(first.body.total ?? 0));
  return next < end ? { first, offset: next, limit: end - next } : undefined;
}
