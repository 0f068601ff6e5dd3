import { describe, expect, it } from 'vitest';
import { z } from 'zod';

/**
 * patches/zod@4.6.7.patch (pnpm-workspace.yaml: patchedDependencies). On Node 20, a closure made per parse and
 * stored on an object that parse made (a failed safeParse's getter, ctx.addIssue on a transform's or a refinement's
 * payload) kept that object, and the value it was parsing, alive through young-generation collections until the
 * next full one: an MCP server classifying each message and checking each tool result promoted them all (the peak
 * RSS of `pnpm bench --suites lean`). These tests fail if an install drops the patch, and check zod's API is intact.
 */
describe('the zod patch', () => {
  it('a failed safeParse: its error is built on first read, by an accessor on a class, not by closures on the result', () => {
    const result = z.object({ a: z.string() }).safeParse({ a: 1 });
    expect(result.success).toBe(false);
    expect(Object.getOwnPropertyDescriptor(result, 'error')).toBeUndefined();
    const error = result.error;
    expect(error).toBeInstanceOf(z.ZodError);
    expect(error?.issues[0]?.path).toEqual(['a']);
    expect(result.error).toBe(error);
    const replaced = new z.ZodError([]);
    (result as { error: z.ZodError }).error = replaced;
    expect(result.error).toBe(replaced);
    expect(z.string().safeParse('ok')).toEqual({ success: true, data: 'ok' });
  });

  it('a failed safeParseAsync reads the same way', async () => {
    const result = await z.number().safeParseAsync('x');
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.code).toBe('invalid_type');
  });

  it('ctx.addIssue in a transform and a refinement still reports, from one function per schema, not a closure per parse', () => {
    const seen: unknown[] = [];
    const length = z.string().transform((value, ctx) => {
      seen.push(Object.getOwnPropertyDescriptor(ctx, 'addIssue')?.value);
      if (value === 'bad') ctx.addIssue('no bad words');
      return value.length;
    });
    expect(length.safeParse('ok')).toEqual({ success: true, data: 2 });
    const bad = length.safeParse('bad');
    expect(bad.error?.issues.map((i) => i.message)).toEqual(['no bad words']);
    expect(seen[0]).toBeTypeOf('function');
    expect(seen[0]).toBe(seen[1]);

    const refined: unknown[] = [];
    const even = z.number().superRefine((value, ctx) => {
      refined.push(Object.getOwnPropertyDescriptor(ctx, 'addIssue')?.value);
      if (value % 2 !== 0) ctx.addIssue({ code: 'custom', message: `${value} is odd`, path: ['n'] });
    });
    expect(even.safeParse(2).success).toBe(true);
    const odd = even.safeParse(3);
    expect(odd.error?.issues).toMatchObject([{ code: 'custom', message: '3 is odd', path: ['n'] }]);
    expect(refined[0]).toBeTypeOf('function');
    expect(refined[0]).toBe(refined[1]);
  });
});
