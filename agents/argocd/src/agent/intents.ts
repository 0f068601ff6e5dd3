import { createRulesClassifier, type EntityExtractor, type IntentRule, type RulesClassifier } from '@flotilla/agent-kit';

/** What the Argo CD agent can be asked. */
export const ARGOCD_INTENTS = [
  'list_applications',
  'application_details',
  'search',
  'attention',
  'list_projects',
  'list_applicationsets',
  'list_clusters',
  'next_page',
  'refine',
  'help',
  'unknown',
] as const;
export type ArgoIntent = (typeof ARGOCD_INTENTS)[number];

/** Words that look like resource names but are not. */
const NOT_NAMES = new Set(['out-of-sync', 'self-heal', 'auto-sync', 'follow-up', 'set-up', 'read-only', 'up-to-date', 'k8s', 'argo-cd']);
const ENV_WORDS: Readonly<Record<string, string>> = {
  prod: 'prod',
  production: 'prod',
  staging: 'staging',
  stage: 'staging',
  dev: 'dev',
  development: 'dev',
  qa: 'qa',
  perf: 'perf',
};
/** A word on its own: not part of a hyphenated name such as payments-api-prod. */
const word = (w: string): string => `(?<![\\w-])${w}(?![\\w-])`;
const NAME = '([a-z0-9][a-z0-9.-]*[a-z0-9])';

/** Words that follow "project"/"cluster" in a sentence without being its name ("the payments-prod project are…"). */
const NOT_A_NAME = new Set(['are', 'is', 'in', 'on', 'with', 'that', 'which', 'has', 'have', 'the', 'a', 'an', 'and', 'for', 'of', 'to', 'where', 'what', 'named', 'called']);

const first = (text: string, patterns: readonly RegExp[]): string | undefined => {
  for (const re of patterns) {
    const match = re.exec(text);
    if (match?.[1] !== undefined && !NOT_A_NAME.has(match[1])) return match[1];
  }
  return undefined;
};

const projectOf = (t: string): string | undefined =>
  first(t, [new RegExp(`\\bproject ${NAME}`), new RegExp(`\\b${NAME} project\\b`)]);
const clusterOf = (t: string): string | undefined =>
  first(t, [
    new RegExp(`\\bcluster ${NAME}`),
    new RegExp(`\\b${NAME} cluster\\b`),
    /(?<![\w-])(in-cluster|(?:prod|staging|dev|qa|perf)-[a-z]{2}-\d+)(?![\w-])/,
  ]);
const namespaceOf = (t: string): string | undefined => first(t, [new RegExp(`\\b(?:namespace|ns) ${NAME}`), new RegExp(`\\b${NAME} namespace\\b`)]);

