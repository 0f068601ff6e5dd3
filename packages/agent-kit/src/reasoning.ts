/**
 * Words that ask for reasoning the rules do not do: a cause, a comparison, a plan, a judgement, a recommendation or a
 * remedy. In hybrid mode a question with one goes to the model even when the rules read it confidently: they would
 * answer it with a plain list ("which team has the worst deployment hygiene, and why?" → page 1 of every
 * application); an answer by the rules alone says it did not do what they ask. Whole words, case-insensitive; a
 * multi-word entry matches across any run of spaces.
 */
export const REASONING_WORDS = [
  'why', 'how come', 'what if', 'root cause', 'cause', 'caused',
  'compare', 'compared', 'comparing', 'comparison', 'versus', 'vs', 'vs.', 'differ', 'differs', 'difference', 'differences',
  'plan', 'plans', 'planning', 'schedule',
  'worst', 'best', 'better', 'worse', 'riskiest', 'risk', 'risks', 'risky', 'safe', 'safely', 'unsafe',
  'should', 'ought', 'recommend', 'recommendation', 'recommendations', 'suggest', 'suggestion', 'advise', 'advice',
  'prioritise', 'prioritize', 'prioritised', 'prioritized', 'priorities',
  'explain', 'explanation', 'analyse', 'analyze', 'assess', 'evaluate', 'judge', 'impact', 'predict', 'forecast', 'trend', 'trends',
  // What to do about it: a remedy the rules never give ("list degraded apps and tell me what to do about them").
  'what to do', 'what do i do', 'what do we do', 'how to fix', 'fix', 'fixes', 'fixing', 'remediate', 'remediation',
  'troubleshoot', 'troubleshooting', 'diagnose', 'diagnosis', 'investigate',
] as const;

const REASONING_RE = new RegExp(
  `(?<![\\w'-])(?:${[...REASONING_WORDS]
    .sort((a, b) => b.length - a.length)
    .map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/ /g, '\\s+'))
    .join('|')})(?![\\w'-])`,
  'gi',
);

/** The reasoning words of a question, lower-cased, in order, each once. */
export function reasoningWords(question: string): string[] {
  return [...new Set([...question.matchAll(REASONING_RE)].map((m) => m[0].toLowerCase().replace(/\s+/g, ' ')))];
}

/**
 * What an answer by the rules alone says of the reasoning words of its question (`reasoningWords`): the data it shows
 * is not the reasoning they ask for. Empty when there are none.
 */
export function reasoningNote(words: readonly string[]): string {
  if (words.length === 0) return '';
  const quoted = words.map((w) => `"${w}"`).join(', ');
  return `${quoted} ${words.length === 1 ? 'asks' : 'ask'} for reasoning I do not do: I answer from the data alone, without a model, so this answer shows what the data says and leaves the ${words.length === 1 ? 'rest' : 'reasoning'} to you.`;
}
