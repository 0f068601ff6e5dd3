import fc from 'fast-check';

/** A lone surrogate: the reference decodes it to U+FFFD, we keep the text's own character. */
export const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Realistic text for exactness properties: what tools and conversations actually carry. */
const WORDS = ['the', 'The', 'application', 'payments-api', 'is', 'OutOfSync', 'and', 'Degraded', 'since', "it's", "we'll", "DON'T", 'interfaces', 'of', 'every', 'switch', 'in', 'ams1', 'über', 'naïve', 'résumé', 'Straße', 'HTTP/2', 'v1.2.3', '42', '3.14159', '2024-05-13T10:00:00Z', '(see', 'below)', '—', '…', '"quoted"', 'e.g.', 'i.e.,'];
const PUNCTUATION = ['.', ',', ';', ':', '!', '?', ' -', ' —', '...', ''];
const CJK = ['日本語', '中文文本', '한국어', 'テキスト', '的', '接口', '交换机', '設定ファイル'];
const EMOJI = ['😀', '🚀', '👍🏽', '👨‍👩‍👧', '❤️', '🇳🇱', '✅', '🔥'];
const SPECIAL = ['<|endoftext|>', '<|fim_prefix|>', '<|fim_middle|>', '<|fim_suffix|>', '<|endofprompt|>', '<|im_start|>', '<|im_end|>'];
const CODE = ['const ', 'function ', 'return ', 'if (', ') {\n', '}\n', '  ', '    ', '\t', 'await ', 'fetch(url)', '=> ', '=== ', '!== ', '&&', '||', ' + ', 'x += 1;', '// comment\n', '/* block */', 'camelCaseName', 'snake_case_name', 'SCREAMING_CASE', 'Array<string>', '[0]', '`${value}`', "'single'", '"double"', ';\n', 'def main():\n', 'SELECT * FROM t WHERE id = 1;'];
const WHITESPACE = [' ', '  ', '   ', '\t', '\n', '\n\n', '\r\n', '\r', ' \n', '\u00a0', '\u2003', '\u3000'];

const english = fc
  .array(fc.tuple(fc.constantFrom(...WORDS), fc.constantFrom(...PUNCTUATION), fc.constantFrom(' ', ' ', ' ', '\n', '  ')), { maxLength: 40 })
  .map((parts) => parts.map(([word, mark, space]) => word + mark + space).join(''));

/** JSON of API objects, as tools return them: compact or indented. */
const apiJson = fc
  .tuple(
    fc.array(
      fc.record({
        name: fc.stringMatching(/^[a-z][a-z0-9-]{0,20}$/),
        namespace: fc.constantFrom('default', 'payments', 'kube-system'),
        sync: fc.constantFrom('Synced', 'OutOfSync', 'Unknown'),
        health: fc.constantFrom('Healthy', 'Degraded', 'Progressing', 'Missing'),
        revision: fc.stringMatching(/^[0-9a-f]{7,40}$/),
        replicas: fc.integer({ min: 0, max: 500 }),
        labels: fc.dictionary(fc.constantFrom('app.kubernetes.io/name', 'team', 'tier', 'env'), fc.stringMatching(/^[a-z0-9.-]{1,12}$/)),
        url: fc.webUrl(),
        note: fc.option(fc.string({ maxLength: 30 }), { nil: null }),
      }),
      { maxLength: 4 },
    ),
    fc.constantFrom(undefined, 2, '\t'),
  )
  .map(([items, indent]) => JSON.stringify({ count: items.length, results: items }, null, indent));

