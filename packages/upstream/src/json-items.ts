/** Largest single value (one list item, or one other top-level member) a list body may carry by default: 1 MiB. */
export const DEFAULT_MAX_VALUE_BYTES = 1024 * 1024;
/**
 * Bytes of a key remembered (for the list key, the captured members and the path in errors). Any JSON spelling
 * of a name of up to 10 characters fits, escapes (`\u0069`) included; a longer key cannot equal one.
 */
export const JSON_KEY_CAP_BYTES = 64;
/** Longest name usable as a list key or a captured member: its every JSON spelling fits JSON_KEY_CAP_BYTES. */
const MAX_NAME_LENGTH = Math.floor(JSON_KEY_CAP_BYTES / 6);
/** Largest captured top-level scalar (`count`, `next`): a URL of a few KiB at most; a bigger one is refused. */
export const JSON_SCALAR_CAP_BYTES = 8 * 1024;
/** Deepest nesting accepted; the splitter keeps a fixed stack of this many levels, deeper bodies are refused. */
export const JSON_MAX_DEPTH = 128;

/** A value of a list body over its cap: refused as soon as it passes the cap, never held whole. */
export class JsonValueTooLarge extends Error {
  constructor(
    /** Where: `items[3].spec.source.helm.values`, `results[12]`, or a top-level member's name. */
    readonly path: string,
    /** The cap passed, in bytes. */
    readonly limit: number,
  ) {
    super(`the value at ${path} is over the ${limit}-byte cap`);
  }
}

/** A list body that is not what the splitter reads: its message says what is wrong, never quoting the body. */
export class JsonBodyError extends SyntaxError {}

export interface JsonItemsOptions {
  /** The top-level member holding the list: `items` (the default) or another (`results` of a paged list). */
  readonly listKey?: string;
  /** Top-level scalar members to read beside the list (a page's `count`, `next`, `previous`); containers are skipped. */
  readonly capture?: readonly string[];
  /** Largest item, or other top-level member value, in bytes (DEFAULT_MAX_VALUE_BYTES). */
  readonly maxValueBytes?: number;
  /**
   * An item over `maxValueBytes`: refused (the default), or skipped from there to its end byte by byte, never
   * held, and reported in `oversized` with its path and its first OVERSIZED_HEAD_BYTES (where an object's
   * identifying fields usually are).
   */
  readonly oversizedItems?: 'refuse' | 'skip';
}

/** Bytes of a skipped item's beginning kept to say which item it was. */
export const OVERSIZED_HEAD_BYTES = 512;
/** Skipped items described (path and head); more are only counted. */
export const OVERSIZED_SAMPLES = 20;

/** Items over the cap that a skipping splitter passed over. */
export interface OversizedItems {
  count: number;
  /** The first OVERSIZED_SAMPLES: path (`items[3]`) and the item's first bytes as text (cut anywhere). */
  readonly samples: { readonly path: string; readonly head: string }[];
}

// What the next byte outside a string may be.
const VALUE = 0; // a value (after `:`, `,` in an array, or at the start)
const VALUE_OR_CLOSE = 1; // a value or `]` (after `[`)
const KEY = 2; // a key (after `,` in an object)
const KEY_OR_CLOSE = 3; // a key or `}` (after `{`)
const COLON = 4;
const AFTER = 5; // `,` or the closer of the container
const STRING = 6;
const LITERAL = 7; // inside a number, true, false or null
const END = 8; // the top-level object closed: whitespace only

const OBJECT = 1;
const ARRAY = 2;

