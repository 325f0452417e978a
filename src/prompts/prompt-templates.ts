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

/**
 * A template cut once at its placeholders: the literal text before each placeholder, the
 * placeholder names, and the text after the last one. Filling is then a join, not a scan of the
 * whole template with a regular expression: a simulator's prompts are several kilobytes, filled
 * twice per turn.
 */
interface CutTemplate {
  literals: string[];
  keys: string[];
}

/** Templates are few (a pack's stages, the judges'); the bound only keeps a caller that builds templates on the fly from growing it. */
const cutTemplates = new Map<string, CutTemplate>();
const MAX_CUT_TEMPLATES = 512;

function cutTemplate(template: string): CutTemplate {
  let cut = cutTemplates.get(template);
  if (cut === undefined) {
    const literals: string[] = [];
    const keys: string[] = [];
    let last = 0;
    for (const match of template.matchAll(PLACEHOLDER)) {
      literals.push(template.slice(last, match.index));
      keys.push(match[1] as string);
      last = match.index + match[0].length;
    }
    literals.push(template.slice(last));
    cut = { literals, keys };
    if (cutTemplates.size >= MAX_CUT_TEMPLATES) cutTemplates.clear();
    cutTemplates.set(template, cut);
  }
  return cut;
}

/** Fills `{{name}}` placeholders; a placeholder without a value is a bug, so it throws. */
export function fillPrompt(template: string, values: Readonly<Record<string, string | number>>): string {
  const { literals, keys } = cutTemplate(template);
  let text = literals[0] as string;
  for (let index = 0; index < keys.length; index += 1) {
    const key = keys[index] as string;
    const value = values[key];
    if (value === undefined) throw new AebError(`prompt placeholder {{${key}}} has no value`);
    text += String(value) + (literals[index + 1] as string);
  }
  return text;
}
