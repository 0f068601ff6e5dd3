import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { applyEdit, createParser, editDistance, EVALUATION_LIMITS, FuzzyIndex, OTHER_GROUP, QUERY_LIMITS, querySchema, QueryRun, type DomainDecl, type Where } from './index.js';

/** A small domain of its own: the package's contract, apart from any agent's declarations. */
const DOMAIN: DomainDecl = {
  name: 'toy',
  defaultEntity: 'boxes',
  entities: [
    {
      name: 'boxes',
      singular: 'box',
      plural: 'boxes',
      words: ['boxes', 'box'],
      nameField: 'name',
      fields: [
        { name: 'name', label: 'name', type: 'name', live: true, exec: 'tool' },
        { name: 'colour', label: 'colour', type: 'enum', words: ['colour', 'color'], values: [{ value: 'Red', words: ['red'] }, { value: 'Blue', words: ['blue'] }], exec: 'tool', groupable: true, projection: true },
        { name: 'site', label: 'site', type: 'name', words: ['site'], live: true, exec: 'tool', groupable: true, projection: true },
        { name: 'owner', label: 'owner', type: 'name', words: ['owner'], live: true, exec: 'tool', groupable: true, projection: true },
        { name: 'tag', label: 'tag', type: 'name', words: ['tag', 'tagged'], live: true, exec: 'tool', multi: true, groupable: true },
      ],
      details: ['colour', 'site'],
    },
  ],
};

describe('fuzzy index', () => {
  it('corrects to the one nearest word within the allowed edits, and to none when two are as near', () => {
    const index = new FuzzyIndex();
    for (const w of ['degraded', 'healthy', 'prod-eu-1', 'prod-us-1', 'sync']) index.add(w);
    expect(index.correct('degarded')?.word).toBe('degraded');
    expect(index.correct('prdo-eu-1')?.word).toBe('prod-eu-1');
    // Two edits from both prod-eu-1 and prod-us-1: no guess.
    expect(index.correct('prod-xx-1')).toBeUndefined();
    // A four-letter word only by a swap.
    expect(index.correct('snyc')?.word).toBe('sync');
    expect(index.correct('sunc')).toBeUndefined();
  });

  it('of two words as near, takes the one with the very letters of the typo (a swap), and neither when both or none have them', () => {
    const index = new FuzzyIndex();
    for (const w of ['devices', 'device', 'routers', 'router']) index.add(w);
    // "devicse": one swap from devices, one letter more than device.
    expect(index.correct('devicse')?.word).toBe('devices');
    expect(index.correct('rotuers')?.word).toBe('routers');
    // "devicess": one letter more than devices, two from device: the nearest, as before.
    expect(index.correct('devicess')?.word).toBe('devices');
    // "devics": a letter short of devices, a letter changed from device: as near, neither a swap.
    expect(index.correct('devics')).toBeUndefined();
  });

  it('reads an unknown word between "the" and a name field\'s word as that field\'s value, never dropping it', () => {
    const parser = createParser(DOMAIN, { boxes: { owner: ['alice'], site: ['oslo'] } });
    expect(parser.parse('boxes of the zork owner', 0).query?.where).toEqual({ op: 'eq', field: 'owner', value: 'zork' });
    expect(parser.parse('how many boxes does the zork owner have', 0).unapplied).toEqual([]);
    // A known value reads as before; a word with a meaning of its own is not taken for a name; an enum field takes no guess.
    expect(parser.parse('boxes of the alice owner', 0).query?.where).toEqual({ op: 'eq', field: 'owner', value: 'alice' });
    expect(parser.parse('boxes of the red colour', 0).query?.where).toEqual({ op: 'eq', field: 'colour', value: 'Red' });
    expect(parser.parse('boxes of the green colour', 0).unapplied).toContain('green');
  });

  it('reads a contraction typed without its apostrophe, and a summary as a breakdown', () => {
    const parser = createParser(DOMAIN, { boxes: { site: ['oslo'] } });
    for (const [typed, written] of [
      ['boxes that arent red', "boxes that aren't red"],
      ['boxes which dont have a tag', "boxes which don't have a tag"],
      ['boxes that isnt blue', "boxes that isn't blue"],
    ] as const) {
      expect(parser.parse(typed, 0).query, typed).toEqual(parser.parse(written, 0).query);
      expect(parser.parse(typed, 0).unapplied, typed).toEqual([]);
    }
    expect(parser.parse('colour summary of the boxes', 0).query?.what).toEqual({ kind: 'breakdown', by: ['colour'] });
  });

  it('takes one of two words as near when they mean the same, and neither when they do not', () => {
    const index = new FuzzyIndex();
    for (const w of ['switch', 'switches']) index.add(w);
    expect(index.correct('switchs')).toBeUndefined();
    expect(index.correct('switchs', () => true)?.word).toMatch(/^switch(es)?$/);
    expect(index.correct('switchs', () => false)).toBeUndefined();
  });

  it('agrees with the plain distance on every pair it finds', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z]{4,10}$/), fc.stringMatching(/^[a-z]{4,10}$/), (a, b) => {
        const index = new FuzzyIndex();
        index.add(a);
        const found = index.correct(b);
        if (found !== undefined) expect(editDistance(a, b, 2)).toBe(found.distance);
      }),
      { numRuns: 300, seed: 7 },
    );
  });

  it('finds a word one edit away (a letter missing, one too many, one changed, two swapped) among many, unless the edit changed a number', () => {
    const edit = fc.tuple(fc.constantFrom('delete', 'insert', 'substitute', 'swap'), fc.nat(), fc.constantFrom(...'abcdefghij-0'));
    fc.assert(
      fc.property(fc.uniqueArray(fc.stringMatching(/^[a-z][a-z0-9-]{4,20}$/), { minLength: 1, maxLength: 200 }), fc.nat(), edit, (words, pick, [kind, at, letter]) => {
        const index = new FuzzyIndex();
        for (const w of words) index.add(w);
        const word = words[pick % words.length] ?? '';
        const i = at % word.length;
        const typo =
          kind === 'delete' ? word.slice(0, i) + word.slice(i + 1)
          : kind === 'insert' ? word.slice(0, i) + letter + word.slice(i)
          : kind === 'substitute' ? word.slice(0, i) + letter + word.slice(i + 1)
          : word.slice(0, i) + (word[i + 1] ?? '') + (word[i] ?? '') + word.slice(i + 2);
        if (typo === word || index.has(typo) || typo.length < 5) return;
        // Another word as near (or nearer) makes it no guess; otherwise the word is found. An edit that changes a
        // number ("sw-01" for "sw-001") names another thing: never corrected to the word.
        const numbers = (w: string): string => (w.match(/[0-9]+/g) ?? []).join(' ');
        const rivals = words.filter((w) => w !== word && editDistance(w, typo, 1) <= 1 && numbers(w) === numbers(typo));
        const found = index.correct(typo);
        if (numbers(typo) !== numbers(word)) expect(found?.word).not.toBe(word);
        else if (rivals.length === 0) expect(found?.word).toBe(word);
        else expect(found?.word).not.toBe(word);
      }),
      { numRuns: 500 },
    );
  });
});

