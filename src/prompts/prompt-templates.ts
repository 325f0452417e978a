import { readFileSync } from "node:fs";
import { join } from "node:path";
import { packageRoot } from "../core/data-files.js";
import { AebError } from "../core/errors.js";
import type { Language } from "../lexicon/lexicon.js";

/** Prompt templates live in prompts/<language>/<name>.md; they are data, written in our own words. */
export const PROMPT_DIR = join(packageRoot, "prompts");

const templateCache = new Map<string, string>();

export function loadPromptTemplate(language: Language, name: string): string {
  const path = join(PROMPT_DIR, language, `${name}.md`);
  let text = templateCache.get(path);
  if (text === undefined) {
    try {
      text = readFileSync(path, "utf8").trim();
    } catch (error) {
      throw new AebError(`prompt template ${path} cannot be read: ${(error as Error).message}`);
    }
    templateCache.set(path, text);
  }
  return text;
}

/** `{{name}}` or `{{group.name}}`: the placeholder syntax of every template (built-in or a user's pack). */
const PLACEHOLDER = /\{\{([A-Za-z_][\w]*(?:\.[A-Za-z_][\w]*)?)\}\}/g;

/** The placeholders a template uses, each once, in order of first use. */
export function placeholdersOf(template: string): string[] {
  return [...new Set([...template.matchAll(PLACEHOLDER)].map((match) => match[1] as string))];
}

/** Fills `{{name}}` placeholders; a placeholder without a value is a bug, so it throws. */
export function fillPrompt(template: string, values: Readonly<Record<string, string | number>>): string {
  return template.replace(PLACEHOLDER, (_whole, key: string) => {
    const value = values[key];
    if (value === undefined) throw new AebError(`prompt placeholder {{${key}}} has no value`);
    return String(value);
  });
}
