import { createRulesClassifier, understoodWords, type EntityExtractor, type Extracted, type IntentRule, type RulesClassifier, type Span } from '@flotilla/agent-kit';

/** What the NetBox agent can be asked. */
export const NETBOX_INTENTS = [
  'list_sites',
  'list_devices',
  'device_details',
  'site_interfaces',
  'prefix_free',
  'prefix_used',
  'search',
  'next_page',
  'refine',
  'summary',
  // A typed query (agent.ts reads the question as one when the rules do not answer it), and a follow-up of one.
  'query',
  'query_followup',
  'help',
  'unknown',
] as const;
export type NetBoxIntent = (typeof NETBOX_INTENTS)[number];

/** Device role words as people say them, to NetBox role slugs. */
const ROLE_WORDS: readonly (readonly [RegExp, string])[] = [
  [/\bconsole[ -]servers?\b/, 'console-server'],
  [/\b(switch|switches)\b/, 'switch'],
  [/\b(routers?)\b/, 'router'],
  [/\b(firewalls?|fws?)\b/, 'firewall'],
  [/\b(servers?|hosts?)\b/, 'server'],
  [/\b(pdus?|power strips?)\b/, 'pdu'],
];
const STATUS_WORDS = ['active', 'offline', 'planned', 'failed', 'staged', 'decommissioning', 'inventory', 'deprecated', 'reserved', 'container'] as const;

/** The first pattern's group 1, with the whole match as the span it was read from. */
const first = (text: string, patterns: readonly RegExp[]): Extracted | undefined => {
  for (const pattern of patterns) {
    const m = pattern.exec(text);
    if (m?.[1] !== undefined) return { value: m[1], spans: [[m.index, m.index + m[0].length]] };
  }
  return undefined;
};
/** `value` when `pattern` matches, every match read. */
const when = (text: string, pattern: RegExp, value: string): Extracted | undefined => {
  const spans = [...text.matchAll(new RegExp(pattern.source, pattern.flags.includes('g') ? pattern.flags : `${pattern.flags}g`))].map((m) => [m.index, m.index + m[0].length] as Span);
  return spans.length === 0 ? undefined : { value, spans };
};
const valueOf = (found: Extracted | undefined): string | undefined => (typeof found?.value === 'string' ? found.value : undefined);

/** A device name: two or more hyphens (ams1-sw-001, fra1-rtr-01). */
const DEVICE = /(?<![\w./-])([a-z0-9]+(?:-[a-z0-9]+){2,})(?![\w./-])/;
/** A site slug on its own: three or four letters and a number (ams1, fra2), not part of a device name. */
const SITE = /(?<![\w./-])([a-z]{2,4}\d{1,2})(?![\w./-])/;
const CIDR = /(?<![\w.:])((?:\d{1,3}\.){3}\d{1,3}\/\d{1,2}|[0-9a-f]{1,4}(?::[0-9a-f]{0,4}){2,7}\/\d{1,3})(?![\w.:])/;

