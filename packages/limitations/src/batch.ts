/** Batching and sampling: the N+1 remedies of ADR-0019, exact batching first, sampling only when asked or forced. */

/** Splits `items` into consecutive batches of at most `size` (size >= 1). */
export function batches<T>(items: readonly T[], size: number): T[][] {
  if (!Number.isInteger(size) || size < 1) throw new RangeError(`batch size must be a whole number >= 1 (got ${size})`);
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** Kinds of relation the design note sizes samples for. */
export type RelationKind = 'interfaces' | 'cables' | 'other';

/** The design note's adaptive sample size: 10% (3..8) of devices for interfaces and cables, 12.5% (5..10) otherwise. */
export function sampleSize(total: number, relation: RelationKind): number {
  if (total <= 0) return 0;
  const size = relation === 'other' ? Math.min(10, Math.max(5, Math.floor(total / 8))) : Math.min(8, Math.max(3, Math.floor(total / 10)));
  return Math.min(total, size);
}

/**
 * A representative sample spread across the list (not its head): the middle item of each of `size` equal
 * strides, so a list sorted by name, rack or role is sampled from every part of it. Deterministic.
 */
export function representativeSample<T>(items: readonly T[], size: number): T[] {
  const n = items.length;
  if (size >= n) return [...items];
  if (size <= 0) return [];
  const out: T[] = [];
  for (let i = 0; i < size; i += 1) out.push(items[Math.floor(((i + 0.5) * n) / size)] as T);
  return out;
}

/** The design note's base sizes; other kinds use 30. */
const BASE_BATCH: Readonly<Record<string, number>> = { devices: 25, vlans: 50, cables: 20 };

/** The design note's batch-size optimiser for progressive disclosure. */
export function optimalBatchSize(itemKind: string, estimatedTotal: number): number {
  const base = BASE_BATCH[itemKind] ?? 30;
  if (estimatedTotal < 100) return Math.max(1, Math.min(base, estimatedTotal));
  if (estimatedTotal < 500) return base;
  return Math.floor(base * 1.5);
}
