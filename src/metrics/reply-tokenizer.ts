/**
 * Reply length in tokens (docs/output-format.md: tokens where a tokenizer is set).
 *
 * Why a tokenizer file and not the server's usage counts: `completion_tokens` includes reasoning
 * and formatting tokens and does not exist for the offline agents; comparing conditions needs the
 * visible reply of every condition counted the same way. The run config names a Hugging Face
 * `tokenizer.json` (the one beside the weights a vLLM server loads); @huggingface/tokenizers reads
 * it in pure JavaScript, so nothing is downloaded.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { Tokenizer } from "@huggingface/tokenizers";
import { ConfigError } from "../core/errors.js";

export interface ReplyTokenizer {
  /** What the summary cites: the tokenizer's directory name (or file name). */
  name: string;
  /** sha256 of tokenizer.json, so a run directory knows which vocabulary counted its tokens. */
  sha256: string;
  /** Tokens of one visible reply, without special tokens. */
  count(text: string): number;
}

function readJson(path: string, what: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new ConfigError(`tokenizer: cannot read ${what} ${path}: ${(error as Error).message}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`tokenizer: ${what} ${path} is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new ConfigError(`tokenizer: ${what} ${path} must hold a JSON object`);
  return value as Record<string, unknown>;
}

/**
 * Loads `path`: a tokenizer.json file, or a directory holding one (a model directory). A
 * tokenizer_config.json beside it is read too when present.
 */
export function loadReplyTokenizer(path: string): ReplyTokenizer {
  const file = existsSync(path) && statSync(path).isDirectory() ? join(path, "tokenizer.json") : path;
  const tokenizerJson = readJson(file, "tokenizer file");
  if (typeof tokenizerJson.model !== "object" || tokenizerJson.model === null) {
    throw new ConfigError(`tokenizer: ${file} has no "model" object; is it a Hugging Face tokenizer.json?`);
  }
  const configPath = join(dirname(file), "tokenizer_config.json");
  const tokenizerConfig = existsSync(configPath) ? readJson(configPath, "tokenizer config") : {};
  let tokenizer: Tokenizer;
  try {
    tokenizer = new Tokenizer(tokenizerJson, tokenizerConfig);
  } catch (error) {
    throw new ConfigError(`tokenizer: ${file} could not be loaded: ${(error as Error).message}`);
  }
  const name = basename(file) === "tokenizer.json" ? basename(dirname(file)) : basename(file);
  return {
    name,
    sha256: createHash("sha256").update(readFileSync(file)).digest("hex"),
    count: (text) => tokenizer.encode(text, { add_special_tokens: false }).ids.length,
  };
}
