/**
 * A question in several parts ("how many apps are in project X, and which are unhealthy?") is answered part by
 * part, never half: the split is plain text rules, deterministic and bounded.
 */
export const QUESTION_PARTS = {
  /** Parts answered separately; the rest of a longer question stays in the last part. */
  max: 3,
  /** A part shorter than this (characters) is not split off ("and more"). */
  minChars: 6,
} as const;

/** Where a new question starts: after "?", ";", ", and", " and also", " plus" when a question word follows. */
const SPLIT =
  /\s*\?\s+(?=\S)|\s*;\s*|,?\s+(?:and|also|plus)(?:\s+also)?\s+(?=(?:which|what|how|list|show|are|is|do|does|where|who|give|get|tell|find|any|can|could|why)\b)|,\s+also\s+/i;

/** The parts of a question, in order (one part when it is one question). */
export function questionParts(question: string): string[] {
  const pieces = question.split(SPLIT).map((p) => p.trim());
  const parts: string[] = [];
  for (const piece of pieces) {
    if (piece.length === 0) continue;
    const last = parts[parts.length - 1];
    if (last !== undefined && (piece.length < QUESTION_PARTS.minChars || parts.length >= QUESTION_PARTS.max)) parts[parts.length - 1] = `${last}; ${piece}`;
    else parts.push(piece);
  }
  return parts.length === 0 ? [question] : parts;
}
