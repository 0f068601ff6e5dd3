import { PARSE_LIMITS, tokenize } from './parse.js';

/**
 * Conversation acts: what a person says about the last answer rather than about the estate ("next page", "page 3",
 * "try again", "just the counts", "a quick look instead") or about the agent itself ("help", "what can you do?").
 * They are the same in every domain, so they are read here, once, by a small grammar over the whole sentence: every
 * word must be a word of one act or a word any request carries ("please", "show me", "the", "them"), and at least one
 * word must say which act it is. "more degraded apps" is no act: "degraded" and "apps" are words of a domain.
 */
export type ConversationAct =
  /** Page the last answer: the next page, the one before, the first, or page N (1-based). */
  | { readonly kind: 'page'; readonly to: 'next' | 'previous' | number }
  /** Read the whole of what the last answer sampled or cut ("get all", "the full analysis"). */
  | { readonly kind: 'all' }
  /** A sample instead of the whole ("a quick look", "just a sample"). */
  | { readonly kind: 'sample' }
  /** Ask the last question again ("try again", "retry"). */
  | { readonly kind: 'retry' }
  /** The last answer's totals only ("just the counts", "a summary instead"). */
  | { readonly kind: 'summary' }
  /** What the agent can do. */
  | { readonly kind: 'help' };

export type ConversationActKind = ConversationAct['kind'];

/** Limits: a sentence longer than this many words is a question, not an act (and is not read as one). */
export const ACT_LIMITS = { maxWords: 16 } as const;

/** Words any request carries: politeness, the verbs of asking for more, articles, the last answer as a pronoun. */
const CARRIER: ReadonlySet<string> = new Set([
  'hi', 'hello', 'hey', 'please', 'pls', 'plz', 'kindly', 'thanks', 'thank', 'ok', 'okay', 'sure', 'yes', 'yeah', 'yep', 'great', 'cool', 'now', 'then', 'and', 'so', 'also', 'again', 'is', 'are', 'there', 'any',
  'can', 'could', 'would', 'will', 'you', 'i', 'we', 'me', 'us', 'want', 'wanna', 'like', 'need', 'let', 'lets', 'see', 'show', 'give', 'get', 'go', 'take', 'have', 'do', 'just',
  'the', 'a', 'an', 'of', 'on', 'to', 'with', 'them', 'those', 'these', 'it', 'that', 'this', 'ones', 'one', 'results', 'result', 'rows', 'row', 'items', 'entries', 'lines', 'list', 'answer', 'instead',
]);
/** Words that say the pronoun's list itself is wanted: "list them", "show those" (from its first row). */
const LISTING: ReadonlySet<string> = new Set(['list', 'show', 'give']);
const PRONOUNS: ReadonlySet<string> = new Set(['them', 'those', 'these', 'it']);

const NUMBER_WORDS: Readonly<Record<string, number>> = { one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10, first: 1, second: 2, third: 3, fourth: 4, fifth: 5 };

/** Each act's own words: the words that may appear in it, and those of which one must (its head). */
interface ActWords {
  readonly head: ReadonlySet<string>;
  readonly also: ReadonlySet<string>;
}
const words = (head: readonly string[], also: readonly string[] = []): ActWords => ({ head: new Set(head), also: new Set([...head, ...also]) });

const ACT_WORDS: Readonly<Record<Exclude<ConversationActKind, 'page'>, ActWords>> = {
  all: words(['all', 'everything', 'full', 'whole', 'complete', 'exact', 'every'], ['analysis', 'thing', 'lot', 'of', 'read', 'fetch', 'rest']),
  sample: words(['quick', 'sample', 'glance', 'peek', 'rough', 'sampled'], ['look', 'idea', 'spot', 'check', 'only', 'small']),
  retry: words(['retry', 'again', 'redo', 'rerun'], ['try', 'ask', 'run', 'read', 'once', 'more', 'one', 'time']),
  summary: words(['summary', 'summarise', 'summarize', 'overview', 'totals', 'counts', 'numbers'], ['only', 'brief', 'short']),
  help: words(['help', 'capabilities', 'commands', 'abilities'], ['what', 'how', 'can', 'do', 'does', 'you', 'i', 'use', 'ask', 'know', 'support', 'tell', 'me', 'about', 'yourself', 'this', 'questions', 'options', 'are', 'your', 'is', 'bot', 'agent', 'agents', 'for', 'which', 'who', 'here', 'have', 'answer', 'with']),
};

/** "what can you do", "how do I use this", "what do you support": the agent asked about itself. */
const ABOUT_YOU: ReadonlySet<string> = new Set(['you', 'yourself', 'your', 'this', 'bot', 'agent', 'agents', 'i']);
const ABILITY: ReadonlySet<string> = new Set(['do', 'know', 'support', 'use', 'ask', 'answer', 'help', 'tell', 'have', 'there']);

