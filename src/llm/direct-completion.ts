/**
 * A plain (non-streamed) chat completion sent straight over undici's `request`, with exactly the
 * URL and headers the `openai` SDK sends, and its failures thrown as the SDK throws them.
 *
 * Why: an environment server with an LLM simulated user makes two model calls per step, and its
 * CPU per call is what limits how many steps it keeps in flight (BENCHMARKS.md section 8). Measured
 * in process against `aeb mock-llm` (`npm run bench:llm-step -- --transport mock`), the SDK's
 * request path (options and header objects rebuilt per call, its own abort controller and timer,
 * debug-log details formatted whether or not anyone logs) and the WHATWG `Headers`/`Response` the
 * fetch adapter must build for it were a quarter of the server's CPU per step. A completion is one
 * JSON body out and one in, so this module sends the body with the SDK's headers (computed once per
 * replica by the SDK's own `buildRequest`) and reads the reply as the SDK's default parser does.
 *
 * Errors keep the SDK's shapes so openai-error-mapping.ts classifies them unchanged: a socket that
 * fails before or during the reply is an `APIConnectionError` with the socket error as its cause
 * (the fetch adapter reads the whole body before answering the SDK, so a drop mid-body reached
 * the SDK as a failed fetch too), a non-2xx status is the SDK's `APIError.generate` of the body,
 * and a malformed JSON body a `SyntaxError`. Streaming, and clients given a custom `fetch` (tests,
 * proxies), keep going through the SDK.
 */
import { APIConnectionError, APIError } from "openai";
import type OpenAI from "openai";
import type { Dispatcher } from "undici";

/** Where and how one replica's completions are sent: the SDK's URL and headers, fixed per client. */
export interface CompletionTarget {
  url: string;
  /** The URL cut once into what a dispatcher takes, so no call parses it again. */
  origin: string;
  path: string;
  /** Flat name/value list, as undici takes it. */
  headers: string[];
}

/** A target for this URL and these headers (a flat name/value list). */
export function completionTargetAt(url: string, headers: string[]): CompletionTarget {
  const parsed = new URL(url);
  return { url, origin: parsed.origin, path: `${parsed.pathname}${parsed.search}`, headers };
}

/** A completion's reply: what the attempt reads (the parsed body, or the text of a non-JSON one) and the header it uses. */
export interface DirectReply {
  completion: unknown;
  /** The `openai-processing-ms` header, raw. */
  processingMs: string | undefined;
}

/**
 * The URL and headers the SDK would send for `POST /chat/completions` from this client, with this
 * timeout (the SDK states it in `x-stainless-timeout`), on a first try.
 */
export async function completionTarget(client: OpenAI, timeoutMs: number): Promise<CompletionTarget> {
  const { req, url } = await client.buildRequest({ method: "post", path: "/chat/completions", body: {}, timeout: timeoutMs });
  const headers: string[] = [];
  for (const [name, value] of new Headers(req.headers).entries()) {
    // The body's length is undici's to set for the body actually sent.
    if (name !== "content-length") headers.push(name, value);
  }
  return completionTargetAt(url, headers);
}

function header(raw: Dispatcher.ResponseData["headers"], name: string): string | undefined {
  const value = raw[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The response headers as a `Headers` object, for the SDK's error classes (Retry-After is read from them). */
function headersOf(raw: Dispatcher.ResponseData["headers"]): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
  }
  return headers;
}

function parseOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * Sends one plain completion. `body` is the request body (stream false); the signal aborts it.
 * Resolves with the reply read as the SDK's default parser reads it; rejects as the SDK would.
 */
export async function sendCompletion(
  target: CompletionTarget,
  body: unknown,
  signal: AbortSignal,
  dispatcher: Dispatcher,
): Promise<DirectReply> {
  let status: number;
  let raw: Dispatcher.ResponseData["headers"];
  let text: string;
  try {
    // The dispatcher's own request: undici's top-level `request(url)` parses the URL on every call.
    const response = await dispatcher.request({
      origin: target.origin,
      path: target.path,
      method: "POST",
      headers: target.headers,
      body: JSON.stringify(body),
      signal,
    });
    status = response.statusCode;
    raw = response.headers;
    text = await response.body.text();
  } catch (error) {
    throw new APIConnectionError({ cause: error instanceof Error ? error : new Error(String(error)) });
  }
  if (status < 200 || status >= 300) {
    // As the SDK: the body's JSON when it parses to something, else its text as the message.
    const json = parseOrUndefined(text);
    throw APIError.generate(status, json as object | undefined, json ? undefined : text, headersOf(raw));
  }
  const processingMs = header(raw, "openai-processing-ms");
  if (status === 204) return { completion: null, processingMs };
  const mediaType = header(raw, "content-type")?.split(";")[0]?.trim();
  if (mediaType?.includes("application/json") === true || mediaType?.endsWith("+json") === true) {
    if (header(raw, "content-length") === "0") return { completion: undefined, processingMs };
    // A malformed body throws SyntaxError, as the SDK's response.json() does.
    return { completion: JSON.parse(text) as unknown, processingMs };
  }
  return { completion: text, processingMs };
}
