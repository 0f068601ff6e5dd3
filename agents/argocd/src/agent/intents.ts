import { createRulesClassifier, understoodWords, type EntityExtractor, type Extracted, type IntentRule, type RulesClassifier, type Span } from '@flotilla/agent-kit';

/** What the Argo CD agent can be asked. */
export const ARGOCD_INTENTS = [
  'list_applications',
  'application_details',
  'search',
  'attention',
  'next_page',
  /** A typed query (see typed.ts): a standalone question, or one that edits the conversation's last query. */
  'query',
  'query_followup',
  'help',
  'unknown',
] as const;
export type ArgoIntent = (typeof ARGOCD_INTENTS)[number];

/** Every health status but Healthy: what "unhealthy" means. */
export const NOT_HEALTHY = ['Progressing', 'Degraded', 'Suspended', 'Missing', 'Unknown'] as const;

/** Words that look like resource names but are not. */
const NOT_NAMES = new Set(['out-of-sync', 'self-heal', 'auto-sync', 'follow-up', 'set-up', 'read-only', 'up-to-date', 'k8s', 'argo-cd', 'non-prod', 'in-sync', 'un-healthy', 'two-part', 'auto-synced']);
const ENV_WORDS: Readonly<Record<string, string>> = {
  prod: 'prod',
  production: 'prod',
  prd: 'prod',
  staging: 'staging',
  stage: 'staging',
  stg: 'staging',
  dev: 'dev',
  development: 'dev',
  qa: 'qa',
  perf: 'perf',
  performance: 'perf',
};
/** A word on its own: not part of a hyphenated name such as payments-api-prod. */
const word = (w: string): string => `(?<![\\w./=-])${w}(?![\\w/=-]|\\.\\w)`;
const NAME = '([a-z0-9][a-z0-9.-]*[a-z0-9]|[a-z0-9])';

/** Words that follow "project"/"cluster" in a sentence without being its name ("the payments-prod project are…"). */
const NOT_A_NAME = new Set([
  'are', 'is', 'in', 'on', 'with', 'that', 'which', 'has', 'have', 'the', 'a', 'an', 'and', 'or', 'for', 'of', 'to', 'where', 'what', 'named', 'called',
  'do', 'does', 'we', 'you', 'i', 'there', 'it', 'its', 'their', 'by', 'from', 'as', 'but', 'not', 'all', 'any', 'each', 'every', 'per', 'label', 'labels', 's',
]);

/** The span of a match (or of one of its groups, with the `d` flag). */
const spanOf = (m: RegExpExecArray, group = 0): Span => {
  const indices = m.indices?.[group];
  return indices === undefined ? [m.index, m.index + m[0].length] : [indices[0], indices[1]];
};

/** The first pattern's group 1 that is a name, with the whole match as its span. */
function firstName(text: string, patterns: readonly RegExp[]): { value: string; span: Span } | undefined {
  for (const re of patterns) {
    const m = re.exec(text);
    if (m?.[1] !== undefined && !NOT_A_NAME.has(m[1])) return { value: m[1], span: spanOf(m) };
  }
  return undefined;
}

const extracted = (value: string | readonly string[], spans: readonly Span[]): Extracted => ({ value, spans });
const named = (found: { value: string; span: Span } | undefined): Extracted | undefined => (found === undefined ? undefined : extracted(found.value, [found.span]));