const code = fc.array(fc.constantFrom(...CODE), { maxLength: 40 }).map((parts) => parts.join(''));
const cjk = fc.array(fc.oneof(fc.constantFrom(...CJK), fc.integer({ min: 0x4e00, max: 0x9fff }).map((c) => String.fromCharCode(c))), { maxLength: 30 }).map((parts) => parts.join(''));
const emoji = fc.array(fc.oneof(fc.constantFrom(...EMOJI), fc.constantFrom(' ', 'ok ', '\n')), { maxLength: 20 }).map((parts) => parts.join(''));
const whitespace = fc.array(fc.oneof(fc.constantFrom(...WHITESPACE), fc.constantFrom('a', 'B', '1', '.', '日')), { maxLength: 40 }).map((parts) => parts.join(''));
const special = fc.array(fc.oneof(fc.constantFrom(...SPECIAL), english), { maxLength: 4 }).map((parts) => parts.join(' '));

/** One realistic text: a mix of the shapes above, now and then with arbitrary code points (lone surrogates too). */
export const realisticText: fc.Arbitrary<string> = fc
  .array(fc.oneof(english, apiJson, code, fc.webUrl({ withQueryParameters: true, withFragments: true }), cjk, emoji, whitespace, special, fc.string({ unit: 'binary', maxLength: 40 })), { minLength: 1, maxLength: 4 })
  .map((parts) => parts.join(''));

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const LOWER = 'abcdefghijklmnopqrstuvwxyz';
const CJK_CHARS = '的一是不了人我在有他这为之大来以个中上们到说国和地也子时道出而要于就下得可你年生自会那后能对着事其里所去行过家';

/** `length` picks from `alphabet` by a seeded xorshift: fast-check arrays of thousands of characters are slow. */
function draw(alphabet: string | readonly string[], length: number, seed: number): string {
  const units = typeof alphabet === 'string' ? [...alphabet] : alphabet;
  let state = seed | 1;
  let text = '';
  for (let i = 0; i < length; i += 1) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    text += units[(state >>> 0) % units.length];
  }
  return text;
}

/** Each shape of long word, from a length and a seed. */
const SHAPES: Record<string, (length: number, seed: number) => string> = {
  base64: (length, seed) => draw(BASE64, length, seed),
  hex: (length, seed) => draw('0123456789abcdef', length, seed),
  oneLetter: (length, seed) => {
    const unit = ['a', 'x', 'Z', '=', '-', '.', ' ', '\n', '日', '😀', '0'][seed % 11]!;
    return unit.repeat(Math.ceil(length / unit.length));
  },
  letters: (length, seed) => draw(LOWER, length, seed),
  fewLetters: (length, seed) => draw(draw(LOWER, 2 + (seed % 3), seed + 1), length, seed),
  mixedCase: (length, seed) => draw(LOWER + LOWER.toUpperCase(), length, seed),
  periodic: (length, seed) => {
    const unit = draw(LOWER, 1 + (seed % 6), seed + 1);
    return unit.repeat(Math.ceil(length / unit.length));
  },
  digits: (length, seed) => draw('0123456789', length, seed),
  cjk: (length, seed) => draw(CJK_CHARS, length, seed),
  emoji: (length, seed) => draw(['😀', '🚀', '👍🏽', '❤️', '🔥', '✨'], Math.ceil(length / 2), seed),
  punctuation: (length, seed) => draw('=-_.,;:!?*#~/\\|+<>()[]{}\'"', length, seed),
  whitespace: (length, seed) => draw('   \t\n\r', length, seed),
};

/** The shapes `longWord` draws from. */
export const LONG_WORD_SHAPES = Object.keys(SHAPES);

/**
 * One long unbroken word of about `length` characters (emoji count two units each) in a pathological shape:
 * what a base64 certificate, a hex digest or a padded field looks like. Some shapes are one regex piece (letters,
 * punctuation, whitespace), others many short ones (base64 and hex are split at digits): both are checked.
 */
export function longWord(length: number): fc.Arbitrary<{ shape: string; text: string }> {
  return fc.tuple(fc.constantFrom(...LONG_WORD_SHAPES), fc.integer({ min: 1, max: 0x7fffffff })).map(([shape, seed]) => ({ shape, text: SHAPES[shape]!(length, seed) }));
}
