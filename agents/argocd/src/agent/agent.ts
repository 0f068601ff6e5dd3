import { createDomainWorkflow, type DomainAgentOptions } from '@flotilla/agent-host';
import { CONFIDENCE_THRESHOLD, notApplied, questionParts, type Classification, type TurnResult } from '@flotilla/agent-kit';
import { createArgoCdDomain, type ArgoMemory } from './domain.js';
import { createArgoCdClassifier, type ArgoIntent } from './intents.js';
import { ARGOCD_OUTPUT_SCHEMAS } from '../tools/outputs.js';

/** Standalone questions whose answers may be reused (continuations such as "next page" never are). */
export const CACHEABLE_INTENTS: readonly ArgoIntent[] = ['list_applications', 'application_details', 'search', 'attention', 'list_projects', 'list_applicationsets', 'list_clusters', 'help'];

/** The shared workflow's options (an MCP client to the Argo CD MCP server, …) and the agent's clock. */
export interface ArgoCdAgentOptions extends DomainAgentOptions<ArgoIntent, ArgoMemory> {
  /** The clock "in the last hour" is measured from (Date.now by default; fixed in tests and benchmarks). */
  readonly now?: (() => number) | undefined;
}

/** A later part with no subject of its own ("…, and which are unhealthy?") continues the list before it. */
const OWN_SUBJECT = /\b(apps?|applications?|deployments?|services|workloads?|projects?|clusters?|application ?sets?|appsets?)\b/;
const SCOPE_ENTITIES = ['project', 'cluster', 'namespace', 'env', 'team', 'label', 'repo', 'name_contains', 'application', 'query'];
const LIST_INTENTS: readonly (ArgoIntent | undefined)[] = ['list_applications', 'refine', 'attention', 'search'];

/** One answer of several parts: each numbered, the counts summed, the last part's follow-ups. */
function combine(turns: readonly TurnResult<ArgoIntent>[]): TurnResult<ArgoIntent> {
  const [first] = turns;
  const last = turns[turns.length - 1];
  if (first === undefined || last === undefined) throw new Error('combine needs at least one turn');
  return {
    ...first,
    answer: turns.map((t, i) => `${i + 1}. ${t.answer}`).join('\n\n'),
    options: last.options,
    entities: Object.assign({}, ...turns.map((t) => t.entities)) as TurnResult<ArgoIntent>['entities'],
    confidence: Math.min(...turns.map((t) => t.confidence)),
    toolCalls: turns.reduce((n, t) => n + t.toolCalls, 0),
    toolErrors: turns.reduce((n, t) => n + t.toolErrors, 0),
    error: turns.find((t) => t.error !== undefined)?.error,
    limitations: turns.flatMap((t) => t.limitations),
    data: {
      ...(Object.assign({}, ...turns.map((t) => t.data ?? {})) as Record<string, unknown>),
      // What each part did not do, said per part.
      not_applied: turns.flatMap((t, i) => notApplied(t.data).map((n) => `part ${i + 1}: ${n}`)),
    },
    cached: turns.every((t) => t.cached),
  };
}

/**
 * The Argo CD agent: the kit's workflow with the Argo CD intents, plans and presentation rules. A question of
 * several parts is answered part by part in the same conversation; a later part without a subject of its own
 * ("…, and which are unhealthy?") narrows the list of the part before it.
 */
export function createArgoCdAgent(options: ArgoCdAgentOptions) {
  const classifier = createArgoCdClassifier({ now: options.now });
  const workflow = createDomainWorkflow({
    ...options,
    classifier,
    domain: createArgoCdDomain({ hasTool: options.capabilities === undefined ? undefined : (name) => options.capabilities?.has(name) === true }),
    cacheableIntents: CACHEABLE_INTENTS,
    outputSchemas: ARGOCD_OUTPUT_SCHEMAS,
  });
  return {
    graph: workflow.graph,
    /** `classification`: the whole question's, when the caller made it (hybrid mode's router): not made again. */
    async ask(question: string, contextId: string, signal?: AbortSignal, classification?: Classification<ArgoIntent>): Promise<TurnResult<ArgoIntent>> {
      const parts = questionParts(question);
      if (parts.length < 2) return workflow.ask(question, contextId, signal, classification);
      // Split only where every part is a question the rules read with confidence; else the question is one. Each
      // part is classified once, here.
      const classified = parts.map((part) => classifier.classify(part));
      const confident = classified.every((c) => c.intent !== 'unknown' && c.confidence >= CONFIDENCE_THRESHOLD);
      if (!confident) return workflow.ask(question, contextId, signal, classification);
      const turns: TurnResult<ArgoIntent>[] = [];
      for (const [k, part] of parts.entries()) {
        const previous = turns[turns.length - 1];
        const c = classified[k];
        if (c === undefined) break;
        const continues =
          previous !== undefined &&
          LIST_INTENTS.includes(previous.intent) &&
          c.intent === 'list_applications' &&
          !OWN_SUBJECT.test(part.toLowerCase()) &&
          !SCOPE_ENTITIES.some((name) => c.entities[name] !== undefined);
        // A continued part is asked as another question ("of those, …"): classified by the workflow.
        turns.push(await workflow.ask(continues ? `of those, ${part}` : part, contextId, signal, continues ? undefined : c));
      }
      return combine(turns);
    },
  };
}
