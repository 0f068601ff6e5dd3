import { createDomainWorkflow, type DomainAgentOptions } from '@flotilla/agent-host';
import { actPage, actTurn, EDITS_LAST_ENTITY, typedPageTurn, boundedMemoryStore, combineTurns, CONFIDENCE_THRESHOLD, liveParser, readableParts, routingReading, mcpToolCaller, oneValue, parseMemo, reasoningWords, typedAnswers, typedOf, typedTurn, type Classification, type MemoryStore, type TurnResult, type TypedQuestion } from '@flotilla/agent-kit';
import type { FlotillaMetrics } from '@flotilla/metrics';
import { applyEdit, conditionsOf, createParser, multiFields, NO_EDIT, readAct, type ConversationAct, type Edited, type Lexicon, type Parser, type Query, type Where } from '@flotilla/query';
import type { ProgressiveSession, RateState, SessionStore } from '@flotilla/limitations';
import { NETBOX_DOMAIN } from '../query/declare.js';
import { createNetBoxDomain } from './domain.js';
import { createNetBoxClassifier, type NetBoxIntent } from './intents.js';
import { NETBOX_OUTPUT_SCHEMAS } from '../tools/tools.js';
import { detailsClassification, listClassification, listQueryOf } from './typed-list.js';
import { lastQuery } from './typed.js';

/** Standalone questions whose answers may be reused (continuations such as "next page" never are). */
export const CACHEABLE_INTENTS: readonly NetBoxIntent[] = ['query', 'list_sites', 'list_devices', 'device_details', 'site_interfaces', 'prefix_free', 'prefix_used', 'search', 'help'];

/**
 * The shared workflow's options (an MCP client to the NetBox MCP server, …; `memoryStore` holds the conversations'
 * progressive sessions), and NetBox's own.
 */
export interface NetBoxAgentOptions extends DomainAgentOptions<NetBoxIntent, ProgressiveSession> {
  /** Progressive sessions kept here instead of `memoryStore` (files: a restarted agent continues "next batch"). */
  readonly sessions?: SessionStore | undefined;
  /** The shared rate limiter's state, when the tools run in this process. */
  readonly rate?: (() => RateState | undefined) | undefined;
  /** Where the lexicon's size is reported (`flotilla_store_entries{store="lexicon"}`). */
  readonly metrics?: FlotillaMetrics | undefined;
  /** Aborted when the agent closes: the lexicon's reads stop with it. */
  readonly lifetime?: AbortSignal | undefined;
  /**
   * Read NetBox's names (sites, roles, tenants, device names...) into the typed reader's lexicon as the agent starts
   * and every few minutes (default true); false: the declared words only, no request of its own.
   */
  readonly liveLexicon?: boolean | undefined;
  /** Told when the lexicon has read the estate's names (the card then carries them for the supervisor's router). */
  readonly onLexicon?: ((lexicon: Lexicon) => void) | undefined;
}

/** The intent rules' filter entities, as the typed query's fields ("state" is cabled or enabled, by its value). */
function oldFields(c: Classification<NetBoxIntent>): Set<string> {
  const out = new Set<string>();
  for (const [k, v] of Object.entries(c.entities)) {
    if (k === 'state') out.add((oneValue(v) ?? '').split('=')[0] ?? '');
    else if (k === 'device') out.add('name');
    // A region the rules read but their device lists do not apply ("I did not apply region europe"): not theirs.
    else if (['site', 'role', 'status', 'tag'].includes(k)) out.add(k);
  }
  return out;
}
/** Whether the rules filter on the same fields as the typed reading (a device list, interfaces of a device or a site). */
function sameFields(c: Classification<NetBoxIntent>, query: Query): boolean {
  const old = oldFields(c);
  const typed = new Set(conditionsOf(query.where).map((x) => x.field));
  return old.size === typed.size && [...old].every((f) => typed.has(f));
}
/** Whether a where negates anything (the rules have no negation). */
const hasNot = (w: Where | undefined): boolean => w !== undefined && (w.op === 'not' || ((w.op === 'and' || w.op === 'or') && w.of.some(hasNot)));
/** The fields that place a part elsewhere than the part before it (a site, a region, a device). */
const PLACE_FIELDS: ReadonlySet<string> = new Set(['site', 'region', 'name', 'device', 'rack']);
/** Intents the typed query does not model: their questions stay with the rules. */
const RULES_ONLY: ReadonlySet<NetBoxIntent> = new Set(['search', 'prefix_free', 'prefix_used']);
/** Entities only the typed query reads (their intent rules are gone). */
const TYPED_ONLY: ReadonlySet<string> = new Set(['vlans', 'prefixes', 'cables', 'racks']);
/** A comparison of two groups is a typed query: not reasoning the rules cannot do. */
const COUNTED_COMPARISONS = new Set(['compare', 'compared', 'comparing', 'comparison', 'versus', 'vs', 'vs.']);

