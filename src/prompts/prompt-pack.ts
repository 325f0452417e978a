/**
 * Prompt packs: the LLM simulated user's prompts as data, one directory per pack.
 *
 *     <pack>/pack.yaml              the manifest (format, stages, output fields, sampling)
 *     <pack>/<language>/<stage>.md  the templates, with {{placeholders}}
 *     <pack>/<language>/strings.yaml  the pack's words (speaker labels, state descriptions...)
 *     <pack>/<language>/traits.yaml   optional: trait text per trajectory type ({{trait}})
 *
 * The built-in packs live in prompts/packs/ (`aeb-json`, `sage`, `rlver`, `aeb-paper`); a user's
 * own pack is a directory of the same shape (`promptPack: { dir: PATH }`), for instance one
 * written by `aeb prompts extract`. Everything is checked when the pack is loaded, before any
 * model is called: the manifest, every template of every language, and every placeholder (an
 * unknown one is an error naming the file and the placeholder). docs/models.md lists the
 * placeholders.
 */
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { ConfigError, formatIssues } from "../core/errors.js";
import { TrajectoryTypeSchema } from "../core/trajectory-type.js";
import { LanguageSchema, type Language } from "../lexicon/lexicon.js";
import { placeholdersOf, PROMPT_DIR } from "./prompt-templates.js";

export const BUILTIN_PACK_DIR = join(PROMPT_DIR, "packs");
export const BUILTIN_PACKS = ["aeb-json", "sage", "rlver", "aeb-paper"] as const;
export type BuiltinPackName = (typeof BUILTIN_PACKS)[number];

/** How a config names a pack: a built-in name, or a directory of the same shape. */
export const PromptPackRefSchema = z.union([z.enum(BUILTIN_PACKS), z.strictObject({ dir: z.string().min(1).describe("a directory of the same shape as a built-in pack (prompts/packs/, docs/models.md), e.g. one `aeb prompts extract` wrote") })]);
export type PromptPackRef = z.infer<typeof PromptPackRefSchema>;

const FieldName = z.string().regex(/^[A-Za-z][A-Za-z0-9_]*$/, "field names are letters, digits and '_' (they are written as `Name:` headers)");
const FileName = z.string().regex(/^[^/\\]+\.md$/, "a template is a .md file name inside the language directory");

/** A tagged pack's stage templates. */
const TemplateFiles = {
  /** The template sent as the user message. */
  template: FileName,
  /** A template sent as the system message before it. */
  system: FileName.optional(),
};

/** The HID verdict read from a free-text field (only the AEB paper's normaliser exists). */
const HidRuleSchema = z.strictObject({ field: FieldName, normaliser: z.literal("aeb-paper") });

/**
 * A json pack's stage: its template is the system message. With `user`, that template is the user
 * message (the built-in pack puts there the conversation and what changes each turn, after a
 * system message that stays the same all dialogue, so a server's prefix cache reuses it); without,
 * the user message only asks for the JSON object.
 */
const JsonStage = z.strictObject({ template: FileName, user: FileName.optional() });

const JsonPackSchema = z.strictObject({
  format: z.literal("json"),
  analyst: JsonStage,
  actor: JsonStage,
  /** Appraisal and reply in one call (`simulator.fused: true`). */
  fused: JsonStage.optional(),
});

const TaggedPackSchema = z.strictObject({
  format: z.literal("tagged"),
  analyst: z.strictObject({
    ...TemplateFiles,
    /** The sections the answer must have, in the order the template asks for them. */
    fields: z.array(FieldName).min(1),
    /** Sections that may be missing (all others are required). */
    optional: z.array(FieldName).default([]),
    /** The section holding the signed change. */
    change: FieldName,
    /** Where the HID verdict comes from; without it the pack does not measure HID. */
    hid: HidRuleSchema.optional(),
  }),
  actor: z.strictObject({
    ...TemplateFiles,
    fields: z.array(FieldName).min(1),
    optional: z.array(FieldName).default([]),
    /** The section holding what the user says. */
    reply: FieldName,
  }),
});

