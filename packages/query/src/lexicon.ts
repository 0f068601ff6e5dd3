import type { DomainDecl } from './domain.js';
import { FuzzyIndex } from './fuzzy.js';
import type { Where } from './query.js';

/**
 * The lexicon: every word and phrase the parser reads, with what it may mean. Built from the domain's declared
 * fields and from the names in the live data (clusters, projects, sites...), which the agent reads through its
 * own tools, bounded, on a TTL.
 */

/** Words of the grammar itself, the same in every domain. */
export type GrammarWord =
  | 'count' | 'list' | 'by' | 'breakdown' | 'most' | 'least' | 'more' | 'fewer' | 'compare' | 'than' | 'not' | 'or' | 'and'
  | 'anaphora' | 'about' | 'only' | 'filler' | 'which' | 'named' | 'like' | 'is' | 'ago';

export type Sense =
  | { readonly k: 'entity'; readonly entity: string }
  | { readonly k: 'field'; readonly entity: string; readonly field: string }
  | { readonly k: 'value'; readonly entity: string; readonly field: string; readonly value: string }
  | { readonly k: 'phrase'; readonly entity: string; readonly where: Where }
  | { readonly k: 'timeverb'; readonly entity: string; readonly field: string }
  | { readonly k: 'g'; readonly g: GrammarWord }
  | { readonly k: 'action'; readonly verb: string };

const GRAMMAR: readonly (readonly [GrammarWord, readonly string[]])[] = [
  ['count', ['how many', 'count', 'counts', 'number of', 'total number of', 'total', 'totals', 'tally', 'how much', 'amount of', 'sum of', 'num of', 'no of', 'qty of', '#']],
  ['list', ['list', 'show', 'display', 'give', 'get', 'find', 'tell', 'print', 'enumerate', 'see', 'view', 'fetch', 'return', 'lookup', 'look up', 'check', 'pull up', 'bring up', 'ls', 'describe', 'inspect']],
  ['which', ['which', 'what', 'whats']],
  ['by', ['per', 'by', 'for each', 'each', 'for every', 'grouped by', 'group by', 'group', 'broken down by', 'split by', 'across', 'in each', 'on each', 'for all', 'bucketed by']],
  ['breakdown', ['breakdown', 'break down', 'breakdowns', 'distribution', 'split', 'spread', 'histogram', 'mix', 'summary', 'summarise', 'summarize', 'overview', 'rundown']],
  ['most', ['most', 'top', 'largest', 'biggest', 'highest', 'max', 'maximum', 'busiest', 'greatest']],
  ['least', ['least', 'fewest', 'lowest', 'smallest', 'min', 'minimum', 'bottom']],
  ['more', ['more', 'greater', 'larger', 'bigger', 'higher']],
  ['fewer', ['fewer', 'less', 'lower', 'smaller']],
  ['compare', ['compare', 'comparison', 'compared', 'vs', 'versus']],
  ['than', ['than', 'compared to', 'compared with', 'against']],
  ['not', ['not', 'no', 'non', 'without', 'except', 'excluding', 'exclude', 'other than', 'but not', 'outside', 'outside of', 'apart from', 'aside from', 'never', 'lacking', 'nor', 'neither', 'none']],
  ['or', ['or', 'either', 'and/or']],
  ['and', ['and', 'both', 'also', 'as well as', 'plus', 'with', 'that', 'but', 'while', 'where', 'whose', 'whom', 'who', ',', '&']],
  ['anaphora', ['those', 'them', 'these', 'they', 'of those', 'of them', 'of these', 'among them', 'among those', 'from those', 'from them', 'that list', 'the same', 'it']],
  ['about', ['what about', 'how about', 'and what about', 'same for', 'same in', 'same on', 'instead', 'now for', 'now in', 'and for', 'and in', 'and on', 'then for', 'then in']],
  ['only', ['only', 'just', 'solely', 'exclusively']],
  ['named', ['named', 'called', 'name is', 'whose name is', 'with name', 'with the name']],
  ['like', ['like', 'matching', 'containing', 'contains', 'contain', 'whose name contains', 'with names containing', 'name containing', 'names containing', 'starting with', 'including', 'includes', 'include']],
  ['is', ['is', 'are', 'was', 'were', 'be', 'being', 'been', 'equals', 'equal to', '=', ':', 'set to']],
  ['ago', ['ago']],
  ['filler', [
    'the', 'a', 'an', 'in', 'on', 'at', 'of', 'for', 'to', 'into', 'me', 'my', 'us', 'our', 'we', 'you', 'your', 'i', 'please', 'pls', 'plz', 'kindly',
    'do', 'does', 'did', 'have', 'has', 'had', 'having', 'there', 'currently', 'right now', 'at the moment', 'at present', 'presently', 'now', 'all', 'any', 'every',
    'some', 'can', 'could', 'would', 'will', 'might', 'may', 'want', 'need', 'know', 'let', 'lets', "let's", 'hey', 'hi', 'hello', 'thanks', 'thank you', 'ok', 'okay', 'so',
    'here', 'overall', 'altogether', 'in total', 'exist', 'exists', 'existing', 'ones', 'one', 'items', 'objects', 'entries', 'things', 'stuff', 'quick', 'quickly', 'exactly', 'actually',
    'really', 'got', 'get me', 'running', 'run', 'runs', 'use', 'uses', 'using', 'used', 'currently running', 'registered', 'known', 'managed', 'defined', 'configured', 'set up',
    'live', 'deployed to', 'currently deployed', 'state of', 'its', 'their', 'theirs', 'his', 'her', 'this', 'whole', 'entire', 'full', 'complete', 'altogether', 'together',
    'about', 'regarding', 'concerning', 'as', 'from', 'out of', 'belong to', 'belongs to', 'belonging to', 'under', 'within', 'inside', 'go', 'wondering', 'if', 'whether',
    'anything', 'something', 'everything', 'everyone', 'own', 'owns', 'all of them', 'right', 'up', 'again', 'yet', 'still', 'else', 'rn', 'btw', 'fyi', 'quick question', 'question', 'tell me', 'show me', 'give me', 'list me',
    'details', 'info', 'information', 'data', 'many', 'much', 'sure', 'yes', 'their respective', 'respective', 'respectively', 'grand', 'across the board', 'hosted', 'there are',
    'currently have', 'we have', 'do we have', 'how', 'up to', 'listing', 'showing', 'listed', 'shown', 'look', 'looking', 'the list of', 'list of',
    // Asking for fresh data (the answer cache is bypassed by these words; the query is the same).
    'refresh', 'refreshed', 'fresh', 'uncached', 'latest', 'real time', 'realtime', 'real-time', 'up to date', 'up-to-date',
  ]],
];

