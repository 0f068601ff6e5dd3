import type { z } from 'zod';
import type { UpstreamStreamError } from './classify.js';
import { JsonBodyError, JsonItemsSplitter, JsonValueTooLarge, type OversizedItems } from './json-items.js';
import { LineSplitter, type SplitLine } from './lines.js';
import type { LineReadStop, UpstreamLines, UpstreamLinesRequest, UpstreamListRequest, UpstreamPage } from './requests.js';

/** How a body is consumed: buffered and parsed whole (objects), split item by item (lists), or line by line. */
export interface BodyReader<T> {
  push(chunk: Buffer): void;
  finish(): T;
  /** True once the reader wants no more of the body: the response is abandoned there (its connection closed). */
  readonly done?: boolean;
  /** The reader stops by itself at a byte limit no larger than maxBodyBytes (a line read), instead of failing. */
  readonly stopsWithinBodyCap?: boolean;
}

/** A body of the wrong shape; the message says what and where (`results[12].name`). */
export class ShapeError extends Error {
  constructor(
    readonly zod: z.ZodError | undefined,
    at = '',
    problem?: string,
  ) {
    const issue = zod?.issues[0];
    const where = [at, ...(issue?.path.map(String) ?? [])].filter((part) => part !== '').join('.');
    super(`${problem ?? issue?.message ?? 'invalid'} at ${where}`);
  }
}

/** A line stream that ended in the middle of a line (cut off on the way: worth another try). */
export class StreamCutOff extends JsonBodyError {}

/** A stream that reported an error in one of its lines (as the client's `streamError` reads it). */
export class StreamErrorLine extends Error {
  constructor(
    readonly error: UpstreamStreamError,
    readonly line: number,
  ) {
    super(error.message ?? `HTTP ${error.status}`);
  }
}

/** A list with more items than allowed. */
export class TooManyItems extends Error {
  constructor(
    readonly max: number,
    /** The cap was the page size asked for, not the item cap. */
    readonly pageSize: boolean,
  ) {
    super(`more than ${max} items`);
  }
}

/** A list key no object has: reading one object, the splitter only measures its members. */
const SINGLE_OBJECT_LIST_KEY = '\u0000';

/**
 * One JSON document, held whole to be parsed and validated with `schema`. One object is one value, so it is capped
 * like one list item (`cap`): the splitter (no list to read) names the field when one member alone passes the cap;
 * otherwise the document as a whole is named. A document that is not an object (an array) is left to JSON.parse
 * and the schema.
 */
export function objectReader<S extends z.ZodType>(schema: S, cap: number): BodyReader<z.output<S>> {
  const chunks: Buffer[] = [];
  let size = 0;
  let sizer: JsonItemsSplitter | undefined = new JsonItemsSplitter({ listKey: SINGLE_OBJECT_LIST_KEY, maxValueBytes: cap });
  return {
    push: (chunk) => {
      try {
        sizer?.push(chunk);
      } catch (error) {
        if (!(error instanceof JsonBodyError)) throw error;
        sizer = undefined;
      }
      size += chunk.length;
      if (size > cap) throw new JsonValueTooLarge('the whole response', cap);
      chunks.push(chunk);
    },
    finish: () => {
      const json: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      chunks.length = 0;
      const parsed = schema.safeParse(json);
      if (!parsed.success) throw new ShapeError(parsed.error);
      return parsed.data;
    },
  };
}

/** How a list body is read: where its items are, what is captured beside them, and its bounds. */
export interface ListReading<S extends z.ZodType, M extends z.ZodObject> {
  readonly request: UpstreamListRequest<S>;
  readonly listKey: string;
  readonly scalarsSchema: M | undefined;
  readonly maxValueBytes: number;
  readonly maxItems: number;
  /** `maxItems` is the page size asked for (a page over it breaks the protocol), not the item cap. */
  readonly pageSized: boolean;
  /** Told how the read went once the list is whole (items, peak bytes held, oversized items skipped). */
  readonly onRead: (stats: { items: number; peakHeldBytes: number; oversized: number }) => void;
}

