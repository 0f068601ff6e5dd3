import { JsonValueTooLarge } from './json-items.js';

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;
const EMPTY = Buffer.alloc(0);

/** What a line over the cap does: refuse the whole read (naming the line), or be skipped and counted. */
export type OversizedLinePolicy = 'refuse' | 'skip';

export interface LineSplitterOptions {
  /** Largest line, in bytes, newline excluded. */
  readonly maxLineBytes: number;
  readonly oversized?: OversizedLinePolicy;
}

/** One complete line of a body, with its 1-based number in the body (blank lines count). */
export interface SplitLine {
  readonly text: string;
  readonly number: number;
}

/**
 * Splits a streamed body on '\n' (a trailing '\r' is dropped) into lines, holding at most one partial line of at
 * most `maxLineBytes`. A longer line is refused as soon as it passes the cap (`JsonValueTooLarge` at `line N`), or,
 * with `oversized: 'skip'`, dropped byte by byte up to its newline, never held, and counted in `skipped`. Blank
 * lines are dropped. Bytes are joined before decoding, so a character split across chunks survives.
 */
export class LineSplitter {
  private readonly maxLineBytes: number;
  private readonly oversized: OversizedLinePolicy;
  private held = EMPTY;
  private heldLength = 0;
  private skipping = false;
  private lineNumber = 1;
  /** Lines over the cap that were skipped (policy 'skip'). */
  skipped = 0;

  constructor(options: LineSplitterOptions) {
    if (!Number.isInteger(options.maxLineBytes) || options.maxLineBytes < 1) throw new RangeError('maxLineBytes must be a positive whole number');
    this.maxLineBytes = options.maxLineBytes;
    this.oversized = options.oversized ?? 'refuse';
  }

  /** Bytes of the partial line held between chunks. */
  get heldBytes(): number {
    return this.heldLength;
  }

  /** Feeds one chunk; returns the complete, non-blank lines that ended inside it. */
  push(chunk: Buffer): SplitLine[] {
    const out: SplitLine[] = [];
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(NEWLINE, start);
      const end = newline === -1 ? chunk.length : newline;
      if (this.skipping) {
        if (newline !== -1) this.endSkip();
      } else if (this.heldLength + (end - start) > this.maxLineBytes + 1) {
        // Over the cap (one byte of slack for a '\r' before the newline, checked when the line ends).
        this.overCap();
        if (newline !== -1) this.endSkip();
      } else {
        this.hold(chunk, start, end);
        if (newline !== -1) this.emit(out);
      }
      start = newline === -1 ? chunk.length : newline + 1;
    }
    return out;
  }

  /** The body ended: the last line when it had no newline (undefined when there is none, or it was skipped). */
  end(): SplitLine | undefined {
    if (this.skipping) {
      this.endSkip();
      return undefined;
    }
    const out: SplitLine[] = [];
    this.emit(out);
    return out[0];
  }

  private hold(chunk: Buffer, start: number, end: number): void {
    const length = end - start;
    if (length === 0) return;
    if (this.heldLength + length > this.held.length) {
      const grown = Buffer.allocUnsafe(Math.min(Math.max(this.held.length * 2, this.heldLength + length, 256), this.maxLineBytes + 1));
      this.held.copy(grown, 0, 0, this.heldLength);
      this.held = grown;
    }
    chunk.copy(this.held, this.heldLength, start, end);
    this.heldLength += length;
  }

  private emit(out: SplitLine[]): void {
    let length = this.heldLength;
    if (length > 0 && this.held[length - 1] === CARRIAGE_RETURN) length -= 1;
    if (length > this.maxLineBytes) {
      this.overCap();
      this.endSkip();
      return;
    }
    const text = this.held.toString('utf8', 0, length);
    this.heldLength = 0;
    // A long line's buffer is not kept for the next, short ones.
    if (this.held.length > 64 * 1024) this.held = EMPTY;
    if (text.trim() !== '') out.push({ text, number: this.lineNumber });
    this.lineNumber += 1;
  }

  private overCap(): void {
    if (this.oversized === 'refuse') throw new JsonValueTooLarge(`line ${this.lineNumber}`, this.maxLineBytes);
    this.heldLength = 0;
    this.held = EMPTY;
    this.skipping = true;
  }

  private endSkip(): void {
    this.skipping = false;
    this.skipped += 1;
    this.lineNumber += 1;
  }
}
