/**
 * Generated NetBox questions (issue 31): queries sampled from a model of the problem (devices filtered on site,
 * region, role, status, manufacturer, tenant and platform, negated or OR-ed; counts and lists; breakdowns by one or
 * two fields; rankings; comparisons of two sites; named fields of one device; a device's interfaces by admin state,
 * cabling and type; requests to act; VLANs, prefixes, cables and racks by site, status, role, type and VLAN ID),
 * with values from the simulator's estate, each rendered through one of several
 * independent phrasings (templates, synonyms, word orders, names or slugs, typos in words and in names). Each expected
 * answer is computed here, straight from the raw estate, by the simple readings below: never by the agent's planner.
 * `pnpm test` asks a few hundred (test/typed-answers.test.ts); `pnpm bench -- --suites answers` asks 3,000.
 */
import { createRng, type NetBoxCable, type NetBoxDevice, type NetBoxInterface, type Rng } from '@flotilla/simulators';
import { count, deviceList, facts, names, type Estates, type Expectation } from './answer-questions.js';

export const NETBOX_CONSTRUCTIONS = ['filter_count', 'filter_list', 'breakdown', 'top', 'compare', 'fields', 'interfaces', 'action', 'ipam_cabling'] as const;
export type NetBoxConstruction = (typeof NETBOX_CONSTRUCTIONS)[number];

export interface NetBoxTypedQuestion {
  readonly construction: NetBoxConstruction;
  readonly ask: string;
  readonly expect: Expectation;
}

type Field = 'site' | 'region' | 'role' | 'status' | 'manufacturer' | 'tenant' | 'platform';

/** How a person says a role: the noun of the sentence ("switches"), or the role named ("role switch"). */
const ROLE_NOUNS: Readonly<Record<string, readonly string[]>> = {
  switch: ['switches', 'network switches'],
  router: ['routers'],
  firewall: ['firewalls'],
  server: ['servers'],
  pdu: ['pdus', 'PDUs'],
  'console-server': ['console servers'],
};
const STATUS_WORDS: Readonly<Record<string, readonly string[]>> = {
  active: ['active'],
  offline: ['offline'],
  planned: ['planned'],
  staged: ['staged'],
  failed: ['failed'],
  decommissioning: ['decommissioning'],
  inventory: ['inventory'],
};
const NOUNS = ['devices', 'boxes', 'network devices'];
const VERBS: Readonly<Record<string, readonly string[]>> = { decommission: ['decommission', 'retire'], delete: ['delete', 'remove'], restart: ['reboot', 'restart'], change: ['rename', 'edit'] };
const PROJECTED = ['serial', 'platform', 'rack', 'site', 'role', 'manufacturer', 'tenant', 'device_type', 'status', 'primary_ip'] as const;
const PROJECTED_WORDS: Readonly<Record<(typeof PROJECTED)[number], readonly string[]>> = {
  serial: ['serial number', 'serial'],
  platform: ['platform', 'os'],
  rack: ['rack'],
  site: ['site'],
  role: ['role'],
  manufacturer: ['manufacturer', 'vendor'],
  tenant: ['tenant'],
  device_type: ['device type', 'model'],
  status: ['status'],
  primary_ip: ['primary ip', 'management ip'],
};
const GROUP_WORDS: Readonly<Record<Field, readonly string[]>> = {
  site: ['site'],
  region: ['region'],
  role: ['role'],
  status: ['status'],
  manufacturer: ['manufacturer', 'vendor'],
  tenant: ['tenant'],
  platform: ['platform'],
};
const PLURAL: Readonly<Record<Field, string>> = { site: 'sites', region: 'regions', role: 'roles', status: 'statuses', manufacturer: 'manufacturers', tenant: 'tenants', platform: 'platforms' };

/** Two neighbouring letters swapped, in a word or a name of 5 characters or more. */
const swapped = (w: string): string => (w.length >= 5 && /^[a-z]/.test(w) ? `${w.slice(0, 2)}${w[3] ?? ''}${w[2] ?? ''}${w.slice(4)}` : w);
const squash = (s: string): string => s.replace(/\s+/g, ' ').trim();
const NONE = '(none)';

