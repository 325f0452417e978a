import type { z } from "zod";
import { formatIssues } from "../core/errors.js";

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
