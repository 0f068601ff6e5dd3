/** Presentation rules of the design note, applied by code. */
export const PRESENTATION = {
  /** Up to this many items an answer shows them all. */
  showWholeMax: 50,
  /** Above it: a page of this many rows, a summary, and how to continue. */
  pageRows: 20,
  /** A count question shows the rows too when there are at most this many. */
  countRowsMax: 20,
  /** Unhealthy resources, warning events and log lines a "what's wrong" answer quotes. */
  diagnosisRows: 8,
  logLines: 15,
  /** Warning events of the first unhealthy pod read for a diagnosis. */
  podEvents: 5,
  /** Rows of each part of "what needs attention", and resources not synced or not healthy in a details answer. */
  partRows: 10,
} as const;
