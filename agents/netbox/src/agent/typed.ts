import { newSession, type ProgressiveSession } from '@flotilla/limitations';
import { oneValue, planTyped as planShared, respondTyped as respondShared, type Answer, type Classification, type ToolCall, type ToolResult, type TypedAnswerOptions, type TypedQuestion } from '@flotilla/agent-kit';
import type { Query } from '@flotilla/query';
import { NETBOX_DOMAIN } from '../query/declare.js';

/**
 * The NetBox agent's typed path: the shared one (@flotilla/agent-kit `typed.ts`) with NetBox's declaration, how it
 * says it is read-only (the NetBox page or API call), and its conversation memory (the progressive session, whose
 * tool is `query` and whose arguments are the query, so a follow-up edits it and "next page" pages it).
 */

/** Rows of a typed answer: a list up to showWholeMax whole, a longer one pageRows at a time. */
export const TYPED_PRESENTATION = { showWholeMax: 50, pageRows: 20, domain: NETBOX_DOMAIN } as const;

function readOnly(verb: string, target: string | undefined, part?: string): { text: string; options: string[] } {
  const action = NETBOX_DOMAIN.actions?.find((a) => a.verb === verb);
  const object = target === undefined ? undefined : part === undefined ? target : `${part} on ${target}`;
  const how = (action?.how ?? '').replace('{name}', object ?? 'the object');
  const text = [
    `Flotilla is read-only: I did not ${verb} ${object ?? 'anything'}.`,
    how === '' ? '' : `To do it in NetBox: ${how}.`,
    target === undefined ? 'I can show a device, its interfaces, cables and addresses instead.' : `I can show ${target}, its interfaces and its cables instead: ask "show device ${target}" or "interfaces of ${target}".`,
  ]
    .filter((l) => l !== '')
    .join('\n');
  return { text, options: target === undefined ? [] : [`show device ${target}`, `interfaces of ${target}`] };
}

const NETBOX_TYPED: TypedAnswerOptions = { domain: NETBOX_DOMAIN, system: 'NetBox', presentation: TYPED_PRESENTATION, readOnly };

/** The typed reading the agent put in the `typed_query` entity. */
export function typedQuestion(c: Classification<string>): TypedQuestion {
  return JSON.parse(oneValue(c.entities.typed_query) ?? '{}') as TypedQuestion;
}

/** The last typed query of the conversation, when its memory is one. */
export const lastQuery = (memory: ProgressiveSession | undefined): Query | undefined => (memory?.tool === 'query' ? (memory.args as unknown as Query) : undefined);
const shownOf = (memory: ProgressiveSession | undefined): { offset: number; end: number } =>
  memory?.tool === 'query' ? { offset: Math.max(0, memory.offset - memory.retrieved), end: memory.offset } : { offset: 0, end: 0 };

export function planNetBoxTyped(c: Classification<string>, memory: ProgressiveSession | undefined): readonly ToolCall[] {
  return planShared(typedQuestion(c), lastQuery(memory), TYPED_PRESENTATION, shownOf(memory)).calls;
}

export function respondNetBoxTyped(c: Classification<string>, results: readonly ToolResult[], memory: ProgressiveSession | undefined, contextId: string, now: () => number): Answer<ProgressiveSession> {
  const typed = typedQuestion(c);
  const { query, carried } = planShared(typed, lastQuery(memory), TYPED_PRESENTATION, shownOf(memory));
  const remember = (q: Query, total: number, offset: number, end: number): ProgressiveSession => {
    const session = newSession({ contextId, tool: 'query', args: q as unknown as Record<string, never>, itemKind: q.entity, batchSize: TYPED_PRESENTATION.pageRows, total }, now());
    return { ...session, offset: end, retrieved: Math.max(0, end - offset) };
  };
  return respondShared(NETBOX_TYPED, typed, results, query, carried, remember, memory);
}
