import fc from 'fast-check';
import { Tiktoken, type TiktokenBPE } from 'js-tiktoken/lite';
import { beforeAll, describe, expect, it } from 'vitest';
import { BytePairEncoder, buildRankTable, CHUNK_BOUNDARY_MARGIN, PIECE_CHUNK_CHARS, type RankTable } from './bpe.js';
import { counterOf, TOKEN_ENCODINGS, type TokenEncoding } from './counter.js';
import { LONE_SURROGATE, longWord, realisticText } from './texts.test-util.js';

async function ranksOf(encoding: TokenEncoding): Promise<TiktokenBPE> {
  return encoding === 'cl100k_base' ? (await import('js-tiktoken/ranks/cl100k_base')).default : (await import('js-tiktoken/ranks/o200k_base')).default;
}

describe.each(TOKEN_ENCODINGS)('%s byte-pair encoder', (encoding) => {
  let ranks: TiktokenBPE;
  let table: RankTable;
  let reference: Tiktoken;
  const encodeReference = (text: string): number[] => reference.encode(text, [], []);
  beforeAll(async () => {
    ranks = await ranksOf(encoding);
    table = buildRankTable(ranks.bpe_ranks);
    reference = new Tiktoken(ranks);
  });

  it('packs the same bytes for every rank as js-tiktoken', () => {
    const { textMap } = reference as unknown as { textMap: Map<number, Uint8Array> };
    expect(table.ranks).toBe(textMap.size);
    for (const [rank, bytes] of textMap) {
      expect(Buffer.from(table.bytes.subarray(table.offsets[rank], table.offsets[rank + 1])).equals(bytes)).toBe(true);
    }
  });

  it('merges every piece up to the chunk size into exactly the reference tokens', () => {
    const encoder = new BytePairEncoder(table, ranks.pat_str);
    fc.assert(
      fc.property(fc.oneof(realisticText, fc.integer({ min: 1, max: PIECE_CHUNK_CHARS }).chain((length) => longWord(length).map(({ text }) => text.slice(0, PIECE_CHUNK_CHARS)))), (text) => {
        // The reference is quadratic in a piece's length: encode once.
        const expected = encodeReference(text);
        expect(encoder.encode(text)).toEqual(expected);
        expect(encoder.count(text)).toBe(expected.length);
      }),
      { numRuns: 120 },
    );
  }, 60_000);

  it('pre-tokenizes in windows exactly as in one pass, and counts a run cut at a window end as a boundary', () => {
    // A window of 200 characters: realistic text crosses window ends all the time; a long word fills whole ones.
    const encoder = new BytePairEncoder(table, ranks.pat_str, PIECE_CHUNK_CHARS, 200);
    let cutRuns = 0;
    fc.assert(
      fc.property(fc.array(fc.oneof(realisticText, realisticText, fc.integer({ min: 1, max: 400 }).chain((length) => longWord(length).map(({ text }) => text))), { maxLength: 6 }), (parts) => {
        const text = parts.join('');
        const ids = encoder.encode(text);
        const count = encoder.count(text);
        if (count === ids.length) {
          expect(ids).toEqual(encodeReference(text));
        } else {
          // A run as long as the window was cut: never counted below the reference.
          cutRuns += 1;
          expect(count).toBeGreaterThanOrEqual(encodeReference(text).length);
        }
      }),
      { numRuns: 400 },
    );
    expect(cutRuns).toBeGreaterThan(0);
  }, 60_000);

  it('counts long words in chunks never below the reference (chunks of 64 characters: many boundaries, fast)', () => {
    const encoder = new BytePairEncoder(table, ranks.pat_str, 64);
    let boundaries = 0;
    fc.assert(
      fc.property(
        fc.integer({ min: 65, max: 400 }).chain((length) => longWord(length)),
        ({ text }) => {
          const exact = encodeReference(text).length;
          const count = encoder.count(text);
          const merged = encoder.encode(text).length;
          const cuts = (count - merged) / CHUNK_BOUNDARY_MARGIN;
          boundaries += cuts;
          expect(count).toBeGreaterThanOrEqual(exact);
          expect(count).toBeLessThanOrEqual(exact + 2 * CHUNK_BOUNDARY_MARGIN * cuts);
        },
      ),
      { numRuns: 600, seed: 7 },
    );
    expect(boundaries).toBeGreaterThan(500);
  }, 120_000);

  it('truncates long words in chunks to prefixes within the budget', () => {
    const counter = counterOf(encoding, new BytePairEncoder(table, ranks.pat_str, 64, 200));
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 900 }).chain((length) => longWord(length)),
        fc.nat(),
        ({ text }, seed) => {
          const total = counter.count(text);
          const max = seed % (total + 2);
          const cut = counter.truncate(text, max);
          expect(text.startsWith(cut)).toBe(true);
          expect(LONE_SURROGATE.test(cut)).toBe(false);
          const kept = counter.count(cut);
          expect(kept).toBeLessThanOrEqual(max);
          if (max >= total) expect(cut).toBe(text);
          // Not needlessly short: within a chunk boundary's margin and a token of re-merging of the budget.
          else expect(kept).toBeGreaterThanOrEqual(Math.min(max, total) - CHUNK_BOUNDARY_MARGIN - 3);
        },
      ),
      { numRuns: 600, seed: 11 },
    );
  }, 60_000);
});
