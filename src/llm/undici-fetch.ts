/**
 * The `fetch` the openai SDK uses for model calls: undici's `request` API
 * behind the SDK's documented `fetch` option.
 *
 * Why not the global fetch: a benchmark run makes tens of thousands of calls
 * and the harness's own CPU per call is what limits how many model servers one
 * process can keep busy. Node's fetch wraps every request and response in
 * WHATWG objects and streams. Measured against `aeb mock-llm` (thousands of
 * plain JSON calls, 32 in flight, 30 ms latency, client CPU only), the SDK over
 * the global fetch cost about 1.05 ms per call, the SDK over this adapter
 * 0.34-0.40 ms, and undici's `request` alone 0.22-0.28 ms (BENCHMARKS.md,
 * "Before and after: the transport under the SDK"). The SDK still builds the
 * request, parses the reply and classifies errors; only the socket layer
 * changes, and it is the same project (undici) that implements Node's fetch.
 *
 * A JSON reply is read whole and handed to the SDK as a {@link BufferedResponse}
 * that answers `text()` and `json()` from the string it holds, without the web
 * stream a `Response` body otherwise builds (0.38-0.42 ms per call with a
 * plain `Response`, in the same measurement); a server-sent-event reply keeps streaming,
 * converted to a web stream chunk by chunk, so `stream: true` endpoints behave
 * as before.
 *
 * Timeouts belong to the model client (its total and idle timers abort the
 * signal), so undici's own header and body timeouts are switched off.
 */
import { Readable } from "node:stream";
import { Agent, request, type Dispatcher } from "undici";
import type { ClientOptions } from "openai";

/** `fetch` implementation accepted by the SDK (injectable for tests and proxies). */
export type FetchFn = NonNullable<ClientOptions["fetch"]>;

/** Statuses whose responses must not carry a body (the Response constructor throws otherwise). */
const NULL_BODY_STATUS = new Set([101, 103, 204, 205, 304]);

/**
 * A `Response` whose body was already read into a string. The SDK reads a plain
 * reply with `json()` (or `text()` for errors and non-JSON bodies); both answer
 * from the string. The body can be read once, as with any Response.
 */
export class BufferedResponse extends Response {
  #text: string | undefined;

  constructor(text: string, init: ResponseInit) {
    super(null, init);
    this.#text = text;
  }

  #take(): string {
    const text = this.#text;
    if (text === undefined) throw new TypeError("Body is unusable: Body has already been read");
    this.#text = undefined;
    return text;
  }

  // Own properties (not methods) because the DOM typings declare these members as properties.
  override text = (): Promise<string> => {
    try {
      return Promise.resolve(this.#take());
    } catch (error) {
      return Promise.reject(error as Error);
    }
  };

  override json = (): Promise<unknown> => this.text().then((text) => JSON.parse(text) as unknown);

  override arrayBuffer = (): Promise<ArrayBuffer> =>
    this.text().then((text) => {
      const bytes = new TextEncoder().encode(text);
      return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
    });
}

let sharedAgent: Agent | undefined;

/**
 * One keep-alive connection pool per process, like the global dispatcher:
 * idle sockets are unreferenced, so they never keep a finished run alive. It
 * sets no limit on connections per origin (undici's default), so the model
 * client's per-endpoint cap is the only one. Shared with direct-completion.ts.
 */
export function sharedModelAgent(): Agent {
  sharedAgent ??= new Agent({ headersTimeout: 0, bodyTimeout: 0, keepAliveTimeout: 10_000 });
  return sharedAgent;
}

/** Header pairs from whatever `HeadersInit` the SDK passes (it passes a Headers object). */
function headerPairs(init: RequestInit["headers"]): [string, string][] {
  if (init === undefined || init === null) return [];
  if (init instanceof Headers) return [...init.entries()];
  if (Array.isArray(init)) return init.map(([name, value]) => [String(name), String(value)]);
  return Object.entries(init as Record<string, string>).map(([name, value]) => [name, String(value)]);
}

/** The response headers as a `Headers` object (repeated headers such as set-cookie kept). */
function responseHeaders(raw: Dispatcher.ResponseData["headers"]): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
  }
  return headers;
}

function requestBody(body: RequestInit["body"]): string | Uint8Array | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === "string" || body instanceof Uint8Array) return body;
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  // Chat completions always send a JSON string; anything else (uploads) is out of scope here.
  throw new TypeError(`undici fetch adapter: unsupported request body type ${Object.prototype.toString.call(body)}`);
}

/**
 * A fetch-compatible function over undici's `request`, for the SDK's `fetch`
 * option. `dispatcher` defaults to one shared keep-alive pool.
 */
export function createUndiciFetch(dispatcher?: Dispatcher): FetchFn {
  const fetchFn = async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    if (input instanceof Request) throw new TypeError("undici fetch adapter: pass a URL and init, not a Request");
    const method = (init.method ?? "GET").toUpperCase();
    const body = requestBody(init.body);
    const response = await request(input, {
      method: method as Dispatcher.HttpMethod,
      headers: headerPairs(init.headers).flat(),
      ...(body !== undefined ? { body } : {}),
      ...(init.signal ? { signal: init.signal } : {}),
      dispatcher: dispatcher ?? sharedModelAgent(),
    });
    const headers = responseHeaders(response.headers);
    const status = response.statusCode;
    if (NULL_BODY_STATUS.has(status) || method === "HEAD") {
      response.body.resume();
      return new Response(null, { status, headers });
    }
    const contentType = headers.get("content-type") ?? "";
    if (contentType.includes("text/event-stream")) {
      return new Response(Readable.toWeb(response.body) as ReadableStream<Uint8Array>, { status, headers });
    }
    // Read whole: one buffer, no per-chunk stream machinery. A dropped socket rejects here.
    return new BufferedResponse(await response.body.text(), { status, headers });
  };
  return fetchFn as FetchFn;
}
