/**
 * How the mock LLM server writes a chat completion: one JSON body, or server-sent events chunk by
 * chunk, each with the injected fault (mock-faults.ts) applied where a real server would fail.
 */
import type { ServerResponse } from "node:http";
import type { MockFault } from "./mock-llm-faults.js";

/** Whether a code unit outside printable ASCII is one of the characters JavaScript's `\s` matches. */
function isWhitespaceOutsideAscii(code: number): boolean {
  if (code <= 0x20) return code === 0x20 || (code >= 0x09 && code <= 0x0d);
  if (code < 0xa0) return false;
  return (
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}

/**
 * Rough token count: whitespace-separated words (runs of characters outside `\s`). Good enough
 * for accounting tests. One pass, no arrays: the mock counts every prompt it answers.
 */
export function countWords(text: string): number {
  let words = 0;
  let inWord = false;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    // Printable ASCII (most of a prompt) is never whitespace; everything else is looked up.
    if ((code > 0x20 && code < 0x7f) || !isWhitespaceOutsideAscii(code)) {
      if (!inWord) {
        inWord = true;
        words += 1;
      }
    } else inWord = false;
  }
  return words;
}

function splitText(text: string, size: number): string[] {
  const pieces: string[] = [];
  for (let i = 0; i < text.length; i += size) pieces.push(text.slice(i, i + size));
  return pieces;
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.destroyed) return;
  const payload = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(payload), ...headers });
  res.end(payload);
}

/** An OpenAI-style error body. */
export function errorBody(message: string, type: string, code: number | string): unknown {
  return { error: { message, type, param: null, code } };
}

/** What a completion says, whatever the transport. */
export interface CompletionParts {
  id: string;
  model: string;
  content: string;
  reasoning?: string;
  reasoningField: "reasoning_content" | "reasoning";
  finishReason: string;
  usage: { promptTokens: number; completionTokens: number };
}

function usageBody(parts: CompletionParts) {
  return {
    prompt_tokens: parts.usage.promptTokens,
    completion_tokens: parts.usage.completionTokens,
    total_tokens: parts.usage.promptTokens + parts.usage.completionTokens,
  };
}

/** The completion as one JSON body, or the plain-JSON form of the fault. */
export function sendPlainCompletion(res: ServerResponse, parts: CompletionParts, fault: MockFault | undefined): void {
  if (fault?.type === "stall-after-headers") {
    res.writeHead(200, { "content-type": "application/json" });
    res.flushHeaders();
    return;
  }
  const message: Record<string, unknown> = { role: "assistant", content: parts.content };
  if (parts.reasoning !== undefined) message[parts.reasoningField] = parts.reasoning;
  const completion = {
    id: parts.id,
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model: parts.model,
    choices: [{ index: 0, message, finish_reason: parts.finishReason, logprobs: null }],
    usage: usageBody(parts),
  };
  if (fault?.type === "error-event") {
    const code = fault.code ?? 500;
    sendJson(res, code, errorBody(fault.message ?? `injected engine error (${code})`, "mock_fault", code));
    return;
  }
  if (fault?.type === "drop-mid-stream" || fault?.type === "truncated-stream") {
    const payload = JSON.stringify(completion);
    res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(payload) });
    res.write(payload.slice(0, Math.floor(payload.length / 2)));
    res.destroy();
    return;
  }
  sendJson(res, 200, completion);
}

export interface StreamOptions {
  /** Characters of text per chunk. */
  chunkChars: number;
  /** Send a final usage chunk (the client asked for `stream_options.include_usage`). */
  includeUsage: boolean;
  /** Waits between chunks, when set. */
  sleep: (() => Promise<void>) | undefined;
  /** True once the server is closing: stop writing. */
  isClosed(): boolean;
  /** Keep-alive timers are registered so that closing the server clears them. */
  keepTimer(timer: NodeJS.Timeout): void;
  forgetTimer(timer: NodeJS.Timeout): void;
}

/** The completion as server-sent events, with the fault applied at its chunk. */
export async function streamCompletion(
  res: ServerResponse,
  parts: CompletionParts,
  fault: MockFault | undefined,
  options: StreamOptions,
): Promise<void> {
  const base = { id: parts.id, object: "chat.completion.chunk", created: Math.floor(Date.now() / 1000), model: parts.model };
  const chunks: unknown[] = [{ ...base, choices: [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }] }];
  for (const piece of splitText(parts.reasoning ?? "", options.chunkChars)) {
    chunks.push({ ...base, choices: [{ index: 0, delta: { [parts.reasoningField]: piece }, finish_reason: null }] });
  }
  for (const piece of splitText(parts.content, options.chunkChars))
    chunks.push({ ...base, choices: [{ index: 0, delta: { content: piece }, finish_reason: null }] });
  chunks.push({ ...base, choices: [{ index: 0, delta: {}, finish_reason: parts.finishReason }] });
  if (options.includeUsage) chunks.push({ ...base, choices: [], usage: usageBody(parts) });

  res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", connection: "keep-alive" });
  res.flushHeaders();

  for (let i = 0; i <= chunks.length; i++) {
    if (options.isClosed() || res.destroyed) return;
    if (fault?.type === "stall-after-headers" && i === (fault.afterChunks ?? 0)) {
      const everyMs = fault.keepAliveMs;
      if (everyMs !== undefined && everyMs > 0) {
        const timer = setInterval(() => {
          if (res.destroyed) clearInterval(timer);
          else res.write(": keep-alive\n\n");
        }, everyMs);
        options.keepTimer(timer);
        res.on("close", () => {
          clearInterval(timer);
          options.forgetTimer(timer);
        });
      }
      return;
    }
    if (fault?.type === "drop-mid-stream" && i === (fault.afterChunks ?? 2)) {
      res.destroy();
      return;
    }
    if (fault?.type === "error-event" && i === (fault.afterChunks ?? 1)) {
      const code = fault.code ?? 500;
      const error = { message: fault.message ?? `injected engine error (${code})`, type: "mock_fault", code };
      res.end(`data: ${JSON.stringify({ error })}\n\n`);
      return;
    }
    if (fault?.type === "truncated-stream" && i === (fault.afterChunks ?? 2)) {
      res.end();
      return;
    }
    if (i === chunks.length) break;
    res.write(`data: ${JSON.stringify(chunks[i])}\n\n`);
    if (options.sleep !== undefined) await options.sleep();
  }
  res.end("data: [DONE]\n\n");
}