describe('query schema', () => {
  const schema = querySchema(['boxes'], ['name', 'colour', 'site']);
  it('takes a query over the declared fields and refuses others, and a where nested past the bound', () => {
    expect(schema.safeParse({ entity: 'boxes', what: { kind: 'count' }, where: { op: 'eq', field: 'colour', value: 'Red' } }).success).toBe(true);
    expect(schema.safeParse({ entity: 'boxes', what: { kind: 'count' }, where: { op: 'eq', field: 'weight', value: 3 } }).success).toBe(false);
    let deep: Where = { op: 'eq', field: 'colour', value: 'Red' };
    for (let i = 0; i < QUERY_LIMITS.maxDepth; i += 1) deep = { op: 'not', of: deep };
    const refused = schema.safeParse({ entity: 'boxes', what: { kind: 'count' }, where: deep });
    expect(refused.success).toBe(false);
    expect(JSON.stringify(refused.error?.issues)).toMatch(/nested deeper than 6 levels/);
  });
});

describe('bounded evaluation', () => {
  const acc = { name: (b: { name: string; colour: string }) => b.name, colour: (b: { name: string; colour: string }) => b.colour, site: (b: { name: string; colour: string }) => b.name.slice(0, 3) };
  it('holds only the page asked for, counts every item, and folds groups past the cap into one', () => {
    const run = new QueryRun({ entity: 'boxes', what: { kind: 'list' }, where: { op: 'eq', field: 'colour', value: 'red' }, limit: 5, offset: 10 }, acc);
    for (let i = 0; i < 1_000; i += 1) run.add({ name: `b${i}`, colour: i % 2 === 0 ? 'Red' : 'Blue' });
    const out = run.result();
    expect(out).toMatchObject({ kind: 'list', total: 500, offset: 10 });
    expect(out.kind === 'list' ? out.items.map((x) => x.name) : []).toEqual(['b20', 'b22', 'b24', 'b26', 'b28']);
    const groups = new QueryRun({ entity: 'boxes', what: { kind: 'breakdown', by: ['name'] } }, acc);
    const n = EVALUATION_LIMITS.maxGroups + 50;
    for (let i = 0; i < n; i += 1) groups.add({ name: `g${i}`, colour: 'Red' });
    const result = groups.result();
    expect(result.kind === 'breakdown' && result.groupsCapped).toBe(true);
    if (result.kind !== 'breakdown') throw new Error('expected a breakdown');
    expect(result.groups.reduce((s, g) => s + g.count, 0)).toBe(n);
    expect(result.groups.find((g) => g.key[0] === OTHER_GROUP)?.count).toBe(50);
  });
});

