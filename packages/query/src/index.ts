export { QUERY_LIMITS, and, or, not, conditionsOf, querySchema, type Condition, type Query, type Scalar, type Sort, type What, type Where } from './query.js';
export {
  domainWords,
  entityOf,
  fieldOf,
  multiFields,
  type ActionDecl,
  type DomainDecl,
  type EntityDecl,
  type FieldDecl,
  type FieldExecution,
  type FieldType,
  type FieldValue as DeclaredValue,
  type PhraseDecl,
} from './domain.js';
export { FuzzyIndex, FUZZY_LIMITS, editDistance } from './fuzzy.js';
export { Lexicon, LEXICON_LIMITS, type LiveValue, type LiveValues } from './lexicon.js';
export { createParser, NO_EDIT, PARSE_LIMITS, type ParseContext, type Parser, type Parsed, type EditMarks, type ActionRequest, type Correction, type ReadWord } from './parse.js';
export { domainCard, readDomainCard, DOMAIN_CARD_LIMITS, type DomainCard } from './card.js';
export { applyEdit, type Edited, type EditKind } from './edit.js';
export { describeQuery } from './describe.js';
export { QueryRun, EVALUATION_LIMITS, NO_VALUE, OTHER_GROUP, type Accessors, type Outcome, type Group } from './evaluate.js';
export { readAct, ACT_LIMITS, type ConversationAct, type ConversationActKind } from './acts.js';