/** Fields of the stored rows of each list that `read_result`'s "field=value" filter compares, as the query names them. */
const STORED_FIELDS: Readonly<Record<string, ReadonlySet<string>>> = { interfaces: new Set(['cabled', 'enabled']), devices: new Set(['status', 'role']) };

/**
 * The `read_result` filter of an edit that only adds one condition the stored rows hold ("only the uncabled ones"
 * after a stored list of interfaces: cabled=false), or undefined when the edit asks more than a stored list answers.
 */
function storedFilter(previous: Query, edited: Edited): string | undefined {
  const query = edited.query;
  if (edited.kind !== 'refine' || query.what.kind !== 'list' || query.entity !== previous.entity) return undefined;
  const partsOf = (w: Where | undefined): string[] => (w === undefined ? [] : w.op === 'and' ? w.of : [w]).map((x) => JSON.stringify(x));
  const before = new Set(partsOf(previous.where));
  const after = partsOf(query.where);
  if (![...before].every((p) => after.includes(p))) return undefined;
  const added = after.filter((p) => !before.has(p)).map((p) => JSON.parse(p) as Where);
  const [w] = added;
  if (added.length !== 1 || w === undefined || w.op !== 'eq' || STORED_FIELDS[query.entity]?.has(w.field) !== true) return undefined;
  return `${w.field}=${String(w.value)}`;
}

/** A session store as the workflow's memory store: the conversation's progressive session is its memory. */
export function sessionMemory(sessions: SessionStore): MemoryStore<ProgressiveSession> {
  return {
    load: (contextId) => sessions.get(contextId),
    save: (contextId, memory) => (memory === undefined ? sessions.delete(contextId) : sessions.put({ ...memory, contextId })),
  };
}

/**
 * The NetBox agent: the kit's workflow with the NetBox intents, limitation handling and presentation rules, and the
 * typed reading (NETBOX_DOMAIN) for what the rules do not read completely: actions, breakdowns, rankings, comparisons,
 * named fields, fields the rules have no words for (tenant, manufacturer, platform, rack, speed...), negations, and
 * follow-ups of a typed answer. See docs/ARCHITECTURE.md, "A typed question".
 */
