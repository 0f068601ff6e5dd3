import type { Where } from './query.js';

/**
 * A domain declares its entities and their fields once: type, the words that name them, and how each is executed.
 * The parser's lexicon, the `query` tool's schema, the planner and the plain-words rendering all read this.
 */

export type FieldType = 'enum' | 'name' | 'text' | 'number' | 'time' | 'bool';

/**
 * How a field is executed: pushed to the upstream as a filter, evaluated by the tool over the streamed items, or
 * known to exist upstream but not read by the agent yet (an answer names it instead of pretending).
 */
export type FieldExecution = 'upstream' | 'tool' | 'not_read';

export interface FieldValue {
  readonly value: string;
  /** Words and phrases that mean this value ("out of sync" for OutOfSync). */
  readonly words?: readonly string[];
}

export interface FieldDecl {
  readonly name: string;
  /** The field in plain words ("health", "destination cluster"). */
  readonly label: string;
  readonly type: FieldType;
  /** Words and phrases that name the field ("health status", "env"). */
  readonly words?: readonly string[];
  /** The values of an enum, with their words. */
  readonly values?: readonly FieldValue[];
  /** Its values come from the live data into the lexicon (cluster names, projects...). */
  readonly live?: boolean;
  /**
   * Its live values are another entity's field's ("entity.field": a project's destination clusters are the clusters'
   * names): read once, for that field, not again for this one.
   */
  readonly liveFrom?: string;
  readonly exec: FieldExecution;
  /** May be asked as a named field of one object ("what image is X running"). */
  readonly projection?: boolean;
  /** An object holds several values at once (labels, images): values joined by "and" are all required. */
  readonly multi?: boolean;
  /** May group a breakdown ("per cluster"). */
  readonly groupable?: boolean;
  /** Verbs that put a time window on this field ("synced", "created"): only time fields. */
  readonly timeVerbs?: readonly string[];
  /** A bare value of this field outranks one of a lower rank when a word is a value of several fields. */
  readonly rank?: number;
  /** A bare word of this shape is a value of this field (a URL, a k=v label). */
  readonly pattern?: RegExp;
  /** What the system holds instead, when a question asks for what it does not hold (said in the answer). */
  readonly note?: string;
}

/** A phrase that stands for a whole condition ("unhealthy": health is not Healthy). */
export interface PhraseDecl {
  readonly words: readonly string[];
  readonly where: Where;
}

export interface EntityDecl {
  readonly name: string;
  /** Singular and plural in plain words. */
  readonly singular: string;
  readonly plural: string;
  /** Words that name the entity ("apps", "applications"). */
  readonly words: readonly string[];
  readonly fields: readonly FieldDecl[];
  readonly phrases?: readonly PhraseDecl[];
  /** The field holding an object's name (a bare name-shaped word is read as one of these). */
  readonly nameField: string;
  /** Fields shown in a list row. */
  readonly rowFields?: readonly string[];
  /** The number field a number right after the entity's noun means ("vlan 12": its VLAN ID). */
  readonly numberField?: string;
  /** Fields shown of one object asked for by its name alone ("show device x"): its details, not a row. */
  readonly details?: readonly string[];
}

/** An action a read-only agent is asked to take, with how to do it in the system itself. */
export interface ActionDecl {
  /** The verb as said back ("sync", "roll back"). */
  readonly verb: string;
  readonly words: readonly string[];
  /** How to do it in the system: `{name}` is the object named, when one was. */
  readonly how: string;
}

export interface DomainDecl {
  readonly name: string;
  /**
   * Words that name the system itself ("argo cd", "netbox"): they mean "in this system", add no condition, and tell a
   * router the question is this domain's.
   */
  readonly words?: readonly string[];
  readonly entities: readonly EntityDecl[];
  /** The entity a question means when it names none (its fields decide otherwise). */
  readonly defaultEntity: string;
  readonly actions?: readonly ActionDecl[];
}

export function entityOf(domain: DomainDecl, name: string): EntityDecl {
  const entity = domain.entities.find((e) => e.name === name);
  if (entity === undefined) throw new Error(`unknown entity ${name}`);
  return entity;
}

export function fieldOf(entity: EntityDecl, name: string): FieldDecl | undefined {
  return entity.fields.find((f) => f.name === name);
}

/**
 * The single words a domain's declaration names its things with ("devices", "switches", "degraded"): its entities'
 * words and the declared values' words of the fields given. What a router matches questions against (an agent
 * card's skill tags), at most `max`, in declared order.
 */
export function domainWords(domain: DomainDecl, entities: readonly string[], valueFields: readonly string[] = [], max = 80): string[] {
  const out = new Set<string>();
  for (const entity of domain.entities.filter((e) => entities.includes(e.name))) {
    for (const w of entity.words) out.add(w);
    for (const f of entity.fields) if (valueFields.includes(f.name)) for (const v of f.values ?? []) for (const w of v.words ?? []) out.add(w);
  }
  return [...out].filter((w) => /^[a-z][a-z0-9-]{1,30}$/.test(w)).slice(0, max);
}

/** The fields of `entity` an object holds several values of (tags): a refinement adds to their conditions. */
export function multiFields(domain: DomainDecl, entity: string): ReadonlySet<string> {
  const e = domain.entities.find((x) => x.name === entity);
  return new Set((e?.fields ?? []).filter((f) => f.multi === true).map((f) => f.name));
}
