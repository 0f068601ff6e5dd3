import { createDomainWorkflow, type DomainAgentOptions } from '@flotilla/agent-host';
import { actPage, actTurn, EDITS_LAST_ENTITY, typedPageTurn, boundedMemoryStore, combineTurns, CONFIDENCE_THRESHOLD, mcpToolCaller, oneValue, readableParts, routingReading, parseMemo, questionParts, reasoningWords, typedTurn, type Classification, type TurnResult } from '@flotilla/agent-kit';
import type { FlotillaMetrics } from '@flotilla/metrics';
import { applyEdit, conditionsOf, multiFields, readAct, type EditMarks, type Lexicon, type Where } from '@flotilla/query';
import { liveParser, typedAnswers, typedOf } from './typed.js';
import { createArgoCdDomain, type ArgoMemory } from './domain.js';
import { createArgoCdClassifier, type ArgoIntent } from './intents.js';
import { attentionClassification, listClassification, listQueryOf } from './typed-list.js';
import { ARGOCD_OUTPUT_SCHEMAS } from '../tools/outputs.js';
import { ARGOCD_DOMAIN } from '../query/declare.js';

/** Standalone questions whose answers may be reused (continuations such as "next page" never are). */
export const CACHEABLE_INTENTS: readonly ArgoIntent[] = ['query', 'list_applications', 'application_details', 'search', 'attention', 'help'];

/** The shared workflow's options (an MCP client to the Argo CD MCP server, …) and the agent's clock. */
export interface ArgoCdAgentOptions extends DomainAgentOptions<ArgoIntent, ArgoMemory> {
  /** The clock "in the last hour" is measured from (Date.now by default; fixed in tests and benchmarks). */
  readonly now?: (() => number) | undefined;
  /** Where the lexicon's size is reported (`flotilla_store_entries{store="lexicon"}`). */
  readonly metrics?: FlotillaMetrics | undefined;
  /** Aborted when the agent closes: the lexicon's reads stop with it. */
  readonly lifetime?: AbortSignal | undefined;
  /** Told when the lexicon has read the estate's names (the card then carries them for the supervisor's router). */
  readonly onLexicon?: ((lexicon: Lexicon) => void) | undefined;
}

/** Entities of the intent rules that name something in the estate. */
const NAME_ENTITIES = ['cluster', 'project', 'namespace', 'team'] as const;
/**
 * Whether every name the intent rules read is one the estate has: they take a word of a name's shape as a name
 * ("ou-tof-sync" as a cluster), the typed reader checks names against the live ones. Before the lexicon is read,
 * nothing is known and the rules' reading stands.
 */
function namesKnown(c: Classification<ArgoIntent>, lexicon: Lexicon): boolean {
  if (lexicon.liveCount === 0) return true;
  return NAME_ENTITIES.every((name) => {
    const value = c.entities[name];
    const values = value === undefined ? [] : typeof value === 'string' ? [value] : value;
    return values.every((v) => v.includes('://') || v.startsWith('!') || lexicon.spelling.has(v.toLowerCase()));
  });
}
/** A comparison of two groups is a typed query ("more degraded apps in a or b?"): not reasoning the rules cannot do. */
const COUNTED_COMPARISONS = new Set(['compare', 'compared', 'comparing', 'comparison', 'versus', 'vs', 'vs.']);
const asksReasoning = (question: string): boolean => reasoningWords(question).some((w) => !COUNTED_COMPARISONS.has(w));
/** A later part with no subject of its own ("…, and which are unhealthy?") continues the list before it. */
const OWN_SUBJECT = /\b(apps?|applications?|deployments?|services|workloads?|projects?|clusters?|application ?sets?|appsets?)\b/;
const SCOPE_ENTITIES = ['project', 'cluster', 'namespace', 'env', 'team', 'label', 'repo', 'name_contains', 'application', 'query'];
const LIST_INTENTS: readonly (ArgoIntent | undefined)[] = ['list_applications', 'attention', 'search', 'query', 'query_followup'];
/** The typed query's fields that scope a part to other applications than the part before it. */
const SCOPE_FIELDS: ReadonlySet<string> = new Set(['project', 'cluster', 'namespace', 'env', 'team', 'label', 'repo', 'name', 'region', 'tier']);

