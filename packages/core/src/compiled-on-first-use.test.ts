import { describe, expect, it } from 'vitest';
import { compiledOnFirstUse } from './compiled-on-first-use.js';

describe('compiledOnFirstUse', () => {
  it('compiles a schema when its validator first runs, once, and validates as the provider does', () => {
    const compiled: string[] = [];
    const provider = {
      getValidator(schema: { readonly type: string }) {
        compiled.push(schema.type);
        return (input: unknown) => ({ valid: typeof input === schema.type });
      },
    };
    const lazy = compiledOnFirstUse(provider);
    const asString = lazy.getValidator({ type: 'string' });
    const asNumber = lazy.getValidator({ type: 'number' });
    expect(compiled).toEqual([]);
    expect(asString('x')).toEqual({ valid: true });
    expect(asString(1)).toEqual({ valid: false });
    expect(compiled).toEqual(['string']);
    expect(asNumber(1)).toEqual({ valid: true });
    expect(compiled).toEqual(['string', 'number']);
  });
});