const entities: readonly EntityExtractor[] = [
  {
    name: 'site',
    extract: (_q, t) => {
      // Device names are blanked with spaces of the same length, so offsets stay those of the question.
      const found = first(t.replace(new RegExp(DEVICE.source, 'g'), (m) => ' '.repeat(m.length)), [new RegExp(`(?:\\bsite )?${SITE.source}`)]);
      return found;
    },
  },
  { name: 'device', extract: (_q, t) => first(t, [new RegExp(`(?:\\bdevice )?${DEVICE.source}`)]) },
  {
    name: 'role',
    extract: (_q, t) => {
      for (const [pattern, slug] of ROLE_WORDS) {
        const found = when(t, pattern, slug);
        if (found !== undefined) return found;
      }
      return undefined;
    },
  },
  {
    name: 'status',
    extract: (_q, t) => {
      for (const status of STATUS_WORDS) {
        // "decommissioned" and "being decommissioned" are how people say NetBox's "decommissioning".
        const found = when(t, status === 'decommissioning' ? /\b(?:being )?decommission(?:ing|ed)\b/ : new RegExp(`\\b${status}\\b`), status);
        if (found !== undefined) return found;
      }
      return undefined;
    },
  },
  { name: 'tag', extract: (_q, t) => first(t, [/\btagged (?:with )?["']?([\w-]+)/, /\bwith (?:the )?tag ["']?([\w-]+)/, /\btag ["']?([\w-]+)/]) },
  {
    name: 'prefix',
    extract: (_q, t) => {
      const cidr = first(t, [new RegExp(`(?:\\b(?:prefix|subnet|network) )?${CIDR.source}`)]);
      if (cidr !== undefined) return cidr;
      // One address ("what is 10.1.0.1?") is the /32 that holds only it.
      const ip = first(t, [/(?:\b(?:ip|address|ip address) )?(?<![\w.:/])((?:\d{1,3}\.){3}\d{1,3})(?![\w.:/])/]);
      return ip === undefined ? undefined : { value: `${String(ip.value)}/32`, spans: ip.spans };
    },
  },
  {
    name: 'region',
    extract: (_q, t) => {
      const regions: readonly (readonly [RegExp, string])[] = [
        [/\b(?:europe|european|emea|eu)\b/, 'europe'],
        [/\b(?:north america|north american|americas|usa|na)\b/, 'north-america'],
        [/\b(?:asia pacific|asia-pacific|apac|asia|apj)\b/, 'asia-pacific'],
        [/\b(?:south america|latam|latin america)\b/, 'south-america'],
        [/\bafrica\b/, 'africa'],
      ];
      for (const [pattern, slug] of regions) {
        const found = when(t, pattern, slug);
        if (found !== undefined) return found;
      }
      return undefined;
    },
  },
  { name: 'vid', extract: (_q, t) => first(t, [/\bvlan (?:id )?(\d{1,4})\b/, /\bvid (\d{1,4})\b/]) },
  {
    name: 'query',
    extract: (_q, t) => {
      const found = first(t, [/(?:find|search(?: for)?|look(?:ing)? (?:for|up)|where(?: is|'s)(?: the)?|anything (?:about|on|named|called))\s+["']?([\w./:@-]{2,})/]);
      return found === undefined || /^(the|a|an|device|site)$/.test(valueOf(found) ?? '') ? undefined : found;
    },
  },
  { name: 'quick', extract: (_q, t) => when(t, /\b(?:quick look|quick|sample|sampled|glance|rough idea|spot check)\b/, 'yes') },
  { name: 'all', extract: (_q, t) => when(t, /\b(?:all of them|get all|full analysis|everything|exact|the rest)\b/, 'yes') },
  {
    name: 'state',
    extract: (_q, t) =>
      when(t, /\b(?:uncabled|unconnected|not cabled|not connected|without (?:a )?cables?)\b/, 'cabled=false') ??
      when(t, /\b(?:cabled|connected)\b/, 'cabled=true') ??
      when(t, /\b(?:disabled|shut ?down|admin down)\b/, 'enabled=false') ??
      when(t, /\benabled\b/, 'enabled=true'),
  },
  {
    // "by role", "per site": no tool here breaks a list down; named as not applied (filterEntities) when asked.
    name: 'group_by',
    extract: (_q, t) => first(t, [/\b(?:per|by|for each|grouped by|group by|broken down by|breakdown by|split by) (site|role|status|rack|type|manufacturer|vlan|tag)s?\b(?! [a-z]{2,4}\d)/]),
  },
];

/**
 * Words the NetBox agent understands beyond its entities; anything else in a question is reported as not
 * understood (never silently dropped). Deliberately absent: "not", "no", "or", "except", "without", numbers.
 */
export const NETBOX_UNDERSTOOD_WORDS = [
  'list', 'show', 'display', 'get', 'give', 'tell', 'see', 'view', 'print', 'find', 'search', 'look', 'looking', 'check', 'fetch', 'pull', 'report',
  'which', 'what', 'whats', "what's", 'where', 'how', 'many', 'much', 'number', 'count', 'total', 'are', 'is', 'am', 'was', 'were', 'be', 'been', 'there', "there's", 'any', 'anything', 'all', 'every', 'each',
  'only', 'just', 'also', 'both', 'currently', 'current', 'now', 'right', 'still', 'me', 'us', 'i', 'we', 'you', 'my', 'our', 'your', 'please', 'pls', 'can', 'could', 'would', 'will',
  'do', 'does', 'did', 'have', 'has', 'had', 'got', 'want', 'need', 'know', 'let', 'hey', 'hi', 'hello', 'thanks', 'thank', 'ok', 'okay', 'again',
  'the', 'a', 'an', 'of', 'in', 'on', 'at', 'to', 'for', 'with', 'by', 'from', 'into', 'and', 'that', 'those', 'these', 'them', 'they', 'one', 'ones', 'it', 'its', 'their', 'as', 'so', 'some', 'here', 'about',
  'netbox', 'dcim', 'ipam', 'inventory', 'site', 'sites', 'datacenter', 'datacenters', 'data', 'center', 'centre', 'centers', 'centres', 'location', 'locations', 'pop', 'pops',
  'device', 'devices', 'box', 'boxes', 'hardware', 'equipment', 'node', 'nodes', 'interface', 'interfaces', 'port', 'ports', 'nic', 'nics', 'cable', 'cables', 'cabling', 'connection', 'connections',
  'patch', 'patches', 'link', 'links', 'vlan', 'vlans', 'vid', 'id', 'prefix', 'prefixes', 'subnet', 'subnets', 'network', 'networks', 'ip', 'ips', 'address', 'addresses', 'space',
  'free', 'available', 'unused', 'spare', 'unallocated', 'used', 'assigned', 'taken', 'allocated', 'use', 'utilisation', 'utilization', 'usage', 'full', 'inside',
  'status', 'details', 'detail', 'describe', 'info', 'information', 'inspect', 'state', 'role', 'roles', 'type', 'tag', 'tagged', 'named', 'called', 'name',
  'help', 'support', 'ask', 'next', 'more', 'page', 'batch', 'previous', 'continue', 'going', 'keep', 'go', 'summary', 'summarise', 'summarize', 'overview', 'totals', 'counts', 'numbers', 'instead',
  'rack', 'mounted', 'located', 'model', 'owns', 'uses', 'who', 'region', 'regions',
  'filter', 'narrow', 'down', 'rest', 'exact', 'everything', 'quick', 'sample', 'sampled', 'glance', 'rough', 'idea', 'spot', 'retry', 'try', 'read', 'analysis',
] as const;

const NETBOX_UNDERSTOOD: readonly RegExp[] = [
  understoodWords(NETBOX_UNDERSTOOD_WORDS),
  /\bin use\b/g,
];

/** Words a typo may be read as: the ones that carry meaning here. */
const NETBOX_TYPO_VOCABULARY = [
  'which', 'what', 'sites', 'devices', 'device', 'interfaces', 'interface', 'cables', 'vlans', 'prefixes', 'prefix', 'subnets', 'addresses', 'address',
  'switches', 'switch', 'routers', 'router', 'firewalls', 'firewall', 'servers', 'server', 'active', 'offline', 'planned', 'failed', 'staged', 'decommissioning', 'inventory',
  'available', 'assigned', 'allocated', 'utilisation', 'utilization', 'details', 'status', 'summary', 'tagged', 'uncabled', 'cabled', 'connected', 'disabled', 'enabled', 'many', 'count',
];

const INTERFACES = String.raw`\b(interfaces?|ports?|nics?)\b`;

const rules: readonly IntentRule<NetBoxIntent>[] = [
  {
    intent: 'prefix_free',
    complexity: 'simple',
    patterns: [
      { pattern: /\b(free|available|unused|spare|unallocated)\b.*\b(ips?|addresses|space)\b/, weight: 0.92 },
      { pattern: /\b(ips?|addresses|space)\b.*\b(are |is )?(free|available|unused|spare|unallocated|left)\b/, weight: 0.93 },
      { pattern: /\b(utili[sz]ation|usage|how full)\b/, weight: 0.9 },
    ],
    requires: ['prefix'],
  },
  {
    intent: 'prefix_used',
    complexity: 'simple',
    patterns: [
      { pattern: /\b(used|assigned|taken|allocated|in use)\b.*\b(ips?|addresses)\b/, weight: 0.92 },
      { pattern: /\b(ips?|ip addresses|addresses)\b.*\b(in|of|inside) (prefix )?(\d{1,3}\.){3}\d{1,3}\//, weight: 0.88 },
      // One address: who has it ("what is 10.1.0.1?", "which device is 10.5.0.4 assigned to?").
      { pattern: /^(what|who|which device|where)\b.*\b(\d{1,3}\.){3}\d{1,3}(?![\d/])|\b(who|which device|what device) (has|uses|owns|is)\b.*\b(\d{1,3}\.){3}\d{1,3}(?![\d/])/, weight: 0.9 },
    ],
    requires: ['prefix'],
  },
  {
    intent: 'site_interfaces',
    complexity: 'complex',
    patterns: [
      { pattern: new RegExp(`${INTERFACES}.*\\b(every|all|each)\\b.*\\b(devices?|switch|switches|routers?|firewalls?|servers?|pdus?)\\b`), weight: 0.93 },
      { pattern: new RegExp(`\\b(every|all|each)\\b.*\\b(devices?|switch|switches|routers?|firewalls?|servers?)\\b.*${INTERFACES}`), weight: 0.93 },
      { pattern: new RegExp(`${INTERFACES}\\b.*\\b(in|at|of|for) (site )?[a-z]{2,4}\\d{1,2}\\b`), weight: 0.88 },
    ],
    unless: [DEVICE],
    requires: ['site'],
  },
  {
    intent: 'search',
    complexity: 'simple',
    patterns: [{ pattern: /\b(find|search|look(ing)? (for|up)|where (is|'s)|anything (about|on|named|called))\b/, weight: 0.9 }],
    requires: ['query'],
  },
];

/** The agent is read-only: a question that asks for a change matches no intent. */
const WRITES = /^(please |can you |could you )?(delete|remove|create|add|reboot|restart|reset|power (on|off|cycle)|change|update|rename|assign|provision|decommission|move)\b/;

/** The NetBox agent's rules classifier. */
export function createNetBoxClassifier(): RulesClassifier<NetBoxIntent> {
  const readOnly = rules.map((rule) => ({ ...rule, unless: [...(rule.unless ?? []), WRITES] }));
  return createRulesClassifier<NetBoxIntent>({
    rules: readOnly,
    entities,
    fallback: 'unknown',
    understood: NETBOX_UNDERSTOOD,
    vocabulary: NETBOX_TYPO_VOCABULARY,
    known: [...NETBOX_UNDERSTOOD_WORDS, 'cabled', 'uncabled', 'unconnected', 'shutdown', 'down'],
    namePrefixes: ['site', 'device', 'tag', 'tagged', 'named', 'called', 'find', 'search', 'for', 'about'],
  });
}
