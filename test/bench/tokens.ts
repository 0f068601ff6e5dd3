import { loadReferenceTokenCounter, loadTokenCounter, TOKEN_ENCODINGS, type TokenCounter } from '@flotilla/tokens';

export interface TokenBenchRow {
  readonly shape: string;
  readonly chars: number;
  readonly tokens: number;
  /** Wall time of one count: the best of a few runs (one run for the old encoder). */
  readonly ms: number;
}

const MIB = 1 << 20;
/** Goal: one MiB of one repeated letter counted in under this. */
export const ONE_LETTER_GOAL_MS = 100;

/** A deterministic xorshift32, so that every run counts the same text. */
function random(seed: number): () => number {
  let state = seed | 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return state >>> 0;
  };
}

function base64(chars: number): string {
  const next = random(64);
  return Buffer.from(Uint8Array.from({ length: (chars * 3) / 4 }, () => next() & 0xff)).toString('base64');
}

const WORDS = (
  'the of and to in is that for it as was with be by on not he this are or his from at which but have an they ' +
  'you were her she there one all we their been has would when who will more no if out so said what up its about ' +
  'into than them can only other new some could time these two may then do first any my now such like our over ' +
  'man me even most made after also did many before must through back years where much your way well down should ' +
  'because each just those people how too little state good very make world still own see men work long get here ' +
  'between both life being under never day same another know while last might us great old year off come since ' +
  'deployment cluster application synchronised namespace interface switch replica revision controller'
).split(' ');

/** Sentences of common English words with capitals, commas and paragraphs, to `chars` characters. */
function prose(chars: number): string {
  const next = random(7);
  const parts: string[] = [];
  let length = 0;
  while (length < chars) {
    const words = Array.from({ length: 6 + (next() % 18) }, () => WORDS[next() % WORDS.length] ?? 'the');
    if (words.length > 10) words[5] = `${words[5]},`;
    const sentence = `${words.join(' ')}.`;
    const text = `${sentence[0]?.toUpperCase() ?? ''}${sentence.slice(1)}${next() % 6 === 0 ? '\n\n' : ' '}`;
    parts.push(text);
    length += text.length;
  }
  return parts.join('').slice(0, chars);
}

/** The largest page of Argo CD applications, as a tool returns it (indented JSON), of at most `tokens` tokens. */
function jsonPage(counter: TokenCounter, tokens: number): string {
  const next = random(2_000);
  const items: unknown[] = [];
  let fits = '';
  for (let i = 0; ; i += 1) {
    items.push({
      name: `payments-api-${i}-${(next() % 1000).toString(36)}`,
      project: ['payments', 'platform', 'data'][next() % 3],
      namespace: `team-${next() % 40}`,
      sync: { status: next() % 4 === 0 ? 'OutOfSync' : 'Synced', revision: next().toString(16).padStart(8, '0') + next().toString(16).padStart(8, '0') },
      health: { status: ['Healthy', 'Degraded', 'Progressing'][next() % 3] },
      source: { repoURL: `https://git.example.com/org/app-${next() % 50}.git`, path: `deploy/overlays/prod-${next() % 9}`, targetRevision: 'HEAD' },
      labels: { 'app.kubernetes.io/part-of': 'payments', tier: next() % 2 === 0 ? 'backend' : 'frontend' },
    });
    const page = JSON.stringify({ total: 819, returned: items.length, next_offset: items.length, items }, null, 2);
    if (counter.count(page) > tokens) return fits;
    fits = page;
  }
}

/** The best wall time of `fn` over a few runs (at least 3, or as many as fit in ~200 ms). */
function best(fn: () => number): { tokens: number; ms: number } {
  let tokens = 0;
  let ms = Number.POSITIVE_INFINITY;
  const start = performance.now();
  for (let run = 0; run < 3 || (run < 50 && performance.now() - start < 200); run += 1) {
    const t0 = performance.now();
    tokens = fn();
    ms = Math.min(ms, performance.now() - t0);
  }
  return { tokens, ms };
}

/**
 * Token counting on pathological and ordinary text, for each encoding: 1 MiB of one repeated letter, 1 MiB of
 * random base64, 1 MiB of English prose, a 2,000-token JSON page; and, to show before and after, 16k of one
 * letter with the old encoder (js-tiktoken's, quadratic in a piece: ~20 s) next to the new one. In process,
 * about half a minute, mostly the old encoder's one count.
 */
export async function benchTokens(): Promise<{ rows: TokenBenchRow[] }> {
  const rows: TokenBenchRow[] = [];
  const texts = { letter: 'a'.repeat(MIB), base64: base64(MIB), prose: prose(MIB) };
  for (const encoding of TOKEN_ENCODINGS) {
    const counter = await loadTokenCounter(encoding);
    const shapes: [string, string][] = [
      ['1 MiB of one letter', texts.letter],
      ['1 MiB of random base64', texts.base64],
      ['1 MiB of English prose', texts.prose],
      ['a 2,000-token JSON page', jsonPage(counter, 2_000)],
      ['16k of one letter', texts.letter.slice(0, 16_384)],
    ];
    for (const [shape, text] of shapes) {
      const { tokens, ms } = best(() => counter.count(text));
      rows.push({ shape: `${shape} (${encoding})`, chars: text.length, tokens, ms });
    }
  }
  // The old path once: js-tiktoken's encoder, as every count ran before (cl100k, the default encoding).
  const old = await loadReferenceTokenCounter('cl100k_base');
  const text = texts.letter.slice(0, 16_384);
  const t0 = performance.now();
  const tokens = old.count(text);
  rows.push({ shape: '16k of one letter (cl100k_base, old js-tiktoken encoder)', chars: text.length, tokens, ms: performance.now() - t0 });
  return { rows };
}