describe('parser and edits', () => {
  const parser = createParser(DOMAIN, { boxes: { name: ['box-a1', 'box-b2'], site: ['ams1', 'fra1'] } });
  const now = Date.parse('2026-01-01T00:00:00Z');
  it('reads negation, OR-lists, breakdowns and typos in names, and returns the words it did not apply', () => {
    expect(parser.parse('boxes that are not red in ams1 or fra1', now).query?.where).toEqual({
      op: 'and',
      of: [{ op: 'not', of: { op: 'eq', field: 'colour', value: 'Red' } }, { op: 'in', field: 'site', values: ['ams1', 'fra1'] }],
    });
    expect(parser.parse('colour breakdown per site', now).query?.what).toEqual({ kind: 'breakdown', by: ['site', 'colour'] });
    const typo = parser.parse('red boxes in amss1', now);
    expect(typo.corrections).toEqual([{ from: 'amss1', to: 'ams1' }]);
    expect(parser.parse('red boxes with wheels', now).unapplied).toEqual(['wheels']);
  });

  it('edits the previous query: "of those" adds, "what about" replaces, a standalone question stands alone', () => {
    const first = parser.parse('how many boxes in ams1', now).query;
    const refine = applyEdit(parser.parse('and how many of those are red?', now), first);
    expect(refine).toMatchObject({ kind: 'refine', query: { what: { kind: 'count' }, where: { op: 'and', of: [{ field: 'site', value: 'ams1' }, { field: 'colour', value: 'Red' }] } } });
    const replace = applyEdit(parser.parse('what about fra1?', now), first);
    expect(replace).toMatchObject({ kind: 'replace', query: { what: { kind: 'count' }, where: { op: 'eq', field: 'site', value: 'fra1' } } });
    expect(applyEdit(parser.parse('list the blue boxes', now), first)?.kind).toBe('standalone');
  });

  it('a refinement that sets a single-valued field again replaces its value; a multi-valued one narrows', () => {
    const live = createParser(DOMAIN, { boxes: { site: ['ams1', 'fra1'], tag: ['core', 'edge'] } });
    const multi = new Set(['tag']);
    const red = live.parse('how many red boxes in ams1', now).query;
    const blue = applyEdit(live.parse('and how many of those are blue?', now), red, multi);
    expect(blue?.query.where).toEqual({ op: 'and', of: [{ op: 'eq', field: 'site', value: 'ams1' }, { op: 'eq', field: 'colour', value: 'Blue' }] });
    const core = live.parse('how many boxes tagged core', now).query;
    const both = applyEdit(live.parse('and of those, how many are tagged edge?', now), core, multi);
    expect(both?.query.where).toEqual({ op: 'and', of: [{ op: 'eq', field: 'tag', value: 'core' }, { op: 'eq', field: 'tag', value: 'edge' }] });
  });

  it('a question that says what it wants of a subject it names stands alone; one that names no subject continues', () => {
    const first = parser.parse('how many boxes in ams1', now).query;
    expect(applyEdit(parser.parse('red ones by site', now), first)?.kind).toBe('standalone');
    expect(applyEdit(parser.parse('how many are red?', now), first)).toMatchObject({ kind: 'refine', query: { where: { op: 'and' } } });
  });

  it('reads a field\'s word that is also another field\'s value as the field where it works as one', () => {
    // "site" is also an owner's name here.
    const live = createParser(DOMAIN, { boxes: { name: ['bx-01', 'bx-02'], site: ['ams1'], owner: ['site', 'netops'] } });
    expect(live.parse('what is the site of bx-01', now).query).toEqual({ entity: 'boxes', where: { op: 'eq', field: 'name', value: 'bx-01' }, what: { kind: 'fields', fields: ['site'] } });
    expect(live.parse('bx-02 site', now).query?.what).toEqual({ kind: 'fields', fields: ['site'] });
    expect(live.parse('boxes by site', now).query?.what).toEqual({ kind: 'breakdown', by: ['site'] });
    expect(live.parse('how many boxes of owner site', now).query?.where).toEqual({ op: 'eq', field: 'owner', value: 'site' });
  });

  it('reads a live value by the name the system shows for it, and one named alone for its details', () => {
    const live = createParser(DOMAIN, { boxes: { name: ['bx-01'], owner: [{ value: 'netops', label: 'Network Operations' }] } });
    expect(live.parse('how many boxes owned by network operations', now).query?.where).toEqual({ op: 'eq', field: 'owner', value: 'netops' });
    expect(live.parse('show box bx-01', now).query?.what).toEqual({ kind: 'fields', fields: ['colour', 'site'] });
  });
});