/** Page words: where the next page is, and the nouns of paging. */
const NEXT: ReadonlySet<string> = new Set(['next', 'more', 'continue', 'continuing', 'rest', 'remaining', 'further', 'following', 'onward', 'onwards']);
const PREVIOUS: ReadonlySet<string> = new Set(['previous', 'prev', 'back', 'earlier', 'before', 'preceding']);
const FIRST: ReadonlySet<string> = new Set(['first', 'start', 'beginning', 'top']);
const PAGE_NOUNS: ReadonlySet<string> = new Set(['page', 'pages', 'batch', 'batches', 'chunk', 'set', 'screen', 'part']);
/** Two-word ways of saying "go on". */
const GO_ON: readonly (readonly [string, string])[] = [['keep', 'going'], ['go', 'on'], ['carry', 'on'], ['move', 'on']];

/** Reads a sentence as a conversation act, or undefined when it says anything else. */
export function readAct(question: string): ConversationAct | undefined {
  if (question.trim() === '?') return { kind: 'help' };
  const tokens = tokenize(question.slice(0, PARSE_LIMITS.maxChars)).filter((t) => t !== ',' && t !== '&');
  if (tokens.length === 0 || tokens.length > ACT_LIMITS.maxWords) return undefined;
  return pageAct(tokens) ?? otherAct(tokens);
}

function pageAct(tokens: readonly string[]): ConversationAct | undefined {
  let direction: 'next' | 'previous' | undefined;
  let first = false;
  let numbered: number | undefined;
  let paged = false;
  let sized = false;
  const rest: string[] = [];
  for (let i = 0; i < tokens.length; i += 1) {
    const t = tokens[i] ?? '';
    const next = tokens[i + 1];
    if (GO_ON.some(([a, b]) => a === t && b === next)) {
      direction ??= 'next';
      i += 1;
      continue;
    }
    if (PAGE_NOUNS.has(t)) {
      paged = true;
      // "page 3", "batch two", "page number 4".
      const skip = next === 'number' || next === 'no' ? 2 : 1;
      const at = tokens[i + skip];
      const n = at === undefined ? undefined : /^\d{1,5}$/.test(at) ? Number(at) : NUMBER_WORDS[at];
      if (n !== undefined && n >= 1) {
        numbered = n;
        i += skip;
      }
      continue;
    }
    if (NEXT.has(t)) direction ??= 'next';
    else if (PREVIOUS.has(t)) direction ??= 'previous';
    else if (FIRST.has(t)) first = true;
    // "the next 20", "20 more": how many is the page's size, not a page number.
    else if (/^\d{1,4}$/.test(t)) sized = true;
    else rest.push(t);
  }
  if (rest.some((t) => !CARRIER.has(t) && !(paged && NUMBER_WORDS[t] !== undefined))) return undefined;
  if (sized && (direction !== 'next' || numbered !== undefined || first)) return undefined;
  // "the second page" is page 2; "back to the first page" is page 1.
  if (numbered === undefined && paged && !first) numbered = tokens.map((t) => NUMBER_WORDS[t]).find((n) => n !== undefined && n > 1);
  if (numbered !== undefined) return { kind: 'page', to: numbered };
  if (first) return { kind: 'page', to: 1 };
  if (direction !== undefined) return { kind: 'page', to: direction };
  // "list them", "show me those": the pronoun's list itself, from its first row ("show them all" is the `all` act).
  if (!paged && tokens.some((t) => PRONOUNS.has(t)) && tokens.some((t) => LISTING.has(t)) && tokens.every((t) => CARRIER.has(t))) return { kind: 'page', to: 1 };
  return undefined;
}

function otherAct(tokens: readonly string[]): ConversationAct | undefined {
  for (const kind of ['retry', 'sample', 'summary', 'all', 'help'] as const) {
    const w = ACT_WORDS[kind];
    const own = tokens.filter((t) => !CARRIER.has(t) || w.head.has(t));
    if (!own.every((t) => w.also.has(t))) continue;
    // "list all" asks for a list of the domain's default objects, not for the rest of the last answer.
    if (kind === 'all' && tokens.includes('list')) continue;
    if (tokens.some((t) => w.head.has(t))) return { kind };
    if (kind === 'help' && isAboutYou(tokens)) return { kind };
  }
  return undefined;
}

/** "what can you do?", "how do I use this?", "which agents can I ask?": a question word, the agent (or the asker), and an ability. */
function isAboutYou(tokens: readonly string[]): boolean {
  const at = tokens.findIndex((t) => !CARRIER.has(t));
  const opens = ['what', 'how', 'which', 'who'].includes(tokens[at] ?? '');
  return opens && tokens.some((t) => ABOUT_YOU.has(t)) && tokens.slice(at + 1).some((t) => ABILITY.has(t)) && tokens.length - at <= 8;
}
