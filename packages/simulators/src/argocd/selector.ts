import { FlotillaError } from '@flotilla/core';

/**
 * Kubernetes label selectors, as Argo CD parses its `selector` parameter (`labels.Parse` from
 * k8s.io/apimachinery): a port of its lexer and recursive-descent parser, including its error messages.
 * Requirements are comma-separated and all must hold: `k=v`, `k==v`, `k!=v`, `k in (a,b)`, `k notin (a,b)`,
 * `k` (exists), `!k` (does not exist), and the integer comparisons `k>n`, `k<n`.
 */
export class SelectorError extends FlotillaError {
  constructor(message: string) {
    super('invalid_argument', message, {
      remedy: 'Use Kubernetes label selector syntax: k=v, k!=v, k in (a,b), k notin (a,b), k, !k, joined by commas.',
    });
    this.name = 'SelectorError';
  }
}

type Labels = Readonly<Record<string, string>>;
type Token = 'error' | 'eos' | ')' | ',' | '!' | '==' | '=' | '>' | 'id' | 'in' | '<' | '!=' | 'notin' | '(';
type Operator = 'in' | 'notin' | '=' | '==' | '!=' | 'exists' | '!' | 'gt' | 'lt';

const KEYWORDS: Readonly<Record<string, Token>> = { ')': ')', ',': ',', '!': '!', '==': '==', '=': '=', '>': '>', in: 'in', '<': '<', '!=': '!=', notin: 'notin', '(': '(' };
const OPERATORS: Partial<Record<Token, Operator>> = { in: 'in', '=': '=', '==': '==', '>': 'gt', '<': 'lt', notin: 'notin', '!=': '!=' };
const isWhitespace = (ch: string): boolean => ch === ' ' || ch === '\t' || ch === '\r' || ch === '\n';
const isSpecial = (ch: string): boolean => '=!(),><'.includes(ch);

function lex(input: string): [Token, string][] {
  const items: [Token, string][] = [];
  let pos = 0;
  // Go's lexer reads a NUL byte where the string ends.
  const read = (): string => (pos < input.length ? (input[pos++] ?? '\0') : '\0');
  for (;;) {
    let ch = read();
    while (isWhitespace(ch)) ch = read();
    if (ch === '\0') {
      items.push(['eos', '']);
      return items;
    }
    let buffer = '';
    if (isSpecial(ch)) {
      let last: [Token, string] | undefined;
      for (; ch !== '\0'; ch = read()) {
        if (!isSpecial(ch)) {
          pos -= 1;
          break;
        }
        buffer += ch;
        const token = KEYWORDS[buffer];
        if (token !== undefined) last = [token, buffer];
        else if (last !== undefined) {
          pos -= 1;
          break;
        }
      }
      items.push(last ?? ['error', `error expected: keyword found '${buffer}'`]);
    } else {
      for (; ch !== '\0'; ch = read()) {
        if (isSpecial(ch) || isWhitespace(ch)) {
          pos -= 1;
          break;
        }
        buffer += ch;
      }
      items.push([KEYWORDS[buffer] ?? 'id', buffer]);
    }
  }
}

