/**
 * Splits a JSON document of the form `{..., "items": [ {...}, {...} ], ...}` into the bytes of each element of
 * the top-level `items` array as the body streams in, so a list of any length is parsed one item at a time and
 * the whole body is never held as one string or one parsed tree. Other top-level members are skipped.
 */
export class JsonItemsSplitter {
  private depth = 0;
  private inString = false;
  private escaped = false;
  /** The last string seen directly inside the top-level object (the key whose value comes next). */
  private key = '';
  private keyBytes: number[] | undefined;
  private inItems = false;
  private itemParts: Buffer[] = [];
  private itemStart = -1;
  private started = false;

  /** Feeds one chunk; returns the complete items (as JSON text) that ended inside it. */
  push(chunk: Buffer): string[] {
    const out: string[] = [];
    for (let i = 0; i < chunk.length; i += 1) {
      const byte = chunk[i] as number;
      if (this.inString) {
        if (this.keyBytes !== undefined && !(byte === 0x22 && !this.escaped)) this.keyBytes.push(byte);
        if (this.escaped) this.escaped = false;
        else if (byte === 0x5c) this.escaped = true;
        else if (byte === 0x22) {
          this.inString = false;
          if (this.keyBytes !== undefined) {
            this.key = Buffer.from(this.keyBytes).toString('utf8');
            this.keyBytes = undefined;
          }
        }
        continue;
      }
      switch (byte) {
        case 0x22: // "
          this.inString = true;
          if (this.depth === 1) this.keyBytes = [];
          break;
        case 0x7b: // {
        case 0x5b: // [
          if (this.depth === 0) this.started = true;
          if (this.inItems && this.depth === 2) this.itemStart = i;
          this.depth += 1;
          if (byte === 0x5b && this.depth === 2 && this.key === 'items') this.inItems = true;
          break;
        case 0x7d: // }
        case 0x5d: // ]
          this.depth -= 1;
          if (this.depth < 0) throw new SyntaxError('unbalanced JSON');
          if (this.inItems && this.depth === 2) {
            this.itemParts.push(chunk.subarray(this.itemStart, i + 1));
            out.push(Buffer.concat(this.itemParts).toString('utf8'));
            this.itemParts = [];
            this.itemStart = -1;
          } else if (this.inItems && this.depth === 1) {
            this.inItems = false;
            this.key = '';
          }
          break;
        default:
          break;
      }
    }
    // Keep the bytes of an item that continues in the next chunk.
    if (this.inItems && this.itemStart >= 0) {
      this.itemParts.push(chunk.subarray(this.itemStart));
      this.itemStart = 0;
    }
    return out;
  }

  /** True when the top-level value was opened and closed: a body cut off midway is not complete. */
  get complete(): boolean {
    return this.started && this.depth === 0 && !this.inString;
  }
}
