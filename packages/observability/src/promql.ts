/**
 * A few PromQL building blocks, so alert and dashboard queries are assembled from the metric-name constants
 * rather than spelled by hand.
 */

/** A label matcher: `label="value"`, `label=~"regex"`, `label!="value"`. */
export type Matcher = readonly [label: string, op: '=' | '=~' | '!=' | '!~', value: string];

export function eq(label: string, value: string): Matcher {
  return [label, '=', value];
}

export function re(label: string, value: string): Matcher {
  return [label, '=~', value];
}

export function ne(label: string, value: string): Matcher {
  return [label, '!=', value];
}

/** A PromQL string literal (double-quoted, backslashes and quotes escaped). */
export function quoted(value: string): string {
  return `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/** `metric{a="b", c=~"d"}` (just `metric` without matchers). */
export function selector(metric: string, ...matchers: readonly Matcher[]): string {
  if (matchers.length === 0) return metric;
  return `${metric}{${matchers.map(([label, op, value]) => `${label}${op}${quoted(value)}`).join(', ')}}`;
}

/** A regex matching exactly one of the values (an alternation; values are plain label values). */
export function oneOf(values: readonly string[]): string {
  return values.join('|');
}

export function rate(series: string, window: string): string {
  return `rate(${series}[${window}])`;
}

export function increase(series: string, window: string): string {
  return `increase(${series}[${window}])`;
}

export function sumBy(labels: readonly string[], expr: string): string {
  return `sum by (${labels.join(', ')}) (${expr})`;
}

export function maxBy(labels: readonly string[], expr: string): string {
  return `max by (${labels.join(', ')}) (${expr})`;
}

export function avgBy(labels: readonly string[], expr: string): string {
  return `avg by (${labels.join(', ')}) (${expr})`;
}

/** `sum without (labels...) (expr)`: drops those labels, keeps every other one (the scrape's pod, instance, ...). */
export function sumWithout(labels: readonly string[], expr: string): string {
  return `sum without (${labels.join(', ')}) (${expr})`;
}

/** `histogram_quantile(q, sum by (labels..., le) (rate(<histogram>_bucket{...}[window])))`. */
export function quantile(q: number, histogram: string, by: readonly string[], window: string, ...matchers: readonly Matcher[]): string {
  return `histogram_quantile(${q}, ${sumBy([...by, 'le'], rate(selector(`${histogram}_bucket`, ...matchers), window))})`;
}

/** Picks a value out of one of the outcome lists of `@flotilla/metrics`, failing loudly when it is not there. */
export function pick<const T extends string>(list: readonly T[], value: NoInfer<T>): T {
  if (!list.includes(value)) throw new Error(`${value} is not one of ${list.join(', ')}`);
  return value;
}

/** The `le` label value Prometheus client libraries write for a bucket bound (204800 → "204800"). */
export function le(bound: number): string {
  return Number.isFinite(bound) ? String(bound) : '+Inf';
}