/** The simple readings of the estate every expectation is computed from. */
function readings(d: Estates) {
  const regionOf = new Map(d.sites.map((s) => [s.slug, s.region?.slug ?? NONE]));
  const get: Readonly<Record<Field, (x: NetBoxDevice) => string>> = {
    site: (x) => x.site.slug,
    region: (x) => regionOf.get(x.site.slug) ?? NONE,
    role: (x) => x.role.slug,
    status: (x) => x.status.value,
    manufacturer: (x) => x.device_type.manufacturer.slug,
    tenant: (x) => x.tenant?.slug ?? NONE,
    platform: (x) => x.platform?.slug ?? NONE,
  };
  /** What an answer may show for a value: NetBox's name or its slug. */
  const shown = new Map<string, Set<string>>();
  const see = (f: Field, slug: string, name: string): void => {
    const k = `${f}:${slug}`;
    const s = shown.get(k) ?? new Set([slug]);
    s.add(name);
    shown.set(k, s);
  };
  for (const x of d.devices) {
    see('site', x.site.slug, x.site.name);
    see('role', x.role.slug, x.role.name);
    see('manufacturer', x.device_type.manufacturer.slug, x.device_type.manufacturer.name);
    if (x.tenant !== null && x.tenant !== undefined) see('tenant', x.tenant.slug, x.tenant.name);
    if (x.platform !== null && x.platform !== undefined) see('platform', x.platform.slug, x.platform.name);
  }
  for (const s of d.sites) if (s.region !== null && s.region !== undefined) see('region', s.region.slug, s.region.name);
  const shownAs = (f: Field, v: string): string[] => [...(shown.get(`${f}:${v}`) ?? [v])];
  const values = (f: Field): string[] => [...new Set(d.devices.map(get[f]))].filter((v) => v !== NONE).sort();
  const nameOf = (f: Field, v: string): string => shownAs(f, v).find((s) => s !== v) ?? v;
  return { get, values, shownAs, nameOf };
}