export function createNetBoxAgent(options: NetBoxAgentOptions) {
  const classifier = createNetBoxClassifier();
  // One memory for the workflow and the typed reading, which looks at the last answer to tell an edit of it.
  const memoryStore = options.sessions === undefined ? (options.memoryStore ?? boundedMemoryStore<ProgressiveSession>()) : sessionMemory(options.sessions);
  const workflow = createDomainWorkflow({
    ...options,
    classifier,
    domain: createNetBoxDomain({ rate: options.rate }),
    cacheableIntents: CACHEABLE_INTENTS,
    outputSchemas: NETBOX_OUTPUT_SCHEMAS,
    memoryStore,
  });
  const declaredOnly = createParser(NETBOX_DOMAIN);
  const live = options.liveLexicon === false ? undefined : liveParser(NETBOX_DOMAIN, mcpToolCaller(options.mcp, { schemas: NETBOX_OUTPUT_SCHEMAS }), { metrics: options.metrics, lifetime: options.lifetime, onLoad: options.onLexicon });
  const typed = { current: (): Promise<Parser> => (live === undefined ? Promise.resolve(declaredOnly) : live.current()) };
  // The estate's names are read as the agent starts, not by its first question.
  void typed.current();
  const parseOnce = parseMemo();
  const turn = (t: TypedQuestion, followup: boolean): Classification<NetBoxIntent> => typedTurn<NetBoxIntent>(t, followup);
  async function typedClassification(question: string, contextId: string): Promise<Classification<NetBoxIntent> | undefined> {
    // "next page", "get all", "a quick look instead", "try again", "just the counts", "help": acts on the conversation.
    const act = readAct(question);
    if (act !== undefined) return actClassification(act, contextId);
    if (reasoningWords(question).some((w) => !COUNTED_COMPARISONS.has(w))) return undefined;
    const parser = await typed.current();
    let parsed = parseOnce(parser, question);
    const marks = parsed.edit;
    const follows = marks.anaphora || marks.about || marks.only || marks.leadingAnd || !marks.ownEntity;
    if (parsed.kind === 'action') return turn(typedOf(parsed), false);
    const old = classifier.classify(question);
    // A prefix's free or used addresses are read from its available-ips by the rules' plan.
    if (old.intent === 'prefix_free' || old.intent === 'prefix_used') return undefined;
    const memory = follows ? await memoryStore.load(contextId) : undefined;
    const lastTyped = memory?.tool === 'query';
    // The query the last answer ran: a typed one's, or a list's read back from its tool and arguments.
    const source = memory?.source ?? (memory === undefined ? undefined : { tool: memory.tool, args: memory.args });
    const previous = lastTyped ? lastQuery(memory) : source === undefined ? undefined : listQueryOf(source.tool, source.args);
    // A follow-up that names no entity continues the last answer's ("only the ones in ams1" after interfaces).
    if (previous !== undefined && !marks.ownEntity && parsed.query !== undefined && parsed.query.entity !== previous.entity) parsed = parser.parse(question, Date.now(), { entity: previous.entity });
    // "only"/"and" point back unless the question names its own entity ("just a quick look at the interfaces of …").
    const refers = marks.anaphora || marks.about || ((marks.only || marks.leadingAnd) && !marks.ownEntity);
    // A question that points back ("only the switches", "how many of them are staged?") at a list edits the list's
    // query: listed by the list plan when it applies all of it, else by the query tool, said as carried over. At an
    // answer with no query to edit (a device's details, a prefix's addresses), read on its own it would answer about
    // the whole estate: the rules say what they can do instead.
    if (memory !== undefined && !lastTyped && refers) {
      const edited = previous === undefined ? undefined : applyEdit(parsed, previous, multiFields(NETBOX_DOMAIN, previous.entity));
      // An edit the last answer cannot take (a status of interfaces, a narrowing of a device's details) is said so.
      if (edited === undefined || edited.kind === 'standalone') return { ...actTurn<NetBoxIntent>('unknown', { [EDITS_LAST_ENTITY]: 'yes' }), confidence: 0, unused: parsed.unapplied };
      // A list kept in the result store is narrowed there, without asking NetBox again.
      const filter = memory.resultId === undefined || previous === undefined ? undefined : storedFilter(previous, edited);
      if (filter !== undefined) return actTurn<NetBoxIntent>('refine', { filter });
      const narrowed = { ...parsed, query: edited.query };
      const list = listClassification(narrowed);
      if (list !== undefined) return { ...list, entities: { ...list.entities, [EDITS_LAST_ENTITY]: 'yes' } };
      return turn({ ...typedOf(narrowed, parser.lexicon), carried: 'last' }, true);
    }
    if (parsed.kind === 'empty' || parsed.query === undefined) return undefined;
    // VLANs, prefixes, cables and racks named by the question are the typed reading's alone (it says what it did not
    // apply); a prefix's free or used addresses and a search stay with the rules.
    if (TYPED_ONLY.has(parsed.query.entity) && marks.ownEntity && old.intent !== 'search') return turn(typedOf(parsed, parser.lexicon), lastTyped && follows);
    // Lists of devices and sites (their intent rules are gone) and whatever else the rules do not read are the typed
    // reading's: planned as NetBox's list when the list applies all of it (typed-list.ts), else a typed query, which
    // names the words it did not apply; a question it reads less of than it leaves unread ("what is the weather like in
    // ams1 tomorrow") is the rules' to refuse.
    const readsDomain = parsed.read.some((w) => w.as !== 'guess') && parsed.unapplied.length <= parsed.read.length;
    if (!(lastTyped && follows) && old.intent === 'unknown' && readsDomain) {
      return detailsClassification(parsed) ?? listClassification(parsed) ?? turn(typedOf(parsed, parser.lexicon), false);
    }
    if (!typedAnswers(parsed)) return undefined;
    const oldSure = old.intent !== 'unknown' && old.confidence >= CONFIDENCE_THRESHOLD && (old.unused ?? []).length === 0;
    // What the typed query does not model (search, a prefix's addresses, site batches) stays with the rules;
    // so does a reading the typed parser only guessed ("xyz9" as a device name) where the rules are sure.
    // The rules' guess at an intent they are not sure of ("list prefixes" for "boxes not made by Palo Alto Networks")
    // does not take a question the typed reading reads completely.
    if ((RULES_ONLY.has(old.intent) && oldSure) || (oldSure && parsed.inferred.length > 0)) return undefined;
    const shape = parsed.query.what.kind;
    // A device named alone ("show device x") is the device view (`detailsClassification`, its interfaces and addresses
    // beside it), not a shape only the typed query has; a field asked of it ("serial of x") is the typed projection.
    const what = parsed.query.what;
    const details = NETBOX_DOMAIN.entities.find((e) => e.name === parsed.query?.entity)?.details;
    const detailsOnly = what.kind === 'fields' && details !== undefined && what.fields.length === details.length && what.fields.every((f, i) => f === details[i]);
    const ownShape = shape === 'breakdown' || shape === 'top' || shape === 'compare' || (shape === 'fields' && !detailsOnly);
    const negated = hasNot(parsed.query.where);
    // The rules take a word of a name's shape as a site or device ("amss1"); the typed reader checks names against
    // NetBox's (and corrects them). Before the lexicon is read, nothing is known and the rules' reading stands.
    const namesKnown = parser.lexicon.liveCount === 0 || ['site', 'device'].every((k) => { const v = oneValue(old.entities[k]); return v === undefined || parser.lexicon.spelling.has(v.toLowerCase()); });
    // The rules keep the questions they read completely, on the same fields and names, in a shape they have.
    if (oldSure && !ownShape && !(lastTyped && follows) && !negated && namesKnown && sameFields(old, parsed.query)) return undefined;
    return turn(typedOf(parsed, parser.lexicon), lastTyped && follows);
  }
  /**
   * A conversation act: a page of the last answer (a typed answer's by the typed path), the whole of a sampled answer,
   * a sample of it, the last question again, its totals, or help.
   */
  async function actClassification(act: ConversationAct, contextId: string): Promise<Classification<NetBoxIntent>> {
    switch (act.kind) {
      case 'help':
        return actTurn<NetBoxIntent>('help');
      case 'summary': {
        // The totals of a typed answer are its query counted; of a list, the session's summary.
        const last = lastQuery(await memoryStore.load(contextId));
        if (last === undefined) return actTurn<NetBoxIntent>('summary');
        // Its own subject and what: the count stands as it is, not edited again.
        const edit = { ...NO_EDIT, ownEntity: true, ownWhat: true };
        return turn({ query: { entity: last.entity, ...(last.where === undefined ? {} : { where: last.where }), what: { kind: 'count' } }, edit, unapplied: [], corrections: [], inferred: [], notRead: [], carried: 'last' }, false);
      }
      case 'retry':
        return actTurn<NetBoxIntent>('refine', { again: 'yes' });
      case 'sample':
        return actTurn<NetBoxIntent>('refine', { quick: 'yes' });
      case 'all':
        return actTurn<NetBoxIntent>('refine', { all: 'yes' });
      case 'page': {
        const page = actPage(act) ?? 'next';
        if ((await memoryStore.load(contextId))?.tool === 'query') return typedPageTurn<NetBoxIntent>(page);
        return actTurn<NetBoxIntent>('next_page', { page });
      }
    }
  }
  /** The parts of a question answered one by one (`readableParts`), each read once. */
  async function splitOf(question: string) {
    const parser = await typed.current();
    return readableParts(question, (part) => classifier.classify(part), (part) => parseOnce(parser, part));
  }
  return {
    graph: workflow.graph,
    /** The question as this agent reads it (hybrid mode's router): its typed query when that is the one to answer, else the rules'. */
    async classify(question: string, contextId: string): Promise<Classification<NetBoxIntent>> {
      return routingReading(question, await splitOf(question), (text) => typedClassification(text, contextId), (text) => classifier.classify(text));
    },
    async ask(question: string, contextId: string, signal?: AbortSignal, classification?: Classification<NetBoxIntent>): Promise<TurnResult<NetBoxIntent>> {
      const split = await splitOf(question);
      if (split === undefined) {
        // Given by hybrid mode's router (this agent's `classify`): the typed reading was made there.
        const reading = classification === undefined ? await typedClassification(question, contextId) : undefined;
        return workflow.ask(question, contextId, signal, reading ?? classification);
      }
      // Part by part; a later part with no subject or place of its own ("…, and how many of them are offline?")
      // narrows the part before it: an edit of that part's query, said as carried over.
      const parser = await typed.current();
      const turns: TurnResult<NetBoxIntent>[] = [];
      // The query of the part before, as the typed reading read it: what a later part narrows.
      let previous: Query | undefined;
      for (const [k, part] of split.parts.entries()) {
        const parsed = split.parsed[k];
        if (parsed === undefined) break;
        const scoped = conditionsOf(parsed.query?.where).some((x) => PLACE_FIELDS.has(x.field));
        const edited = previous !== undefined && turns.length > 0 && !parsed.edit.ownEntity && !scoped && parsed.kind === 'query' ? applyEdit({ ...parsed, edit: { ...parsed.edit, anaphora: true } }, previous, multiFields(NETBOX_DOMAIN, previous.entity)) : undefined;
        if (edited !== undefined && edited.kind !== 'standalone') {
          previous = edited.query;
          turns.push(await workflow.ask(part, contextId, signal, turn({ ...typedOf({ ...parsed, query: edited.query }, parser.lexicon), carried: true }, false)));
          continue;
        }
        if (parsed.kind === 'query') previous = parsed.query;
        turns.push(await workflow.ask(part, contextId, signal, (await typedClassification(part, contextId)) ?? split.classified[k]));
      }
      return combineTurns(turns);
    },
  };
}