// What the value being read at the unit level is (items and top-level members are the capped units).
const NO_UNIT = 0;
const ITEM = 1; // an element of the list: collected, then emitted
const MEMBER = 2; // another top-level member: skipped while counting
const CAPTURE = 3; // a captured top-level scalar: collected up to JSON_SCALAR_CAP_BYTES
const SKIPPED_ITEM = 4; // an element of the list over the cap, with oversizedItems 'skip': counted, not collected

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const WHITESPACE = new Uint8Array(256);
for (const byte of [0x20, 0x09, 0x0a, 0x0d]) WHITESPACE[byte] = 1;
/** Bytes of numbers and of true/false/null; exactness is checked where a literal is parsed (items, captures). */
const LITERAL_BYTES = new Uint8Array(256);
for (const byte of Buffer.from('0123456789+-.eEtruefalsn')) LITERAL_BYTES[byte] = 1;
const LITERAL_STARTS = new Uint8Array(256);
for (const byte of Buffer.from('-0123456789tfn')) LITERAL_STARTS[byte] = 1;
const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;
const EMPTY = Buffer.alloc(0);

/**
 * Splits a JSON document of the form `{..., "items": [ ..., ... ], ...}` into the text of each element of the
 * top-level list as the body streams in, so a list of any length is parsed one item at a time and the whole body
 * is never held. What it holds is bounded by constants, whatever the body: the bytes of the current item (at most
 * `maxValueBytes`, refused as soon as it passes), of a captured scalar (at most JSON_SCALAR_CAP_BYTES), and a
 * stack of JSON_MAX_DEPTH levels with keys cut to JSON_KEY_CAP_BYTES. Every other top-level member is skipped
 * byte by byte while counting, and refused past `maxValueBytes` too; a string is never collected to be skipped.
 */
export class JsonItemsSplitter {
  private readonly listKey: string;
  private readonly capture: ReadonlySet<string>;
  private readonly maxValueBytes: number;
  private readonly skipOversized: boolean;
  /** Items skipped for their size (oversizedItems 'skip'). */
  readonly oversized: OversizedItems = { count: 0, samples: [] };

  private mode = VALUE;
  private depth = 0;
  /** Per open container: its kind, the key or index of the value being read in it, and where that value began. */
  private readonly kinds = new Uint8Array(JSON_MAX_DEPTH);
  private readonly labels: (string | number | undefined)[] = new Array<undefined>(JSON_MAX_DEPTH).fill(undefined);
  private readonly starts = new Float64Array(JSON_MAX_DEPTH);
  /** Bytes consumed by earlier chunks. */
  private base = 0;

  private escaped = false;
  private stringIsKey = false;
  private readonly keyBytes = Buffer.alloc(JSON_KEY_CAP_BYTES);
  private keyLength = 0;
  private keyCut = false;

  private listSeen = false;
  private inList = false;
  private unit = NO_UNIT;
  private unitStart = 0;
  private unitCap = 0;
  /**
   * Bytes of the item or captured scalar being read that earlier chunks carried: copied into one buffer grown by
   * doubling (so neither a chunk is pinned nor a trickle of tiny chunks costs an object each), dropped when it ends.
   */
  private held = EMPTY;
  private heldLength = 0;
  private collectFrom = -1;
  private peakHeld = 0;
  private readonly captured = new Map<string, unknown>();

  constructor(options: JsonItemsOptions = {}) {
    this.listKey = options.listKey ?? 'items';
    this.capture = new Set(options.capture ?? []);
    this.maxValueBytes = options.maxValueBytes ?? DEFAULT_MAX_VALUE_BYTES;
    this.skipOversized = options.oversizedItems === 'skip';
    for (const name of [this.listKey, ...this.capture]) {
      if (name.length > MAX_NAME_LENGTH) throw new RangeError(`"${name}" is longer than ${MAX_NAME_LENGTH} characters`);
    }
  }

