import { z } from "zod";
import { formatIssues } from "../core/errors.js";
import type { ChatMessage, ChatModel } from "./chat-model.js";

/**
 * Tolerant reading of a model's JSON answer: code fences and prose around the object are
 * ignored, then the object is checked against the schema. Returns the error text to send back to
 * the model when it cannot be used.
 */
export function parseModelJson<T>(text: string, schema: z.ZodType<T>): { ok: true; value: T } | { ok: false; error: string } {
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
}

/**
 * Asks for a JSON object matching a schema (sent as structured output where the endpoint
 * supports it), reads the answer tolerantly, and sends an unusable answer back with the error
 * (sotopia's "rubric as schema" with one correction turn per retry).
 */
export async function askForJson<T>(model: ChatModel, request: StructuredRequest<T>): Promise<T> {
  const messages: ChatMessage[] = [
    { role: "system", content: request.system },
    { role: "user", content: request.instruction },
  ];
  const jsonSchema = { name: request.name, schema: jsonSchemaOf(request.schema) };
  let lastError = "";
  for (let attempt = 0; attempt <= request.retries; attempt += 1) {
    const response = await model.complete({
      messages,
      temperature: request.temperature,
      maxTokens: request.maxTokens,
      ...(request.seedFor ? { seed: request.seedFor(attempt) } : {}),
      jsonSchema,
      sampleKey: `${request.sampleKey}#try${attempt}`,
      signal: request.signal,
    });
    const parsed = parseModelJson(response.text, request.schema);
    const problem = parsed.ok ? (request.check?.(parsed.value) ?? null) : parsed.error;
    if (parsed.ok && problem === null) return parsed.value;
    lastError = problem ?? "unusable answer";
    messages.push({ role: "assistant", content: response.text }, { role: "user", content: `Your answer could not be used: ${lastError}\nAnswer again with only the JSON object.` });
  }
  throw new StructuredOutputError(`${request.name} output unusable after ${request.retries + 1} tries: ${lastError}`);
}
