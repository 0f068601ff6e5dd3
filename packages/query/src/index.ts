export {
  QUERY_LIMITS,
  and,
  or,
  not,
  conditionsOf,
  nodesOf,
  depthOf,
  querySchema,
  type Condition,
  type Query,
  type Scalar,
  type Sort,
  type What,
  type Where,
} from './query.js';
export {
  entityOf,
  fieldOf,
  type ActionDecl,
  type DomainDecl,
  type EntityDecl,
  type FieldDecl,
  type FieldExecution,
  type FieldType,
  type FieldValue as DeclaredValue,
  type PhraseDecl,
} from './domain.js';
export { FuzzyIndex, FUZZY_LIMITS, editDistance, allowedEdits } from './fuzzy.js';
export { Lexicon, LEXICON_LIMITS, type LiveValues, type Sense, type GrammarWord } from './lexicon.js';
export { timeAt, numberOf, NUMBER_WORDS, type TimeWindow } from './time.js';
export {
  createParser,
  parseWith,
  tokenize,
  normaliseQuestion,
  nameShaped,
  PARSE_LIMITS,
  type Parser,
  type Parsed,
  type EditMarks,
  type ActionRequest,
  type Correction,
} from './parse.js';
export { applyEdit, type Edited, type EditKind } from './edit.js';
export { describeQuery, describeWhere } from './describe.js';
export { QueryRun, matches, EVALUATION_LIMITS, NO_VALUE, OTHER_GROUP, type Accessor, type Accessors, type Outcome, type Group, type FieldValue } from './evaluate.js';