  /** Feeds one chunk; returns the complete items (as JSON text) that ended inside it. */
  push(chunk: Buffer): string[] {
    const out: string[] = [];
    const length = chunk.length;
    // Next quote and backslash at or after the cursor, found by memchr and reused until passed.
    let nextQuote = -1;
    let nextBackslash = -1;
    let i = 0;
    while (i < length) {
      this.checkUnit(i, chunk);
      const byte = chunk[i] as number;
      const mode = this.mode;
      if (mode === STRING) {
        if (this.escaped) {
          this.escaped = false;
          this.keepKeyByte(byte);
          i += 1;
        } else if (this.stringIsKey && !this.keyCut) {
          if (byte === QUOTE) this.endString(chunk, i, out);
          else {
            if (byte === BACKSLASH) this.escaped = true;
            this.keepKeyByte(byte);
          }
          i += 1;
        } else {
          // Skip to the next quote or backslash: the string's bytes are counted, never kept.
          if (nextQuote < i) nextQuote = indexOrEnd(chunk, QUOTE, i);
          if (nextBackslash < i) nextBackslash = indexOrEnd(chunk, BACKSLASH, i);
          const next = Math.min(nextQuote, nextBackslash);
          if (next === length) i = length;
          else if (next === nextBackslash) {
            this.escaped = true;
            i = next + 1;
          } else {
            this.endString(chunk, next, out);
            i = next + 1;
          }
        }
        continue;
      }
      if (mode === LITERAL) {
        if (LITERAL_BYTES[byte] === 1) {
          i += 1;
          continue;
        }
        // The byte after a literal ends it, and is then read as what follows the value.
        this.valueDone(chunk, i, out);
        continue;
      }
      i += 1;
      if (WHITESPACE[byte] === 1) continue;
      switch (mode) {
        case VALUE:
        case VALUE_OR_CLOSE:
          if (byte === 0x5d && mode === VALUE_OR_CLOSE) this.close(ARRAY, chunk, i, out);
          else this.beginValue(byte, i - 1);
          break;
        case KEY:
        case KEY_OR_CLOSE:
          if (byte === 0x7d && mode === KEY_OR_CLOSE) this.close(OBJECT, chunk, i, out);
          else if (byte === QUOTE) {
            this.mode = STRING;
            this.stringIsKey = true;
            this.keyLength = 0;
            this.keyCut = false;
          } else throw new JsonBodyError('expected a key');
          break;
        case COLON:
          if (byte !== 0x3a) throw new JsonBodyError('expected ":"');
          this.starts[this.depth - 1] = this.base + i;
          this.mode = VALUE;
          break;
        case AFTER:
          if (byte === 0x2c) {
            const level = this.depth - 1;
            if (this.kinds[level] === OBJECT) {
              this.labels[level] = undefined;
              this.mode = KEY;
            } else {
              this.labels[level] = (this.labels[level] as number) + 1;
              this.starts[level] = this.base + i;
              this.mode = VALUE;
            }
          } else if (byte === 0x7d) this.close(OBJECT, chunk, i, out);
          else if (byte === 0x5d) this.close(ARRAY, chunk, i, out);
          else throw new JsonBodyError('expected "," or the end of an object or array');
          break;
        default:
          throw new JsonBodyError('unexpected data after the end of the JSON document');
      }
    }
    this.checkUnit(length, chunk);
    // Keep the bytes of an item or captured scalar that continues in the next chunk.
    if (this.collectFrom >= 0) {
      this.hold(chunk.subarray(this.collectFrom));
      this.peakHeld = Math.max(this.peakHeld, this.heldLength);
      this.collectFrom = 0;
    }
    this.base += length;
    return out;
  }

  /** True when the top-level object was opened and closed: a body cut off midway is not complete. */
  get complete(): boolean {
    return this.mode === END;
  }

  /** True once the list member was seen (as a list or as null). */
  get sawList(): boolean {
    return this.listSeen;
  }

  /** The captured top-level scalars seen so far, by name (a member absent from the body is absent here). */
  get scalars(): Record<string, unknown> {
    return Object.fromEntries(this.captured);
  }

  /** Bytes held between chunks now: the part of one item or one captured scalar read so far. */
  get heldBytes(): number {
    return this.heldLength;
  }

