/**
 * Every limit of the bounded tools, in one place. Each is enforced in code and covered by tests; the
 * configurable ones are validated against their MIN/MAX here at start.
 */
export const LIMITS = {
  /** List pages: `limit` default and maximum. */
  pageDefault: 20,
  pageMax: 100,
  /** `offset` upper bound: far above any real estate, it only stops absurd input. */
  offsetMax: 10_000_000,
  /** read_result pages: `limit` default and maximum. */
  readDefault: 100,
  readMax: 500,
  /** Inline token budget for one tool result (default, and the range it may be configured in). */
  budgetDefault: 2_000,
  budgetMin: 256,
  budgetMax: 100_000,
  /** A first page of a list whose filtered set is larger than this is also spilled to the result store. */
  spillThresholdItems: 100,
  /** Search: matches collected before scanning stops. */
  searchMatchCap: 1_000,
  /** Search: longest query or regex accepted (also bounds regex compile and backtracking surface). */
  queryMaxLength: 256,
  /** Regex search: characters of one field value a regex is run on (bounds backtracking per value). */
  regexTextMax: 1_024,
  /** Regex search: repetitions (*, +, {n,m}) in one expression, the search for a start of an unanchored one counted; each more multiplies the backtracking on a long value. */
  regexRepeatsMax: 2,
  /** read_result `filter` longest accepted. */
  filterMaxLength: 200,
  /** Aggregates: values listed per dimension before the rest are folded into one "(N others)" entry. */
  countsTopValues: 10,
  /** Most values any one aggregate dimension may show (a tool may raise its own above countsTopValues up to this). */
  countsTopValuesMax: 50,
  /** Items a single stored result may hold. */
  storeMaxItems: 1_000_000,
} as const;

/** Result store defaults (configurable). */
export const STORE_DEFAULTS = {
  ttlSeconds: 3_600,
  diskCapBytes: 256 * 1024 * 1024,
  maxResultBytes: 64 * 1024 * 1024,
  sweepIntervalMs: 60_000,
  /** Expired ids remembered so read_result can say "expired" rather than "unknown". */
  tombstones: 10_000,
} as const;