/** Whether a where negates anything. */
const hasNot = (w: Where | undefined): boolean => w !== undefined && (w.op === 'not' || ((w.op === 'and' || w.op === 'or') && w.of.some(hasNot)));

/** The question points back at the answer before it ("of those", "what about", "only", a leading "and", no subject). */
const editsOf = (marks: EditMarks): boolean => marks.anaphora || marks.about || marks.only || marks.leadingAnd || !marks.ownEntity;

/**
 * The Argo CD agent: the kit's workflow with the Argo CD intents, plans and presentation rules. A question of
 * several parts is answered part by part in the same conversation; a later part without a subject of its own
 * ("…, and which are unhealthy?") narrows the list of the part before it.
 */
export function createArgoCdAgent(options: ArgoCdAgentOptions) {
  const classifier = createArgoCdClassifier({ now: options.now });
  // One memory for the workflow and the typed reading, which looks at the last answer to tell an edit of it.
  const memoryStore = options.memoryStore ?? boundedMemoryStore<ArgoMemory>();
  const workflow = createDomainWorkflow({
    ...options,
    memoryStore,
    classifier,
    domain: createArgoCdDomain({ hasTool: options.capabilities === undefined ? undefined : (name) => options.capabilities?.has(name) === true }),
    cacheableIntents: CACHEABLE_INTENTS,
    outputSchemas: ARGOCD_OUTPUT_SCHEMAS,
  });
  const typed = liveParser(ARGOCD_DOMAIN, mcpToolCaller(options.mcp, { schemas: ARGOCD_OUTPUT_SCHEMAS }), { metrics: options.metrics, lifetime: options.lifetime, onLoad: options.onLexicon });
  // The estate's names are read as the agent starts, not by its first question.
  void typed.current();
  const now = options.now ?? Date.now;
  const parseOnce = parseMemo(now);
  /**
   * The typed reading of a question, when it is the one to answer (undefined: the intent rules answer). Actions always;
   * otherwise see docs/ARCHITECTURE.md, "A typed question": the rules keep what they read completely, on the same fields
   * and with names the estate has; the typed reading takes the rest it reads.
   */
  async function typedClassification(question: string, contextId: string): Promise<Classification<ArgoIntent> | undefined> {
    // "next page", "list them", "help": acts on the conversation, read by their own grammar.
    const act = readAct(question);
    if (act?.kind === 'help') return actTurn<ArgoIntent>('help');
    const page = act === undefined ? undefined : actPage(act);
    if (page !== undefined) {
      const memory = await memoryStore.load(contextId);
      // A typed answer's rows, by the typed path; any other list's by its own tool; nothing yet: said so.
      if (memory?.query !== undefined) return typedPageTurn<ArgoIntent>(page);
      // "everything" with nothing to continue is a question of its own.
      if (memory !== undefined || act?.kind === 'page') return actTurn<ArgoIntent>('next_page', { page });
    }
    if (asksReasoning(question)) return undefined;
    const parser = await typed.current();
    const lexicon = parser.lexicon;
    let parsed = parseOnce(parser, question);
    const marks = parsed.edit;
    // Whether the conversation's last answer was a typed one, which this question may edit.
    let lastTyped = false;
    if (parsed.kind !== 'action') {
      // While both readers run, the intent rules keep the questions they read completely and whose answer shape they
      // have (lists and counts); the typed reading takes breakdowns, rankings, comparisons, named fields, follow-ups
      // of a typed answer, and what the rules are unsure of or read otherwise.
      const old = classifier.classify(question);
      // The conversation's memory is read only when the question may continue a typed answer.
      const continues = marks.anaphora || marks.about || marks.only || marks.leadingAnd || !marks.ownEntity;
      const memory = continues ? await memoryStore.load(contextId) : undefined;
      lastTyped = memory?.query !== undefined;
      // A follow-up that names no entity continues the last answer's ("of those, which are in prod-eu-1?" after a list
      // of applications: prod-eu-1 is where they run, not the cluster asked about).
      const previousEntity = memory?.query?.entity ?? (memory?.tool === 'list_applications' ? 'applications' : undefined);
      if (previousEntity !== undefined && !marks.ownEntity && parsed.query !== undefined && parsed.query.entity !== previousEntity) parsed = parser.parse(question, now(), { entity: previousEntity });
      // A question that points back ("only the out-of-sync ones", "what about staging?", "and how many of those…") at
      // a list the list plan answered edits that list's query, read back from its arguments: listed by the list plan
      // when it applies all of the edited query, else by the query tool, said as carried over. Any other answer
      // (a search, a project list) has no query to edit: read on its own, the question would answer about the whole
      // estate, so the rules say what they can narrow.
      if (memory !== undefined && !lastTyped && (marks.anaphora || marks.about || ((marks.only || marks.leadingAnd) && !marks.ownEntity))) {
        const previous = memory.tool === 'list_applications' ? listQueryOf(memory.args) : undefined;
        const edited = previous === undefined ? undefined : applyEdit(parsed, previous, multiFields(ARGOCD_DOMAIN, previous.entity));
        // An edit the last answer cannot take (a search's matches narrowed by health) is said so.
        if (edited === undefined || edited.kind === 'standalone') return { ...actTurn<ArgoIntent>('unknown', { [EDITS_LAST_ENTITY]: 'yes' }), confidence: 0, unused: parsed.unapplied };
        const narrowed = { ...parsed, query: edited.query };
        const list = listClassification(narrowed, lexicon);
        if (list !== undefined) return { ...list, entities: { ...list.entities, [EDITS_LAST_ENTITY]: 'yes' } };
        return typedTurn<ArgoIntent>({ ...typedOf(narrowed, lexicon), carried: 'last' }, true);
      }
      if (parsed.kind === 'empty' || parsed.query === undefined) return undefined;
      // A list or count of applications that the list plan applies in full is planned as that list (typed-list.ts):
      // read by the typed reading, executed and presented by the list plan.
      const editsLast = lastTyped && editsOf(marks);
      // A search the typed reading reads whole as a filter of applications ("apps matching region=eu") is that list.
      // So is a "search" for a word the domain reads as a condition ("is anything on fire?": fire is no name).
      const term = oneValue(old.entities.query);
      const termIsCondition = term !== undefined && parsed.read.some((w) => (w.as === 'phrase' || w.as === 'value') && w.text.split(' ').includes(term));
      const searchOfApps = old.intent === 'search' && (marks.ownEntity || termIsCondition) && typedAnswers(parsed);
      // What neither reader reads a word of the domain in ("what is the weather in amsterdam?"), or reads less of than it
      // leaves unread ("what is the weather like in prod-eu-1 tomorrow"), is the rules' to refuse.
      const readsDomain = parsed.read.some((w) => w.as !== 'guess') && parsed.unapplied.length <= parsed.read.length;
      if (!editsLast && (searchOfApps || (old.intent === 'unknown' && readsDomain))) {
        // "what needs attention (in prod)?": the attention view, both its lists.
        const list = attentionClassification(parsed) ?? listClassification(parsed, lexicon);
        if (list !== undefined) return list;
        // What the typed reading read something of, it answers, naming the words it did not apply.
        if (old.intent === 'unknown') return typedTurn<ArgoIntent>(typedOf(parsed, lexicon), false);
      }
      // Clusters, projects and application sets are the typed reading's alone: it says what it did not apply.
      if (parsed.query.entity !== ARGOCD_DOMAIN.defaultEntity && marks.ownEntity) return typedTurn<ArgoIntent>(typedOf(parsed, lexicon), lastTyped && editsOf(marks));
      const oldSure = old.intent !== 'unknown' && old.confidence >= CONFIDENCE_THRESHOLD && (old.unused ?? []).length === 0;
      const shape = parsed.query?.what.kind;
      const ownShape = shape === 'breakdown' || shape === 'top' || shape === 'compare' || shape === 'fields';
      const editsTyped = lastTyped && (marks.anaphora || marks.about || marks.only || marks.leadingAnd || !marks.ownEntity);
      if (!typedAnswers(parsed)) return undefined;
      // A negation is the typed reading's (the rules' "not" attaches to a word by its pattern, not by the sentence),
      // unless the question has several parts, which the rules answer one by one.
      const negation = hasNot(parsed.query.where) && questionParts(question).length < 2;
      if (oldSure && !ownShape && !editsTyped && !negation && namesKnown(old, lexicon)) return undefined;
      // The entity was only guessed from a name ("anything named fraud-api": an application set's name, and part of
      // applications'): the rules, sure of their reading (a search across kinds), keep it.
      if (oldSure && old.intent === 'search' && !marks.ownEntity && parsed.query.entity !== ARGOCD_DOMAIN.defaultEntity) return undefined;
    }
    return typedTurn<ArgoIntent>(typedOf(parsed, lexicon), lastTyped && editsOf(marks));
  }
  /** The parts of a question answered one by one (`readableParts`), each read once. */
  async function splitOf(question: string) {
    const parser = await typed.current();
    return readableParts(question, (part) => classifier.classify(part), (part) => parseOnce(parser, part));
  }
  return {
    graph: workflow.graph,
    /** The question as this agent reads it: its typed query when that is the one to answer, else the rules'. */
    async classify(question: string, contextId: string): Promise<Classification<ArgoIntent>> {
      return routingReading(question, await splitOf(question), (text) => typedClassification(text, contextId), (text) => classifier.classify(text));
    },
    /** `classification`: the whole question's, when the caller made it (hybrid mode's router): not made again. */
    async ask(question: string, contextId: string, signal?: AbortSignal, classification?: Classification<ArgoIntent>): Promise<TurnResult<ArgoIntent>> {
      const split = await splitOf(question);
      if (split === undefined) {
        // Hybrid mode's router read the question already (this agent's `classify`): its typed reading is not made again.
        if (classification !== undefined && (classification.intent === 'query' || classification.intent === 'query_followup')) return workflow.ask(question, contextId, signal, classification);
        const typedReading = classification === undefined ? await typedClassification(question, contextId) : undefined;
        return workflow.ask(question, contextId, signal, typedReading ?? classification);
      }
      const { parts, classified, parsed: parsedParts } = split;
      const turns: TurnResult<ArgoIntent>[] = [];
      for (const [k, part] of parts.entries()) {
        const previous = turns[turns.length - 1];
        const c = classified[k];
        const parsed = parsedParts[k];
        if (c === undefined || parsed === undefined) break;
        // A later part with no subject or scope of its own ("…, and which are unhealthy?") narrows the part before it.
        const scoped = SCOPE_ENTITIES.some((name) => c.entities[name] !== undefined) || conditionsOf(parsed.query?.where).some((x) => SCOPE_FIELDS.has(x.field));
        const continues = previous !== undefined && LIST_INTENTS.includes(previous.intent) && !OWN_SUBJECT.test(part.toLowerCase()) && !parsed.edit.ownEntity && !scoped;
        // A continued part is asked as another question ("of those, …"), read as an edit of the part before it: by
        // the typed reading when the part before was typed, else by the rules.
        const text = continues ? `of those, ${part}` : part;
        const reading = (await typedClassification(text, contextId)) ?? (continues ? undefined : c);
        turns.push(await workflow.ask(text, contextId, signal, reading));
      }
      return combineTurns(turns);
    },
  };
}