const entities: readonly EntityExtractor[] = [
  {
    name: 'sync',
    extract: (_q, t) =>
      /out[ -]of[ -]sync|outofsync|not (?:in )?sync(?:ed)?|unsynced|drift(?:ed|ing)?/.test(t)
        ? 'OutOfSync'
        : /sync(?: status)? (?:is )?unknown|unknown sync/.test(t)
          ? 'Unknown'
          : new RegExp(`${word('in sync')}|${word('synced')}`).test(t)
            ? 'Synced'
            : undefined,
  },
  {
    name: 'health',
    extract: (_q, t) =>
      /degraded|unhealthy|broken|failing/.test(t)
        ? 'Degraded'
        : /progressing|rolling out/.test(t)
          ? 'Progressing'
          : new RegExp(word('missing')).test(t)
            ? 'Missing'
            : /suspended|paused/.test(t)
              ? 'Suspended'
              : new RegExp(word('healthy')).test(t)
                ? 'Healthy'
                : undefined,
  },
  {
    name: 'env',
    extract: (_q, t) => {
      const match = new RegExp(word(`(${Object.keys(ENV_WORDS).join('|')})`)).exec(t);
      return match?.[1] === undefined ? undefined : ENV_WORDS[match[1]];
    },
  },
  { name: 'team', extract: (_q, t) => first(t, [new RegExp(`\\bteam ${NAME}`), new RegExp(`\\bowned by ${NAME}`), new RegExp(`\\b${NAME} team\\b`)]) },
  { name: 'project', extract: (_q, t) => projectOf(t) },
  { name: 'cluster', extract: (_q, t) => clusterOf(t) },
  { name: 'namespace', extract: (_q, t) => namespaceOf(t) },
  {
    name: 'label',
    extract: (_q, t) => {
      const pairs = [...t.matchAll(/([a-z0-9][\w./-]*)\s*(!=|=)\s*([\w.-]+)/g)].map((m) => `${m[1]}${m[2]}${m[3]}`);
      return pairs.length > 0 ? pairs : undefined;
    },
  },
  {
    name: 'query',
    extract: (_q, t) =>
      first(t, [
        /(?:find|search(?: for)?|look(?:ing)? for|anything (?:about|on|related to|for)|everything (?:about|for|on)|related to|where(?: is|'s) (?:the )?)\s*["']?([\w./:@=-]+)/,
        /\b(?:mentions?|matching|containing|named like)\s+["']?([\w./:@=-]+)/,
      ])?.replace(/^(app|apps|application|applications|the)$/, ''),
  },
  {
    name: 'application',
    extract: (_q, t) => {
      const taken = new Set([projectOf(t), clusterOf(t), namespaceOf(t)]);
      const names = [...t.matchAll(/(?<![\w./=-])([a-z0-9]+(?:-[a-z0-9]+)+)(?![\w./=-])/g)]
        .map((m) => m[1] ?? '')
        .filter((n) => !NOT_NAMES.has(n) && !taken.has(n));
      const named = first(t, [new RegExp(`\\b(?:app|application) ${NAME}`)]);
      return names[0] ?? (named !== undefined && !['in', 'on', 'for', 'with', 'that', 'is', 'are'].includes(named) ? named : undefined);
    },
  },
  {
    name: 'page',
    extract: (_q, t) => {
      if (/\b(previous|prev|back)\b/.test(t)) return 'previous';
      const n = /\bpage (\d{1,4})\b/.exec(t)?.[1];
      return n ?? (/\b(next|more|continue|keep going)\b/.test(t) ? 'next' : undefined);
    },
  },
];

const APPS = String.raw`\b(apps?|applications?|deployments?|services)\b`;
const LISTY = String.raw`\b(list|show|which|what|get|give|display|all|every|how many|count|any)\b`;
const NOT_APPSETS = /\b(application ?sets?|appsets?)\b/;

const rules: readonly IntentRule<ArgoIntent>[] = [
  {
    intent: 'next_page',
    complexity: 'simple',
    patterns: [
      { pattern: /^(next|more|continue|keep going|go on|previous|prev|back)\b/, weight: 0.95 },
      { pattern: /^(show |give me )?(the )?(next|more|previous)( page| ones| results| \d+)?[.!?]?$/, weight: 0.95 },
      { pattern: /^(show |go to )?page \d+/, weight: 0.95 },
    ],
  },
  {
    intent: 'refine',
    complexity: 'simple',
    patterns: [
      { pattern: /^(only|just) (the |those |ones )?/, weight: 0.9 },
      { pattern: /^(filter|narrow)( (it|that|them|those))? (to|by|on|down)\b/, weight: 0.9 },
      { pattern: /^(and|now) (only|just)\b/, weight: 0.9 },
      { pattern: /^of (those|these|them)\b/, weight: 0.88 },
    ],
  },
  {
    intent: 'help',
    complexity: 'simple',
    patterns: [
      { pattern: /^(help|\?)$/, weight: 0.95 },
      { pattern: /what can you (do|tell)|how (do|can) i (use|ask)|what do you (know|support)/, weight: 0.92 },
    ],
  },
  {
    intent: 'attention',
    complexity: 'complex',
    patterns: [
      { pattern: /(needs?|requires?|need) (my |our )?attention/, weight: 0.92 },
      { pattern: /\b(what|anything|which|any)\b.*\b(broken|wrong|failing|problems?|issues?|unhealthy or out of sync|on fire)\b/, weight: 0.86 },
      { pattern: /^(what'?s|what is) (broken|failing|wrong)/, weight: 0.92 },
      { pattern: /\b(problems?|issues?|trouble)\b.*\b(argo|apps?|applications?|deployments?)\b/, weight: 0.86 },
    ],
    unless: [/\bwith [a-z0-9]+-[a-z0-9-]+/],
  },
  {
    intent: 'list_applicationsets',
    complexity: 'simple',
    patterns: [{ pattern: NOT_APPSETS, weight: 0.9 }],
  },
  {
    intent: 'list_projects',
    complexity: 'simple',
    patterns: [
      { pattern: new RegExp(`${LISTY}.*\\bprojects\\b`), weight: 0.9 },
      { pattern: /^projects\b/, weight: 0.9 },
    ],
    unless: [new RegExp(APPS)],
  },
  {
    intent: 'list_clusters',
    complexity: 'simple',
    patterns: [
      { pattern: new RegExp(`${LISTY}.*\\bclusters\\b`), weight: 0.9 },
      { pattern: /^clusters\b/, weight: 0.9 },
      { pattern: /\bclusters?\b.*\b(connected|registered|do we (have|deploy|use)|are there|failing to connect)\b/, weight: 0.88 },
      { pattern: /\bwhere do we deploy\b/, weight: 0.85 },
    ],
    unless: [new RegExp(APPS), /\bon cluster\b/],
  },
  {
    intent: 'search',
    complexity: 'simple',
    patterns: [
      { pattern: /\b(find|search|look(ing)? for|anything (about|on|related to|for)|everything (about|for|on)|related to|where (is|'s)|mentions?|matching|containing)\b/, weight: 0.9 },
    ],
    requires: ['query'],
  },
  {
    intent: 'application_details',
    complexity: 'simple',
    patterns: [
      { pattern: /\b(status|details?|describe|info(rmation)?|health|state|resources|history|last sync) (of|for|on|about)\b/, weight: 0.9 },
      { pattern: /^(show|tell|give)( me)?( the)?( app(lication)?)? [a-z0-9]+(-[a-z0-9]+)+[?.!]?$/, weight: 0.9 },
      { pattern: /^(describe|inspect|check|details?)\b/, weight: 0.88 },
      { pattern: /\b(is|are) [a-z0-9]+(-[a-z0-9]+)+ (healthy|synced|in sync|degraded|ok|okay|up|deployed|broken|out of sync)/, weight: 0.92 },
      { pattern: /what'?s (wrong|up|going on|happening) with|why is .* (degraded|out of sync|failing|broken|progressing)/, weight: 0.92 },
      { pattern: /^(app|application) [a-z0-9]/, weight: 0.85 },
      { pattern: /^[a-z0-9]+(-[a-z0-9]+)+[?]?$/, weight: 0.85 },
    ],
    requires: ['application'],
  },
  {
    intent: 'list_applications',
    complexity: 'simple',
    patterns: [
      { pattern: new RegExp(`${LISTY}.*${APPS}`), weight: 0.9 },
      { pattern: new RegExp(`${APPS}.*\\b(out of sync|out-of-sync|degraded|healthy|unhealthy|synced|progressing|missing|suspended|in|on|for|owned by|with)\\b`), weight: 0.86 },
      { pattern: new RegExp(`^${APPS}`), weight: 0.85 },
      { pattern: /\b(what|which|anything)\b.*\b(is|are) (out of sync|out-of-sync|degraded|unhealthy|progressing|missing|suspended|drifting)\b/, weight: 0.88 },
      { pattern: /^(what'?s|whats|what is|which are) (out[ -]of[ -]sync|degraded|unhealthy|progressing|missing|suspended|drifting)\b/, weight: 0.88 },
    ],
    // "Problems", "broken", "attention" ask for everything that needs a look: the attention intent.
    unless: [NOT_APPSETS, /\b(problems?|issues?|trouble|wrong|broken|attention)\b/],
    boostedBy: ['sync', 'health', 'env', 'project', 'cluster', 'namespace', 'team', 'label'],
  },
];

/** The Argo CD agent's rules classifier: intents and entities from the phrasings engineers type. */
export function createArgoCdClassifier(): RulesClassifier<ArgoIntent> {
  return createRulesClassifier<ArgoIntent>({ rules, entities, fallback: 'unknown' });
}
