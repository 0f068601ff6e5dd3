import { QUESTION_MAX_CHARS } from './rules.js';

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

/**
 * Where a new question starts: after "?", ";", or ", and" / " and also" / " plus" when a question word follows
 * ("…, and which are unhealthy?"). "and are in prod" joins two filters of one question: not a split.
 */
const SPLIT = /\?\s+(?=\S)|;|,?\s(?:and|also|plus)(?:\salso)?\s(?=(?:which|what|how|list|show|where|who|give|get|tell|find|why)\b)|,\salso\s/i;

/** The parts of a question, in order (one part when it is one question). */
export function questionParts(question: string): string[] {
  // Bounded work: the classifier's cut, whitespace collapsed (a run of spaces cannot make the split slow).
  const text = question.replace(/\s+/g, ' ').trim().slice(0, QUESTION_MAX_CHARS);
  const pieces = text.split(SPLIT).map((p) => p.trim());
  const parts: string[] = [];
  for (const piece of pieces) {
    if (piece.length === 0) continue;
    const last = parts[parts.length - 1];
    if (last !== undefined && (piece.length < QUESTION_PARTS.minChars || parts.length >= QUESTION_PARTS.max)) parts[parts.length - 1] = `${last}; ${piece}`;
    else parts.push(piece);
  }
  return parts.length === 0 ? [text] : parts;
}
