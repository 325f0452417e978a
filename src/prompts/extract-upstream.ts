/**
 * `aeb prompts extract --from sage|rlver PATH --out DIR`: reads SAGE's or RLVER's original
 * simulator prompts out of a user's checkout (their Python source, read by python-source.ts) and
 * writes them as a prompt pack directory, their placeholders mapped to the pack placeholders, so
 * the exact upstream prompts run through `simulator.promptPack: { dir: DIR }` without this
 * repository holding a copy. How each source is read (file, functions, variables, placeholder
 * mapping) is data: prompts/extract/<source>.yaml.
 */
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { stringify as stringifyYaml } from "yaml";
import { z } from "zod";
import { loadDataFile } from "../core/data-files.js";
import { ConfigError } from "../core/errors.js";
import { LanguageSchema } from "../lexicon/lexicon.js";
import { loadPromptPack, type PromptPack } from "./prompt-pack.js";
import { placeholdersOf, PROMPT_DIR } from "./prompt-templates.js";
import { scanPythonPrompts, type PythonPromptScan } from "./python-source.js";

export const UPSTREAM_SOURCES = ["sage", "rlver"] as const;
export type UpstreamSource = (typeof UPSTREAM_SOURCES)[number];

const StageRecipe = z.strictObject({
  function: z.string(),
  variable: z.string(),
  /** Upstream placeholder -> a pack placeholder text, or `target` / `planning` (composed). */
  placeholders: z.record(z.string(), z.string()),
});

const RecipeSchema = z.strictObject({
  source: z.string(),
  files: z.array(z.string()).min(1),
  language: LanguageSchema,
  target: z.strictObject({ variable: z.string(), key: z.string().optional() }),
  speakers: z.strictObject({ function: z.string(), variable: z.string() }),
  analyst: StageRecipe,
  actor: StageRecipe,
  planningKeys: z.record(z.string(), z.string()),
  temperatureFrom: z.string().optional(),
  systemPrompt: z.strictObject({ file: z.string(), think: z.string(), direct: z.string() }).optional(),
});
type Recipe = z.infer<typeof RecipeSchema>;

export function loadRecipe(source: UpstreamSource): Recipe {
  return loadDataFile(join(PROMPT_DIR, "extract", `${source}.yaml`), RecipeSchema);
}

export interface ExtractResult {
  /** The Python file the prompts were read from. */
  sourceFile: string;
  outDir: string;
  files: string[];
  /** The pack, loaded back and checked. */
  pack: PromptPack;
  /** Set when the checkout has the policy's system prompts (RLVER's system_prompt.py). */
  systemPrompts?: { think: string; direct: string };
  notes: string[];
}

/** The simulator file in a checkout: PATH itself, or one of the recipe's relative locations. */
export function findSourceFile(recipe: Recipe, path: string): string {
  if (!existsSync(path)) throw new ConfigError(`${path} does not exist (give the root of a ${recipe.source} checkout, or ${recipe.files.at(-1)} itself)`);
  if (statSync(path).isFile()) return path;
  for (const relative of recipe.files) {
    const candidate = join(path, relative);
    if (existsSync(candidate)) return candidate;
  }
  throw new ConfigError(`no ${recipe.source} simulator file under ${path} (looked for ${recipe.files.join(", ")})`);
}

function stringIn(scan: PythonPromptScan, file: string, scope: string | null, variable: string): string {
  const found = scan.strings.filter((entry) => entry.scope === scope && entry.name === variable);
  const where = scope === null ? "at module level" : `in ${scope}()`;
  if (found.length === 0) throw new ConfigError(`${file}: no string "${variable}" ${where}; is this the ${"simulator"} file of the expected version?`);
  const last = found.at(-1) as (typeof found)[number];
  if (last.fString) throw new ConfigError(`${file} line ${last.line}: "${variable}" ${where} is an f-string; its fields are filled by code this extractor cannot run`);
  return last.value;
}

function targetText(recipe: Recipe, scan: PythonPromptScan, file: string): string {
  const { variable, key } = recipe.target;
  if (key === undefined) return stringIn(scan, file, null, variable);
  const dict = scan.dicts.find((entry) => entry.scope === null && entry.name === variable);
  const value = dict?.entries[key];
  if (value === undefined) throw new ConfigError(`${file}: no entry "${key}" in the module-level dict "${variable}"`);
  return value;
}

/** The actor's feelings text, composed in the source's code from the analyst's sections. */
function planningText(recipe: Recipe, scan: PythonPromptScan, file: string, analystFields: readonly string[]): string {
  const calls = scan.replaces.filter((call) => call.scope === recipe.actor.function && call.target === "{{planning}}");
  const composed = calls.filter((call) => call.parts.some((part) => part.kind === "subscript")).at(-1);
  if (composed === undefined) throw new ConfigError(`${file}: no .replace("{{planning}}", ...) in ${recipe.actor.function}() that composes the analyst's sections`);
  return composed.parts
    .map((part) => {
      if (part.kind === "string") return part.value;
      if (part.kind === "subscript") {
        const field = recipe.planningKeys[part.key];
        if (field === undefined || !analystFields.includes(field)) throw new ConfigError(`${file} line ${composed.line}: the actor's feelings use planning["${part.key}"], which is not one of the analyst's sections (${analystFields.join(", ")})`);
        return `{{appraisal.${field}}}`;
      }
      throw new ConfigError(`${file} line ${composed.line}: the actor's feelings are built from "${part.text}", which this extractor cannot read`);
    })
    .join("");
}

/** The `Name:` header lines of an output format, in order (each once). */
export function outputFields(template: string): string[] {
  return [...new Set([...template.matchAll(/^([A-Za-z][A-Za-z0-9_]*)[:：][ \t]*$/gmu)].map((match) => match[1] as string))];
}

