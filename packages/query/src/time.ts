/**
 * Time windows in questions ("in the last 2 hours", "since yesterday", "before 2026-01-31", "older than 30 days"),
 * read from words at a given moment. Calendar words are UTC days.
 */

export const NUMBER_WORDS: Readonly<Record<string, number>> = {
  a: 1, an: 1, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10, eleven: 11, twelve: 12,
  fifteen: 15, twenty: 20, thirty: 30, forty: 40, fifty: 50, hundred: 100, couple: 2, few: 3, several: 3, dozen: 12,
};

/** A number written in digits or as a word ("3", "three"); undefined otherwise. */
export function numberOf(word: string | undefined): number | undefined {
  if (word === undefined) return undefined;
  if (/^\d{1,6}$/.test(word)) return Number(word);
  return NUMBER_WORDS[word];
}

const UNITS: Readonly<Record<string, number>> = {
  s: 1, sec: 1, secs: 1, second: 1, seconds: 1,
  m: 60, min: 60, mins: 60, minute: 60, minutes: 60,
  h: 3_600, hr: 3_600, hrs: 3_600, hour: 3_600, hours: 3_600,
  d: 86_400, day: 86_400, days: 86_400,
  w: 604_800, wk: 604_800, week: 604_800, weeks: 604_800,
  month: 2_592_000, months: 2_592_000,
};
const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];
const DAY = 86_400_000;

export interface TimeWindow {
  /** ms since the epoch; the window is [after, before). */
  readonly after?: number | undefined;
  readonly before?: number | undefined;
  /** Tokens read: [start, end). */
  readonly start: number;
  readonly end: number;
}

const PREPOSITIONS = new Set(['in', 'within', 'during', 'over', 'for', 'from']);

/** A compact amount and unit ("48h", "2d", "30m"). */
function compact(word: string | undefined): number | undefined {
  const m = /^(\d{1,5})(s|m|min|h|hr|hrs|d|w)$/.exec(word ?? '');
  if (m === null) return undefined;
  return Number(m[1]) * (UNITS[m[2] ?? ''] ?? 0);
}

function dateOf(word: string | undefined): number | undefined {
  if (word === undefined || !/^\d{4}-\d{2}-\d{2}(?:t\d{2}:\d{2}(?::\d{2})?z?)?$/.test(word)) return undefined;
  const at = Date.parse(word.length === 10 ? `${word}T00:00:00Z` : word.toUpperCase().endsWith('Z') ? word.toUpperCase() : `${word.toUpperCase()}Z`);
  return Number.isNaN(at) ? undefined : at;
}

/** A time window that starts at token `i`, or undefined. */
export function timeAt(words: readonly string[], i: number, now: number): TimeWindow | undefined {
  const w = (k: number): string | undefined => words[i + k];
  const today = Math.floor(now / DAY) * DAY;
  let k = 0;
  if (PREPOSITIONS.has(w(0) ?? '')) k += 1;
  if (w(k) === 'the') k += 1;
  if (w(k) === 'last' || w(k) === 'past' || w(k) === 'previous') {
    const c = compact(w(k + 1));
    if (c !== undefined && c > 0) return { after: now - c * 1000, start: i, end: i + k + 2 };
    const n = numberOf(w(k + 1));
    const unitAt = n === undefined ? k + 1 : k + 2;
    const unit = UNITS[w(unitAt) ?? ''];
    if (unit !== undefined && (n === undefined || n > 0) && (w(unitAt) ?? '').length > 1) return { after: now - (n ?? 1) * unit * 1000, start: i, end: i + unitAt + 1 };
  }
  // "in 48h", "within 2 days"
  if (k > 0 && w(0) !== 'from') {
    const c = compact(w(k));
    if (c !== undefined && c > 0) return { after: now - c * 1000, start: i, end: i + k + 1 };
    const n = numberOf(w(k));
    const unit = UNITS[w(k + 1) ?? ''];
    if (n !== undefined && n > 0 && unit !== undefined && (w(k + 1) ?? '').length > 1 && w(0) !== 'for') return { after: now - n * unit * 1000, start: i, end: i + k + 2 };
  }
  // "older than 30 days", "more than 2 weeks ago"
  if ((w(0) === 'older' || w(0) === 'more' || w(0) === 'over') && w(1) === 'than') {
    const n = numberOf(w(2));
    const unit = UNITS[w(3) ?? ''];
    if (n !== undefined && unit !== undefined) return { before: now - n * unit * 1000, start: i, end: i + (w(4) === 'ago' ? 5 : 4) };
  }
  // "2 hours ago" reads as "within the last 2 hours" only after "since".
  if (w(0) === 'since' || w(0) === 'after' || w(0) === 'before') {
    const at = dateOf(w(1));
    const open = w(0) === 'before' ? 'before' : 'after';
    if (at !== undefined) return open === 'before' ? { before: at, start: i, end: i + 2 } : { after: at, start: i, end: i + 2 };
    const day = WEEKDAYS.indexOf(w(1) ?? '');
    if (day >= 0) {
      const back = (new Date(today).getUTCDay() - day + 7) % 7;
      const at2 = today - back * DAY;
      return open === 'before' ? { before: at2, start: i, end: i + 2 } : { after: at2, start: i, end: i + 2 };
    }
    if (w(1) === 'yesterday') return open === 'before' ? { before: today - DAY, start: i, end: i + 2 } : { after: today - DAY, start: i, end: i + 2 };
    if (w(1) === 'today') return open === 'before' ? { before: today, start: i, end: i + 2 } : { after: today, start: i, end: i + 2 };
    const n = numberOf(w(1));
    const unit = UNITS[w(2) ?? ''];
    if (w(0) === 'since' && n !== undefined && unit !== undefined && w(3) === 'ago') return { after: now - n * unit * 1000, start: i, end: i + 4 };
  }
  const j = i + (w(0) === 'on' || w(0) === 'from' || w(0) === 'during' ? 1 : 0);
  const at = (x: number): string | undefined => words[x];
  if (at(j) === 'yesterday') return { after: today - DAY, before: today, start: i, end: j + 1 };
  if (at(j) === 'today') return { after: today, start: i, end: j + 1 };
  if (at(j) === 'this' && (at(j + 1) === 'morning' || at(j + 1) === 'day')) return { after: today, start: i, end: j + 2 };
  if ((at(j) === 'this' || (at(j) === 'in' && at(j + 1) === 'this')) && (at(j + 1) === 'week' || at(j + 2) === 'week')) {
    const end = at(j + 1) === 'week' ? j + 2 : j + 3;
    return { after: today - ((new Date(today).getUTCDay() + 6) % 7) * DAY, start: i, end };
  }
  return undefined;
}
