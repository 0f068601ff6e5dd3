import { z } from 'zod';
import type { DomainDecl, EntityDecl, FieldDecl, PhraseDecl } from './domain.js';
import type { Lexicon } from './lexicon.js';
import { querySchema } from './query.js';

/**
 * A domain's declaration as another process reads it (an agent card's extension, read by the supervisor's router):
 * plain JSON, bounded, with the live names the agent's lexicon holds. A field's `pattern` (a RegExp) is not carried:
 * a regular expression from the network is not compiled (a router reads words, and a name-shaped word is one).
 */
export interface DomainCard {
  readonly domain: DomainDecl;
  /** entity → field → the live names, lower-cased as the lexicon holds them (a `LiveValues` of strings). */
  readonly live: Readonly<Record<string, Readonly<Record<string, readonly string[]>>>>;
  /** Whether the agent has read its estate's names yet (`pending`: a reader should look again soon). */
  readonly names: 'read' | 'pending';
}

export const DOMAIN_CARD_LIMITS = {
  entities: 20,
  fieldsPerEntity: 60,
  /** Words of one list (an entity's, a field's, a value's, a phrase's), values of a field, phrases of an entity. */
  words: 200,
  values: 100,
  phrases: 100,
  actions: 30,
  /** Characters of any one text. */
  text: 200,
  /** Live names carried per field and in all, and their characters in all. */
  liveValuesPerField: 1_000,
  liveValues: 8_000,
  liveChars: 96 * 1024,
} as const;

const text = z.string().min(1).max(DOMAIN_CARD_LIMITS.text);
const words = z.array(text).max(DOMAIN_CARD_LIMITS.words);
const name = z.string().regex(/^[a-z][a-z0-9_]{0,63}$/, 'a name of lower-case letters, digits and _');

/** The card's JSON of a domain: its declaration without patterns, and the live names its lexicon holds, bounded. */
export function domainCard(domain: DomainDecl, lexicon?: Lexicon): DomainCard {
  const live: Record<string, Record<string, string[]>> = {};
  let count = 0;
  let chars = 0;
  for (const entity of domain.entities) {
    for (const field of entity.fields) {
      if (field.live !== true || field.liveFrom !== undefined || lexicon === undefined) continue;
      const values: string[] = [];
      for (const value of lexicon.valuesOf(entity.name, field.name)) {
        if (values.length >= DOMAIN_CARD_LIMITS.liveValuesPerField || count >= DOMAIN_CARD_LIMITS.liveValues || chars + value.length > DOMAIN_CARD_LIMITS.liveChars) break;
        if (value.length > DOMAIN_CARD_LIMITS.text) continue;
        values.push(value);
        count += 1;
        chars += value.length;
      }
      if (values.length > 0) (live[entity.name] ??= {})[field.name] = values;
    }
  }
  const entities = domain.entities.map((e) => ({ ...e, fields: e.fields.map(({ pattern: _pattern, ...f }) => f) }));
  return { domain: { ...domain, entities }, live, names: lexicon === undefined ? 'pending' : 'read' };
}

/**
 * A domain card read from the network, checked: undefined when it is not one (the router then reads the agent's
 * skills alone). Every list and text is bounded; phrases' conditions are checked against the card's own fields.
 */
export function readDomainCard(value: unknown): DomainCard | undefined {
  const parsed = shape.safeParse(value);
  if (!parsed.success) return undefined;
  const { domain, live, names } = parsed.data;
  const entityNames = domain.entities.map((e) => e.name);
  const fieldNames = [...new Set(domain.entities.flatMap((e) => e.fields.map((f) => f.name)))];
  const [firstEntity, ...otherEntities] = entityNames;
  const [firstField, ...otherFields] = fieldNames;
  if (firstEntity === undefined || firstField === undefined || !entityNames.includes(domain.defaultEntity)) return undefined;
  const where = querySchema([firstEntity, ...otherEntities], [firstField, ...otherFields]).shape.where.unwrap();
  const entities: EntityDecl[] = [];
  for (const e of domain.entities) {
    if (!e.fields.some((f) => f.name === e.nameField)) return undefined;
    const phrases: PhraseDecl[] = [];
    for (const p of e.phrases ?? []) {
      const w = where.safeParse(p.where);
      if (!w.success) return undefined;
      phrases.push({ words: p.words, where: w.data });
    }
    entities.push({ ...e, fields: e.fields.map((f) => f as FieldDecl), phrases });
  }
  let count = 0;
  let chars = 0;
  const liveOut: Record<string, Record<string, string[]>> = {};
  for (const [entity, fields] of Object.entries(live)) {
    if (!entityNames.includes(entity)) continue;
    for (const [field, values] of Object.entries(fields)) {
      const kept = values.filter((v) => {
        if (count >= DOMAIN_CARD_LIMITS.liveValues || chars + v.length > DOMAIN_CARD_LIMITS.liveChars) return false;
        count += 1;
        chars += v.length;
        return true;
      });
      (liveOut[entity] ??= {})[field] = kept;
    }
  }
  return { domain: { name: domain.name, ...(domain.words === undefined ? {} : { words: domain.words }), defaultEntity: domain.defaultEntity, entities, actions: domain.actions }, live: liveOut, names };
}

const fieldShape = z.object({
  name,
  label: text,
  type: z.enum(['enum', 'name', 'text', 'number', 'time', 'bool']),
  words: words.optional(),
  values: z.array(z.object({ value: text, words: words.optional() })).max(DOMAIN_CARD_LIMITS.values).optional(),
  live: z.boolean().optional(),
  liveFrom: text.optional(),
  exec: z.enum(['upstream', 'tool', 'not_read']),
  projection: z.boolean().optional(),
  multi: z.boolean().optional(),
  groupable: z.boolean().optional(),
  timeVerbs: words.optional(),
  rank: z.number().int().min(-100).max(100).optional(),
  note: z.string().max(1_000).optional(),
});

const shape = z.object({
  domain: z.object({
    name: text,
    words: words.optional(),
    defaultEntity: name,
    entities: z
      .array(
        z.object({
          name,
          singular: text,
          plural: text,
          words,
          fields: z.array(fieldShape).min(1).max(DOMAIN_CARD_LIMITS.fieldsPerEntity),
          phrases: z.array(z.object({ words, where: z.unknown() })).max(DOMAIN_CARD_LIMITS.phrases).optional(),
          nameField: name,
          rowFields: z.array(name).max(DOMAIN_CARD_LIMITS.fieldsPerEntity).optional(),
          numberField: name.optional(),
          details: z.array(name).max(DOMAIN_CARD_LIMITS.fieldsPerEntity).optional(),
        }),
      )
      .min(1)
      .max(DOMAIN_CARD_LIMITS.entities),
    actions: z.array(z.object({ verb: text, words, how: z.string().max(1_000) })).max(DOMAIN_CARD_LIMITS.actions).optional(),
  }),
  live: z.record(z.string().max(64), z.record(z.string().max(64), z.array(z.string().max(DOMAIN_CARD_LIMITS.text)).max(DOMAIN_CARD_LIMITS.liveValuesPerField))).default({}),
  names: z.enum(['read', 'pending']).default('read'),
});
