import { LIMITS } from '@flotilla/bounded-tools';
import { LOAD_TOOLS } from '@flotilla/llm';
import type { ChatScript } from '@flotilla/simulators';

/** The list-everything conversation's questions (the 50-turn acceptance test and `pnpm bench -- --suites llm`). */
export const LIST_ALL_QUESTIONS = ['list all applications', 'every cluster please', 'all projects', 'all application sets', 'list all applications in every project, all of them'];

const TOOL_FOR: Readonly<Record<string, string>> = { application: 'list_applications', cluster: 'list_clusters', project: 'list_projects', 'application set': 'list_applicationsets' };

/** The Argo CD list tool a question names (the most specific key wins: "application set" over "application"). */
const listCall = (question: string) => {
  const text = question.toLowerCase();
  const key = Object.keys(TOOL_FOR).reverse().find((k) => text.includes(k)) ?? 'application';
  return { name: TOOL_FOR[key] ?? 'list_applications', args: { limit: LIMITS.pageMax } };
};

/** A model that loads the list tools once, then lists everything at the biggest page the tool allows, every turn. */
export const listAllScript: ChatScript = (input) => {
  const last = input.messages[input.messages.length - 1];
  if (last?.role === 'user') {
    if (!input.tools.some((t) => t.name === 'list_applications')) return { text: '', toolCalls: [{ name: LOAD_TOOLS, args: { names: Object.values(TOOL_FOR) } }] };
    return { text: '', toolCalls: [listCall(last.text)] };
  }
  if (last?.role === 'tool') {
    const previous = input.messages[input.messages.length - 2];
    if (previous?.role === 'assistant' && previous.toolCalls.some((c) => c.name === LOAD_TOOLS)) {
      return { text: '', toolCalls: [listCall([...input.messages].reverse().find((m) => m.role === 'user')?.text ?? '')] };
    }
    const total = /"total":(\d+)/.exec(last.text)?.[1] ?? 'an unknown number of';
    return { text: `There are ${total} of them; here are the first rows.` };
  }
  return { text: 'Ask me about Argo CD.' };
};