function mapPlaceholders(template: string, stage: Recipe["analyst"], replacements: { target: string; planning?: string }, file: string, where: string): string {
  const unknown = placeholdersOf(template).filter((name) => stage.placeholders[`{{${name}}}`] === undefined);
  if (unknown.length > 0) throw new ConfigError(`${file}: ${where} uses ${unknown.map((name) => `{{${name}}}`).join(", ")}, which the extractor does not know how to map (prompts/extract recipe); is this the expected version?`);
  return template.replace(/\{\{([A-Za-z_][\w]*)\}\}/gu, (whole) => {
    const mapped = stage.placeholders[whole] as string;
    if (mapped === "target") return replacements.target;
    if (mapped === "planning") {
      if (replacements.planning === undefined) throw new ConfigError(`${file}: ${where} uses {{planning}}, which only the actor may`);
      return replacements.planning;
    }
    return mapped;
  });
}

/**
 * Extracts a pack from a checkout into `outDir` (created; existing files of the same names are
 * replaced), then loads it back, so a pack that would not load is an error here and not at run time.
 */
export function extractUpstreamPack(source: UpstreamSource, path: string, outDir: string): ExtractResult {
  const recipe = loadRecipe(source);
  const file = findSourceFile(recipe, path);
  const scan = scanPythonPrompts(readFileSync(file, "utf8"));
  const target = targetText(recipe, scan, file);
  const analystRaw = stringIn(scan, file, recipe.analyst.function, recipe.analyst.variable);
  const actorRaw = stringIn(scan, file, recipe.actor.function, recipe.actor.variable);
  const analystFields = outputFields(analystRaw);
  const actorFields = outputFields(actorRaw);
  if (!analystFields.includes("Change")) throw new ConfigError(`${file}: the analyst's output format has no "Change:" section (found: ${analystFields.join(", ") || "none"})`);
  if (!actorFields.includes("Response")) throw new ConfigError(`${file}: the actor's output format has no "Response:" section (found: ${actorFields.join(", ") || "none"})`);
  const analyst = mapPlaceholders(analystRaw, recipe.analyst, { target }, file, `${recipe.analyst.function}().${recipe.analyst.variable}`);
  const actor = mapPlaceholders(actorRaw, recipe.actor, { target, planning: planningText(recipe, scan, file, analystFields) }, file, `${recipe.actor.function}().${recipe.actor.variable}`);
  const mapping = scan.dicts.find((entry) => entry.scope === recipe.speakers.function && entry.name === recipe.speakers.variable);
  if (mapping?.entries.user === undefined || mapping.entries.assistant === undefined) throw new ConfigError(`${file}: no dict "${recipe.speakers.variable}" with "user" and "assistant" in ${recipe.speakers.function}()`);
  const temperature = recipe.temperatureFrom === undefined ? undefined : scan.numbers.find((entry) => entry.scope === recipe.temperatureFrom && entry.key === "temperature")?.value;

  const languageDir = join(outDir, recipe.language);
  mkdirSync(languageDir, { recursive: true });
  const written: string[] = [];
  const write = (relative: string, text: string) => {
    writeFileSync(join(outDir, relative), text);
    written.push(relative);
  };
  const manifest = {
    description: `${recipe.source}'s simulator prompts, extracted from ${file} by aeb prompts extract.`,
    source: file,
    format: "tagged",
    languages: [recipe.language],
    dialogueStyle: "sage",
    ...(temperature !== undefined ? { sampling: { temperature } } : {}),
    analyst: { template: "analyst.md", fields: analystFields, change: "Change" },
    actor: { template: "actor.md", fields: actorFields, reply: "Response" },
  };
  write("pack.yaml", `# Written by aeb prompts extract --from ${source}; the templates are ${recipe.source}'s own text.\n${stringifyYaml(manifest, { lineWidth: 0 })}`);
  // A template file holds the string and one final newline (the loader removes exactly that one).
  write(join(recipe.language, "analyst.md"), `${analyst}\n`);
  write(join(recipe.language, "actor.md"), `${actor}\n`);
  const strings = {
    language: recipe.language === "zh" ? "中文" : "English",
    speakers: { user: mapping.entries.user, agent: mapping.entries.assistant },
    hiddenIntentionLabel: recipe.language === "zh" ? "隐藏主题" : "Hidden theme",
    correction: recipe.language === "zh" ? "你的回答无法使用：{{error}}\n请按上面给出的输出格式重新写出完整的回答，每一部分写在自己的标题下面。" : "Your answer could not be used: {{error}}\nWrite your whole answer again in the output format given above, each section under its own header.",
  };
  write(join(recipe.language, "strings.yaml"), stringifyYaml(strings, { lineWidth: 0 }));

  const notes: string[] = [];
  let systemPrompts: ExtractResult["systemPrompts"];
  if (recipe.systemPrompt !== undefined) {
    const promptFile = join(dirname(file), recipe.systemPrompt.file);
    if (existsSync(promptFile)) {
      const prompts = scanPythonPrompts(readFileSync(promptFile, "utf8"));
      systemPrompts = { think: stringIn(prompts, promptFile, null, recipe.systemPrompt.think), direct: stringIn(prompts, promptFile, null, recipe.systemPrompt.direct) };
      write("agent-system-think.txt", systemPrompts.think);
      write("agent-system-direct.txt", systemPrompts.direct);
    } else {
      notes.push(`${promptFile} is not in this checkout: the policy's system prompts were not extracted (systemPromptFile needs them; see docs/models.md)`);
    }
  }
  const pack = loadPromptPack({ dir: outDir });
  return { sourceFile: file, outDir, files: written, pack, ...(systemPrompts !== undefined ? { systemPrompts } : {}), notes };
}
