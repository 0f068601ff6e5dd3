import type { z } from 'zod';
import type { CIRCUIT_STATES } from './circuit.js';
import { Classifier, type ErrorBodyParser, type StreamErrorParser } from './classify.js';
import { exchange, type ExchangeContext } from './exchange.js';
import type { OversizedItems } from './json-items.js';
import { RequestPolicy, type PolicyOptions } from './policy.js';
import { lineReader, listReader, objectReader, type BodyReader } from './readers.js';
import type { UpstreamItems, UpstreamLines, UpstreamLinesRequest, UpstreamListRequest, UpstreamPage, UpstreamPageRequest, UpstreamRequest, UpstreamTarget } from './requests.js';

export { UPSTREAM_DEFAULTS, type UpstreamLimits } from './policy.js';
export type { LineReadStop, LineVerdict, UpstreamItems, UpstreamLines, UpstreamLinesRequest, UpstreamListRequest, UpstreamPage, UpstreamPageRequest, UpstreamRequest } from './requests.js';

export interface UpstreamHttpOptions extends PolicyOptions {
  readonly baseUrl: string;
  readonly headers: Readonly<Record<string, string>>;
  /**
   * Reads the upstream's error bodies (parsed JSON): its message, and whether a 5xx is the caller's mistake or
   * worth a retry. Without it, or when it reads nothing, errors quote a short, sanitized excerpt of the body.
   */
  readonly errorBody?: ErrorBodyParser | undefined;
  /** Reads each line of a line stream (getLines) for an error the upstream reports in the stream itself. */
  readonly streamError?: StreamErrorParser | undefined;
}

/**
 * A JSON-over-HTTP client for one upstream system that can never buffer an unbounded body, wait forever, retry
 * without end or open unbounded concurrent requests. Objects are validated whole; lists are parsed and validated
 * one item at a time as the body streams in. Identical concurrent requests share one upstream request.
 * It composes the request policy (`policy.ts`), one exchange (`exchange.ts`), the classification of failures
 * (`classify.ts`) and the body readers (`readers.ts`).
 */
export class UpstreamHttp {
  private readonly policy: RequestPolicy;
  private readonly context: ExchangeContext;

  constructor(private readonly options: UpstreamHttpOptions) {
    this.policy = new RequestPolicy(options);
    this.context = {
      system: options.system,
      baseUrl: options.baseUrl,
      headers: options.headers,
      limits: options.limits,
      metrics: options.metrics,
      classify: new Classifier(options.displayName, options.limits),
      errorBody: options.errorBody,
    };
  }

  /** The circuit breaker's state (closed when there is none). */
  get circuitState(): (typeof CIRCUIT_STATES)[number] {
    return this.policy.circuitState;
  }

  /** GET one JSON document, validated with `schema`; held whole, so capped like one value (`maxValueBytes`). */
  getJson<S extends z.ZodType>(request: UpstreamRequest<S>): Promise<z.output<S>> {
    return this.policy.shared(request, this.attempt(() => objectReader(request.schema, this.options.limits.maxValueBytes)));
  }

  /**
   * GET a list document (`{items: [...]}`), parsed item by item; each item validated with `itemSchema`. Other
   * top-level members are skipped unread; no item nor member may pass `maxValueBytes`.
   */
  async getList<S extends z.ZodType>(request: UpstreamListRequest<S>): Promise<z.output<S>[]> {
    return (await this.readList(request, request.listKey ?? 'items', undefined)).items;
  }

  /**
   * getList that also says which items it skipped: with `oversizedItems: 'skip'` an item over `maxValueBytes` is
   * passed over byte by byte, never held, and reported with its path and first bytes instead of failing the list.
   */
  async getItems<S extends z.ZodType>(request: UpstreamListRequest<S>): Promise<UpstreamItems<z.output<S>>> {
    const read = await this.readList(request, request.listKey ?? 'items', undefined);
    return { items: read.items, oversized: read.oversized };
  }

  /**
   * GET a stream of JSON lines, parsed and validated one line at a time, holding at most one partial line of at
   * most `maxValueBytes`. Stops early, closing the connection and releasing its slot, once `maxLines` lines were
   * kept and another keepable one arrived (`max_lines`), once `maxBytes` were read (`max_bytes`), or when `select`
   * says stop. A line the client's `streamError` reads as an error ends the read with that error, mapped as an
   * HTTP error with its status would be. A line that is not JSON or not of `lineSchema` is refused, naming its
   * number; a last line cut off without its newline is a cut-off stream (retried like one). Not shared with
   * identical requests (each caller selects its own lines); the caller's signal aborts the request itself.
   */
  getLines<S extends z.ZodType>(request: UpstreamLinesRequest<S>): Promise<UpstreamLines<z.output<S>>> {
    const { limits } = this.options;
    if (!Number.isInteger(request.maxLines) || request.maxLines < 1 || request.maxLines > limits.maxItems) {
      throw new RangeError(`maxLines must be a whole number from 1 to ${limits.maxItems}`);
    }
    const bounds = { maxLineBytes: limits.maxValueBytes, maxBytes: Math.min(request.maxBytes ?? limits.maxBodyBytes, limits.maxBodyBytes) };
    return this.policy.run(request, this.attempt(() => lineReader(request, bounds, this.options.streamError)));
  }

  /**
   * GET one page of a paged list (`{count, next, results: [...]}`): the items under `listKey` parsed and validated
   * one at a time like getList, the top-level scalars named by `scalarsSchema` captured (each at most
   * JSON_SCALAR_CAP_BYTES) and validated with it.
   */
  getPage<S extends z.ZodType, M extends z.ZodObject>(request: UpstreamPageRequest<S, M>): Promise<UpstreamPage<z.output<S>, z.output<M>>> {
    return this.readList(request, request.listKey, request.scalarsSchema, request.pageSize);
  }

  private readList<S extends z.ZodType, M extends z.ZodObject>(
    request: UpstreamListRequest<S>,
    listKey: string,
    scalarsSchema: M | undefined,
    pageSize?: number,
  ): Promise<UpstreamPage<z.output<S>, z.output<M>> & { readonly oversized: OversizedItems }> {
    const { limits, logger } = this.options;
    const reader = () =>
      listReader({
        request,
        listKey,
        scalarsSchema,
        maxValueBytes: limits.maxValueBytes,
        maxItems: Math.min(limits.maxItems, pageSize ?? limits.maxItems),
        pageSized: pageSize !== undefined && pageSize < limits.maxItems,
        onRead: (stats) => logger.debug({ operation: request.operation, ...stats }, 'list read item by item'),
      });
    // Whether oversized items are skipped changes the answer: only requests that agree on it share one.
    return this.policy.shared(request, this.attempt(reader), request.oversizedItems === 'skip' ? ' skipping oversized' : '');
  }

  /** One attempt: one exchange read by a fresh reader (a retry starts over). */
  private attempt<T>(reader: () => BodyReader<T>): (request: UpstreamTarget) => Promise<T> {
    return (request) => exchange(this.context, request, reader());
  }
}