const QUALIFIED_NAME_FMT = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const QUALIFIED_NAME = new RegExp(`^${QUALIFIED_NAME_FMT}$`);
const LABEL_VALUE_FMT = `(${QUALIFIED_NAME_FMT})?`;
const LABEL_VALUE = new RegExp(`^${LABEL_VALUE_FMT}$`);
const DNS1123_LABEL_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`;
const DNS1123_SUBDOMAIN = new RegExp(`^${DNS1123_SUBDOMAIN_FMT}$`);
const QUALIFIED_NAME_MSG = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

function regexError(message: string, format: string, ...examples: string[]): string {
  return `${message} (e.g. ${examples.map((e) => `'${e}', `).join(' or ')}regex used for validation is '${format}')`;
}

/** k8s.io/apimachinery validation.IsQualifiedName. */
function qualifiedNameErrors(value: string): string[] {
  const errors: string[] = [];
  const parts = value.split('/');
  let name: string;
  if (parts.length === 1) name = parts[0] ?? '';
  else if (parts.length === 2) {
    const prefix = parts[0] ?? '';
    name = parts[1] ?? '';
    if (prefix.length === 0) errors.push('prefix part must be non-empty');
    else {
      if (prefix.length > 253) errors.push('prefix part must be no more than 253 characters');
      if (!DNS1123_SUBDOMAIN.test(prefix)) {
        errors.push(`prefix part ${regexError("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character", DNS1123_SUBDOMAIN_FMT, 'example.com')}`);
      }
    }
  } else {
    return [`a qualified name ${regexError(QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`];
  }
  if (name.length === 0) errors.push('name part must be non-empty');
  else if (name.length > 63) errors.push('name part must be no more than 63 characters');
  if (!QUALIFIED_NAME.test(name)) errors.push(`name part ${regexError(QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')}`);
  return errors;
}

function labelValueErrors(value: string): string[] {
  const errors: string[] = [];
  if (value.length > 63) errors.push('must be no more than 63 characters');
  if (!LABEL_VALUE.test(value)) {
    errors.push(regexError("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character", LABEL_VALUE_FMT, 'MyValue', 'my_value', '12345'));
  }
  return errors;
}

/** field.Invalid(path, value, detail).Error() */
const invalid = (path: string, value: string, detail: string): string => `${path}: Invalid value: ${JSON.stringify(value)}: ${detail}`;

/** field.ErrorList.ToAggregate().Error() */
function aggregate(errors: string[]): string | undefined {
  const unique = [...new Set(errors)];
  if (unique.length === 0) return undefined;
  return unique.length === 1 ? unique[0] : `[${unique.join(', ')}]`;
}

interface Requirement {
  readonly key: string;
  readonly operator: Operator;
  readonly values: readonly string[];
}

function newRequirement(key: string, operator: Operator, values: string[]): Requirement {
  const errors: string[] = [];
  if ((operator === 'gt' || operator === 'lt') && values.length === 1 && !/^[+-]?\d+$/.test(values[0] ?? '')) {
    errors.push(invalid('values[0]', values[0] ?? '', "for 'Gt', 'Lt' operators, the value must be an integer"));
  }
  values.forEach((v, i) => {
    const problems = labelValueErrors(v);
    if (problems.length > 0) errors.push(invalid(`values[${i}][${key}]`, v, problems.join('; ')));
  });
  const message = aggregate(errors);
  if (message !== undefined) throw new SelectorError(message);
  return { key, operator, values };
}

class Parser {
  private position = 0;
  constructor(private readonly items: readonly [Token, string][]) {}

  /** In value context `in` and `notin` are identifiers (`x in (in)`). */
  private lookahead(values = true): [Token, string] {
    const [token, literal] = this.items[this.position] ?? ['eos', ''];
    return [values && (token === 'in' || token === 'notin') ? 'id' : token, literal];
  }

  private consume(values = true): [Token, string] {
    const item = this.lookahead(values);
    this.position += 1;
    return item;
  }

  parse(): Requirement[] {
    const requirements: Requirement[] = [];
    for (;;) {
      const [token, literal] = this.lookahead();
      if (token === 'eos') return requirements;
      if (token !== 'id' && token !== '!') throw new SelectorError(`found '${literal}', expected: !, identifier, or 'end of string'`);
      try {
        requirements.push(this.requirement());
      } catch (error) {
        if (error instanceof SelectorError) throw new SelectorError(`unable to parse requirement: ${error.message}`);
        throw error;
      }
      const [next, nextLiteral] = this.consume();
      if (next === 'eos') return requirements;
      if (next !== ',') throw new SelectorError(`found '${nextLiteral}', expected: ',' or 'end of string'`);
      const [after, afterLiteral] = this.lookahead();
      if (after !== 'id' && after !== '!') throw new SelectorError(`found '${afterLiteral}', expected: identifier after ','`);
    }
  }

  private requirement(): Requirement {
    let [token, key] = this.consume();
    let operator: Operator | undefined;
    if (token === '!') {
      operator = '!';
      [token, key] = this.consume();
    }
    if (token !== 'id') throw new SelectorError(`found '${key}', expected: identifier`);
    const keyErrors = qualifiedNameErrors(key);
    if (keyErrors.length > 0) throw new SelectorError(invalid('<nil>', key, keyErrors.join('; ')));
    const [next] = this.lookahead();
    if (next === 'eos' || next === ',') return newRequirement(key, operator ?? 'exists', []);
    if (operator === '!') return newRequirement(key, '!', []);
    const [opToken, opLiteral] = this.consume(false);
    const op = OPERATORS[opToken];
    if (op === undefined) throw new SelectorError(`found '${opLiteral}', expected: '=', '!=', '==', 'in', notin'`);
    const values = op === 'in' || op === 'notin' ? this.setValues() : this.exactValue();
    return newRequirement(key, op, [...new Set(values)].sort());
  }

  private setValues(): string[] {
    const [open, openLiteral] = this.consume();
    if (open !== '(') throw new SelectorError(`found '${openLiteral}' expected: '('`);
    const [token, literal] = this.lookahead();
    if (token === ')') {
      this.consume();
      return [''];
    }
    if (token !== 'id' && token !== ',') throw new SelectorError(`found '${literal}', expected: ',', ')' or identifier`);
    const values = this.identifiers();
    if (this.consume()[0] !== ')') throw new SelectorError(`found '${literal}', expected: ')'`);
    return values;
  }

  private identifiers(): string[] {
    const values = new Set<string>();
    for (;;) {
      const [token, literal] = this.consume();
      if (token === 'id') {
        values.add(literal);
        const [next, nextLiteral] = this.lookahead();
        if (next === ',') continue;
        if (next === ')') return [...values];
        throw new SelectorError(`found '${nextLiteral}', expected: ',' or ')'`);
      }
      if (token !== ',') throw new SelectorError(`found '${literal}', expected: ',', or identifier`);
      if (values.size === 0) values.add('');
      const [next] = this.lookahead();
      if (next === ')') {
        values.add('');
        return [...values];
      }
      if (next === ',') {
        this.consume();
        values.add('');
      }
    }
  }

  private exactValue(): string[] {
    const [next] = this.lookahead();
    if (next === 'eos' || next === ',') return [''];
    const [token, literal] = this.consume();
    if (token === 'id') return [literal];
    throw new SelectorError(`found '${literal}', expected: identifier`);
  }
}

function matches(r: Requirement, labels: Labels): boolean {
  const has = Object.prototype.hasOwnProperty.call(labels, r.key);
  const value = labels[r.key] ?? '';
  switch (r.operator) {
    case 'in':
    case '=':
    case '==':
      return has && r.values.includes(value);
    case 'notin':
    case '!=':
      return !has || !r.values.includes(value);
    case 'exists':
      return has;
    case '!':
      return !has;
    case 'gt':
    case 'lt': {
      if (!has || !/^[+-]?\d+$/.test(value)) return false;
      const left = Number(value);
      const right = Number(r.values[0]);
      return r.operator === 'gt' ? left > right : left < right;
    }
  }
}

/**
 * A matcher for `selector`, or a `SelectorError` carrying the message Kubernetes' parser gives (Argo CD wraps it
 * as `error parsing the selector: <message>`). An empty selector matches everything.
 */
export function parseLabelSelector(selector: string): (labels: Labels | undefined) => boolean {
  const requirements = new Parser(lex(selector)).parse();
  return (labels) => requirements.every((r) => matches(r, labels ?? {}));
}