  /** The most bytes ever held between chunks: at most one item (or one captured scalar), whatever the body. */
  get peakHeldBytes(): number {
    return this.peakHeld;
  }

  private hold(bytes: Buffer): void {
    const needed = this.heldLength + bytes.length;
    if (needed > this.held.length) {
      const grown = Buffer.allocUnsafe(Math.max(needed, this.held.length * 2, 4096));
      this.held.copy(grown, 0, 0, this.heldLength);
      this.held = grown;
    }
    bytes.copy(this.held, this.heldLength);
    this.heldLength = needed;
  }

  /**
   * Refuses the item or member being read once the bytes before `at` of the chunk take it past its cap; with
   * oversizedItems 'skip', an item is instead dropped there and skipped to its end.
   */
  private checkUnit(at: number, chunk?: Buffer): void {
    if (this.unit === NO_UNIT || this.base + at - this.unitStart <= this.unitCap) return;
    if (this.unit !== ITEM || !this.skipOversized || chunk === undefined) throw this.tooLarge(this.base + at);
    this.oversized.count += 1;
    if (this.oversized.samples.length < OVERSIZED_SAMPLES) {
      const head = this.heldLength > 0 ? this.held.subarray(0, Math.min(this.heldLength, OVERSIZED_HEAD_BYTES)) : chunk.subarray(this.collectFrom, Math.min(at, this.collectFrom + OVERSIZED_HEAD_BYTES));
      this.oversized.samples.push({ path: `${this.listKey}[${String(this.labels[1])}]`, head: head.toString('utf8') });
    }
    this.unit = SKIPPED_ITEM;
    this.unitCap = Number.POSITIVE_INFINITY;
    this.collectFrom = -1;
    this.held = EMPTY;
    this.heldLength = 0;
  }

  private keepKeyByte(byte: number): void {
    if (!this.stringIsKey || this.keyCut) return;
    if (this.keyLength === JSON_KEY_CAP_BYTES) this.keyCut = true;
    else this.keyBytes[this.keyLength++] = byte;
  }

  /** A value starts with `byte` at `at` of the chunk. */
  private beginValue(byte: number, at: number): void {
    if (this.depth === 0 && byte !== 0x7b) throw new JsonBodyError('a list body is a JSON object');
    if (this.depth === 1) {
      const key = this.labels[0];
      if (key === this.listKey) {
        if (this.listSeen) throw new JsonBodyError(`"${this.listKey}" appears twice`);
        this.listSeen = true;
        if (byte === 0x7b) throw new JsonBodyError(`"${this.listKey}" is not a list`);
        // A list is read item by item; anything else must be a null (checked when captured).
        if (byte === 0x5b) this.inList = true;
        else this.beginUnit(CAPTURE, at);
      } else if (typeof key === 'string' && this.capture.has(key) && byte !== 0x7b && byte !== 0x5b) this.beginUnit(CAPTURE, at);
      else this.beginUnit(MEMBER, at);
    } else if (this.depth === 2 && this.inList) this.beginUnit(ITEM, at);
    if (byte === 0x7b || byte === 0x5b) this.open(byte === 0x7b ? OBJECT : ARRAY, at);
    else if (byte === QUOTE) {
      this.mode = STRING;
      this.stringIsKey = false;
    } else if (LITERAL_STARTS[byte] === 1) this.mode = LITERAL;
    else throw new JsonBodyError('expected a value');
  }

  /** An item or top-level member starts at `at` of the chunk: counted from its first byte, collected unless skipped. */
  private beginUnit(unit: number, at: number): void {
    this.unit = unit;
    this.unitStart = this.base + at;
    this.unitCap = unit === CAPTURE ? Math.min(JSON_SCALAR_CAP_BYTES, this.maxValueBytes) : this.maxValueBytes;
    if (unit !== MEMBER) this.collectFrom = at;
  }