const URL_RE = /\bhttps?:\/\/[^\s"'<>,;]+[^\s"'<>,;.?!)]|\bgit@[\w.-]+:[\w./-]+/g;
const REPO_HINT = /\b(repo|repos|repository|repositories|source|git|from)\s*(url\s*)?$/;

function urls(text: string): { url: string; span: Span; repo: boolean }[] {
  return [...text.matchAll(URL_RE)].map((m) => {
    const before = text.slice(Math.max(0, m.index - 24), m.index);
    const url = m[0];
    const repo = REPO_HINT.test(before) || /\.git$|^git@|github\.|gitlab\.|bitbucket\.|\/\/git\./.test(url);
    return { url, span: [m.index, m.index + url.length] as Span, repo };
  });
}

/** A name before its noun ("the payments-prod project"), not the tail of a possessive ("prod's cluster"). */
const BEFORE = String.raw`(?<![\w'.-])`;
const projectOf = (t: string) => firstName(t, [new RegExp(`\\bproject ${NAME}`, 'd'), new RegExp(`${BEFORE}${NAME} project\\b`, 'd')]);
function clusterOf(t: string): { value: string; span: Span } | undefined {
  const url = urls(t).find((u) => !u.repo);
  if (url !== undefined) {
    const before = /\b(?:cluster|server|destination|api)\s*(?:url\s*)?$/.exec(t.slice(0, url.span[0]));
    return { value: url.url, span: [before?.index ?? url.span[0], url.span[1]] };
  }
  return firstName(t, [
    new RegExp(`\\bcluster ${NAME}`, 'd'),
    new RegExp(`${BEFORE}${NAME} cluster\\b`, 'd'),
    /(?<![\w-])(in-cluster|(?:prod|staging|dev|qa|perf)-[a-z]{2}-\d+)(?![\w-])/d,
  ]);
}
/** Every cluster a question names ("in prod-eu-1 and prod-us-1"), with the words that join them. */
function clusters(t: string): Extracted | undefined {
  const first = clusterOf(t);
  if (first === undefined) return undefined;
  const values = [first.value];
  const spans: Span[] = [first.span];
  const inUrl = urls(t).map((u) => u.span);
  for (const m of t.matchAll(/(?<![\w-])(in-cluster|(?:prod|staging|dev|qa|perf)-[a-z]{2}-\d+)(?![\w-])/g)) {
    if (inUrl.some(([start, end]) => m.index >= start && m.index < end)) continue;
    if (m[1] !== undefined && !values.includes(m[1])) values.push(m[1]);
    spans.push([m.index, m.index + m[0].length]);
  }
  for (const u of urls(t)) {
    if (u.repo || values.includes(u.url)) continue;
    values.push(u.url);
    spans.push(u.span);
  }
  if (values.length > 1) for (const m of t.matchAll(/(?<=[\w/.-])(?:,? (?:or|and)|,) (?=(?:in-cluster|(?:prod|staging|dev|qa|perf)-|https?:))/g)) spans.push([m.index, m.index + m[0].length]);
  return extracted(values.length === 1 ? first.value : values, spans);
}
const namespaceOf = (t: string) => firstName(t, [new RegExp(`\\b(?:namespace|ns) ${NAME}`, 'd'), new RegExp(`${BEFORE}${NAME} namespace\\b`, 'd')]);

/** Every match of `re` (global) as spans. */
const allSpans = (text: string, re: RegExp): Span[] => [...text.matchAll(re)].map((m) => [m.index, m.index + m[0].length] as Span);

/** "synced" followed by a time window is the act of syncing, not the sync status. */
const WINDOW_AHEAD = String.raw`(?! (?:in|within|during|over|since|before|after|today|yesterday|this|last|recently|lately|between)\b)`;

function syncStatus(text: string): Extracted | undefined {
  const except = /\b(?:except(?: for)?|excluding|other than|but not)\s+(?:the |those |any )?(out[ -]of[ -]sync|synced|in sync)\b(?: ones?| apps?| applications?)?/dg.exec(text);
  if (except?.[1] !== undefined) return extracted(except[1] === 'synced' || except[1] === 'in sync' ? ['OutOfSync', 'Unknown'] : ['Synced', 'Unknown'], [spanOf(except)]);
  const kinds: readonly (readonly [string, RegExp])[] = [
    // "Not synced" is every status but Synced (Unknown too); "out of sync" is Argo CD's OutOfSync.
    ['NotSynced', new RegExp(String.raw`\b(?:not|aren'?t|isn'?t|weren'?t|wasn'?t) (?:in )?sync(?:ed|hed)?\b${WINDOW_AHEAD}|\bunsynced\b|\bnon-synced\b`, 'g')],
    ['OutOfSync', /out[ -]of[ -]sync|outofsync|\boos\b|drift(?:ed|ing|s)?\b/g],
    ['Unknown', /sync(?: status)? (?:is )?unknown|unknown sync(?: status)?/g],
    ['Synced', new RegExp(`${word('in sync')}|${word('in-sync')}|${word('synced')}${WINDOW_AHEAD}`, 'g')],
  ];
  for (const [value, re] of kinds) {
    const spans = allSpans(text, re);
    if (spans.length > 0) return extracted(value === 'NotSynced' ? ['OutOfSync', 'Unknown'] : value, spans);
  }
  return undefined;
}

const NEGATION = String.raw`\b(?:except(?: for)?|excluding|other than|but not|not|non-?|aren'?t|isn'?t)\s+(?:the |those |any |ones that are )?`;
const HEALTH_NAMES: Readonly<Record<string, string>> = { healthy: 'Healthy', degraded: 'Degraded', progressing: 'Progressing', missing: 'Missing', suspended: 'Suspended', paused: 'Suspended' };
const HEALTH_ALL = ['Healthy', ...NOT_HEALTHY] as const;

function healthStatus(text: string): Extracted | undefined {
  // "except the healthy ones", "not degraded": every status but the one named.
  const negated = new RegExp(`${NEGATION}(${Object.keys(HEALTH_NAMES).join('|')})\\b(?: ones?| apps?| applications?)?`, 'dg');
  const excluded = [...text.matchAll(negated)];
  if (excluded.length > 0 && !/\bnot (?:healthy|ok|okay|fine)\b/.test(text)) {
    const out = new Set(excluded.map((m) => HEALTH_NAMES[m[1] ?? '']));
    return extracted(HEALTH_ALL.filter((s) => !out.has(s)), excluded.map((m) => [m.index, m.index + m[0].length] as Span));
  }
  const found = new Set<string>();
  const spans: Span[] = [];
  const take = (re: RegExp, statuses: readonly string[]): void => {
    const hits = allSpans(text, re);
    if (hits.length === 0) return;
    spans.push(...hits);
    for (const s of statuses) found.add(s);
  };
  take(/\b(?:unhealthy|un-healthy|not (?:healthy|ok|okay|fine)|in (?:bad|poor) health|broken|failing|erroring|in trouble)\b(?! to (?:sync|deploy|connect))/g, NOT_HEALTHY);
  take(/\bdegraded\b/g, ['Degraded']);
  take(/\b(?:progressing|rolling out)\b/g, ['Progressing']);
  // "missing a team label" is about a label, not the Missing health status.
  take(new RegExp(`${word('missing')}(?! (?:an? |the )?[\\w./-]+ labels?\\b)`, 'g'), ['Missing']);
  take(/\b(?:suspended|paused)\b/g, ['Suspended']);
  take(/\bunknown health|health (?:is )?unknown\b/g, ['Unknown']);
  take(new RegExp(`(?<!un|un-|not )${word('healthy')}`, 'g'), ['Healthy']);
  if (found.size === 0) return undefined;
  const values: string[] = [...NOT_HEALTHY.filter((s) => found.has(s)), ...(found.has('Healthy') ? ['Healthy'] : [])];
  return extracted(values.length === 1 ? (values[0] ?? '') : values, spans);
}

/** Environments: "prod", "prod or staging", "not in prod", "non-prod" (`!` marks an exclusion). */
function environments(text: string): Extracted | undefined {
  const names = Object.keys(ENV_WORDS).join('|');
  const values: string[] = [];
  const spans: Span[] = [];
  const excluded = new RegExp(`(?:\\bnot (?:in |on )?|\\boutside (?:of )?|\\bexcept (?:for )?|\\bexcluding |\\bother than |\\bnon-?)(${names})\\b`, 'g');
  for (const m of text.matchAll(excluded)) {
    const env = ENV_WORDS[m[1] ?? ''];
    if (env !== undefined && !values.includes(`!${env}`)) values.push(`!${env}`);
    spans.push([m.index, m.index + m[0].length]);
  }
  for (const m of text.matchAll(new RegExp(word(`(${names})`), 'g'))) {
    if (spans.some(([s, e]) => m.index >= s && m.index < e)) continue;
    const env = ENV_WORDS[m[1] ?? ''];
    if (env !== undefined && !values.includes(env)) values.push(env);
    spans.push([m.index, m.index + m[0].length]);
  }
  if (values.length === 0) return undefined;
  // "prod or staging", "prod and staging", "prod, staging": the joining words are read too.
  for (const m of text.matchAll(new RegExp(`(?<=\\b(?:${names}))(?:,? (?:or|and)|,) (?=(?:${names})\\b)`, 'g'))) spans.push([m.index, m.index + m[0].length]);
  for (const m of text.matchAll(/\b(?:env(?:ironment)?s?|environment)\b/g)) spans.push([m.index, m.index + m[0].length]);
  return extracted(values.length === 1 ? (values[0] ?? '') : values, spans);
}

const NUMBER_WORDS: Readonly<Record<string, number>> = { a: 1, an: 1, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10, twelve: 12, 'twenty four': 24, 'twenty-four': 24, few: 3, 'couple of': 2, several: 3 };
const UNIT_SECONDS: Readonly<Record<string, number>> = { minute: 60, min: 60, hour: 3_600, hr: 3_600, day: 86_400, week: 604_800 };

/** A time window the question asks about: [start, end) in ms, and the phrase's span. */
function windowOf(text: string, now: number): { after: number; before: number | undefined; span: Span } | undefined {
  const amount = `(\\d{1,4}|${Object.keys(NUMBER_WORDS).join('|')})`;
  const relative = new RegExp(`\\b(?:(?:in|within|during|over|for) )?(?:the )?(?:last|past|previous) (?:${amount} )?(minute|min|hour|hr|day|week)s?\\b`, 'd');
  // "48h", "30m", "2d", "1w" (and "the last 48h").
  const compact = /\b(?:(?:in|within|during|over|for) )?(?:the )?(?:last|past|previous) (\d{1,4}) ?(m|min|mins|h|hr|hrs|d|w)\b|\b(?:in|within) (\d{1,4}) ?(h|hr|hrs|d)\b/d.exec(text);
  if (compact !== null) {
    const n = Number(compact[1] ?? compact[3]);
    const unit = (compact[2] ?? compact[4] ?? 'h')[0] ?? 'h';
    const seconds = ({ m: 60, h: 3_600, d: 86_400, w: 604_800 } as Readonly<Record<string, number>>)[unit] ?? 3_600;
    if (n > 0) return { after: now - n * seconds * 1000, before: undefined, span: spanOf(compact) };
  }
  const m = relative.exec(text);
  if (m !== null) {
    const n = m[1] === undefined ? 1 : /^\d+$/.test(m[1]) ? Number(m[1]) : (NUMBER_WORDS[m[1]] ?? 1);
    // "the last 0 hours" is no window: its words stay unused.
    if (n <= 0) return undefined;
    const seconds = (UNIT_SECONDS[m[2] ?? 'hour'] ?? 3_600) * n;
    return { after: now - seconds * 1000, before: undefined, span: spanOf(m) };
  }
  const day = 86_400_000;
  const today = Math.floor(now / day) * day;
  const calendar: readonly (readonly [RegExp, number, number | undefined])[] = [
    [/\bsince yesterday\b/d, today - day, undefined],
    [/\b(?:(?:on|from) )?yesterday\b/d, today - day, today],
    [/\b(?:(?:since|from) )?(?:today|this morning)\b/d, today, undefined],
    [/\b(?:(?:since|during|in) )?this week\b/d, today - ((new Date(today).getUTCDay() + 6) % 7) * day, undefined],
  ];
  // "since monday": 00:00 UTC of the last such day (today when it is that day).
  const weekday = /\b(?:since|from|after) (monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b/d.exec(text);
  if (weekday?.[1] !== undefined) {
    const wanted = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'].indexOf(weekday[1]);
    const back = (new Date(today).getUTCDay() - wanted + 7) % 7;
    return { after: today - back * day, before: undefined, span: spanOf(weekday) };
  }
  for (const [re, after, before] of calendar) {
    const c = re.exec(text);
    if (c !== null) return { after, before, span: spanOf(c) };
  }
  const since = /\b(since|after|before) (\d{4}-\d{2}-\d{2}(?:[t ]\d{2}:\d{2}(?::\d{2})?(?:z|[+-]\d{2}:?\d{2})?)?)\b/d.exec(text);
  if (since?.[2] !== undefined) {
    const at = Date.parse(since[2].length === 10 ? `${since[2]}T00:00:00Z` : since[2].replace(' ', 'T').toUpperCase().replace(/(\d{2}:\d{2}(?::\d{2})?)$/, '$1Z'));
    if (!Number.isNaN(at)) return since[1] === 'before' ? { after: Number.NEGATIVE_INFINITY, before: at, span: spanOf(since) } : { after: at, before: undefined, span: spanOf(since) };
  }
  return undefined;
}

/**
 * Time windows over what Argo CD's list can tell: when the last sync operation finished (`last_sync`) and when the
 * application was created (`created`). A window without one of those verbs is not taken (its words stay unused,
 * so the answer says it did not apply them): "out of sync in the last hour" cannot be answered from Argo CD.
 */
function timeWindow(text: string, now: number): Extracted | undefined {
  const window = windowOf(text, now);
  if (window === undefined) return undefined;
  const verbs: readonly (readonly [string, RegExp])[] = [
    ['last_sync', /\b(?:(?:last |were |was |got |been )?(?:synced|synched|synchronized|deployed|updated|changed|rolled out|released|redeployed)|(?<!out of |in |not )syncs?(?! status)|sync operations?|deploys|deployments? (?:that )?(?:happened|ran|finished)|(?:ran|finished|completed|succeeded|failed))\b/g],
    ['created', /\b(?:(?:were |was |got |been )?(?:created|added|onboarded|set up)|new)\b/g],
  ];
  for (const [field, re] of verbs) {
    const hits = allSpans(text, re);
    if (hits.length === 0) continue;
    const iso = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const after = Number.isFinite(window.after) ? iso(window.after) : '';
    return extracted([field, after, window.before === undefined ? '' : iso(window.before)], [window.span, ...hits]);
  }
  return undefined;
}

function operationPhase(text: string): Extracted | undefined {
  const kinds: readonly (readonly [string, RegExp])[] = [
    ['Failed', /\bfailed (?:their|its|the|a) (?:last |latest )?sync\b|\b(?:failed|failing|unsuccessful) (?:syncs?|sync operations?|deploys?|deployments?)\b|\bsyncs? (?:that )?(?:have |has |did )?(?:failed|errored|fail)\b|\b(?:failed|failing|fails) to (?:sync|deploy)\b|\bsync (?:failures?|errors?|failed)\b|\bdid (?:any|a|the)? ?syncs? fail\b/g],
    ['Running', /\b(?:running|ongoing|in-progress) syncs?\b|\bsyncs? (?:in progress|running)\b|\bsyncing(?: right now| now)?\b|\bcurrently syncing\b/g],
    ['Succeeded', /\b(?:successful|succeeded) syncs?\b|\bsyncs? (?:that )?succeeded\b|\bsynced successfully\b/g],
  ];
  for (const [value, re] of kinds) {
    const spans = allSpans(text, re);
    if (spans.length > 0) return extracted(value, spans);
  }
  return undefined;
}

function autoSync(text: string): Extracted | undefined {
  const off = allSpans(text, /\b(?:without|no|disabled|manual) auto[- ]?sync(?:ing)?\b|\bauto[- ]?sync(?:ing)? (?:is )?(?:disabled|off|turned off)\b|\bmanual(?:ly)? sync(?:ed|ing)?\b|\bnot auto[- ]?synced\b/g);
  if (off.length > 0) return extracted('false', off);
  const on = allSpans(text, /\b(?:with |using |has |have )?auto[- ]?sync(?:ed|ing)?(?: (?:is )?(?:enabled|on|turned on))?\b|\bautomated sync(?:ing)?\b|\bself[- ]heal(?:ing)?\b/g);
  return on.length > 0 ? extracted('true', on) : undefined;
}

/** "per cluster", "by project", "broken down by health": the counts answer it. */
function groupBy(text: string): Extracted | undefined {
  const m =
    /\b(?:per|by|for each|in each|grouped by|group by|broken down by|breakdown by|split by|across) (cluster|project|health(?: status)?|sync(?: status)?|namespace)s?\b/d.exec(text) ??
    /\b(health|sync)(?: status)? (?:summary|breakdown|overview|counts?)\b/d.exec(text);
  if (m?.[1] === undefined) return undefined;
  const key = m[1].split(' ')[0] ?? m[1];
  return extracted(key, [spanOf(m)]);
}

/** Words that may stand before "apps" without naming them ("the degraded apps", "all prod apps"). */
const KNOWN_BEFORE_NOUN = new Set<string>();

function nameContains(text: string): Extracted | undefined {
  const part = `["']?([a-z0-9][a-z0-9._-]*)["']?`;
  const m = firstName(text, [
    new RegExp(`\\bwith ${part} in (?:the |their |its )?names?\\b`, 'd'),
    new RegExp(`\\b(?:whose|where the|where|with|with a|with the|having) names? (?:contains?|containing|includes?|including|has|have|matching|matches|like|starting with|starts with|ending with|ends with|that contains?|that includes?|with)? ?${part}`, 'd'),
    new RegExp(`\\bnamed? (?:like|containing|including|matching) ${part}`, 'd'),
    new RegExp(`\\bcontaining ${part} in (?:the |their |its )?names?\\b`, 'd'),
    new RegExp(`\\b${part} in (?:the |their |its )?names?\\b`, 'd'),
  ]);
  return named(m);
}

/**
 * "cron apps in prod", "payment services": a word the agent does not otherwise know, right before the noun, is
 * read as part of the name. The answer says "name contains …", and when nothing matches it says it was a guess.
 */
function nameGuess(text: string): Extracted | undefined {
  for (const g of text.matchAll(/(?<![\w./=-])([a-z][a-z0-9]{2,})(?: |-)(?:apps?|applications?|services?|deployments?|workloads?)(?![\w./=-])/g)) {
    const candidate = g[1] ?? '';
    if (KNOWN_BEFORE_NOUN.has(candidate) || candidate in ENV_WORDS) continue;
    return extracted(candidate, [[g.index, g.index + candidate.length]]);
  }
  return undefined;
}

function repoOf(text: string): Extracted | undefined {
  const url = urls(text).find((u) => u.repo);
  if (url !== undefined) {
    const before = /\b(?:from |in |using |of )?(?:the )?(?:git )?(?:repo|repository|source)(?: url)?\s*$/.exec(text.slice(0, url.span[0]));
    return extracted(url.url, [[before?.index ?? url.span[0], url.span[1]]]);
  }
  return undefined;
}

/** The entity extractors, given the clock that turns "in the last hour" into a time. */
function entities(now: () => number): readonly EntityExtractor[] {
  return [
    { name: 'sync', extract: (_q, t) => syncStatus(t) },
    { name: 'health', extract: (_q, t) => healthStatus(t) },
    { name: 'env', extract: (_q, t) => environments(t) },
    {
      name: 'team',
      extract: (_q, t) => named(firstName(t, [new RegExp(`\\bteam ${NAME}`, 'd'), new RegExp(`\\bowned by (?:the )?${NAME}(?: team)?`, 'd'), new RegExp(`${BEFORE}${NAME} team(?:'s)?\\b`, 'd')])),
    },
    { name: 'project', extract: (_q, t) => named(projectOf(t)) },
    { name: 'cluster', extract: (_q, t) => clusters(t) },
    {
      name: 'connection',
      extract: (_q, t) => {
        const failed = allSpans(t, /\b(?:failing|failed|unable|not able|can'?t|cannot) to connect\b|\b(?:not connected|disconnected|unreachable|offline|down|connection (?:failed|failures?|errors?|problems?|issues?)|failed connections?|failing connections?|broken connections?)\b/g);
        if (failed.length > 0) return extracted('Failed', failed);
        const ok = allSpans(t, /\b(?:successfully )?connected\b|\breachable\b|\bonline\b/g);
        return ok.length > 0 ? extracted('Successful', ok) : undefined;
      },
    },
    { name: 'namespace', extract: (_q, t) => named(namespaceOf(t)) },
    { name: 'repo', extract: (_q, t) => repoOf(t) },
    { name: 'name_contains', extract: (_q, t) => nameContains(t) },
    { name: 'name_guess', extract: (_q, t) => (nameContains(t) === undefined ? nameGuess(t) : undefined) },
    { name: 'window', clock: true, extract: (_q, t) => timeWindow(t, now()) },
    { name: 'phase', extract: (_q, t) => operationPhase(t) },
    { name: 'auto_sync', extract: (_q, t) => autoSync(t) },
    { name: 'group_by', extract: (_q, t) => groupBy(t) },
    {
      // "search apps for X", "find applications named X": the search is over applications only.
      name: 'apps_only',
      extract: (_q, t) => {
        const m = /\b(?:search|find|look(?:ing)?(?: up)?)(?: the| all| our)? (?:apps?|applications?)\b|\b(?:apps?|applications?) (?:named|called|matching|mentioning)\b/d.exec(t);
        return m === null ? undefined : extracted('yes', [spanOf(m)]);
      },
    },
    {
      // Wants the diagnosis, not just the state: "what's wrong with X", "why is X degraded", "logs of X".
      name: 'diagnose',
      extract: (_q, t) => {
        const logs = allSpans(t, /\b(?:container |pod |its |the )?logs?\b/g);
        const why = allSpans(t, /\bwhat'?s (?:wrong|up|going on|happening)\b|\bwhy\b|\b(?:diagnos\w*|troubleshoot\w*|debug)\b|\b(?:warning )?events?\b|\bcrash\w*\b/g);
        if (logs.length > 0) return extracted('logs', [...logs, ...why]);
        return why.length > 0 ? extracted('yes', why) : undefined;
      },
    },
    {
      name: 'count',
      extract: (_q, t) => {
        const spans = allSpans(t, /\bhow many\b|\bnumber of\b|\bcount(?: of)?\b|\btotal(?: number)?(?: of)?\b|\bhow much\b/g);
        return spans.length > 0 ? extracted('yes', spans) : undefined;
      },
    },
    {
      // "without a tier label" / "with a tier label": whether the label exists (selector "!tier" / "tier").
      name: 'label_exists',
      extract: (_q, t) => {
        const found = [...t.matchAll(/\b(with|having|without|missing|lacking|no)(?: an?| the| any)? ([a-z0-9][\w./-]*) labels?\b/g)].filter(
          (m) => !['any', 'other', 'the', 'a', 'an', 'this', 'that', 'these', 'those', 'some', 'no'].includes(m[2] ?? ''),
        );
        if (found.length === 0) return undefined;
        return extracted(
          found.map((m) => (['with', 'having'].includes(m[1] ?? '') ? (m[2] ?? '') : `!${m[2] ?? ''}`)),
          found.map((m) => [m.index, m.index + m[0].length] as Span),
        );
      },
    },
    {
      name: 'label',
      extract: (_q, t) => {
        const found = [...t.matchAll(/(?:\b(?:with |having |carrying )?(?:the )?(?:labels?|labell?ed|tagged)(?: with)? )?([a-z0-9][\w./-]*)\s*(!=|=)\s*([\w.-]+)/g)];
        if (found.length === 0) return undefined;
        return extracted(
          found.map((m) => `${m[1]}${m[2]}${m[3]}`),
          found.map((m) => [m.index, m.index + m[0].length] as Span),
        );
      },
    },
    {
      name: 'query',
      extract: (_q, t) => {
        const found = firstName(t, [
          /\b(?:search|look) (?:(?:the )?(?:apps|applications|argo(?: ?cd)?|everything) )?for\s+["']?([\w./:@=-]+)/d,
          /\banything (?:named|called) ["']?([\w./:@=-]+)/d,
          /(?:find|search(?: for)?|look(?:ing)? for|anything (?:about|on|related to|for)|everything (?:about|for|on)|related to|where(?: is|'s) (?:the )?)\s*["']?([\w./:@=-]+)/d,
          /\b(?:mentions?|matching|containing|named like)\s+["']?([\w./:@=-]+)/d,
        ]);
        if (found === undefined || /^(app|apps|application|applications|the)$/.test(found.value)) return undefined;
        return named(found);
      },
    },
    {
      name: 'application',
      extract: (_q, t) => {
        const inClusters = clusters(t)?.value;
        const taken = new Set([projectOf(t)?.value, namespaceOf(t)?.value, ...(inClusters === undefined ? [] : typeof inClusters === 'string' ? [inClusters] : inClusters)]);
        const names = [...t.matchAll(/(?<![\w./=:@-])([a-z0-9]+(?:-[a-z0-9]+)+)(?![\w./=@-]|:\/\/)/g)].filter(
          (m) => !NOT_NAMES.has(m[1] ?? '') && !taken.has(m[1]) && !/^\d{4}-\d{2}-\d{2}$/.test(m[1] ?? ''),
        );
        const first = names[0];
        if (first?.[1] !== undefined) return extracted(first[1], [[first.index, first.index + first[0].length]]);
        // "app guestbook", "application guestbook's status": a plain word is a name only where a name ends the phrase.
        const app = firstName(t, [new RegExp(`\\b(?:app|application) ${NAME}(?='s\\b|[?.!,]|$| (?:is|status|health|details|state)\\b)`, 'd')]);
        return app === undefined || ['in', 'on', 'for', 'with', 'that', 'is', 'are'].includes(app.value) ? undefined : named(app);
      },
    },
  ];
}

/**
 * Words the agent understands beyond its entities: verbs of asking, the nouns of its domain, filler. A word outside
 * this list and outside every entity is "unused": the answer says it was not applied. Deliberately absent: "not",
 * "no", "or", "except", "without", "top", numbers, superlatives: words that change what is asked.
 */
export const UNDERSTOOD_WORDS = [
  // asking
  'list', 'lists', 'show', 'display', 'get', 'give', 'tell', 'see', 'view', 'print', 'find', 'search', 'look', 'looking', 'check', 'fetch', 'pull', 'report',
  'which', 'what', 'whats', "what's", 'where', 'how', 'are', 'is', "isn't", 'am', 'was', 'were', 'be', 'been', 'being', 'there', "there's", 'any', 'anything', 'all', 'every', 'each', 'only', 'just', 'also',
  'both', 'currently', 'current', 'now', 'right', 'moment', 'still', 'me', 'us', 'i', "i'd", 'we', 'you', 'my', 'our', 'your', 'please', 'pls', 'kindly', 'can', 'could', 'would', 'will', 'should',
  'do', 'does', 'did', 'have', 'has', 'had', 'got', 'want', 'need', 'like', 'know', 'let', 'hey', 'hi', 'hello', 'thanks', 'thank', 'ok', 'okay', 'quick', 'quickly', 'again',
  'the', 'a', 'an', 'of', 'in', 'on', 'at', 'to', 'for', 'with', 'by', 'from', 'into', 'and', 'that', 'those', 'these', 'them', 'they', 'one', 'ones', 'it', 'its', 'their', 'whose', 'as', 'so', 'some',
  'here', 'tell', 'about', 'overview', 'summary', 'summarise', 'summarize', 'state', 'states', 'status', 'statuses', 'sync', 'health', 'running', 'deployed', 'managed', 'live', 'exist', 'exists',
  // the domain
  'app', 'apps', 'application', 'applications', 'deployment', 'deployments', 'service', 'services', 'workload', 'workloads', 'argo', 'argocd', 'argo-cd', 'gitops', 'cd',
  'project', 'projects', 'cluster', 'clusters', 'namespace', 'namespaces', 'ns', 'team', 'teams', 'label', 'labels', 'env', 'environment', 'environments', 'name', 'names', 'named', 'called',
  'appset', 'appsets', 'applicationset', 'applicationsets', 'set', 'sets', 'registered', 'connected', 'connection', 'deploy', 'target', 'targets', 'destination', 'destinations',
  'details', 'detail', 'describe', 'info', 'information', 'resources', 'resource', 'history', 'last', 'wrong', 'up', 'going', 'happening', 'why', 'inspect', 'logs', 'log', 'events', 'event',
  'attention', 'problem', 'problems', 'issue', 'issues', 'trouble', 'broken', 'failing', 'fire', 'needs', 'need', 'require', 'requires', 'my', 'look', 'wrong',
  'help', 'support', 'use', 'ask', 'can', 'do', 'next', 'page', 'batch', 'more', 'previous', 'filter', 'narrow', 'down', 'those', 'these', 'related', 'everything', 'mentions', 'mention', 'matching',
  'containing', 'contains', 'repo', 'repos', 'repository', 'repositories', 'source', 'sources', 'git',
  'refresh', 'fresh', 'uncached', 'latest', 'real-time', 'realtime', 'up-to-date',
  'connect', 'connecting', 'connections', 'reach', 'reached',
  'who', 'whom', 'when', 'revision', 'commit', 'version', 'image', 'images', 'running', 'runs', 'run', 'live', 'lives', 'go', 'goes', 'deploys', 'sync',
  'finished', 'done', 'completed', 'yet', 'stopped', 'syncing', 'deploying', 'breakdown',
  'many', 'much', 'number', 'count', 'total', 'owned', 'owns', 'belonging', 'belong', 'belongs', 'per', 'grouped', 'group', 'breakdown', 'across', 'auto', 'synced',
] as const;

/** Phrases read as a whole: the question's intent words ("needs attention", "what can you do"). */
const UNDERSTOOD_PHRASES: readonly RegExp[] = [
  /\bon fire\b/g,
  /\bgoing on\b/g,
  /\bright now\b/g,
  /\bat the moment\b/g,
  /\bapplication sets?\b/g,
  // "degraded or missing": both statuses are read (any of them).
  /(?<=\b(?:healthy|unhealthy|degraded|progressing|suspended|missing|paused),?) (?:or|and)(?= (?:healthy|unhealthy|degraded|progressing|suspended|missing|paused)\b)/g,
  // "healthy but out of sync": "but" joins two statuses (both apply); "everything but the healthy ones" is not this.
  /(?<=\b(?:healthy|unhealthy|degraded|synced|in sync|out of sync|progressing|suspended|missing) )but(?= (?:not |also )?(?:out of sync|out-of-sync|synced|in sync|healthy|unhealthy|degraded|progressing|suspended|missing)\b)/g,
];

const UNDERSTOOD: readonly RegExp[] = [
  understoodWords(UNDERSTOOD_WORDS),
  ...UNDERSTOOD_PHRASES,
];

/**
 * What a typo may be read as: the words that carry meaning here, never filler (a "went" read as "want" would
 * silently drop a word that changes the question).
 */
const TYPO_VOCABULARY = [
  'which', 'what', 'describe', 'details', 'status', 'health', 'summary',
  'application', 'applications', 'deployments', 'services', 'workloads', 'projects', 'project', 'clusters', 'cluster', 'namespace', 'namespaces',
  'environment', 'production', 'staging', 'development', 'label', 'labels', 'team', 'owned', 'repository', 'repo', 'source',
  'sync', 'synced', 'unsynced', 'outofsync', 'drifted', 'drifting', 'degraded', 'healthy', 'unhealthy', 'progressing', 'missing', 'suspended', 'paused',
  'attention', 'problems', 'broken', 'failing', 'failed', 'many', 'number', 'count', 'total', 'created', 'deployed',
  'minutes', 'hours', 'days', 'weeks', 'yesterday', 'today', 'since', 'history', 'resources', 'events', 'logs', 'wrong',
  'applicationsets', 'appsets', 'connected', 'registered', 'operation', 'operations', 'automated',
];

for (const w of [
  ...UNDERSTOOD_WORDS,
  ...TYPO_VOCABULARY,
  'synced', 'unsynced', 'drifted', 'drifting', 'degraded', 'healthy', 'unhealthy', 'progressing', 'missing', 'suspended', 'paused', 'broken', 'failing', 'failed',
  'erroring', 'running', 'new', 'old', 'other', 'some', 'more', 'most', 'top', 'recent', 'latest', 'oldest', 'newest', 'biggest', 'largest', 'small', 'big', 'manual', 'automated',
  'oos', 'stg', 'prd', 'labelled', 'labeled', 'tagged', 'named', 'called', 'pending', 'crashing', 'crashlooping', 'restarting', 'unavailable', 'down', 'dead',
  'cost', 'costly', 'expensive', 'cheap', 'critical', 'important', 'legacy', 'active', 'inactive', 'stale', 'orphaned', 'deleted', 'ready', 'unready', 'available',
]) {
  KNOWN_BEFORE_NOUN.add(w);
}

/**
 * One application named with the singular noun: "show the payments-api-prod application", "application X", "the X
 * app". It asks for that application, not for a list (a hyphenated name, so "the payments app" stays a list).
 */
const ONE_APP = /(?<![\w./=-])[a-z0-9]+(?:-[a-z0-9]+)+ (?:app|application)(?!s|[\w-])|\b(?:app|application) [a-z0-9]+(?:-[a-z0-9]+)+(?![\w./=-])/;

const rules: readonly IntentRule<ArgoIntent>[] = [
  {
    intent: 'search',
    complexity: 'simple',
    patterns: [
      { pattern: /\b(find|search|look(ing)? for|anything (about|on|related to|for|named|called)|everything (about|for|on)|related to|where (is|'s)|mentions?|matching|containing)\b/, weight: 0.9 },
    ],
    requires: ['query'],
    unless: [/\bnames?\b/],
  },
  {
    intent: 'application_details',
    complexity: 'simple',
    patterns: [
      { pattern: /\b(status|details?|describe|info(rmation)?|health|state|resources|history|last sync|logs?|events?) (of|for|on|about|from)\b/, weight: 0.9 },
      { pattern: /^(show|tell|give)( me)?( the)?( app(lication)?)? [a-z0-9]+(-[a-z0-9]+)+[?.!]?$/, weight: 0.9 },
      { pattern: /^(describe|inspect|check|details?)\b/, weight: 0.88 },
      { pattern: /\b(is|are) [a-z0-9]+(-[a-z0-9]+)+ (healthy|synced|in sync|degraded|ok|okay|up|deployed|broken|out of sync)/, weight: 0.92 },
      { pattern: /what'?s (wrong|up|going on|happening) with|why is .* (degraded|out of sync|failing|broken|progressing|unhealthy|missing|suspended)|why (did|does) .* (fail|break)/, weight: 0.92 },
      { pattern: /^(app|application) [a-z0-9]/, weight: 0.85 },
      { pattern: /\bwhen (was|did|were) [a-z0-9]+(-[a-z0-9]+)+ (last )?(synced|sync|deployed|updated|created)\b/, weight: 0.9 },
      { pattern: /\bwho (last )?(synced|deployed|updated|triggered|started)\b.*\b[a-z0-9]+(-[a-z0-9]+)+/, weight: 0.9 },
      { pattern: /\b(has|is|did) [a-z0-9]+(-[a-z0-9]+)+ (finished|done|completed|still|stopped) ?(syncing|deploying|rolling out|sync|deploy)?\b/, weight: 0.9 },
      { pattern: /\b(which|what) (revision|version|commit|image|images|repo|repository|source|cluster|namespace|project)\b.*\b[a-z0-9]+(-[a-z0-9]+)+\b/, weight: 0.88 },
      { pattern: /\bwhere (does|is|do) [a-z0-9]+(-[a-z0-9]+)+ (deploy|deployed|run|running|live|go)\b/, weight: 0.9 },
      { pattern: /^[a-z0-9]+(-[a-z0-9]+)+ (status|health|details|state|sync)[?]?$/, weight: 0.9 },
      { pattern: /\b[a-z0-9]+(-[a-z0-9]+)+'s (logs?|events?|status|health|details|state|resources|history)\b/, weight: 0.9 },
      { pattern: /^[a-z0-9]+(-[a-z0-9]+)+[?]?$/, weight: 0.85 },
      { pattern: ONE_APP, weight: 0.9 },
    ],
    requires: ['application'],
  },
];

export interface ArgoCdClassifierOptions {
  /** The clock time windows ("in the last hour") are measured from; Date.now by default. */
  readonly now?: (() => number) | undefined;
}

/** The Argo CD agent's rules classifier: intents and entities from the phrasings engineers type, every word accounted for. */
export function createArgoCdClassifier(options: ArgoCdClassifierOptions = {}): RulesClassifier<ArgoIntent> {
  return createRulesClassifier<ArgoIntent>({
    rules,
    entities: entities(options.now ?? Date.now),
    fallback: 'unknown',
    understood: UNDERSTOOD,
    vocabulary: TYPO_VOCABULARY,
    known: [...UNDERSTOOD_WORDS, 'minute', 'hour', 'day', 'week', 'month', 'months', 'year', 'mins', 'hrs', 'past', 'last', 'apps', 'syncs', 'went', 'sent', 'want'],
    namePrefixes: ['project', 'cluster', 'namespace', 'ns', 'team', 'app', 'application', 'named', 'called', 'by', 'find', 'search', 'for', 'about'],
  });
}