/** `n` NetBox questions, the same for the same seed and estate. */
export function netboxTypedQuestions(d: Estates, n: number, seed = 31): NetBoxTypedQuestion[] {
  const rng = createRng(seed);
  const r = readings(d);
  const out: NetBoxTypedQuestion[] = [];
  const typo = (text: string, p: number): string => (rng.next() < p ? text.split(' ').map((w, i, all) => (i === all.length - 1 ? swapped(w) : w)).join(' ') : text);
  /** A filter in words, and whether it names the sentence's noun (a role: "switches"). */
  const phrase = (f: Field, v: string, negated: boolean): { text: string; noun: boolean } => {
    const no = negated;
    switch (f) {
      case 'site': {
        const w = typo(rng.pick([v, v.toUpperCase()]), 0.2);
        return { text: no ? rng.pick([`not in ${w}`, `outside ${w}`]) : rng.pick([`in ${w}`, `at ${w}`, `in site ${w}`]), noun: false };
      }
      case 'region': {
        const w = r.nameOf('region', v).toLowerCase();
        return { text: no ? `not in ${w}` : rng.pick([`in ${w}`, `in the ${w} region`]), noun: false };
      }
      case 'role': {
        if (no) return { text: rng.pick([`that are not ${ROLE_NOUNS[v]?.[0] ?? v}`, `whose role is not ${v}`]), noun: false };
        const w = rng.pick(ROLE_NOUNS[v] ?? [`${v}s`]);
        return rng.next() < 0.7 ? { text: typo(w, 0.15), noun: true } : { text: `with role ${v}`, noun: false };
      }
      case 'status': {
        const w = typo(rng.pick(STATUS_WORDS[v] ?? [v]), 0.2);
        return { text: no ? rng.pick([`that are not ${w}`, `that aren't ${w}`, `not ${w}`]) : rng.pick([`that are ${w}`, `with status ${w}`, `in status ${w}`]), noun: false };
      }
      case 'manufacturer': {
        const w = rng.pick([r.nameOf('manufacturer', v), v]);
        return { text: no ? rng.pick([`not made by ${w}`, `whose manufacturer is not ${w}`]) : rng.pick([`made by ${w}`, `from ${w}`, `with manufacturer ${w}`, `from vendor ${w}`]), noun: false };
      }
      case 'tenant': {
        const w = rng.pick([v, r.nameOf('tenant', v)]);
        return { text: no ? `not owned by tenant ${w}` : rng.pick([`of tenant ${w}`, `owned by tenant ${w}`, `for tenant ${w}`]), noun: false };
      }
      case 'platform': {
        const w = rng.pick([v, r.nameOf('platform', v)]);
        return { text: no ? `whose platform is not ${w}` : rng.pick([`running ${w}`, `on platform ${w}`, `with platform ${w}`]), noun: false };
      }
    }
  };
  const FILTERS: readonly Field[] = ['site', 'region', 'role', 'status', 'manufacturer', 'tenant', 'platform'];
  const pickValue = (f: Field): string => rng.pick(f === 'status' ? r.values('status').filter((s) => s !== 'inventory') : r.values(f));
  /** A sentence of a noun and its filters: "switches in ams1 that are planned", "devices made by Arista". */
  const sentence = (lead: string, parts: readonly { text: string; noun: boolean }[]): string => {
    const noun = parts.find((p) => p.noun);
    const rest = parts.filter((p) => p !== noun).map((p) => p.text);
    return squash(`${lead} ${noun?.text ?? rng.pick(NOUNS)} ${rest.join(' and ').replace(/ and (that|whose|with|not|in|at|of|for|made|from|running|on|owned)/g, ' $1')}`);
  };
  const one = (): { f: Field; v: string } | undefined => (rng.next() < 0.4 ? undefined : ((f: Field) => ({ f, v: pickValue(f) }))(rng.pick<Field>(['role', 'status', 'manufacturer', 'site'])));
  const keep = (c: { f: Field; v: string } | undefined) => (x: NetBoxDevice): boolean => c === undefined || r.get[c.f](x) === c.v;
  const ifaceCount = (list: readonly NetBoxInterface[]): Expectation => count(list.length);

  while (out.length < n) {
    const construction = NETBOX_CONSTRUCTIONS[out.length % NETBOX_CONSTRUCTIONS.length] as NetBoxConstruction;
    switch (construction) {
      case 'filter_count':
      case 'filter_list': {
        const f1 = rng.pick(FILTERS);
        const negated = rng.next() < 0.25 && f1 !== 'region';
        const values1 = negated || f1 === 'role' ? [pickValue(f1)] : rng.shuffle(r.values(f1)).slice(0, rng.int(1, 2));
        const f2 = rng.next() < 0.5 ? rng.pick(FILTERS.filter((f) => f !== f1 && !(f === 'region' && f1 === 'site') && !(f === 'site' && f1 === 'region'))) : undefined;
        const v2 = f2 === undefined ? undefined : pickValue(f2);
        let first: { text: string; noun: boolean };
        if (values1.length === 2) {
          const [a, b] = values1 as [string, string];
          const pa = phrase(f1, a, false).text;
          const pb = phrase(f1, b, false).text;
          // "in ams1 or in fra1" / "in ams1 or fra1": the OR-list, its field said once or twice.
          first = { text: rng.next() < 0.5 ? `${pa} or ${pb}` : `${pa} or ${pb.replace(/^(in site|in|at|made by|from vendor|from|with manufacturer|of tenant|owned by tenant|for tenant|running|on platform|with platform|that are|with status|in status|with role) /, '')}`, noun: false };
        } else first = phrase(f1, values1[0] ?? '', negated);
        const second = f2 === undefined || v2 === undefined ? undefined : phrase(f2, v2, false);
        // Two nouns ("switches" and "firewalls") make no sentence: the second role is said by its field.
        const parts = second !== undefined && first.noun && second.noun ? [first, { text: `with role ${v2 ?? ''}`, noun: false }] : second === undefined ? [first] : [first, second];
        const lead = construction === 'filter_count' ? rng.pick(['how many', 'count', 'number of', 'count the']) : rng.pick(['list', 'show me', 'which are the', 'show', 'list all']);
        const ask = sentence(lead, parts);
        const matching = d.devices.filter((x) => values1.includes(r.get[f1](x)) !== negated).filter((x) => f2 === undefined || r.get[f2](x) === v2);
        // A list over 2,000 is a question nobody asks a chat for; its count is.
        if (construction === 'filter_list' && matching.length > 200) continue;
        out.push({ construction, ask, expect: construction === 'filter_count' ? count(matching.length) : deviceList(d, matching) });
        break;
      }
      case 'breakdown': {
        const by = rng.shuffle<Field>(['site', 'region', 'role', 'status', 'manufacturer', 'tenant', 'platform']).slice(0, rng.next() < 0.3 ? 2 : 1);
        const [g1, g2] = by as [Field, Field | undefined];
        const c = one();
        if (c !== undefined && by.includes(c.f)) continue;
        const p = c === undefined ? undefined : phrase(c.f, c.v, false);
        const w1 = rng.pick(GROUP_WORDS[g1]);
        const subject = p === undefined ? rng.pick(NOUNS) : p.noun ? p.text : `${rng.pick(NOUNS)} ${p.text}`;
        const ask =
          g2 === undefined
            ? rng.pick([`how many ${subject} per ${w1}`, `${subject} by ${w1}`, `${w1} breakdown of ${subject}`, `count ${subject} grouped by ${w1}`, `${subject} broken down by ${w1}`])
            : rng.pick([`${subject} by ${w1} and ${rng.pick(GROUP_WORDS[g2])}`, `count ${subject} per ${w1} and ${rng.pick(GROUP_WORDS[g2])}`]);
        const matching = d.devices.filter(keep(c));
        const groups = new Map<string, { key: string[]; n: number }>();
        for (const x of matching) {
          const key = by.map((f) => r.get[f](x));
          const id = key.join('\u0000');
          const grp = groups.get(id);
          if (grp === undefined) groups.set(id, { key, n: 1 });
          else grp.n += 1;
        }
        const ranked = [...groups.values()].sort((a, b) => b.n - a.n);
        const best = ranked[0];
        if (best === undefined) continue;
        // The biggest group's row, its key as NetBox names it or by its slug; ties of it are any one of them.
        const rows = ranked
          .filter((g) => g.n === best.n)
          .flatMap((g) => {
            const alts = g.key.map((k, i) => (k === NONE ? [NONE, '(no value)', 'none', '—', ''] : r.shownAs(by[i] as Field, k)));
            const [a0 = [], a1] = alts;
            return a1 === undefined ? a0.map((x) => `| ${x} | ${g.n} |`) : a0.flatMap((x) => a1.map((y) => `| ${x} | ${y} | ${g.n} |`));
          });
        out.push({ construction, ask: squash(typo(ask, 0.15)), expect: facts([`${matching.length} devices`, `${matching.length} device`], rows) });
        break;
      }
      case 'top': {
        const by = rng.pick<Field>(['site', 'manufacturer', 'tenant', 'platform', 'region']);
        const c = one();
        if (c !== undefined && c.f === by) continue;
        const p = c === undefined ? undefined : phrase(c.f, c.v, false);
        const subject = p === undefined ? rng.pick(NOUNS) : p.noun ? p.text : `${rng.pick(NOUNS)} ${p.text}`;
        const ask = rng.pick([`which ${rng.pick(GROUP_WORDS[by])} has the most ${subject}`, `which ${PLURAL[by]} have the most ${subject}`, `top 3 ${PLURAL[by]} by number of ${subject}`]);
        const groups = new Map<string, number>();
        for (const x of d.devices.filter(keep(c))) groups.set(r.get[by](x), (groups.get(r.get[by](x)) ?? 0) + 1);
        const ranked = [...groups.entries()].filter(([k]) => k !== NONE).sort((a, b) => b[1] - a[1]);
        const best = ranked[0];
        if (best === undefined) continue;
        const tied = ranked.filter(([, k]) => k === best[1]).flatMap(([v]) => r.shownAs(by, v));
        out.push({ construction, ask: squash(ask), expect: facts(tied, ` ${best[1]} `) });
        break;
      }
      case 'compare': {
        const [a, b] = rng.shuffle(r.values('site')) as [string, string];
        const role = rng.next() < 0.6 ? pickValue('role') : undefined;
        const subject = role === undefined ? rng.pick(NOUNS) : rng.pick(ROLE_NOUNS[role] ?? [`${role}s`]);
        const ask = rng.pick([`are there more ${subject} in ${a} or ${b}?`, `compare ${subject} in ${a} and ${b}`, `${a} vs ${b} ${subject}`, `does ${a} have more ${subject} than ${b}?`, `which has more ${subject}, ${a} or ${b}?`]);
        const of = (site: string): number => d.devices.filter((x) => x.site.slug === site && (role === undefined || x.role.slug === role)).length;
        const na = of(a);
        const nb = of(b);
        out.push({ construction, ask: squash(ask), expect: facts(na === nb ? ['same'] : na > nb ? [`${a} has more`] : [`${b} has more`], ` ${Math.max(na, nb)}`, ` ${Math.min(na, nb)}`) });
        break;
      }
      case 'fields': {
        const x = rng.pick(d.devices);
        const field = rng.pick(PROJECTED);
        const w = rng.pick(PROJECTED_WORDS[field]);
        const name = typo(x.name, 0.1);
        const ask = rng.pick([`what is the ${w} of ${name}?`, `${w} of ${name}`, `show me the ${w} of ${name}`, `${name} ${w}`, `which ${w} does ${name} have?`]);
        const value: readonly string[] =
          field === 'serial'
            ? [x.serial === '' ? 'none' : x.serial]
            : field === 'platform'
              ? x.platform === null || x.platform === undefined ? ['none', 'not set', 'no platform'] : [x.platform.name, x.platform.slug]
              : field === 'rack'
                ? [x.rack?.name ?? 'none']
                : field === 'site'
                  ? [x.site.slug, x.site.name]
                  : field === 'role'
                    ? [x.role.slug, x.role.name]
                    : field === 'manufacturer'
                      ? [x.device_type.manufacturer.name, x.device_type.manufacturer.slug]
                      : field === 'tenant'
                        ? x.tenant === null || x.tenant === undefined ? ['none', 'not set'] : [x.tenant.name, x.tenant.slug]
                        : field === 'device_type'
                          ? [x.device_type.model, x.device_type.slug]
                          : field === 'status'
                            ? [x.status.value, x.status.label]
                            : [x.primary_ip4?.address ?? x.primary_ip?.address ?? 'none'];
        out.push({ construction, ask, expect: facts(x.name, value) });
        break;
      }
      case 'interfaces': {
        const x = rng.pick(d.devices.filter((dev) => d.interfaces.some((i) => i.device.id === dev.id)));
        const own = d.interfaces.filter((i) => i.device.id === x.id);
        const state = rng.pick(['disabled', 'enabled', 'uncabled', 'cabled', 'type'] as const);
        const types = [...new Set(own.map((i) => i.type.value))];
        const type = rng.pick(types);
        const keepIf = (i: NetBoxInterface): boolean =>
          state === 'disabled' ? !i.enabled : state === 'enabled' ? i.enabled : state === 'uncabled' ? i.cable === null : state === 'cabled' ? i.cable !== null : i.type.value === type;
        const word = state === 'type' ? type : state === 'disabled' ? rng.pick(['disabled', 'admin down']) : state === 'uncabled' ? rng.pick(['uncabled', 'unused', 'not cabled']) : state;
        const noun = rng.pick(['interfaces', 'ports']);
        const counted = rng.next() < 0.6;
        const matching = own.filter(keepIf);
        const ask = counted
          ? rng.pick([`how many ${word} ${noun} does ${x.name} have?`, `how many ${noun} on ${x.name} are ${word}`, `count the ${word} ${noun} of ${x.name}`])
          : rng.pick([`list the ${word} ${noun} of ${x.name}`, `which ${noun} on ${x.name} are ${word}?`, `show ${word} ${noun} on ${x.name}`]);
        // A list says its total and names only the device's interfaces that match (every one, up to 50).
        out.push({ construction, ask, expect: counted ? ifaceCount(matching) : names(matching.map((i) => i.name), new Set(own.map((i) => i.name.toLowerCase()))) });
        break;
      }
      case 'ipam_cabling': {
        out.push(ipamQuestion(d, rng));
        break;
      }
      case 'action': {
        const x = rng.pick(d.devices).name;
        const verb = rng.pick(Object.keys(VERBS));
        const v = rng.pick(VERBS[verb] ?? [verb]);
        out.push({ construction, ask: rng.pick([`${v} ${x}`, `please ${v} the device ${x}`, `can you ${v} ${x}?`, `${v} ${x} now`]), expect: { kind: 'cannot' } });
        break;
      }
    }
  }
  return out;
}