const CommonManifest = {
  description: z.string().min(1),
  /** Where the structure comes from (a file of the source), for readers. */
  source: z.string().optional(),
  languages: z.array(LanguageSchema).min(1),
  /**
   * How {{dialogue}}, {{context}} and {{latest}} are written: `aeb` (the project's delimited JSON
   * data, speakers "you"/"listener") or `sage` (SAGE's JSON list of {role, content}, with the
   * speaker labels of strings.yaml).
   */
  dialogueStyle: z.enum(["aeb", "sage"]).default("aeb"),
  /** Sampling the source used; the simulator config's own values override these. */
  sampling: z.strictObject({ temperature: z.number().min(0).max(2).optional(), maxTokens: z.number().int().positive().optional() }).default({}),
};

export const PackManifestSchema = z
  .discriminatedUnion("format", [z.strictObject({ ...CommonManifest, ...JsonPackSchema.shape }), z.strictObject({ ...CommonManifest, ...TaggedPackSchema.shape })])
  .superRefine((manifest, context) => {
    if (manifest.format !== "tagged") return;
    const { analyst, actor } = manifest;
    const notAField = (fields: readonly string[], name: string, path: string[]) => {
      if (!fields.includes(name)) context.addIssue({ code: "custom", path, message: `"${name}" is not one of the stage's fields (${fields.join(", ")})` });
    };
    notAField(analyst.fields, analyst.change, ["analyst", "change"]);
    if (analyst.hid) notAField(analyst.fields, analyst.hid.field, ["analyst", "hid", "field"]);
    notAField(actor.fields, actor.reply, ["actor", "reply"]);
    for (const name of analyst.optional) notAField(analyst.fields, name, ["analyst", "optional"]);
    for (const name of actor.optional) notAField(actor.fields, name, ["actor", "optional"]);
    if (analyst.optional.includes(analyst.change)) context.addIssue({ code: "custom", path: ["analyst", "optional"], message: "the change section cannot be optional" });
    if (actor.optional.includes(actor.reply)) context.addIssue({ code: "custom", path: ["actor", "optional"], message: "the reply section cannot be optional" });
  });
export type PackManifest = z.infer<typeof PackManifestSchema>;

/** A pack's words in one language (strings.yaml). */
export const PackStringsSchema = z.strictObject({
  /** The language's name, for {{language}} ("English", "中文"). */
  language: z.string().min(1),
  /** Tagged packs: the message that sends an unusable answer back; {{error}} says what was wrong. */
  correction: z.string().min(1).optional(),
  /** {{stateDescription}}: what each emotion state feels like. */
  states: z.strictObject({ S: z.string(), A: z.string(), B: z.string(), C: z.string(), F: z.string() }).optional(),
  /** {{phaseNote}}: before / from the manipulation turn on. */
  phaseBefore: z.string().optional(),
  phaseAfter: z.string().optional(),
  /** {{scriptLine}}: the words before the trait's line for this turn. */
  scriptLinePrefix: z.string().optional(),
  /** `sage` dialogue style: how the user and the agent are named in the JSON list. */
  speakers: z.strictObject({ user: z.string().min(1), agent: z.string().min(1) }).optional(),
  /** `sage` dialogue style: the actor's own labels, where they differ from the analyst's (the AEB paper's "You" vs "User"). */
  actorSpeakers: z.strictObject({ user: z.string().min(1), agent: z.string().min(1) }).optional(),
  /** {{scene}}: the label of the hidden intention appended to a background that does not state it. */
  hiddenIntentionLabel: z.string().min(1).optional(),
  /** {{context}} when no earlier exchange exists (default "[]", as SAGE's json.dumps of an empty list). */
  emptyContext: z.string().optional(),
});
export type PackStrings = z.infer<typeof PackStringsSchema>;

const TraitsSchema = z.partialRecord(TrajectoryTypeSchema, z.string().min(1));

/**
 * Every placeholder a template may use, and the strings it needs. The values are computed by the
 * simulated user (src/simulated-user/pack-prompts.ts), which must fill exactly these names.
 */
