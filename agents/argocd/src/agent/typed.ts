import { cellText, markdownTable, planTyped as planShared, respondTyped as respondShared, type Answer, type ToolCall, type ToolResult, type TypedAnswerOptions, type TypedQuestion } from '@flotilla/agent-kit';
import type { Query } from '@flotilla/query';
import { ARGOCD_DOMAIN } from '../query/declare.js';
import { PRESENTATION } from './presentation.js';

/**
 * The Argo CD agent's typed path: the shared one (@flotilla/agent-kit `typed.ts`) with Argo CD's declaration, how
 * it says it is read-only (the `argocd` command), and how it shows a sync history and conditions.
 */

export { liveParser, typedAnswers, typedOf, type TypedQuestion } from '@flotilla/agent-kit';

function readOnly(verb: string, target: string | undefined): { text: string; options: string[] } {
  const action = ARGOCD_DOMAIN.actions?.find((a) => a.verb === verb);
  const how = (action?.how ?? '').replace('{name}', target ?? '<application>');
  const text = [
    `Flotilla is read-only: I did not ${verb} ${target ?? 'anything'}.`,
    how === '' ? '' : `To do it in Argo CD: \`${how}\` (or the ${verb} button on the application's page in the Argo CD UI), with an account allowed to.`,
    target === undefined ? "I can show an application's status, history and what is wrong with it instead." : `I can show ${target}'s status, sync history and what is wrong with it instead: ask "status of ${target}" or "what's wrong with ${target}".`,
  ]
    .filter((l) => l !== '')
    .join('\n');
  return { text, options: target === undefined ? [] : [`status of ${target}`, `what's wrong with ${target}`] };
}

const ARGOCD_TYPED: TypedAnswerOptions = {
  domain: ARGOCD_DOMAIN,
  system: 'Argo CD',
  presentation: PRESENTATION,
  readOnly,
  // What is deployed beside what was asked for, and why the health is what it is.
  extraFields: ['sync_revision', 'health_message', 'unhealthy_resources'],
  fieldLines: (field, value, label) => {
    if (field === 'history' && Array.isArray(value)) return [`- ${label} (newest first):`, markdownTable(value as Record<string, unknown>[], ['id', 'revision', 'deployed_at'], cellText)];
    if (field === 'conditions' && Array.isArray(value)) return [`- ${label}: ${value.length === 0 ? 'none' : (value as { type: string; message: string }[]).map((x) => `${x.type}: ${x.message}`).join('; ')}`];
    return undefined;
  },
};

const TYPED_PLAN = { ...PRESENTATION, domain: ARGOCD_DOMAIN };

/** The one call a typed question plans, with Argo CD's page sizes. */
export function planTyped(typed: TypedQuestion, previous: Query | undefined, shown: { readonly offset: number; readonly end: number } = { offset: 0, end: 0 }): { readonly calls: readonly ToolCall[]; readonly query: Query | undefined; readonly carried: boolean } {
  return planShared(typed, previous, TYPED_PLAN, shown);
}

/** The answer of a typed question, in Argo CD's words. */
export function respondTyped<M>(typed: TypedQuestion, results: readonly ToolResult[], query: Query | undefined, carried: boolean, remember: (query: Query, total: number, offset: number, end: number) => M, previous: M | undefined): Answer<M> {
  return respondShared(ARGOCD_TYPED, typed, results, query, carried, remember, previous);
}