/** Cable types people group as fibre and as copper (NetBox's type slugs). */
const FIBRE = new Set(['mmf', 'mmf-om1', 'mmf-om2', 'mmf-om3', 'mmf-om4', 'mmf-om5', 'smf', 'smf-os1', 'smf-os2', 'aoc']);
const COPPER = new Set(['cat3', 'cat5', 'cat5e', 'cat6', 'cat6a', 'cat7', 'cat7a', 'cat8', 'dac-active', 'dac-passive']);

/**
 * One question about VLANs, prefixes, cables or racks. Expected answers read the raw estate: a cable is at a site,
 * and of a device, when either end is; "fibre" and "copper" are the type families above; a VLAN is named by its ID.
 */
function ipamQuestion(d: Estates, rng: Rng): NetBoxTypedQuestion {
  const construction = 'ipam_cabling' as const;
  const sites = [...new Set(d.sites.map((s) => s.slug))];
  const spell = (w: string): string => (rng.next() < 0.15 ? swapped(w) : rng.next() < 0.3 ? w.toUpperCase() : w);
  const at = (site: string): string => rng.pick([`at ${spell(site)}`, `in ${spell(site)}`, `in site ${spell(site)}`]);
  const counted = rng.next() < 0.45;
  const lead = (noun: string): string => (counted ? rng.pick([`how many ${noun}`, `number of ${noun}`, `count the ${noun}`]) : rng.pick([`list the ${noun}`, `show ${noun}`, `which ${noun}`, noun]));
  const endDevices = (c: NetBoxCable): string[] => [...c.a_terminations, ...c.b_terminations].map((t) => t.object.device.name);
  const siteOfDevice = new Map(d.devices.map((x) => [x.name, x.site.slug]));
  switch (rng.int(0, 7)) {
    case 0: {
      // VLANs of a site, perhaps by status.
      const site = rng.pick(sites);
      const st = rng.next() < 0.4 ? rng.pick(['active', 'reserved', 'deprecated']) : undefined;
      const set = d.vlans.filter((v) => v.site?.slug === site && (st === undefined || v.status.value === st));
      const ask = squash(`${lead(`${st ?? ''} ${rng.pick(['vlans', 'VLANs'])}`)} ${at(site)}`);
      return { construction, ask, expect: counted ? count(set) : names(set.map((v) => v.name), d.names.vlans) };
    }
    case 1: {
      // VLANs by ID ("vlan 120"), perhaps at a site.
      const vid = rng.pick([...new Set(d.vlans.map((v) => v.vid))]);
      const site = rng.next() < 0.5 ? rng.pick(sites) : undefined;
      const set = d.vlans.filter((v) => v.vid === vid && (site === undefined || v.site?.slug === site));
      const ask = squash(`${counted ? 'how many sites have' : rng.pick(['show', 'list', ''])} vlan ${vid} ${site === undefined ? '' : at(site)}`);
      return { construction, ask, expect: counted ? count(set) : names(set.map((v) => v.name), d.names.vlans) };
    }
    case 2: {
      // Prefixes of a site, perhaps by status or IPAM role.
      const site = rng.pick(sites);
      const pick = rng.int(0, 2);
      const st = pick === 1 ? rng.pick(['active', 'reserved', 'deprecated', 'container']) : undefined;
      const role = pick === 2 ? rng.pick([...new Set(d.prefixes.flatMap((p) => (p.role === null ? [] : [p.role.slug])))]) : undefined;
      const set = d.prefixes.filter((p) => p.site?.slug === site && (st === undefined || p.status.value === st) && (role === undefined || p.role?.slug === role));
      const noun = rng.pick(['prefixes', 'subnets']);
      const ask = squash(`${lead(`${st ?? ''} ${role ?? ''} ${noun}`)} ${at(site)}`);
      return { construction, ask, expect: counted ? count(set) : names(set.map((p) => p.prefix), d.names.prefixes) };
    }
    case 3: {
      // Prefixes by status across sites, or a breakdown by status.
      if (rng.next() < 0.5) {
        const groups = new Map<string, number>();
        for (const p of d.prefixes) groups.set(p.status.value, (groups.get(p.status.value) ?? 0) + 1);
        const [top] = [...groups].sort((a, b) => b[1] - a[1]);
        return { construction, ask: rng.pick(['prefixes by status', 'how many prefixes per status', 'prefix status breakdown']), expect: facts(`${d.prefixes.length} prefixes`, `| ${top?.[0] ?? ''} | ${top?.[1] ?? 0} |`) };
      }
      const st = rng.pick(['reserved', 'deprecated', 'container']);
      const set = d.prefixes.filter((p) => p.status.value === st);
      return { construction, ask: squash(lead(`${st} prefixes`)), expect: counted ? count(set) : names(set.map((p) => p.prefix), d.names.prefixes) };
    }
    case 4: {
      // Cables at a site, perhaps by status or type family: counted.
      const site = rng.pick(sites);
      const pick = rng.int(0, 2);
      const st = pick === 1 ? rng.pick(['connected', 'planned', 'decommissioning']) : undefined;
      const family = pick === 2 ? rng.pick(['fibre', 'fiber', 'copper']) : undefined;
      const types = family === undefined ? undefined : family === 'copper' ? COPPER : FIBRE;
      const set = d.cables.filter((c) => endDevices(c).some((x) => siteOfDevice.get(x) === site) && (st === undefined || c.status.value === st) && (types === undefined || types.has(c.type)));
      const ask = squash(`${rng.pick(['how many', 'number of', 'count the'])} ${st ?? ''} ${family ?? ''} cables ${at(site)}`);
      return { construction, ask, expect: count(set) };
    }
    case 5: {
      // Cables of one device: counted.
      const x = rng.pick(d.devices.filter((dev) => d.cables.some((c) => endDevices(c).includes(dev.name))));
      const set = d.cables.filter((c) => endDevices(c).includes(x.name));
      const ask = rng.pick([`how many cables does ${x.name} have?`, `number of cables on ${x.name}`, `count the cables of device ${x.name}`]);
      return { construction, ask, expect: count(set) };
    }
    case 6: {
      // Racks of a site.
      const site = rng.pick(sites);
      const set = d.racks.filter((r) => r.site.slug === site);
      const ask = squash(`${lead(rng.pick(['racks', 'cabinets']))} ${at(site)}`);
      return { construction, ask, expect: counted ? count(set) : names(set.map((r) => r.name), d.names.racks) };
    }
    default: {
      // What is in one rack: its devices.
      const rack = rng.pick(d.racks.filter((r) => d.devices.some((x) => x.rack?.name === r.name)));
      const set = d.devices.filter((x) => x.rack?.name === rack.name);
      const ask = rng.pick([`what's in rack ${rack.name}`, `devices in rack ${rack.name}`, `which devices are in rack ${rack.name}?`, `how many devices are in rack ${rack.name}?`]);
      return { construction, ask, expect: ask.startsWith('how many') ? count(set) : deviceList(d, set) };
    }
  }
}