export const PLACEHOLDERS = {
  persona: "the persona: its description, then its listed facts (name, age, occupation...)",
  character: "the persona as the source wrote it: a SAGE/RLVER profile's `player` text verbatim; for other scenarios the same as {{persona}}",
  background: "the background story as the scenario states it",
  scene: "the background, followed by the hidden intention where the background does not already state it (SAGE's scenes do)",
  topic: "the surface topic",
  hiddenIntention: "the need the user never states outright",
  type: "the trajectory type id (`escalation`, ..., `cooperative`)",
  traitDescription: "the type's summary and the scenario's own trait description",
  trait: "the pack's trait text for the scenario's type (traits.yaml)",
  rubric: "the rubric, one line per item with its amount",
  scriptLine: "the trait's scripted line for this turn, with scriptLinePrefix",
  script: "the trait's whole script, one numbered line per turn (`1. \"...\"`), or `—` when it has none",
  shiftTurn: "the number of the turn (from 1) where the type's behaviour shifts (the manipulation turn)",
  turn: "this turn's number, from 1",
  maxTurns: "the preset's turn limit",
  emotion: "the emotion, 0-100 (before the change for the analyst, after it for the actor)",
  state: "the emotion state letter: S, A, B, C or F",
  stateDescription: "what the state feels like (strings.yaml states)",
  stateScale: "every state with its range of emotion and what it feels like, one line each (`- S (100): ...`)",
  phaseNote: "before / past the manipulation turn (strings.yaml phaseBefore / phaseAfter)",
  dialogue: "the whole conversation, the reply under appraisal included, as JSON",
  context: "the conversation before the latest exchange, as JSON (SAGE's history[:-2])",
  latest: "the latest exchange: the user's last message and the reply under appraisal (SAGE's history[-2:])",
  minChange: "the lowest change the preset accepts",
  maxChange: "the highest change the preset accepts",
  language: "the language's name (strings.yaml language)",
} as const;
export type PlaceholderName = keyof typeof PLACEHOLDERS;

/** The fields of the json format's appraisal, which an actor template may use as {{appraisal.<field>}}. */
export const JSON_APPRAISAL_FIELDS = ["understanding", "addressedHiddenIntention", "innerReaction", "change", "reasons"] as const;

/** Which strings.yaml entries a placeholder needs. */
const NEEDS_STRINGS: Partial<Record<PlaceholderName, ReadonlyArray<keyof PackStrings>>> = {
  stateDescription: ["states"],
  stateScale: ["states"],
  phaseNote: ["phaseBefore", "phaseAfter"],
  scriptLine: ["scriptLinePrefix"],
  scene: ["hiddenIntentionLabel"],
};

export type StageName = "analyst" | "actor" | "fused";

export interface StageTemplates {
  /** The main template (user message for tagged packs, system message for json packs). */
  template: string;
  system?: string;
  /** Json packs: the user message's template, after the system message (see JsonStage). */
  user?: string;
  /** The placeholders the stage's templates use. */
  placeholders: string[];
}

export interface PackLanguage {
  language: Language;
  analyst: StageTemplates;
  actor: StageTemplates;
  fused?: StageTemplates;
  strings: PackStrings;
  traits?: Partial<Record<string, string>>;
}

export interface PromptPack {
  /** The built-in name, or `dir:<absolute path>`. */
  name: string;
  dir: string;
  manifest: PackManifest;
  languages: Partial<Record<Language, PackLanguage>>;
}

const builtinCache = new Map<string, PromptPack>();

/** Loads and checks a pack; built-in packs are read once per process. */
export function loadPromptPack(ref: PromptPackRef): PromptPack {
  if (typeof ref === "string") {
    let pack = builtinCache.get(ref);
    if (pack === undefined) {
      pack = readPack(join(BUILTIN_PACK_DIR, ref), ref);
      builtinCache.set(ref, pack);
    }
    return pack;
  }
  const dir = resolve(ref.dir);
  return readPack(dir, `dir:${dir}`);
}

function readText(path: string, what: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    throw new ConfigError(`${what} ${path} cannot be read: ${(error as Error).message}`);
  }
}

