import { z } from "zod";
import { formatIssues } from "../core/errors.js";
import type { ChatMessage, ChatModel } from "./chat-model.js";

/**
 * Tolerant reading of a model's JSON answer: code fences and prose around the object are
 * ignored, then the object is checked against the schema. Returns the error text to send back to
 * the model when it cannot be used.
 */
export function parseModelJson<T>(text: string, schema: z.ZodType<T>): ParsedAnswer<T> {
  const candidate = extractJsonObject(text);
  if (candidate === null) return { ok: false, error: "no JSON object found in the answer" };
  let raw: unknown;
  try {
    raw = JSON.parse(candidate);
  } catch (error) {
    return { ok: false, error: `the JSON does not parse: ${(error as Error).message}` };
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) return { ok: false, error: `the JSON does not match the required fields:\n${formatIssues(parsed.error.issues)}` };
  return { ok: true, value: parsed.data };
}

/** The first balanced {...} in the text (strings and escapes respected), or null. */
export function extractJsonObject(text: string): string | null {
  const unfenced = text.replace(/```(?:json)?/gi, "");
  const start = unfenced.indexOf("{");
  if (start === -1) return null;
  let depth = 0;
  let inString = false;
  let escaped = false;
  for (let index = start; index < unfenced.length; index += 1) {
    const char = unfenced[index];
    if (inString) {
      if (escaped) escaped = false;
      else if (char === "\\") escaped = true;
      else if (char === '"') inString = false;
      continue;
    }
    if (char === '"') inString = true;
    else if (char === "{") depth += 1;
    else if (char === "}") {
      depth -= 1;
      if (depth === 0) return unfenced.slice(start, index + 1);
    }
  }
  return null;
}

/** One structured call: the prompt, the schema and how to retry an unusable answer. */
export interface StructuredRequest<T> {
  system: string;
  /** The short user turn that asks for the JSON ("Answer with the JSON object only."). */
  instruction: string;
  schema: z.ZodType<T>;
  /** Name of the structured-output schema sent to the server (also how mocks recognise the role). */
  name: string;
  /** Cache identity of the sample; the try number is appended. */
  sampleKey: string;
  /** Unusable answers are sent back with the error this many times. */
  retries: number;
  temperature?: number;
  maxTokens?: number;
  /** Seed per try (so a retry is a new sample, reproducibly). */
  seedFor?: (attempt: number) => number;
  /** A check beyond the schema (a range that depends on the preset...): an error text, or null. */
  check?: (value: T) => string | null;
  signal?: AbortSignal;
}

const jsonSchemaCache = new WeakMap<z.ZodType, Record<string, unknown>>();

/** The JSON Schema of a zod schema, converted once: conversion is costly and runs on every call otherwise. */
function jsonSchemaOf(schema: z.ZodType): Record<string, unknown> {
  let converted = jsonSchemaCache.get(schema);
  if (converted === undefined) {
    converted = z.toJSONSchema(schema, { io: "input" }) as Record<string, unknown>;
    jsonSchemaCache.set(schema, converted);
  }
  return converted;
}

/** Raised when a model's structured answer is still unusable after its retries. */
export class StructuredOutputError extends Error {
  override readonly name = "StructuredOutputError";
  constructor(
    /** The request's name (`aeb_simulator_appraisal`...). */
    readonly requestName: string,
    readonly tries: number,
    /** Why the last answer could not be used, as it was said back to the model. */
    readonly lastProblem: string,
  ) {
    super(`${requestName} output unusable after ${tries} tries: ${lastProblem}`);
  }
}

/** What a reader of a model's answer returns: the value, or the error text to send back to the model. */
export type ParsedAnswer<T> = { ok: true; value: T } | { ok: false; error: string };

/**
 * One call whose answer must be read by a parser, with corrective retries: the messages, how to
 * read the answer and what to say back when it cannot be used. `askForJson` is the JSON case; the
 * free-text prompt packs (tagged sections such as `Change:`) read their answers through the same
 * loop, so both formats get the same rigour: an unusable answer is never replaced by a default.
 */
export interface CorrectedRequest<T> {
  messages: ChatMessage[];
  read: (text: string) => ParsedAnswer<T>;
  /** The user turn that sends an unusable answer back, given what was wrong with it. */
  correction: (error: string) => string;
  /** Names the call in errors (and, with `jsonSchema`, the schema sent to the server). */
  name: string;
  /** Cache identity of the sample; the try number is appended. */
  sampleKey: string;
  /** Unusable answers are sent back with the error this many times. */
  retries: number;
  temperature?: number;
  maxTokens?: number;
  /** Seed per try (so a retry is a new sample, reproducibly). */
  seedFor?: (attempt: number) => number;
  /** A check beyond the reader (a range that depends on the preset...): an error text, or null. */
  check?: (value: T) => string | null;
  jsonSchema?: { name: string; schema: Record<string, unknown> };
  signal?: AbortSignal;
}

/** Asks, reads the answer, and sends an unusable one back with the error, up to `retries` times. */
export async function askWithCorrection<T>(model: ChatModel, request: CorrectedRequest<T>): Promise<T> {
  const messages = [...request.messages];
  let lastError = "";
  for (let attempt = 0; attempt <= request.retries; attempt += 1) {
    const response = await model.complete({
      messages: [...messages],
      temperature: request.temperature,
      maxTokens: request.maxTokens,
      ...(request.seedFor ? { seed: request.seedFor(attempt) } : {}),
      ...(request.jsonSchema ? { jsonSchema: request.jsonSchema } : {}),
      sampleKey: `${request.sampleKey}#try${attempt}`,
      signal: request.signal,
    });
    const parsed = request.read(response.text);
    const problem = parsed.ok ? (request.check?.(parsed.value) ?? null) : parsed.error;
    if (parsed.ok && problem === null) return parsed.value;
    lastError = problem ?? "unusable answer";
    messages.push({ role: "assistant", content: response.text }, { role: "user", content: request.correction(lastError) });
  }
  throw new StructuredOutputError(request.name, request.retries + 1, lastError);
}

/**
 * Asks for a JSON object matching a schema (sent as structured output where the endpoint
 * supports it), reads the answer tolerantly, and sends an unusable answer back with the error
 * (sotopia's "rubric as schema" with one correction turn per retry).
 */
export async function askForJson<T>(model: ChatModel, request: StructuredRequest<T>): Promise<T> {
  return askWithCorrection(model, {
    messages: [
      { role: "system", content: request.system },
      { role: "user", content: request.instruction },
    ],
    read: (text) => parseModelJson(text, request.schema),
    correction: (error) => `Your answer could not be used: ${error}\nAnswer again with only the JSON object.`,
    name: request.name,
    sampleKey: request.sampleKey,
    retries: request.retries,
    temperature: request.temperature,
    maxTokens: request.maxTokens,
    ...(request.seedFor ? { seedFor: request.seedFor } : {}),
    ...(request.check ? { check: request.check } : {}),
    jsonSchema: { name: request.name, schema: jsonSchemaOf(request.schema) },
    signal: request.signal,
  });
}