export interface LexiconEntry {
  readonly senses: readonly Sense[];
  /** The entry came from the live data (a name), not from the declared words. */
  readonly live?: boolean;
}

/** Bounds of a lexicon: live values per field and in all, and characters of one value. */
export const LEXICON_LIMITS = { liveValuesPerField: 5_000, liveValues: 20_000, valueChars: 200, phraseWords: 5 } as const;

/** A live value, and how the system shows it when that differs (NetBox's "Arista EOS" of the slug eos). */
export type LiveValue = string | { readonly value: string; readonly label: string };

export interface LiveValues {
  /** entity → field → values, as the upstream spells them. */
  readonly [entity: string]: Readonly<Record<string, readonly LiveValue[]>>;
}

/** Splits a phrase into the parser's tokens (see `tokenize`). */
export type Tokenizer = (text: string) => readonly string[];

export class Lexicon {
  readonly #phrases = new Map<string, LexiconEntry>();
  /** Every phrase's starts, word by word ("out", "out of", "out of sync"): where a longer phrase may still match. */
  readonly #starts = new Set<string>();
  readonly fuzzy = new FuzzyIndex();
  /** The spelling of each live value by its lower-case form. */
  readonly spelling = new Map<string, string>();
  /** The phrases that name the system itself (the domain's `words`). */
  readonly systemWords = new Set<string>();
  /** The live values of each field, lower-cased, as read ("entity.field" → values). */
  readonly #values = new Map<string, string[]>();
  #liveCount = 0;
  #longest = 1;