  private open(kind: number, at: number): void {
    if (this.depth === JSON_MAX_DEPTH) throw new JsonBodyError(`nested deeper than ${JSON_MAX_DEPTH} levels`);
    this.kinds[this.depth] = kind;
    this.labels[this.depth] = kind === ARRAY ? 0 : undefined;
    this.starts[this.depth] = this.base + at + 1;
    this.depth += 1;
    this.mode = kind === ARRAY ? VALUE_OR_CLOSE : KEY_OR_CLOSE;
  }

  /** The container closed by the byte before `end` ends, with the value it is. */
  private close(kind: number, chunk: Buffer, end: number, out: string[]): void {
    this.checkUnit(end, chunk);
    if (this.kinds[this.depth - 1] !== kind) throw new JsonBodyError('mismatched brackets');
    this.depth -= 1;
    if (this.depth === 1 && this.inList) this.inList = false;
    this.valueDone(chunk, end, out);
  }

  /** The string whose closing quote is at `at` ends: a key is remembered, a value is done. */
  private endString(chunk: Buffer, at: number, out: string[]): void {
    if (!this.stringIsKey) {
      this.valueDone(chunk, at + 1, out);
      return;
    }
    const raw = this.keyBytes.toString('utf8', 0, this.keyLength);
    // A key is matched as JSON.parse reads it (escapes decoded); a cut one only names a path.
    this.labels[this.depth - 1] = this.keyCut ? `${raw}…` : (JSON.parse(`"${raw}"`) as string);
    this.mode = COLON;
  }

  /** A value ended just before `end` of the chunk; an item or captured scalar it completes is read out. */
  private valueDone(chunk: Buffer, end: number, out: string[]): void {
    this.checkUnit(end, chunk);
    this.mode = this.depth === 0 ? END : AFTER;
    if (this.unit === NO_UNIT || this.depth !== (this.unit === ITEM || this.unit === SKIPPED_ITEM ? 2 : 1)) return;
    const unit = this.unit;
    this.unit = NO_UNIT;
    if (unit === MEMBER || unit === SKIPPED_ITEM) return;
    const tail = chunk.subarray(this.collectFrom, end);
    let text: string;
    if (this.heldLength === 0) text = tail.toString('utf8');
    else {
      this.hold(tail);
      text = this.held.toString('utf8', 0, this.heldLength);
    }
    this.held = EMPTY;
    this.heldLength = 0;
    this.collectFrom = -1;
    if (unit === ITEM) {
      out.push(text);
      return;
    }
    const key = this.labels[0] as string;
    const value: unknown = JSON.parse(text);
    if (key === this.listKey) {
      if (value !== null) throw new JsonBodyError(`"${this.listKey}" is not a list`);
    } else this.captured.set(key, value);
  }

  /**
   * The error for a unit passing its cap at byte `at`, naming the deepest value that took at least half the cap
   * so far (`items[3].spec.source.helm.values`), or the item or member itself when no single field did.
   */
  private tooLarge(at: number): JsonValueTooLarge {
    const cap = this.unitCap;
    const unitLevel = this.unit === ITEM ? 1 : 0;
    let deepest = unitLevel;
    for (let level = unitLevel + 1; level < this.depth; level += 1) {
      if (this.labels[level] === undefined) break;
      if ((at - (this.starts[level] as number)) * 2 >= cap) deepest = level;
    }
    let path = '';
    for (let level = 0; level <= deepest; level += 1) {
      const label = this.labels[level];
      if (typeof label === 'number') path += `[${label}]`;
      else if (label !== undefined) path += level === 0 && IDENTIFIER.test(label) ? label : IDENTIFIER.test(label) ? `.${label}` : `[${JSON.stringify(label)}]`;
    }
    return new JsonValueTooLarge(path, cap);
  }
}

function indexOrEnd(chunk: Buffer, byte: number, from: number): number {
  const at = chunk.indexOf(byte, from);
  return at < 0 ? chunk.length : at;
}
