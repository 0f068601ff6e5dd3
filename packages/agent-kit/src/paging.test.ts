import { describe, expect, it } from 'vitest';
import type { ToolResult } from './domain.js';
import { oneValue, pageOffset, pageShortfall, withoutPaging } from './paging.js';

/** What every domain's paged lists share: where "next", "previous" and "page N" start, and what a budget cut off. */
const result = (body: Record<string, unknown>, isError = false): ToolResult => ({ call: { tool: 'list_things', args: { limit: 20, offset: 40, env: 'prod' } }, isError, body });

describe('paging helpers', () => {
  it('reads an entity as one value and a list call without its page', () => {
    expect(oneValue('prod')).toBe('prod');
    expect(oneValue(['prod', 'staging'])).toBe('prod');
    expect(oneValue(undefined)).toBeUndefined();
    expect(withoutPaging({ limit: 20, offset: 40, env: 'prod' })).toEqual({ env: 'prod' });
    expect(withoutPaging(undefined)).toEqual({});
  });

  it('starts the page asked for: first, previous (never before 0), a page number, or the next one', () => {
    const at = { shown: 40, next: 60, size: 20 };
    expect(pageOffset('first', at)).toBe(0);
    expect(pageOffset('previous', at)).toBe(20);
    expect(pageOffset('previous', { shown: 10, next: 30, size: 20 })).toBe(0);
    expect(pageOffset('3', at)).toBe(40);
    expect(pageOffset(undefined, at)).toBe(60);
    expect(pageOffset('next', at)).toBe(60);
  });

  it('finds the rows a budget cut off a page, and nothing when the page is whole, over, or failed', () => {
    const pageEnd = (start: number, total: number): number => Math.min(total, start + 20);
    const cut = pageShortfall([result({ offset: 40, total: 100, next_offset: 52 })], pageEnd);
    expect(cut).toMatchObject({ offset: 52, limit: 8 });
    expect(cut?.first.call.args).toMatchObject({ env: 'prod' });
    // A follow-up filled part of it: counted from the last result.
    expect(pageShortfall([result({ offset: 40, total: 100, next_offset: 52 }), result({ next_offset: 57 })], pageEnd)).toMatchObject({ offset: 57, limit: 3 });
    expect(pageShortfall([result({ offset: 40, total: 100, next_offset: 60 })], pageEnd)).toBeUndefined();
    expect(pageShortfall([result({ offset: 40, total: 50, next_offset: null })], pageEnd)).toBeUndefined();
    expect(pageShortfall([result({ error: 'upstream_unavailable' }, true)], pageEnd)).toBeUndefined();
    expect(pageShortfall([], pageEnd)).toBeUndefined();
  });
});