/** A list body split item by item, each item validated with `itemSchema`, the scalars named by `scalarsSchema` captured. */
export function listReader<S extends z.ZodType, M extends z.ZodObject>(reading: ListReading<S, M>): BodyReader<UpstreamPage<z.output<S>, z.output<M>> & { readonly oversized: OversizedItems }> {
  const { request, listKey, scalarsSchema, maxItems } = reading;
  const splitter = new JsonItemsSplitter({ listKey, capture: scalarsSchema === undefined ? [] : Object.keys(scalarsSchema.shape), maxValueBytes: reading.maxValueBytes, oversizedItems: request.oversizedItems });
  const items: z.output<S>[] = [];
  return {
    push: (chunk) => {
      for (const text of splitter.push(chunk)) {
        if (items.length >= maxItems) throw new TooManyItems(maxItems, reading.pageSized);
        const parsed = request.itemSchema.safeParse(JSON.parse(text));
        if (!parsed.success) throw new ShapeError(parsed.error, `${listKey}[${items.length}]`);
        items.push(parsed.data);
      }
    },
    finish: () => {
      if (!splitter.complete) throw new JsonBodyError('the body ended before the JSON document did');
      let scalars = {} as z.output<M>;
      if (scalarsSchema !== undefined) {
        if (!splitter.sawList) throw new ShapeError(undefined, listKey, `no "${listKey}" list`);
        const parsed = scalarsSchema.safeParse(splitter.scalars);
        if (!parsed.success) throw new ShapeError(parsed.error);
        scalars = parsed.data;
      }
      reading.onRead({ items: items.length, peakHeldBytes: splitter.peakHeldBytes, oversized: splitter.oversized.count });
      return { items, scalars, oversized: splitter.oversized };
    },
  };
}

/**
 * A stream of JSON lines, parsed and validated one line at a time, holding at most one partial line of at most
 * `maxLineBytes`; done (the rest abandoned) at `maxLines`, `maxBytes` or a `stop` from `select`. A line that
 * `streamError` reads as an error ends the read with it.
 */
export function lineReader<S extends z.ZodType>(
  request: UpstreamLinesRequest<S>,
  bounds: { readonly maxLineBytes: number; readonly maxBytes: number },
  streamError: ((line: unknown) => UpstreamStreamError | undefined) | undefined,
): BodyReader<UpstreamLines<z.output<S>>> {
  const { maxBytes } = bounds;
  const splitter = new LineSplitter({ maxLineBytes: bounds.maxLineBytes, oversized: request.oversizedLines ?? 'refuse' });
  const items: z.output<S>[] = [];
  let linesRead = 0;
  let bytesRead = 0;
  let stopped: LineReadStop = 'end';
  let done = false;
  const take = (line: SplitLine, last: boolean): void => {
    let json: unknown;
    try {
      json = JSON.parse(line.text);
    } catch {
      // The last line without its newline, unparseable: the stream was cut off mid-line.
      if (last) throw new StreamCutOff(`the stream ended in the middle of line ${line.number}`);
      throw new ShapeError(undefined, `line ${line.number}`, 'not JSON');
    }
    const error = streamError?.(json);
    if (error !== undefined) throw new StreamErrorLine(error, line.number);
    const parsed = request.lineSchema.safeParse(json);
    if (!parsed.success) throw new ShapeError(parsed.error, `line ${line.number}`);
    linesRead += 1;
    const verdict = request.select?.(parsed.data) ?? 'keep';
    if (verdict === 'skip') return;
    if (verdict === 'stop' || items.length >= request.maxLines) {
      stopped = verdict === 'stop' ? 'selected' : 'max_lines';
      done = true;
      return;
    }
    items.push(parsed.data);
  };
  return {
    get done() {
      return done;
    },
    stopsWithinBodyCap: true,
    push: (chunk) => {
      if (done) return;
      const room = maxBytes - bytesRead;
      const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
      bytesRead += part.length;
      for (const line of splitter.push(part)) {
        take(line, false);
        if (done) return;
      }
      if (part.length < chunk.length) {
        stopped = 'max_bytes';
        done = true;
      }
    },
    finish: () => {
      if (!done) {
        const rest = splitter.end();
        if (rest !== undefined) take(rest, true);
      }
      return { items, linesRead, bytesRead, stopped, oversizedSkipped: splitter.skipped };
    },
  };
}
