import type { IntentRule, WeightedPattern } from '@flotilla/agent-kit';

/**
 * "the rest", "show me the rest of them": the whole question asks for the next page. Also a domain's `understood`
 * phrase: "rest" alone is no word the rules know ("rest api apps" keeps it unread).
 */
export const REST_OF_THE_LIST = /^((show|give|list)( me)? )?the rest( of (them|those|it|the list))?[.!?]?$/;

/**
 * The generic intents every domain agent reads the same way, so a new domain does not copy them: `help` ("what can
 * you do?"), and the shared patterns of `next_page` ("next", "page 3") and `refine` ("only the …", "filter to …").
 * A domain adds its own patterns (NetBox's batches, Argo CD's "of those") after these.
 */
export const GENERIC_PATTERNS = {
  help: [
    { pattern: /^(help|\?)$/, weight: 0.95 },
    { pattern: /what can you (do|tell)|how (do|can) i (use|ask)|what do you (know|support)/, weight: 0.92 },
  ],
  nextPage: [
    { pattern: /^(next|more|continue|keep going|go on|previous|prev|back)\b/, weight: 0.95 },
    { pattern: REST_OF_THE_LIST, weight: 0.95 },
  ],
  refine: [
    { pattern: /^(only|just) (the |those |ones )?/, weight: 0.9 },
    { pattern: /^(filter|narrow)( (it|that|them|those))? (to|by|on|down)\b/, weight: 0.9 },
    { pattern: /^(and|now) (only|just)\b/, weight: 0.9 },
  ],
} as const satisfies Readonly<Record<string, readonly WeightedPattern[]>>;

/** The `help` rule of every domain: "help", "?", "what can you do?". */
export function helpRule<I extends string>(intent: I): IntentRule<I> {
  return { intent, complexity: 'simple', patterns: GENERIC_PATTERNS.help };
}
