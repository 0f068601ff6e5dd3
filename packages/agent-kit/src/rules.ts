/**
 * The embedded, deterministic model's classifier: per-agent intent rules (weighted patterns) plus entity
 * extractors, giving an intent, its entities and a confidence score. No network, no key, same answer every time.
 * The workflow routes on the confidence with the design note's 0.8 threshold.
 */
export const CONFIDENCE_THRESHOLD = 0.8;

export type Complexity = 'simple' | 'complex';
export type EntityValue = string | readonly string[];
export type Entities = Readonly<Record<string, EntityValue>>;

export interface WeightedPattern {
  readonly pattern: RegExp;
  /** Confidence this pattern alone gives (0..1). */
  readonly weight: number;
}

export interface IntentRule<I extends string> {
  readonly intent: I;
  readonly complexity: Complexity;
  readonly patterns: readonly WeightedPattern[];
  /** Any of these in the question rules the intent out (e.g. "project" for an application list). */
  readonly unless?: readonly RegExp[];
  /** Entities the intent needs; without them the confidence is scaled down by `missingPenalty`. */
  readonly requires?: readonly string[];
  /** Entities that make the intent more likely when present (+0.05 each). */
  readonly boostedBy?: readonly string[];
}

export interface EntityExtractor {
  readonly name: string;
  extract(question: string, normalised: string): EntityValue | undefined;
}

export interface Classification<I extends string> {
  readonly intent: I;
  readonly entities: Entities;
  /** 0..1; >= CONFIDENCE_THRESHOLD means the rules are sure enough to act directly. */
  readonly confidence: number;
  readonly complexity: Complexity;
  /** The runner-up, for "did you mean" answers when the question is ambiguous. */
  readonly alternatives: readonly { readonly intent: I; readonly confidence: number }[];
}

export interface RulesClassifierOptions<I extends string> {
  readonly rules: readonly IntentRule<I>[];
  readonly entities: readonly EntityExtractor[];
  /** The intent returned when nothing matches (confidence 0). */
  readonly fallback: I;
  readonly missingPenalty?: number;
}

/** Longest question classified; longer input is cut (bounded regex work). */
export const QUESTION_MAX_CHARS = 2_000;

/** Lower case, typographic quotes and dashes made plain, whitespace collapsed. */
export function normalise(question: string): string {
  return question
    .slice(0, QUESTION_MAX_CHARS)
    .toLowerCase()
    .replace(/[\u2018\u2019]/g, "'")
    .replace(/[\u201c\u201d]/g, '"')
    .replace(/[\u2013\u2014]/g, '-')
    .replace(/\s+/g, ' ')
    .trim();
}

export interface RulesClassifier<I extends string> {
  classify(question: string): Classification<I>;
}

export function createRulesClassifier<I extends string>(options: RulesClassifierOptions<I>): RulesClassifier<I> {
  const penalty = options.missingPenalty ?? 0.7;
  return {
    classify(question) {
      const text = normalise(question);
      const entities: Record<string, EntityValue> = {};
      for (const extractor of options.entities) {
        const value = extractor.extract(question.slice(0, QUESTION_MAX_CHARS), text);
        if (value !== undefined && (typeof value === 'string' ? value.length > 0 : value.length > 0)) entities[extractor.name] = value;
      }
      const scored = options.rules
        .map((rule) => {
          if (rule.unless?.some((re) => re.test(text)) === true) return { rule, confidence: 0 };
          const weights = rule.patterns.filter((p) => p.pattern.test(text)).map((p) => p.weight);
          if (weights.length === 0) return { rule, confidence: 0 };
          let confidence = Math.max(...weights) + 0.03 * (weights.length - 1);
          for (const name of rule.boostedBy ?? []) if (entities[name] !== undefined) confidence += 0.05;
          if ((rule.requires ?? []).some((name) => entities[name] === undefined)) confidence *= penalty;
          return { rule, confidence: Math.min(0.99, confidence) };
        })
        .filter((s) => s.confidence > 0)
        .sort((a, b) => b.confidence - a.confidence);
      const best = scored[0];
      if (best === undefined) {
        return { intent: options.fallback, entities, confidence: 0, complexity: 'simple', alternatives: [] };
      }
      return {
        intent: best.rule.intent,
        entities,
        confidence: Math.round(best.confidence * 100) / 100,
        complexity: best.rule.complexity,
        alternatives: scored.slice(1, 3).map((s) => ({ intent: s.rule.intent, confidence: Math.round(s.confidence * 100) / 100 })),
      };
    },
  };
}
