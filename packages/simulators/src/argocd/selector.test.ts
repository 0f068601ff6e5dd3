import { describe, expect, it } from 'vitest';
import { isFlotillaError } from '@flotilla/core';
import { SelectorError, parseLabelSelector } from './selector.js';

const labels = { env: 'prod', team: 'core', replicas: '5' };
const holds = (selector: string, on: Record<string, string> = labels): boolean => parseLabelSelector(selector)(on);
const failure = (selector: string): string => {
  try {
    parseLabelSelector(selector);
  } catch (error) {
    if (error instanceof SelectorError) return error.message;
    throw error;
  }
  throw new Error(`${selector} parsed`);
};

describe('label selectors (Kubernetes labels.Parse)', () => {
  it('implements every operator, commas meaning AND', () => {
    expect(holds('env=prod')).toBe(true);
    expect(holds('env==prod,team=core')).toBe(true);
    expect(holds('env=prod,team=other')).toBe(false);
    expect(holds('env!=prod')).toBe(false);
    expect(holds('tier!=web')).toBe(true); // != also matches a missing key
    expect(holds('env in (dev, prod)')).toBe(true);
    expect(holds('env in (dev)')).toBe(false);
    expect(holds('env notin (dev,prod)')).toBe(false);
    expect(holds('tier notin (web)')).toBe(true);
    expect(holds('team')).toBe(true);
    expect(holds('tier')).toBe(false);
    expect(holds('!tier')).toBe(true);
    expect(holds('!team')).toBe(false);
    expect(holds('replicas>3,replicas<10')).toBe(true);
    expect(holds('replicas>5')).toBe(false);
    expect(holds('team>3')).toBe(false); // not an integer label: no match
    expect(holds('')).toBe(true);
    expect(holds('   ')).toBe(true);
    expect(holds('env=', { env: '' })).toBe(true);
    expect(parseLabelSelector('env=prod')(undefined)).toBe(false);
  });

  it('accepts what Kubernetes accepts: empty values, keywords as values, prefixed keys', () => {
    expect(holds('x in (foo,,baz),y,z notin ()', { x: '', y: '1' })).toBe(true);
    expect(holds('x in (in)', { x: 'in' })).toBe(true);
    expect(holds('app.kubernetes.io/part-of=core', { 'app.kubernetes.io/part-of': 'core' })).toBe(true);
    expect(holds('  env = prod ,team in(core)')).toBe(true);
  });

  it("rejects bad syntax with Kubernetes' own messages, as a typed error", () => {
    expect(failure('env in (prod')).toBe("unable to parse requirement: found '', expected: ',' or ')'");
    expect(failure('env=a=b')).toBe("found '=', expected: ',' or 'end of string'");
    expect(failure('=x')).toBe("found '=', expected: !, identifier, or 'end of string'");
    expect(failure(',')).toBe("found ',', expected: !, identifier, or 'end of string'");
    expect(failure('env=prod,')).toBe("found '', expected: identifier after ','");
    expect(failure('a b')).toBe("unable to parse requirement: found 'b', expected: '=', '!=', '==', 'in', notin'");
    expect(failure('env in prod')).toBe("unable to parse requirement: found 'prod' expected: '('");
    expect(failure('env=(a)')).toBe("unable to parse requirement: found '(', expected: identifier");
    expect(failure('a/b/c')).toMatch(/^unable to parse requirement: <nil>: Invalid value: "a\/b\/c": a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character \(e\.g\. 'MyName', {2}or 'my\.name', {2}or '123-abc', regex used/);
    expect(failure('env=a/b')).toBe(
      "unable to parse requirement: values[0][env]: Invalid value: \"a/b\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
    );
    expect(failure('replicas>abc')).toBe("unable to parse requirement: values[0]: Invalid value: \"abc\": for 'Gt', 'Lt' operators, the value must be an integer");
    expect(failure(`k=${'v'.repeat(64)}`)).toMatch(/^unable to parse requirement: values\[0\]\[k\]: Invalid value: "v{64}": must be no more than 63 characters$/);
    let caught: unknown;
    try {
      parseLabelSelector('env in (prod');
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(SelectorError);
    expect(isFlotillaError(caught) && caught.code).toBe('invalid_argument');
  });
});
