import { fieldOf, type EntityDecl } from './domain.js';
import type { Condition, Query, Scalar, What, Where } from './query.js';

/** A query in plain words: "applications whose project is fraud-prod and whose health is not Healthy, counted". */

const when = (iso: string): string => iso.replace('T', ' ').replace(/:\d{2}(?:\.\d+)?Z$/, ' UTC');
const show = (v: Scalar): string => (typeof v === 'string' ? v : String(v));

function label(entity: EntityDecl, name: string): string {
  return fieldOf(entity, name)?.label ?? name;
}

function list(values: readonly string[], joiner: string): string {
  if (values.length <= 1) return values.join('');
  return `${values.slice(0, -1).join(', ')} ${joiner} ${values[values.length - 1] ?? ''}`;
}

function condition(entity: EntityDecl, c: Condition, negated: boolean): string {
  const l = label(entity, c.field);
  const is = negated ? 'is not' : 'is';
  const decl = fieldOf(entity, c.field);
  switch (c.op) {
    case 'eq':
      if (decl?.type === 'bool') return `${l} ${(c.value === true) !== negated ? 'is on' : 'is off'}`;
      return `${l} ${is} ${show(c.value)}`;
    case 'in':
      return `${l} ${is} ${list(c.values.map(show), negated ? 'nor' : 'or')}`;
    case 'contains':
      return `${l} ${negated ? 'does not contain' : 'contains'} "${c.value}"`;
    case 'exists':
      return `${l} ${negated ? 'is not set' : 'is set'}`;
    case 'after':
      return `${l} ${negated ? 'not ' : ''}at or after ${when(c.at)}`;
    case 'before':
      return `${l} ${negated ? 'not ' : ''}before ${when(c.at)}`;
    case 'less':
      return `${l} ${negated ? 'not ' : ''}below ${c.value}`;
    case 'more':
      return `${l} ${negated ? 'not ' : ''}above ${c.value}`;
  }
}

export function describeWhere(entity: EntityDecl, where: Where, negated = false): string {
  if (where.op === 'not') return describeWhere(entity, where.of, !negated);
  if (where.op === 'and' || where.op === 'or') {
    const joiner = (where.op === 'and') !== negated ? 'and' : 'or';
    const parts = where.of.map((w) => describeWhere(entity, w, negated));
    return parts.length > 1 && where.op === 'or' && !negated ? `(${list(parts, joiner)})` : list(parts, joiner);
  }
  return condition(entity, where, negated);
}

function describeWhat(entity: EntityDecl, what: What): string {
  switch (what.kind) {
    case 'count':
      return 'counted';
    case 'list':
      return 'listed';
    case 'breakdown':
      return `counted by ${list(what.by.map((b) => label(entity, b)), 'and')}`;
    case 'top':
      return `the ${what.n === 1 ? '' : `${what.n} `}${label(entity, what.by)}${what.n === 1 ? '' : 's'} with the ${what.order === 'most' ? 'most' : 'fewest'}`;
    case 'compare':
      return `counted for ${describeWhere(entity, what.groups[0])} against ${describeWhere(entity, what.groups[1])}`;
    case 'fields':
      return `its ${list(what.fields.map((f) => label(entity, f)), 'and')}`;
  }
}

export function describeQuery(entity: EntityDecl, query: Query): string {
  const subject = query.where === undefined ? `all ${entity.plural}` : `${entity.plural} whose ${describeWhere(entity, query.where)}`;
  return `${subject}, ${describeWhat(entity, query.what)}`;
}