  constructor(
    readonly domain: DomainDecl,
    private readonly tokenize: Tokenizer,
    live?: LiveValues,
  ) {
    for (const [g, words] of GRAMMAR) for (const w of words) this.#add(w, { k: 'g', g }, false);
    // The system's own name means "here": read, and adding nothing.
    for (const w of domain.words ?? []) {
      this.#add(w, { k: 'g', g: 'filler' }, false);
      this.systemWords.add(tokenize(w.toLowerCase()).join(' '));
    }
    for (const action of domain.actions ?? []) for (const w of action.words) this.#add(w, { k: 'action', verb: action.verb }, true);
    for (const entity of domain.entities) {
      for (const w of entity.words) this.#add(w, { k: 'entity', entity: entity.name }, true);
      for (const p of entity.phrases ?? []) for (const w of p.words) this.#add(w, { k: 'phrase', entity: entity.name, where: p.where }, true);
      for (const field of entity.fields) {
        for (const w of field.words ?? []) this.#add(w, { k: 'field', entity: entity.name, field: field.name }, true);
        for (const v of field.values ?? []) for (const w of [...(this.#phrases.has(v.value.toLowerCase()) ? [] : [v.value]), ...(v.words ?? [])]) this.#add(w, { k: 'value', entity: entity.name, field: field.name, value: v.value }, true);
        for (const w of field.timeVerbs ?? []) this.#add(w, { k: 'timeverb', entity: entity.name, field: field.name }, true);
      }
    }
    if (live !== undefined) this.#addLive(live);
  }

  /** Live values held (a metric). */
  get liveCount(): number {
    return this.#liveCount;
  }

  get longestPhrase(): number {
    return this.#longest;
  }

  #addLive(live: LiveValues): void {
    for (const entity of this.domain.entities) {
      const fields = live[entity.name];
      if (fields === undefined) continue;
      for (const field of entity.fields) {
        const values = fields[field.name] ?? [];
        let n = 0;
        for (const item of values) {
          if (n >= LEXICON_LIMITS.liveValuesPerField || this.#liveCount >= LEXICON_LIMITS.liveValues) break;
          const value = typeof item === 'string' ? item : item.value;
          const label = typeof item === 'string' ? undefined : item.label;
          if (value.length === 0 || value.length > LEXICON_LIMITS.valueChars) continue;
          n += 1;
          this.#liveCount += 1;
          const lower = value.toLowerCase();
          if (!this.spelling.has(lower)) this.spelling.set(lower, value);
          const key = `${entity.name}.${field.name}`;
          const list = this.#values.get(key);
          if (list === undefined) this.#values.set(key, [lower]);
          else list.push(lower);
          const sense: Sense = { k: 'value', entity: entity.name, field: field.name, value };
          this.#add(lower, sense, true, true);
          // The name the system shows is a phrase of the same value ("arista eos", "platform engineering").
          if (label !== undefined && label.length <= LEXICON_LIMITS.valueChars) {
            const spoken = label.toLowerCase();
            if (!this.spelling.has(spoken)) this.spelling.set(spoken, value);
            this.#add(spoken, sense, true, true);
          }
        }
      }
    }
  }

  #add(phrase: string, sense: Sense, fuzzy: boolean, live = false): void {
    const words = this.tokenize(phrase.toLowerCase());
    if (words.length === 0 || words.length > LEXICON_LIMITS.phraseWords) return;
    const key = words.join(' ');
    for (let j = 1, start = words[0] ?? ''; j <= words.length; start = `${start} ${words[j] ?? ''}`, j += 1) this.#starts.add(start);
    const entry = this.#phrases.get(key);
    const same = (a: Sense, b: Sense): boolean => JSON.stringify(a) === JSON.stringify(b);
    if (entry === undefined) this.#phrases.set(key, { senses: [sense], live });
    else if (!entry.senses.some((s) => same(s, sense))) this.#phrases.set(key, { senses: [...entry.senses, sense], live: entry.live === true || live });
    // A declared value the estate holds too is a live name as well.
    else if (live && entry.live !== true) this.#phrases.set(key, { ...entry, live: true });
    this.#longest = Math.max(this.#longest, words.length);
    // Typos are corrected towards meaningful single words and names, and grammar words that carry meaning ("which",
    // "count", "breakdown"), never towards filler: a word read as filler would be dropped silently.
    const meaningful = sense.k !== 'g' || (!['filler', 'is', 'and'].includes(sense.g) && key.length >= 5);
    if ((fuzzy || sense.k === 'g') && meaningful && words.length === 1) this.fuzzy.add(key);
  }

  readonly #parts = new Map<string, ReadonlySet<string>>();

  /** The parts of one field's live values (split at - . _), built once: "cron" of payments-cron-prod. */
  partsOf(entity: string, field: string): ReadonlySet<string> {
    const key = `${entity}.${field}`;
    let parts = this.#parts.get(key);
    if (parts === undefined) {
      parts = new Set(this.valuesOf(entity, field).flatMap((v) => v.split(/[-._]/)));
      this.#parts.set(key, parts);
    }
    return parts;
  }

  /** The live values of one field, lower-cased (at most LEXICON_LIMITS.liveValuesPerField). */
  valuesOf(entity: string, field: string): readonly string[] {
    return this.#values.get(`${entity}.${field}`) ?? [];
  }

  /** Whether some phrase starts with these words (or is them). */
  startsPhrase(words: string): boolean {
    return this.#starts.has(words);
  }

  lookup(key: string): LexiconEntry | undefined {
    return this.#phrases.get(key);
  }
}