function readYaml<T>(path: string, schema: z.ZodType<T>, what: string): T {
  let raw: unknown;
  try {
    raw = parseYaml(readText(path, what));
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw new ConfigError(`${what} ${path} is not valid YAML: ${(error as Error).message}`);
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw new ConfigError(`${what} ${path} is invalid:\n${formatIssues(parsed.error.issues)}`);
  return parsed.data;
}

function readPack(dir: string, name: string): PromptPack {
  if (!existsSync(dir)) throw new ConfigError(`prompt pack ${name}: directory ${dir} does not exist`);
  const manifest = readYaml(join(dir, "pack.yaml"), PackManifestSchema, `prompt pack ${name}: manifest`);
  const languages: PromptPack["languages"] = {};
  for (const language of manifest.languages) languages[language] = readLanguage(dir, name, manifest, language);
  return { name, dir, manifest, languages };
}

function readLanguage(dir: string, name: string, manifest: PackManifest, language: Language): PackLanguage {
  const languageDir = join(dir, language);
  const stringsPath = join(languageDir, "strings.yaml");
  const strings = readYaml(stringsPath, PackStringsSchema, `prompt pack ${name}: strings file`);
  const traitsPath = join(languageDir, "traits.yaml");
  const traits = existsSync(traitsPath) ? readYaml(traitsPath, TraitsSchema, `prompt pack ${name}: traits file`) : undefined;
  const appraisalFields: readonly string[] = manifest.format === "json" ? JSON_APPRAISAL_FIELDS : manifest.analyst.fields;
  const stage = (stageName: StageName, files: { template: string; system?: string; user?: string }): StageTemplates => {
    const known = new Set<string>([...Object.keys(PLACEHOLDERS), ...(stageName === "actor" ? appraisalFields.map((field) => `appraisal.${field}`) : [])]);
    const read = (file: string) => {
      const path = join(languageDir, file);
      // The file's own final newline is not part of the template (an extracted upstream string keeps its exact ends).
      const text = readText(path, `prompt pack ${name}: template`).replace(/\r?\n$/u, "");
      if (text.trim() === "") throw new ConfigError(`prompt pack ${name}: template ${path} is empty`);
      for (const placeholder of placeholdersOf(text)) {
        if (!known.has(placeholder)) {
          throw new ConfigError(`prompt pack ${name}: ${path} uses an unknown placeholder {{${placeholder}}} (known in the ${stageName} stage: ${[...known].map((key) => `{{${key}}}`).join(", ")})`);
        }
        for (const needed of NEEDS_STRINGS[placeholder as PlaceholderName] ?? []) {
          if (strings[needed] === undefined) throw new ConfigError(`prompt pack ${name}: ${path} uses {{${placeholder}}}, which needs "${needed}" in ${stringsPath}`);
        }
        if (placeholder === "trait" && traits === undefined) throw new ConfigError(`prompt pack ${name}: ${path} uses {{trait}}, which needs ${traitsPath}`);
      }
      return text;
    };
    const template = read(files.template);
    const system = files.system === undefined ? undefined : read(files.system);
    const user = files.user === undefined ? undefined : read(files.user);
    return {
      template,
      ...(system !== undefined ? { system } : {}),
      ...(user !== undefined ? { user } : {}),
      placeholders: [...new Set([template, system, user].flatMap((text) => (text === undefined ? [] : placeholdersOf(text))))],
    };
  };
  if (manifest.format === "tagged" && strings.correction === undefined) throw new ConfigError(`prompt pack ${name}: ${stringsPath} needs "correction" (the message that sends an unusable answer back)`);
  if (strings.correction !== undefined) {
    const unknown = placeholdersOf(strings.correction).filter((placeholder) => placeholder !== "error");
    if (unknown.length > 0) throw new ConfigError(`prompt pack ${name}: ${stringsPath} "correction" uses an unknown placeholder {{${unknown[0]}}} (only {{error}} is known there)`);
  }
  if (manifest.dialogueStyle === "sage" && strings.speakers === undefined) throw new ConfigError(`prompt pack ${name}: dialogueStyle sage needs "speakers" in ${stringsPath}`);
  const analyst = stage("analyst", manifest.analyst);
  const actor = stage("actor", manifest.actor);
  const fused = manifest.format === "json" && manifest.fused !== undefined ? stage("fused", manifest.fused) : undefined;
  return {
    language,
    analyst,
    actor,
    ...(fused !== undefined ? { fused } : {}),
    strings,
    ...(traits !== undefined ? { traits } : {}),
  };
}

/** The pack's templates in a language, or an error naming the pack and the languages it has. */
export function packLanguage(pack: PromptPack, language: Language): PackLanguage {
  const found = pack.languages[language];
  if (found === undefined) throw new ConfigError(`prompt pack ${pack.name} has no ${language} templates (it has: ${pack.manifest.languages.join(", ")})`);
  return found;
}

/**
 * The pack a simulator uses when its config names none: the one written for the scenario's
 * preset (`sage` profiles get the `sage` pack, `rlver` the `rlver` pack), else the project's own
 * `aeb-json` prompts, which carry the adversarial types' rubrics.
 */
export function defaultPackFor(presetName: string): BuiltinPackName {
  return presetName === "sage" || presetName === "rlver" ? presetName : "aeb-json";
}
