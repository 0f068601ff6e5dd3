import { entityOf, fieldOf, type DomainDecl, type EntityDecl, type FieldDecl } from './domain.js';
import { Lexicon, type GrammarWord, type LiveValues, type Sense } from './lexicon.js';
import { and, conditionsOf, not, or, QUERY_LIMITS, type Condition, type Query, type What, type Where } from './query.js';
import { NUMBER_WORDS, timeAt, type TimeWindow } from './time.js';

/**
 * From a whole sentence to a typed query, compositionally: the sentence is read into items (lexicon phrases, time
 * windows, numbers, names), then constructions consume them: field and value, negation, OR-lists, breakdowns, top N,
 * comparisons, projections, time windows, and the marks of an edit of the previous question. Every content word is
 * consumed by a node of the query, or returned in `unapplied` so the answer can say so.
 */

/** Longest question read; the rest is cut (and said). */
export const PARSE_LIMITS = { maxChars: 2_000, maxTokens: 400, compareCandidates: 12 } as const;

/** Lower case, plain quotes and dashes, contractions and possessives expanded, whitespace collapsed. */
export function normaliseQuestion(text: string): string {
  return text
    .slice(0, PARSE_LIMITS.maxChars)
    .toLowerCase()
    .replace(/[\u2018\u2019\u0060\u00b4]/g, "'")
    .replace(/[\u201c\u201d]/g, '"')
    .replace(/[\u2013\u2014]/g, '-')
    .replace(/\bcan't\b/g, 'can not')
    .replace(/\bwon't\b/g, 'will not')
    .replace(/\b([a-z]+)n't\b/g, '$1 not')
    // The same without the apostrophe, as typed in a hurry ("arent", "doesnt", "cant").
    .replace(/\b(are|is|was|were|do|does|did|has|have|had|could|would|should|must)nt\b/g, '$1 not')
    .replace(/\bcant\b/g, 'can not')
    .replace(/\b(what|who|where|how|that|there|it|which)'s\b/g, '$1 is')
    .replace(/'re\b/g, ' are')
    .replace(/'ve\b/g, ' have')
    .replace(/([a-z0-9])'s?(?=\s|$|[?,.!])/g, '$1')
    .replace(/\s+/g, ' ')
    .trim();
}

const TOKEN = /https?:\/\/[^\s"'<>,;]+[^\s"'<>,;.?!)]|git@[\w.-]+:[\w./-]+|[a-z0-9](?:[a-z0-9._:/@=+-]*[a-z0-9/])?|[,&#=:]/g;

export function tokenize(text: string): string[] {
  const out: string[] = [];
  for (const m of normaliseQuestion(text).matchAll(TOKEN)) {
    if (out.length >= PARSE_LIMITS.maxTokens) break;
    out.push(m[0]);
  }
  return out;
}

/** A word that looks like an object's name rather than an English word: it carries a digit, a dash, a dot or a slash. */
export const nameShaped = (word: string): boolean => /[0-9._:/-]/.test(word) && /[a-z]/.test(word);

export interface Correction {
  readonly from: string;
  readonly to: string;
}

export interface EditMarks {
  /** "those", "them", "of these". */
  readonly anaphora: boolean;
  /** "what about …", "how about …", "… instead". */
  readonly about: boolean;
  /** "only …", "just …". */
  readonly only: boolean;
  /** The question starts with "and" / "then". */
  readonly leadingAnd: boolean;
  /** The question names its entity itself. */
  readonly ownEntity: boolean;
  /** The question says what it wants (count, list, breakdown…) itself. */
  readonly ownWhat: boolean;
  /** "how many are degraded?": the quantity asked of no subject at all (the last question's, then). */
  readonly subjectless: boolean;
}

export interface ActionRequest {
  readonly verb: string;
  /** The object named, when one was. */
  readonly target?: string | undefined;
  /** A second name, of a part of the target ("Ethernet1" of "shut down Ethernet1 on ams1-sw-001"). */
  readonly part?: string | undefined;
}

export interface Parsed {
  /** `action`: a request to act (read-only agents say so); `query`: a question; `empty`: nothing the domain reads. */
  readonly kind: 'query' | 'action' | 'empty';
  readonly query: Query | undefined;
  readonly action?: ActionRequest | undefined;
  readonly edit: EditMarks;
  /** Content words no node of the query consumed, in order. */
  readonly unapplied: readonly string[];
  readonly corrections: readonly Correction[];
  /** What was inferred rather than read ("read analytics as the team"). */
  readonly inferred: readonly string[];
  /** Fields asked for that the domain declares but does not read. */
  readonly notRead: readonly string[];
  /** The query depends on the time of asking (a window ending now). */
  readonly clock: boolean;
  /** The question was cut at PARSE_LIMITS. */
  readonly cut: boolean;
  /** The words a node of the query (or the action) consumed that mean something in this domain, and what each is. */
  readonly read: readonly ReadWord[];
}

/**
 * A word the reading applied, by what it is to the domain: its entity's noun, a field, a declared value, a name the
 * live data holds, a phrase standing for a condition, a time verb, an action's verb, or a word only shaped like a
 * name (`guess`). What a router weighs to tell which domain a question is about.
 */
export interface ReadWord {
  readonly text: string;
  readonly as: 'system' | 'entity' | 'field' | 'value' | 'live' | 'phrase' | 'timeverb' | 'action' | 'guess';
  /** Read as a typo of a word the domain knows ("platforms" as the team platform), not as written. */
  readonly corrected?: true;
}

type ItemKind = 'lex' | 'time' | 'num' | 'name' | 'unknown';

interface Item {
  readonly kind: ItemKind;
  readonly text: string;
  senses: Sense[];
  /** The senses read before the question's entity and neighbours chose one. */
  all?: readonly Sense[];
  readonly window?: TimeWindow;
  readonly num?: number;
  readonly corrected?: Correction;
  used: boolean;
  /** The senses `pure` was computed for, and the grammar word the item is when every one of them is one (see pureG). */
  pureOf?: readonly Sense[];
  pure?: GrammarWord | null;
}

const g = (item: Item | undefined): GrammarWord | undefined => {
  const s = item?.senses.find((x) => x.k === 'g');
  return s?.k === 'g' ? s.g : undefined;
};
/** The grammar word an item is, when every sense of it is one (kept on the item for its current senses array). */
function pureG(item: Item): GrammarWord | undefined {
  if (item.pureOf !== item.senses) {
    item.pure = item.senses.length > 0 && item.senses.every((s) => s.k === 'g') ? (g(item) ?? null) : null;
    item.pureOf = item.senses;
  }
  return item.pure ?? undefined;
}
const isG = (item: Item | undefined, ...words: GrammarWord[]): boolean => {
  if (item === undefined) return false;
  const w = pureG(item);
  return w !== undefined && words.includes(w);
};
const senseOf = <K extends Sense['k']>(item: Item | undefined, k: K): Extract<Sense, { k: K }> | undefined => item?.senses.find((s): s is Extract<Sense, { k: K }> => s.k === k);

/** Words that may open a request to act: "please", "can you", "could you please", "go ahead and", "let's". */
const REQUEST_OPENERS: ReadonlySet<string> = new Set(['please', 'pls', 'plz', 'kindly', 'can', 'could', 'would', 'will', 'you', 'go', 'ahead', 'and', 'lets', 'let', 'us', 'now', 'just', 'hey', 'ok', 'okay', 'i', 'want', 'to', 'need', 'we']);

/** Words after which a field names groups that have something, not a value of its own. */
const POSSESSIVE: ReadonlySet<string> = new Set(['have', 'has', 'having', 'with', 'do', 'does', 'contain', 'hold', 'holds', 'run', 'runs']);

/** Words that open a noun phrase ("the acme tenant"). */
const DETERMINERS: ReadonlySet<string> = new Set(['the', 'our', 'my', 'your', 'their']);

/** Grammar words that carry no meaning of their own between two parts. */
const LIGHT: readonly GrammarWord[] = ['filler', 'is', 'which', 'list', 'and'];

/** What the conversation tells the reading of a follow-up. */
export interface ParseContext {
  readonly entity?: string | undefined;
}

export interface Parser {
  readonly lexicon: Lexicon;
  /**
   * `context.entity`: the entity of the query a follow-up continues ("of those, which are in prod-eu-1?" after a list
   * of applications): a question that names no entity of its own is read as about it where its words allow.
   */
  parse(question: string, now: number, context?: ParseContext): Parsed;
}

export function createParser(domain: DomainDecl, live?: LiveValues): Parser {
  const lexicon = new Lexicon(domain, tokenize, live);
  return { lexicon, parse: (question, now, context) => parseWith(lexicon, question, now, context) };
}

function readItems(lexicon: Lexicon, tokens: readonly string[], now: number): Item[] {
  const items: Item[] = [];
  // Two words as near a typo that mean the same ("switch", "switches") are one correction, not a tie.
  const sameMeaning = (a: string, b: string): boolean => {
    const x = lexicon.lookup(a)?.senses;
    const y = lexicon.lookup(b)?.senses;
    return x !== undefined && y !== undefined && JSON.stringify(x) === JSON.stringify(y);
  };
  // One correction per distinct word of the question, however many phrases it is tried in.
  const fixes = new Map<string, ReturnType<Lexicon['fuzzy']['correct']>>();
  const correct = (w: string): ReturnType<Lexicon['fuzzy']['correct']> => {
    if (!fixes.has(w)) fixes.set(w, lexicon.fuzzy.correct(w, sameMeaning));
    return fixes.get(w);
  };
  // Per token, once: whether the lexicon knows it alone, and its correction when it does not (lazily).
  const known = tokens.map((t) => lexicon.lookup(t) !== undefined);
  const fixAt = (x: number): ReturnType<Lexicon['fuzzy']['correct']> => {
    const w = tokens[x] ?? '';
    return known[x] === true || nameShaped(w) ? undefined : correct(w);
  };
  let i = 0;
  while (i < tokens.length) {
    const window = timeAt(tokens, i, now);
    if (window !== undefined) {
      items.push({ kind: 'time', text: tokens.slice(i, window.end).join(' '), senses: [], window, used: false });
      i = window.end;
      continue;
    }
    // The longest phrase at i, a word of it corrected when the lexicon lacks it ("out of snyc" before "out of").
    let matched = false;
    // The phrases at i, shortest first: a longer one is tried only when the shorter is the start of some phrase.
    const phrases: string[] = [];
    for (let len = 1, text = '', fixedText = ''; len <= Math.min(lexicon.longestPhrase, tokens.length - i); len += 1) {
      const word = tokens[i + len - 1] ?? '';
      const fixedWord = fixAt(i + len - 1)?.word ?? word;
      text = len === 1 ? word : `${text} ${word}`;
      fixedText = len === 1 ? fixedWord : `${fixedText} ${fixedWord}`;
      phrases.push(text);
      if (!lexicon.startsPhrase(text) && !lexicon.startsPhrase(fixedText)) break;
    }
    for (let len = phrases.length; len >= 1; len -= 1) {
      const text = phrases[len - 1] ?? '';
      const exact = lexicon.lookup(text);
      if (exact !== undefined) {
        items.push({ kind: 'lex', text, senses: [...exact.senses], used: false });
        i += len;
        matched = true;
        break;
      }
      if (len < 2) continue;
      let k = -1;
      const fixed: string[] = [];
      for (let x = 0; x < len; x += 1) {
        const f = fixAt(i + x);
        if (f !== undefined && k < 0) k = x;
        fixed.push(f?.word ?? tokens[i + x] ?? '');
      }
      const fix = k < 0 ? undefined : fixAt(i + k);
      if (fix === undefined) continue;
      const entry = lexicon.lookup(fixed.join(' '));
      if (entry === undefined) continue;
      items.push({ kind: 'lex', text, senses: [...entry.senses], corrected: { from: tokens[i + k] ?? '', to: fix.word }, used: false });
      i += len;
      matched = true;
      break;
    }
    if (matched) continue;
    const tok = tokens[i] ?? '';
    i += 1;
    // "out-of-sync", "non-prod", "auto-synced": a hyphenated word whose parts the lexicon reads.
    if (tok.includes('-') && !/\d/.test(tok)) {
      const parts = tok.split('-').filter((p) => p.length > 0);
      const whole = lexicon.lookup(parts.join(' '));
      if (whole !== undefined) {
        items.push({ kind: 'lex', text: tok, senses: [...whole.senses], used: false });
        continue;
      }
      const each = parts.map((p) => lexicon.lookup(p));
      if (parts.length > 1 && each.every((e) => e !== undefined)) {
        for (const [k, e] of each.entries()) items.push({ kind: 'lex', text: parts[k] ?? '', senses: [...(e?.senses ?? [])], used: false });
        continue;
      }
    }
    if (/^\d{1,6}$/.test(tok)) {
      items.push({ kind: 'num', text: tok, senses: [], num: Number(tok), used: false });
      continue;
    }
    const wordNumber = NUMBER_WORDS[tok];
    if (wordNumber !== undefined && tok.length > 2) {
      items.push({ kind: 'num', text: tok, senses: [], num: wordNumber, used: false });
      continue;
    }
    const fix = correct(tok);
    const fixed = fix === undefined ? undefined : lexicon.lookup(fix.word);
    if (fix !== undefined && fixed !== undefined) {
      items.push({ kind: 'lex', text: tok, senses: [...fixed.senses], corrected: { from: tok, to: fix.word }, used: false });
      continue;
    }
    items.push({ kind: nameShaped(tok) ? 'name' : 'unknown', text: tok, senses: [], used: false });
  }
  return items;
}

/** The entity a question is about: the one it names, else the one its fields and values belong to. */
function chooseEntity(domain: DomainDecl, items: readonly Item[], continued?: string): { entity: EntityDecl; own: boolean } {
  const named = items.filter((it) => it.senses.some((s) => s.k === 'entity'));
  // One vote per word and entity: a word that is a value of several fields of one entity is one word.
  const votes = new Map<string, number>();
  for (const it of items) {
    const of = new Set(it.senses.flatMap((s) => (s.k === 'field' || s.k === 'value' || s.k === 'phrase' || s.k === 'timeverb' ? [s.entity] : [])));
    for (const e of of) votes.set(e, (votes.get(e) ?? 0) + 1);
  }
  // A noun that is also a field of another entity ("clusters" in "which clusters have degraded apps").
  const plain = named.filter((it) => !it.senses.some((s) => s.k === 'field'));
  const first = senseOf(plain[0], 'entity');
  if (first !== undefined) return { entity: entityOf(domain, first.entity), own: true };
  const ambivalent = senseOf(named[0], 'entity');
  if (ambivalent !== undefined) {
    // The owner: the entity the noun is a field of, preferring one another noun names ("which site has vlan 120").
    const fieldOwners = (named[0]?.senses ?? []).flatMap((x) => (x.k === 'field' ? [x.entity] : []));
    const namedEntities = new Set(items.filter((it) => it !== named[0]).flatMap((it) => it.senses.flatMap((x) => (x.k === 'entity' ? [x.entity] : []))));
    const owner = fieldOwners.find((e) => namedEntities.has(e)) ?? fieldOwners[0];
    const others = items.filter((it) => it !== named[0] && it.senses.some((s) => (s.k === 'value' || s.k === 'phrase' || s.k === 'field' || s.k === 'timeverb') && s.entity === owner));
    // "which clusters have degraded apps": the owner's own noun is there, or only the owner reads the other words.
    const ownerNamed = items.some((it) => it !== named[0] && it.senses.some((s) => s.k === 'entity' && s.entity === owner));
    const ownVotes = votes.get(ambivalent.entity) ?? 0;
    const ownerVotes = (votes.get(owner ?? '') ?? 0) - 1;
    // "projects named payments", "clusters like prod": the noun names what the question is about; "what's in rack x",
    // "apps on cluster y": after a preposition it is where the owner's objects are.
    const at = items.indexOf(named[0] as Item);
    let back = at - 1;
    while (back >= 0 && ['the', 'a', 'an', 'this', 'that'].includes(items[back]?.text ?? '')) back -= 1;
    if (owner !== undefined && ['in', 'on', 'at', 'inside', 'within', 'into'].includes(items[back]?.text ?? '')) return { entity: entityOf(domain, owner), own: false };
    const next = items.slice(at + 1).find((it) => !isG(it, 'filler'));
    const namesIt = next !== undefined && (isG(next, 'named') || isG(next, 'like'));
    if (owner !== undefined && (others.length > 0 || ownerNamed) && !namesIt && (ownerNamed || ownerVotes > ownVotes)) return { entity: entityOf(domain, owner), own: false };
    return { entity: entityOf(domain, ambivalent.entity), own: true };
  }
  // Else the entity most words belong to; on a tie, the one a word names an object of ("what version is prod-eu-1
  // running": a cluster's name), then the domain's default.
  const namesOf = (e: string): boolean => items.some((it) => it.senses.some((s) => s.k === 'value' && s.entity === e && s.field === entityOf(domain, e).nameField));
  let best = domain.defaultEntity;
  let most = votes.get(best) ?? 0;
  for (const [e, n] of votes) {
    if (n > most || (n === most && e !== best && namesOf(e) && !namesOf(best))) {
      best = e;
      most = n;
    }
  }
  // A follow-up continues the entity before it unless more of its words belong to another.
  const known = continued !== undefined && domain.entities.some((e) => e.name === continued);
  if (known && (votes.get(continued) ?? 0) >= most) best = continued;
  return { entity: entityOf(domain, best), own: false };
}

export function parseWith(lexicon: Lexicon, question: string, now: number, context: ParseContext = {}): Parsed {
  const domain = lexicon.domain;
  const tokens = tokenize(question);
  const cut = question.length > PARSE_LIMITS.maxChars || tokens.length >= PARSE_LIMITS.maxTokens;
  const items = readItems(lexicon, tokens, now);
  const corrections: Correction[] = [];
  const inferred: string[] = [];
  const notRead: string[] = [];
  const base = { corrections, inferred, notRead, cut };

  // ---- Actions: a read-only agent says it did not act. ----
  // An action is asked in the imperative: the verb opens the sentence, after "please", "can you", "go ahead and"…;
  // "how many syncs failed", "did any sync fail", "where does x deploy to" are questions. A typo is not an order.
  let at = 0;
  while (at < tokens.length && REQUEST_OPENERS.has(tokens[at] ?? '')) at += 1;
  const opener = tokens.slice(0, at);
  const asks = opener.length === 0 || opener.includes('please') || opener.includes('you') || opener.includes('lets') || opener.includes('let') || opener.includes('go');
  const first = items.find((it) => !isG(it, 'filler', 'and'));
  const verb = asks && first !== undefined && first.corrected === undefined && items.indexOf(first) <= at ? senseOf(first, 'action') : undefined;
  if (verb !== undefined) {
    // The object acted on: a name the estate holds before a word merely shaped like one ("shut down Ethernet1 on
    // ams1-sw-001" acts on the device's interface: the device is the target, the interface the part of it).
    const known = (it: Item): boolean => it.senses.some((s) => s.k === 'value' && fieldOf(entityOf(domain, s.entity), s.field)?.name === entityOf(domain, s.entity).nameField);
    const named = items.filter((it) => it.kind === 'name' || known(it));
    const target = named.find(known) ?? named[0];
    const part = named.find((it) => it !== target);
    const targetValue = senseOf(target, 'value')?.value ?? target?.text;
    const read: ReadWord[] = [{ text: first?.text ?? verb.verb, as: 'action' }, ...named.map((it) => ({ text: it.text, as: known(it) ? ('live' as const) : ('guess' as const) }))];
    return { kind: 'action', query: undefined, action: { verb: verb.verb, target: targetValue, ...(part === undefined ? {} : { part: senseOf(part, 'value')?.value ?? part.text }) }, edit: NO_EDIT, unapplied: [], clock: false, read, ...base };
  }

  const { entity, own: ownEntity } = chooseEntity(domain, items, context.entity);
  const field = (name: string): FieldDecl | undefined => fieldOf(entity, name);
  // Keep the senses of the chosen entity (and the grammar's).
  for (const [i, it] of items.entries()) {
    const kept = it.senses.filter((s) => s.k === 'g' || s.k === 'action' || ('entity' in s && s.entity === entity.name));
    // A word whose every sense belongs to another entity stays unread here; one that is only another entity's value
    // (a project with no application in it) is a word as written, for the constructions to read ("project default").
    if (kept.length === 0 && it.corrected === undefined && it.senses.length > 0 && it.senses.every((s) => s.k === 'value')) items[i] = { kind: nameShaped(it.text) ? 'name' : 'unknown', text: it.text, senses: [], used: false };
    else it.senses = kept;
  }
  for (const it of items) if (it.senses.some((s) => s.k === 'entity') && it.senses.some((s) => s.k === 'field')) it.senses = it.senses.filter((s) => s.k !== 'entity');

  for (const it of items) it.all = it.senses;
  // ---- Resolve words that are values of several fields by their neighbours, else by rank. ----
  const idx = (it: Item): number => items.indexOf(it);
  const near = (i: number, dir: 1 | -1): Item | undefined => {
    for (let k = i + dir; k >= 0 && k < items.length; k += dir) {
      const it = items[k];
      if (it === undefined) return undefined;
      if (isG(it, 'filler', 'is', 'named')) continue;
      return it;
    }
    return undefined;
  };
  for (const it of items) {
    const values = it.senses.filter((s): s is Extract<Sense, { k: 'value' }> => s.k === 'value');
    if (values.length < 2) continue;
    const i = idx(it);
    // The nearer field word decides ("which namespaces does the payments team use": team, right beside it).
    const left = near(i, -1);
    const right = near(i, 1);
    const gap = (n: Item | undefined): number => (n === undefined ? Number.POSITIVE_INFINITY : Math.abs(idx(n) - i));
    const neighbour = (gap(right) <= gap(left) ? [right, left] : [left, right]).map((n) => senseOf(n, 'field')?.field);
    const byNeighbour = neighbour.map((f) => values.find((v) => v.field === f)).find((v) => v !== undefined);
    const ranked = [...values].sort((a, b) => (field(b.field)?.rank ?? 0) - (field(a.field)?.rank ?? 0));
    const chosen = byNeighbour ?? ranked[0];
    if (chosen === undefined) continue;
    if (byNeighbour === undefined && (field(ranked[0]?.field ?? '')?.rank ?? 0) === (field(ranked[1]?.field ?? '')?.rank ?? 0)) {
      inferred.push(`read "${it.text}" as the ${field(chosen.field)?.label ?? chosen.field}`);
    }
    it.senses = [...it.senses.filter((s) => s.k !== 'value'), chosen];
  }
  // A field's word that is also another field's value ("platform", a tenant's slug too) is the field where it works as
  // one: before its value ("platform is junos"), beside the object it is asked of ("the platform of x", "x platform"),
  // after "by" or "which", before "breakdown". Elsewhere it is the value ("platform devices").
  const namesObject = (n: Item | undefined): boolean => n !== undefined && (n.kind === 'name' || senseOf(n, 'value')?.field === entity.nameField);
  for (const [i, it] of items.entries()) {
    const f = senseOf(it, 'field');
    const v = senseOf(it, 'value');
    if (f === undefined || v === undefined || v.field === f.field) continue;
    const decl = field(f.field);
    const after = near(i, 1);
    const before = near(i, -1);
    let k = i + 1;
    while (k < items.length && isG(items[k], 'filler', 'is', 'not')) k += 1;
    const next = items[k];
    const valueNext = next !== undefined && ((next.all ?? next.senses).some((x) => x.k === 'value' && x.field === f.field) || ((next.kind === 'name' || next.kind === 'unknown') && decl?.type === 'name' && !namesObject(next)));
    const asField = valueNext || namesObject(after) || namesObject(before) || isG(before, 'by', 'which') || isG(after, 'breakdown');
    if (asField) {
      it.senses = it.senses.filter((s) => s.k !== 'value');
      it.all = it.senses;
    }
  }
  for (const it of items) if (it.corrected !== undefined && it.senses.length > 0) corrections.push(it.corrected);

  // ---- Atoms: conditions in sentence order, with what joins them. ----
  type Atom = { where: Where; field: string | undefined; at: number; negated: boolean };
  const atoms: Atom[] = [];
  let clock = false;
  const condOf = (it: Item): { where: Where; field: string | undefined } | undefined => {
    const v = senseOf(it, 'value');
    if (v !== undefined) return { where: valueCondition(field(v.field), v.value), field: v.field };
    const p = senseOf(it, 'phrase');
    if (p !== undefined) return { where: p.where, field: undefined };
    // A word of a field's shape (a URL, k=v); else a name-shaped word nothing else read is an object's name.
    const shaped = it.kind === 'name' || it.kind === 'unknown' ? entity.fields.find((f) => f.pattern?.test(it.text) === true) : undefined;
    if (shaped !== undefined) return { where: { op: 'eq', field: shaped.name, value: it.text }, field: shaped.name };
    // A plain word nothing declares that is part of the estate's names ("cron apps"): a part of a name, said.
    if (it.kind === 'unknown' && it.text.length >= 3 && /^[a-z]+$/.test(it.text) && lexicon.partsOf(entity.name, entity.nameField).has(it.text)) {
      inferred.push(`read "${it.text}" as part of ${entity.plural}' names`);
      return { where: { op: 'contains', field: entity.nameField, value: it.text }, field: entity.nameField };
    }
    if (it.kind === 'name') {
      inferred.push(`read "${it.text}" as ${entity.singular === '' ? 'a' : `the ${entity.singular}`} name`);
      return { where: { op: 'eq', field: entity.nameField, value: it.text }, field: entity.nameField };
    }
    return undefined;
  };

  // "the acme tenant": a word no lexicon knows between "the" (or "our", "my") and a name field's word, with no value
  // after it, is that field's value; a name the estate does not hold is then said so, never dropped.
  const valueBefore = (i: number, decl: FieldDecl): void => {
    const [det, prev, at] = [items[i - 2], items[i - 1], items[i]];
    if (decl.type !== 'name' || at === undefined || prev === undefined || det === undefined || prev.used || prev.senses.length > 0 || (prev.kind !== 'unknown' && prev.kind !== 'name') || !DETERMINERS.has(det.text)) return;
    prev.used = true;
    at.used = true;
    atoms.push({ where: { op: 'eq', field: decl.name, value: prev.text }, field: decl.name, at: i - 1, negated: false });
  };

  // Field then value ("project fraud-prod", "health is not degraded", "cluster named x"), and value then field.
  for (let i = 0; i < items.length; i += 1) {
    const it = items[i];
    const f = senseOf(it, 'field');
    if (it === undefined || f === undefined || it.used) continue;
    const decl = field(f.field);
    if (decl === undefined) continue;
    // "the payments team": the value came first; the word after the field is not another of its values.
    if (senseOf(near(i, -1), 'value')?.field === f.field) continue;
    let k = i + 1;
    let negated = false;
    let likeOp = false;
    // "which clusters have degraded apps": a field word before "have" heads groups, it takes no value.
    while (k < items.length && !POSSESSIVE.has(items[k]?.text ?? '') && (isG(items[k], 'filler', 'is', 'named', 'not', 'like') || (items[k]?.kind === 'lex' && isG(items[k], 'which')))) {
      if (isG(items[k], 'not')) negated = !negated;
      if (isG(items[k], 'like')) likeOp = true;
      k += 1;
    }
    const next = items[k];
    if (next === undefined || next.used) {
      valueBefore(i, decl);
      continue;
    }
    const v = senseOf(next, 'value');
    let cond: Where | undefined;
    if (v !== undefined && v.field === f.field) cond = valueCondition(decl, v.value);
    else if (
      (next.kind === 'name' || next.kind === 'unknown') &&
      (decl.type === 'name' || ((decl.type === 'text' || decl.multi === true) && (likeOp || isG(items[k - 1], 'is'))))
    ) {
      const text = next.text;
      cond = likeOp || decl.type === 'text' ? { op: 'contains', field: decl.name, value: text } : { op: 'eq', field: decl.name, value: text };
    }
    if (cond === undefined) {
      valueBefore(i, decl);
      continue;
    }
    for (let m = i; m <= k; m += 1) {
      const x = items[m];
      if (x !== undefined) x.used = true;
    }
    // "namespace payments or checkout": an OR-list after one field word is all that field's.
    const extra: Where[] = [];
    while (isG(items[k + 1], 'or', 'and') && items[k + 2] !== undefined && !(items[k + 2] as Item).used) {
      const more = items[k + 2] as Item;
      const mv = (more.all ?? more.senses).find((x): x is Extract<Sense, { k: 'value' }> => x.k === 'value' && x.field === f.field);
      const free = (more.kind === 'name' || more.kind === 'unknown') && decl.type === 'name';
      if (mv === undefined && !free) break;
      extra.push(mv !== undefined ? valueCondition(decl, mv.value) : { op: 'eq', field: decl.name, value: more.text });
      (items[k + 1] as Item).used = true;
      more.used = true;
      k += 2;
    }
    if (extra.length > 0) cond = collapseIn(or(cond, ...extra));
    // "owned by team payments": two words for one field.
    const before = items[i - 1];
    if (before !== undefined && !before.used && senseOf(before, 'field')?.field === f.field) before.used = true;
    atoms.push({ where: negated ? not(cond) : cond, field: decl.name, at: i, negated: false });
  }
  for (let i = 0; i < items.length; i += 1) {
    const it = items[i];
    if (it === undefined || it.used) continue;
    const v = senseOf(it, 'value');
    const after = items[i + 1];
    const f = senseOf(after, 'field');
    if (v !== undefined && f !== undefined && f.field === v.field && after !== undefined && !after.used) after.used = true;
  }

  // "vlan 12": a number right after the entity's noun is its number field's value.
  const numberField = entity.numberField === undefined ? undefined : field(entity.numberField);
  if (numberField !== undefined) {
    for (let i = 0; i + 1 < items.length; i += 1) {
      const noun = items[i];
      const num = items[i + 1];
      if (noun === undefined || num?.kind !== 'num' || num.used || num.num === undefined || !noun.senses.some((x) => x.k === 'entity')) continue;
      num.used = true;
      atoms.push({ where: { op: 'eq', field: numberField.name, value: num.num }, field: numberField.name, at: i + 1, negated: false });
    }
  }

  // "vlan 30", "mtu 9000": a number right after a number field's word is its value.
  for (let i = 0; i + 1 < items.length; i += 1) {
    const f = senseOf(items[i], 'field');
    const num = items[i + 1];
    const decl = f === undefined ? undefined : field(f.field);
    const word = items[i];
    if (word === undefined || word.used || decl?.type !== 'number' || num?.kind !== 'num' || num.used || num.num === undefined) continue;
    word.used = true;
    num.used = true;
    atoms.push({ where: { op: 'eq', field: decl.name, value: num.num }, field: decl.name, at: i, negated: false });
  }

  // "named x", "called x", "containing x", "like x": the entity's name.
  for (let i = 0; i < items.length; i += 1) {
    const it = items[i];
    if (it === undefined || it.used || !isG(it, 'named', 'like')) continue;
    const next = items[i + 1];
    if (next === undefined || next.used || (next.kind !== 'name' && next.kind !== 'unknown' && next.kind !== 'lex')) continue;
    if (next.kind === 'lex' && next.senses.every((s) => s.k === 'g')) continue;
    // "matching region=eu": a word of another field's shape (a label) is that field's.
    if (entity.fields.some((fd) => fd.name !== entity.nameField && fd.pattern?.test(next.text) === true)) {
      it.used = true;
      continue;
    }
    const text = senseOf(next, 'value')?.value ?? next.text;
    it.used = true;
    next.used = true;
    atoms.push({ where: isG(it, 'like') ? { op: 'contains', field: entity.nameField, value: text } : { op: 'eq', field: entity.nameField, value: text }, field: entity.nameField, at: i, negated: false });
  }

  // "with payment in the name", "apps with api in their names": a part of a name or a text.
  for (let i = 2; i < items.length; i += 1) {
    const f = senseOf(items[i], 'field');
    const decl = f === undefined ? undefined : field(f.field);
    const fieldItem = items[i];
    if (fieldItem === undefined || fieldItem.used || decl === undefined || (decl.type !== 'name' && decl.type !== 'text')) continue;
    let k = i - 1;
    let sawIn = false;
    while (k >= 0 && isG(items[k], 'filler')) {
      if (items[k]?.text === 'in') sawIn = true;
      k -= 1;
    }
    const part = items[k];
    if (!sawIn || part === undefined || part.used || (part.kind === 'lex' && part.corrected === undefined && part.senses.some((x) => x.k === 'g' || x.k === 'entity'))) continue;
    const text = part.corrected?.from ?? part.text;
    // The word is read as typed, not as the word a correction would have made of it.
    const dropped = corrections.findIndex((c) => c.from === text);
    if (dropped >= 0) corrections.splice(dropped, 1);
    for (let m = k; m <= i; m += 1) {
      const x = items[m];
      if (x !== undefined) x.used = true;
    }
    atoms.push({ where: { op: 'contains', field: decl.name, value: text }, field: decl.name, at: k, negated: false });
  }

  // Time windows on a field named by its verb ("synced in the last hour", "created since monday").
  for (let i = 0; i < items.length; i += 1) {
    const it = items[i];
    if (it?.kind !== 'time' || it.window === undefined) continue;
    const verbs = [near(i, -1), near(i, 1), near(i - 1, -1)].filter((n): n is Item => n !== undefined && senseOf(n, 'timeverb') !== undefined);
    const verbItem = verbs[0];
    const tv = senseOf(verbItem, 'timeverb');
    if (verbItem === undefined || tv === undefined) continue;
    const parts: Where[] = [];
    if (it.window.after !== undefined) parts.push({ op: 'after', field: tv.field, at: new Date(it.window.after).toISOString() });
    if (it.window.before !== undefined) parts.push({ op: 'before', field: tv.field, at: new Date(it.window.before).toISOString() });
    const cond = and(...parts);
    if (cond === undefined) continue;
    it.used = true;
    verbItem.used = true;
    clock = true;
    atoms.push({ where: cond, field: tv.field, at: i, negated: false });
    // "failed in the last day": the verb's own condition stays ("synced" is only the verb of its window).
    const own = senseOf(verbItem, 'phrase');
    if (own !== undefined) atoms.push({ where: own.where, field: undefined, at: items.indexOf(verbItem), negated: false });
  }

  // ---- What: breakdown, top N, comparison, projection, count, list. ----
  let what: What | undefined;
  const byFields: string[] = [];
  const groupable = (it: Item | undefined): string | undefined => {
    const f = senseOf(it, 'field');
    return f !== undefined && field(f.field)?.groupable === true ? f.field : undefined;
  };
  for (let i = 0; i < items.length; i += 1) {
    if (!isG(items[i], 'by')) continue;
    let k = i + 1;
    const found: number[] = [];
    while (k < items.length) {
      const it = items[k];
      if (isG(it, 'filler')) {
        k += 1;
        continue;
      }
      const gf = groupable(it);
      if (gf !== undefined && it !== undefined && !it.used) {
        found.push(k);
        k += 1;
        if (isG(items[k], 'and', 'or') && groupable(items[k + 1]) !== undefined) k += 1;
        continue;
      }
      break;
    }
    if (found.length === 0) continue;
    const byItem = items[i];
    if (byItem !== undefined) byItem.used = true;
    for (const f of found) {
      const it = items[f];
      if (it === undefined) continue;
      it.used = true;
      const gf = groupable(it);
      if (gf !== undefined && !byFields.includes(gf)) byFields.push(gf);
    }
    for (let m = i; m < k; m += 1) {
      const x = items[m];
      if (x !== undefined && isG(x, 'and', 'or', 'filler')) x.used = true;
    }
  }
  // "health breakdown per cluster", "breakdown of health": the field next to "breakdown".
  const breakdownAt = items.findIndex((it) => isG(it, 'breakdown'));
  if (breakdownAt >= 0) {
    const before = [near(breakdownAt, -1), near(near(breakdownAt, -1) === undefined ? -1 : idx(near(breakdownAt, -1) as Item), -1)];
    const after = near(breakdownAt, 1);
    const own: string[] = [];
    for (const it of [...before.reverse(), after]) {
      const gf = groupable(it);
      if (gf !== undefined && it !== undefined && !it.used && !byFields.includes(gf)) {
        it.used = true;
        own.push(gf);
      }
    }
    const bd = items[breakdownAt];
    if (own.length > 0 || byFields.length > 0) {
      if (bd !== undefined) bd.used = true;
      byFields.push(...own);
    }
  }

  // Top N / most / least: "which cluster has the most degraded apps", "top 5 projects by app count".
  const topAt = items.findIndex((it) => isG(it, 'most', 'least'));
  if (topAt >= 0) {
    const topItem = items[topAt];
    const order = isG(topItem, 'least') ? 'least' : 'most';
    let n: number | undefined;
    const numItem = [items[topAt + 1], items[topAt - 1]].find((x) => x?.kind === 'num' && !x.used);
    if (numItem?.num !== undefined && numItem.num >= 1 && numItem.num <= QUERY_LIMITS.maxLimit) {
      n = numItem.num;
      numItem.used = true;
    }
    const candidates = byFields.length === 1 ? [] : items.map((it, k) => ({ it, k, f: groupable(it) })).filter((c) => c.f !== undefined && !c.it.used);
    const group = byFields.length === 1 ? byFields[0] : candidates.sort((a, b) => Math.abs(a.k - topAt) - Math.abs(b.k - topAt))[0]?.f;
    if (group !== undefined) {
      if (byFields.length !== 1) {
        const c = candidates.find((x) => x.f === group);
        if (c !== undefined) c.it.used = true;
      } else byFields.length = 0;
      if (topItem !== undefined) topItem.used = true;
      // "by app count", "by number of apps": what is ranked is the count itself.
      for (const it of items) if (!it.used && (isG(it, 'count') || isG(it, 'by'))) it.used = true;
      what = { kind: 'top', by: group, n: n ?? (isPlural(items, group, field(group)) ? 5 : 1), order };
    }
  }
  // "which namespaces have out-of-sync apps": the groups that have any, counted.
  let whichGroups = false;
  if (byFields.length === 0 && what === undefined) {
    for (let i = 0; i < items.length; i += 1) {
      const it = items[i];
      const gf = groupable(it);
      if (it === undefined || gf === undefined || it.used) continue;
      let k = i - 1;
      while (k >= 0 && isG(items[k], 'filler')) k -= 1;
      // "which namespaces have out-of-sync apps" (the entity's noun after it), or "which namespaces does the payments
      // team use" (no noun of an entity anywhere: the field's values are what is asked).
      const nounAfter = items.slice(i + 1).some((x) => x.senses.some((s) => s.k === 'entity'));
      const noNoun = !ownEntity && it.text.endsWith('s');
      if (!isG(items[k], 'which') || (!nounAfter && !noNoun)) continue;
      it.used = true;
      byFields.push(gf);
      whichGroups = true;
      break;
    }
  }
  if (what === undefined && byFields.length > 0) what = { kind: 'breakdown', by: byFields.slice(0, QUERY_LIMITS.maxBreakdown) };

  // ---- Negation, OR-lists and the rest of the bare values: the where. ----
  const pending: { where: Where; field: string | undefined; at: number }[] = atoms.map((a) => ({ where: a.where, field: a.field, at: a.at }));
  for (let i = 0; i < items.length; i += 1) {
    const it = items[i];
    if (it === undefined || it.used) continue;
    const c = condOf(it);
    if (c === undefined) continue;
    it.used = true;
    pending.push({ ...c, at: i });
  }
  pending.sort((a, b) => a.at - b.at);
  // Comparisons: "more degraded apps in prod-eu-1 or prod-us-1", "compare prod-eu-1 and prod-us-1", "a vs b".
  const compareAt = items.findIndex((it) => isG(it, 'more', 'fewer', 'compare', 'than'));
  if (what === undefined && compareAt >= 0) {
    // Two groups are compared: the first conditions that name them (a bounded search, however long the question).
    const candidates = pending.filter((a) => a.field !== undefined).slice(0, PARSE_LIMITS.compareCandidates);
    for (let x = 0; x < candidates.length && what === undefined; x += 1) {
      for (let y = x + 1; y < candidates.length; y += 1) {
        const a = candidates[x];
        const b = candidates[y];
        if (a === undefined || b === undefined || a.field !== b.field) continue;
        const between = items.slice(a.at + 1, b.at);
        if (!between.some((it) => isG(it, 'or', 'and', 'than', 'compare')) && b.at !== a.at + 1) continue;
        what = { kind: 'compare', groups: [a.where, b.where] };
        pending.splice(pending.indexOf(b), 1);
        pending.splice(pending.indexOf(a), 1);
        for (const it of items) if (isG(it, 'more', 'fewer', 'compare', 'than')) it.used = true;
        for (const it of between) if (isG(it, 'or', 'and')) it.used = true;
        break;
      }
    }
  }

  // A "not" before a condition (fillers between) negates it, and the OR-list it opens.
  const negatedAt = new Set<number>();
  for (let i = 0; i < items.length; i += 1) {
    const it = items[i];
    if (!isG(it, 'not') || it?.used === true) continue;
    let k = i + 1;
    while (k < items.length && isG(items[k], 'filler', 'is', 'which', 'and')) k += 1;
    const target = pending.find((p) => p.at === k) ?? pending.find((p) => p.at > i && p.at <= k + 1);
    if (target === undefined || it === undefined) continue;
    it.used = true;
    negatedAt.add(target.at);
  }
  const groups: { where: Where; field: string | undefined; negated: boolean }[] = [];
  for (const [k, p] of pending.entries()) {
    const prev = pending[k - 1];
    const between = prev === undefined ? [] : items.slice(prev.at + 1, p.at);
    const joinedByOr = between.some((it) => isG(it, 'or') && !it.used);
    const lightOnly = between.every((it) => it.used || LIGHT.includes(g(it) as GrammarWord) || isG(it, 'or', 'not'));
    const last = groups[groups.length - 1];
    const sameField = last !== undefined && p.field !== undefined && last.field === p.field && field(p.field)?.multi !== true;
    if (last !== undefined && lightOnly && (joinedByOr || (sameField && !negatedAt.has(p.at)))) {
      last.where = or(last.where, p.where);
      if (p.field !== last.field) last.field = undefined;
      for (const it of between) if (isG(it, 'or', 'and')) it.used = true;
      continue;
    }
    groups.push({ where: p.where, field: p.field, negated: negatedAt.has(p.at) });
  }
  // "with conditions", "that have a team", "without a repo": a field that exists (or does not).
  for (let i = 0; i < items.length; i += 1) {
    const it = items[i];
    const f = senseOf(it, 'field');
    if (it === undefined || it.used || f === undefined || field(f.field)?.exec === 'not_read') continue;
    let k = i - 1;
    let negated = false;
    let found = false;
    while (k >= 0) {
      const t = items[k]?.text ?? '';
      if (t === 'with' || t === 'have' || t === 'has' || t === 'having') found = true;
      else if (isG(items[k], 'not')) negated = !negated;
      else if (!isG(items[k], 'filler')) break;
      if (t === 'with' || t === 'have' || t === 'has' || t === 'having' || isG(items[k], 'not')) {
        const x = items[k];
        if (x !== undefined) x.used = true;
      }
      k -= 1;
    }
    if (!found && !negated) continue;
    it.used = true;
    const cond: Where = { op: 'exists', field: f.field };
    groups.push({ where: negated ? not(cond) : cond, field: f.field, negated: false });
  }
  let where = and(...groups.map((grp) => (grp.negated ? not(collapseIn(grp.where)) : collapseIn(grp.where))));

  // "is payments-api-prod healthy?", "is the perf-eu-1 cluster ok?": the fields asked about, of that one object.
  const yesNo = ['is', 'are', 'does', 'do', 'has', 'did'].includes(tokens[0] ?? '');
  if (yesNo && where !== undefined && where.op === 'and' && what === undefined) {
    const nameParts = where.of.filter((w) => w.op === 'eq' && w.field === entity.nameField);
    const asked = where.of.filter((w) => !nameParts.includes(w));
    const fieldsAsked = [...new Set(asked.flatMap((w) => conditionsOf(w).map((c) => c.field)))];
    if (nameParts.length === 1 && fieldsAsked.length > 0 && fieldsAsked.every((f) => field(f)?.projection === true)) {
      what = { kind: 'fields', fields: fieldsAsked.slice(0, QUERY_LIMITS.maxFields) };
      where = nameParts[0];
    }
  }

  // Projection: named fields of one object ("what image is payments-api-prod running?", "sync history of x").
  const namesOne = where !== undefined && isOneName(where, entity.nameField);
  const projected: string[] = [];
  for (const it of items) {
    const f = senseOf(it, 'field');
    if (it.used || f === undefined) continue;
    const decl = field(f.field);
    if (decl?.exec === 'not_read') {
      it.used = true;
      notRead.push(decl.label);
      continue;
    }
    if (namesOne && decl?.projection === true && !projected.includes(f.field)) {
      projected.push(f.field);
      it.used = true;
    }
  }
  if (what === undefined && projected.length > 0) what = { kind: 'fields', fields: projected.slice(0, QUERY_LIMITS.maxFields) };
  // "what repos can the fraud-prod project use": of one object, "which <field>" asks for that field, not its groups.
  if (namesOne && whichGroups && what?.kind === 'breakdown' && what.by.every((f) => field(f)?.projection === true)) what = { kind: 'fields', fields: [...what.by, ...projected].slice(0, QUERY_LIMITS.maxFields) };

  // "the version of every cluster": a field a list's rows show anyway is applied by showing it.
  if (what === undefined || what.kind === 'list') {
    for (const it of items) {
      const f = senseOf(it, 'field');
      if (!it.used && f !== undefined && it.senses.every((x) => x.k === 'field') && (entity.rowFields ?? []).includes(f.field) && !conditionsOf(where).some((c) => c.field === f.field)) it.used = true;
    }
  }
  // "compare a and b by degraded apps": a comparison's "by" says what is counted, not a grouping.
  if (what?.kind === 'compare') for (const it of items) if (!it.used && isG(it, 'by')) it.used = true;
  const counted = items.some((it) => isG(it, 'count'));
  if (what === undefined && counted) what = { kind: 'count' };
  const explicitWhat = what !== undefined || items.some((it) => isG(it, 'list', 'which'));
  // "show device x", "ams1-sw-016?": one object by its name alone is asked for its details.
  // "list projects named payments" asks for a list (of one, or none), not one object's details.
  const plural = items.some((it) => senseOf(it, 'entity') !== undefined && it.text !== entity.singular && it.text.endsWith('s'));
  if (what === undefined && !plural && where?.op === 'eq' && where.field === entity.nameField && entity.details !== undefined && entity.details.length > 0) what = { kind: 'fields', fields: entity.details.slice(0, QUERY_LIMITS.maxFields) };
  what ??= { kind: 'list' };
  for (const it of items) if (isG(it, 'count', 'list', 'which', 'filler', 'is')) it.used = true;
  for (const it of items) if (it.senses.some((s) => s.k === 'entity')) it.used = true;
  // A field's word said again beside its condition ("the payments-api application set generates") adds nothing.
  const conditioned = new Set(conditionsOf(where).map((c) => c.field));
  for (const it of items) if (!it.used && it.senses.length > 0 && it.senses.every((x) => x.k === 'field' && conditioned.has(x.field))) it.used = true;
  // Connectives that joined nothing carry no meaning of their own; "not" and "or" do.
  for (const it of items) if (!it.used && isG(it, 'and')) it.used = true;

  // ---- Edit marks. ----
  const anaphora = items.some((it) => isG(it, 'anaphora'));
  const about = items.some((it) => isG(it, 'about'));
  const onlyItem = items.find((it) => isG(it, 'only'));
  const firstToken = tokens[0];
  for (const it of items) if (isG(it, 'anaphora', 'about', 'only')) it.used = true;
  const edit: EditMarks = {
    anaphora,
    about,
    only: onlyItem !== undefined,
    leadingAnd: firstToken === 'and' || firstToken === 'then' || firstToken === 'also' || firstToken === 'now',
    ownEntity,
    ownWhat: explicitWhat,
    subjectless: SUBJECTLESS.has(tokens.slice(0, 3).join(' ')) || SUBJECTLESS.has(tokens.slice(0, 2).join(' ')),
  };

  const unapplied = items.filter((it) => !it.used && it.kind !== 'time').map((it) => it.text);
  for (const it of items) if (it.kind === 'time' && !it.used) unapplied.push(it.text);
  const query: Query = { entity: entity.name, ...(where === undefined ? {} : { where }), what };
  const anyMeaning = items.some((it) => it.used && !isG(it, 'filler', 'is', 'and'));
  const read = items.flatMap((it): ReadWord[] => {
    if (!it.used && !lexicon.systemWords.has(it.text)) return [];
    const as = readAs(lexicon, it);
    return as === undefined ? [] : [{ text: it.text, as, ...(it.corrected === undefined ? {} : { corrected: true as const }) }];
  });
  return { kind: anyMeaning ? 'query' : 'empty', query, edit, unapplied: [...new Set(unapplied)], clock, read, ...base };
}

/** What an applied item is to the domain (undefined: a grammar word or a time window, which every domain reads). */
function readAs(lexicon: Lexicon, it: Item): ReadWord['as'] | undefined {
  if (lexicon.systemWords.has(it.text)) return 'system';
  if (it.kind === 'name' || it.kind === 'unknown') return it.senses.length === 0 ? 'guess' : undefined;
  const senses = it.senses.filter((s) => s.k !== 'g');
  if (senses.some((s) => s.k === 'entity')) return 'entity';
  if (senses.some((s) => s.k === 'value')) return lexicon.lookup(it.corrected === undefined ? it.text : it.text.replace(it.corrected.from, it.corrected.to))?.live === true ? 'live' : 'value';
  if (senses.some((s) => s.k === 'phrase')) return 'phrase';
  if (senses.some((s) => s.k === 'field')) return 'field';
  if (senses.some((s) => s.k === 'timeverb')) return 'timeverb';
  return undefined;
}

/** The marks of a question that points back at nothing and says nothing of its own. */
export const NO_EDIT: EditMarks = { anaphora: false, about: false, only: false, leadingAnd: false, ownEntity: false, ownWhat: false, subjectless: false };

/** Openings that ask a quantity or a list of no named subject: "how many are…", "which are…". */
const SUBJECTLESS: ReadonlySet<string> = new Set(['how many are', 'how many is', 'how many were', 'how many have', 'how many of', 'which are', 'which ones are', 'which of', 'count the ones', 'list the ones', 'show the ones']);

/** "which clusters have the most…" asks for a ranking; "which cluster has the most…" for one. */
function isPlural(items: readonly Item[], group: string, decl: FieldDecl | undefined): boolean {
  const it = items.find((x) => senseOf(x, 'field')?.field === group);
  return it !== undefined && decl !== undefined && /s$/.test(it.text) && !/ss$/.test(it.text);
}

function valueCondition(decl: FieldDecl | undefined, value: string): Condition {
  const name = decl?.name ?? 'name';
  if (decl?.type === 'bool') return { op: 'eq', field: name, value: value === 'true' };
  return { op: 'eq', field: name, value };
}

/** An OR of equalities on one field as `in`. */
function collapseIn(where: Where): Where {
  if (where.op !== 'or') return where;
  const eqs = where.of.filter((w): w is Extract<Condition, { op: 'eq' }> => w.op === 'eq');
  const fieldName = eqs[0]?.field;
  if (eqs.length !== where.of.length || fieldName === undefined || eqs.some((e) => e.field !== fieldName)) return where;
  const values = [...new Set(eqs.map((e) => e.value))];
  return values.length === 1 ? { op: 'eq', field: fieldName, value: values[0] as string } : { op: 'in', field: fieldName, values };
}

function isOneName(where: Where, nameField: string): boolean {
  if (where.op === 'eq') return where.field === nameField;
  if (where.op === 'and') return where.of.some((w) => isOneName(w, nameField));
  return false;
}
