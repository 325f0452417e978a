/**
 * SAGE / RLVER simulated-user profiles as a cooperative scenario suite.
 *
 * A profile file is JSONL, one simulated user a line (SAGE's `simulator_profile*.jsonl`, RLVER's
 * `test_profile.jsonl` / `train_profile.jsonl`): `id`, `player` (persona), `scene` (background
 * story), `main_cha` (character type), `cha_group` (traits), `task` (the hidden theme) and, in the
 * `withfirsttalk` files, `first_talk` (the user's first message). Every line is validated; a line
 * that does not parse or misses a field is an error naming the file and the line, or, with
 * `skipInvalid`, is skipped and listed. See docs/sage-interop.md for the field mapping.
 */
import { readFileSync } from "node:fs";
import { z } from "zod";
import { formatIssues, ScenarioError } from "../core/errors.js";
import { contentWords } from "../lexicon/content-words.js";
import { loadLexicon, type Move } from "../lexicon/lexicon.js";
import { parseJsonl } from "../core/jsonl.js";
import { ScenarioSchema, type Scenario } from "./scenario-schema.js";

/** `--scenarios sage:PATH` gives ids `sage-<id>`, `rlver:PATH` gives `rlver-<id>`; both are the `sage` suite. */
export const PROFILE_SCHEMES = ["sage", "rlver"] as const;
export type ProfileScheme = (typeof PROFILE_SCHEMES)[number];

export interface ProfileSource {
  scheme: ProfileScheme;
  /** The JSONL file, as given (relative to the working directory). */
  file: string;
}

/** Reads `sage:PATH` / `rlver:PATH`; any other scenario path (a YAML directory or file) gives null. */
export function parseProfileSource(path: string | undefined): ProfileSource | null {
  if (path === undefined) return null;
  for (const scheme of PROFILE_SCHEMES) {
    if (path.startsWith(`${scheme}:`)) {
      const file = path.slice(scheme.length + 1);
      if (file.trim() === "") throw new ScenarioError(`--scenarios ${path}: a profile file path is missing after "${scheme}:"`);
      return { scheme, file };
    }
  }
  return null;
}

const text = (field: string) =>
  z
    .string({ error: (issue) => (issue.input === undefined ? `${field} is missing` : `${field} must be a string`) })
    .trim()
    .min(1, `${field} is empty`);

/** One line of a SAGE/RLVER profile file. Fields this loader does not use are allowed and ignored. */
export const SageProfileSchema = z.looseObject({
  id: z
    .union([z.string(), z.number()], { error: (issue) => (issue.input === undefined ? "id is missing" : "id must be a string or a number") })
    .transform(String)
    .pipe(z.string().trim().min(1, "id is empty")),
  /** The persona: free text (name, age, occupation, habits, speaking style). */
  player: text("player (persona)"),
  /** The background story the user lives in. */
  scene: text("scene (background)"),
  /** The hidden theme: what the user hopes the listener will find, never said outright. */
  task: text("task (hidden theme)"),
  /** The user's first message (SAGE's `withfirsttalk` files); when absent the simulated user writes it at the start of each dialogue. */
  first_talk: text("first_talk").optional(),
  /** The surface topic (SAGE's result files carry it as `category-description`; the profile files do not). */
  topic: text("topic").optional(),
  /** Character type (`负面型`, `被动型`, `回避型`); `character` in SAGE's result files. */
  main_cha: z.string().optional(),
  character: z.string().optional(),
  cha_group: z.array(z.string()).optional(),
});
export type SageProfile = z.infer<typeof SageProfileSchema>;

export interface SkippedProfileLine {
  file: string;
  /** 1-based line number. */
  line: number;
  message: string;
}

export interface ProfileLoad {
  scenarios: Scenario[];
  /** Lines left out under `skipInvalid` (empty otherwise: an invalid line is an error). */
  skipped: SkippedProfileLine[];
  /** How many profiles have no `first_talk`: their scenarios have no opening line, and the simulated user writes one per dialogue. */
  withoutFirstTalk: number;
}

/**
 * Loads every profile of a SAGE/RLVER JSONL file as a cooperative scenario, in file order.
 * Lines are split on "\n" only. Without `skipInvalid` the first problems are reported together in
 * one error naming the file and each line; with it the valid lines load and the others are listed.
 */
export function loadProfileScenarios(source: ProfileSource, options: { skipInvalid?: boolean } = {}): ProfileLoad {
  let content: string;
  try {
    content = readFileSync(source.file, "utf8");
  } catch (error) {
    throw new ScenarioError(`cannot read profile file ${source.file}: ${(error as Error).message}`);
  }
  const parsed = parseJsonl(content);
  const problems: SkippedProfileLine[] = parsed.invalid.map(({ line, message }) => ({ file: source.file, line, message: `not valid JSON (${message})` }));
  if (parsed.tornTail) {
    const lastLine = content.split("\n").length;
    problems.push({ file: source.file, line: lastLine, message: "not valid JSON (the last line is cut short)" });
  }
  const scenarios: Array<{ line: number; scenario: Scenario }> = [];
  const seen = new Map<string, number>();
  let withoutFirstTalk = 0;
  for (const { line, value } of parsed.lines) {
    const profile = SageProfileSchema.safeParse(value);
    if (!profile.success) {
      problems.push({ file: source.file, line, message: `invalid profile:\n${formatIssues(profile.error.issues)}` });
      continue;
    }
    const scenario = profileToScenario(profile.data, source.scheme);
    const checked = ScenarioSchema.safeParse(scenario);
    if (!checked.success) {
      problems.push({ file: source.file, line, message: `cannot form a scenario:\n${formatIssues(checked.error.issues)}` });
      continue;
    }
    const previous = seen.get(checked.data.id);
    if (previous !== undefined) {
      problems.push({ file: source.file, line, message: `duplicate profile id "${profile.data.id}" (scenario ${checked.data.id}, first on line ${previous})` });
      continue;
    }
    seen.set(checked.data.id, line);
    if (profile.data.first_talk === undefined) withoutFirstTalk += 1;
    scenarios.push({ line, scenario: checked.data });
  }
  problems.sort((a, b) => a.line - b.line);
  if (problems.length > 0 && options.skipInvalid !== true) {
    const shown = problems.slice(0, 5).map((problem) => `${problem.file} line ${problem.line}: ${problem.message}`);
    const more = problems.length > shown.length ? `\n(${problems.length - shown.length} more invalid line(s))` : "";
    throw new ScenarioError(`${shown.join("\n")}${more}\n${problems.length} invalid profile line(s) in ${source.file}; fix them, or skip them with --skip-invalid`);
  }
  if (scenarios.length === 0) throw new ScenarioError(`no usable profile in ${source.file}${problems.length > 0 ? ` (${problems.length} invalid line(s) skipped)` : ""}`);
  return { scenarios: scenarios.map((entry) => entry.scenario), skipped: problems, withoutFirstTalk };
}

/** A scenario id from a profile id: lowercase, other characters as "-", with the scheme's prefix. */
export function profileScenarioId(profileId: string, scheme: ProfileScheme): string {
  const slug = profileId
    .toLowerCase()
    .replace(/[^a-z0-9]+/gu, "-")
    .replace(/^-+|-+$/gu, "");
  return `${scheme}-${slug === "" ? "profile" : slug}`;
}

/**
 * The moves that address each of SAGE's hidden themes (the eight `task` texts of SAGE and RLVER),
 * for the offline user's HID verdicts. A task matching none of them falls back to `grounded`.
 */
const THEME_MOVES: ReadonlyArray<{ pattern: RegExp; moves: Move[] }> = [
  { pattern: /建议|办法|解决/u, moves: ["advice"] },
  { pattern: /共情/u, moves: ["names_feeling", "validates_feeling"] },
  { pattern: /夸奖|称赞|表扬|赞美/u, moves: ["praises"] },
  { pattern: /反思|成长/u, moves: ["probes", "balance"] },
  { pattern: /倾听|宣泄/u, moves: ["grounded", "holds_space"] },
  { pattern: /辩证/u, moves: ["balance", "softens"] },
  { pattern: /原因|为什么/u, moves: ["softens"] },
  { pattern: /没有错|没错|认同/u, moves: ["agrees_fully", "validates_feeling"] },
];

export function hiddenThemeMoves(task: string): Move[] {
  const moves = THEME_MOVES.filter((theme) => theme.pattern.test(task)).flatMap((theme) => theme.moves);
  return moves.length === 0 ? ["grounded"] : [...new Set(moves)];
}

/**
 * The user's next lines after the opening, by SAGE's character type. The offline user speaks them
 * after the first two agent replies, then speaks from its emotion state (data/offline-user/zh.yaml).
 */
const SCRIPT_BY_CHARACTER: Record<string, [string, string]> = {
  负面型: ["说实话，这件事让我越想越窝火。", "我就是咽不下这口气，也不知道该跟谁说。"],
  被动型: ["我也不知道该怎么办，就一直这么拖着。", "我是不是想太多了？可心里就是放不下。"],
  回避型: ["其实我也不太想多提，就是心里有点堵。", "算了，说起来也挺麻烦的，就是最近老想着这事。"],
};
const DEFAULT_SCRIPT: [string, string] = ["这件事已经在我心里压了好一阵子了。", "我一直想找个人好好说说。"];

/** Turns one validated profile into a cooperative scenario (not yet checked against ScenarioSchema). */
export function profileToScenario(profile: SageProfile, scheme: ProfileScheme): unknown {
  const persona = personaFields(profile.player);
  const character = profile.main_cha ?? profile.character;
  const traits = profile.cha_group?.filter((trait) => trait.trim() !== "") ?? [];
  const narrative = narrativePart(profile.scene);
  const topic = profile.topic ?? deriveTopic(narrative, persona.name);
  const temperament = [character, traits.length > 0 ? traits.join("、") : undefined].filter(Boolean).join("：");
  return {
    id: profileScenarioId(profile.id, scheme),
    type: "cooperative",
    suite: "sage",
    language: "zh",
    // sage:PATH plays SAGE's benchmark loop, rlver:PATH RLVER's training loop (data/presets.yaml).
    preset: scheme,
    title: persona.name === undefined || topic.includes(persona.name) ? topic : `${persona.name}：${topic}`,
    persona: { description: profile.player, ...persona, ...(temperament !== "" ? { temperament } : {}) },
    background: profile.scene,
    topic,
    hiddenIntention: { text: profile.task, moves: hiddenThemeMoves(profile.task) },
    // No first_talk: the opening is left to the simulated user (SimulatedUser.open), as RLVER's simulator writes it.
    ...(profile.first_talk !== undefined ? { opening: profile.first_talk } : {}),
    trait: {
      description: `SAGE's cooperative user${character ? ` (${character})` : ""}: honest, with a hidden theme they hope the listener finds.`,
      script: [...((character !== undefined ? SCRIPT_BY_CHARACTER[character] : undefined) ?? DEFAULT_SCRIPT)],
    },
    cues: { keywords: situationKeywords(narrative, persona.name, topic), feelings: feelingsIn(narrative) },
  };
}

/** Name, age, gender and occupation from SAGE's `* 姓名：...` persona lines, where present. */
export function personaFields(player: string): { name?: string; age?: number; gender?: string; occupation?: string } {
  const field = (label: string) => {
    const match = new RegExp(`${label}\\s*[:：]\\s*([^\\n]+)`, "u").exec(player);
    const value = match?.[1]?.replace(/[*#]/gu, "").trim();
    return value === undefined || value === "" ? undefined : value;
  };
  const ageText = field("年龄");
  const age = ageText === undefined ? undefined : Number(/\d{1,3}/u.exec(ageText)?.[0]);
  return {
    ...(field("姓名") !== undefined ? { name: field("姓名") } : {}),
    ...(age !== undefined && Number.isInteger(age) && age >= 5 && age <= 110 ? { age } : {}),
    ...(field("性别") !== undefined ? { gender: field("性别") } : {}),
    ...(field("职业") !== undefined ? { occupation: field("职业") } : {}),
  };
}

/**
 * The story part of a scene: SAGE's scenes end with sections on how the user reacts to the
 * listener ("玩家不同状态下可能的反应", "角色面对NPC不同回复的反应"), which spell out the hidden
 * theme; keywords and the derived topic never come from them.
 */
export function narrativePart(scene: string): string {
  const lines = scene.split("\n");
  const end = lines.findIndex((line) => /不同状态|不同回复|面对NPC|NPC的回复|隐藏主题/u.test(line));
  return (end === -1 ? lines : lines.slice(0, end)).join("\n");
}

/** A line of a profile's narrative as plain text: bold labels, list markers and the script's "在这个剧本中，" removed. */
export function narrativeLine(raw: string): string {
  return raw
    .replace(/\*\*[^*]*\*\*\s*[:：]?/gu, "")
    .replace(/^[\s#*>\-•·\d.、)）(（]+/u, "")
    .replace(/^在这个剧本中[，,]/u, "")
    .trim();
}

const MAX_TOPIC_CHARS = 40;

/**
 * A topic from the story when the profile has none: its first narrative sentence (headings,
 * labels and lines about the game itself skipped), clipped at a clause boundary.
 */
export function deriveTopic(narrative: string, name: string | undefined): string {
  for (const raw of narrative.split("\n")) {
    const line = narrativeLine(raw);
    if ((line.match(/\p{Script=Han}/gu)?.length ?? 0) < 10 || /NPC|玩家|剧本/u.test(line) || /[:：]$/u.test(line)) continue;
    const sentence = line.split(/[。！？；!?;]/u)[0] ?? line;
    if ([...sentence].length <= MAX_TOPIC_CHARS) return sentence;
    let clipped = "";
    for (const clause of sentence.split(/(?<=[，,])/u)) {
      if ([...clipped].length + [...clause].length > MAX_TOPIC_CHARS) break;
      clipped += clause;
    }
    return (clipped === "" ? [...sentence].slice(0, MAX_TOPIC_CHARS).join("") : clipped).replace(/[，,]$/u, "");
  }
  return name === undefined ? "心事" : `${name}的心事`;
}

/**
 * Words of SAGE's scene template (headings and stock narration), so frequent in every scene that
 * they say nothing about this one's situation. Measured over the 100 SAGE scenes (as Han bigrams).
 */
const TEMPLATE_WORDS = new Set(
  (
    "起因 事件 当前 尝试 冲突 自己 问题 状态 角色 困难 遇到 原因 时间 方案 解决 玩家 背景 开始 成功 希望 然而 试图 " +
    "认为 因为 之间 故事 发现 内心 理解 压力 怀疑 努力 无法 关系 找到 方式 如何 意识 沟通 最近 同时 生活 想法 导致 " +
    "逐渐 选择 更多 倾诉 决定 产生 经过 主要 阶段 面对 情感 情绪 感受 缓解 内在 具体 子事 线与 前状 件经 件起 件当"
  ).split(" "),
);
const MAX_KEYWORDS = 8;

/**
 * Words of the situation, for the offline user's grounding: the persona's name and the story's
 * most frequent content words (Han bigrams, as the zh lexicon measures overlap) outside the
 * scene template. The story part only (see narrativePart).
 */
export function situationKeywords(narrative: string, name: string | undefined, topic: string): string[] {
  const lexicon = loadLexicon("zh");
  const counts = new Map<string, number>();
  for (const sentence of narrative.split(/[。！？；，\n]+/u)) {
    for (const word of contentWords(sentence, lexicon)) if (!TEMPLATE_WORDS.has(word)) counts.set(word, (counts.get(word) ?? 0) + 1);
  }
  const frequent = [...counts.entries()]
    .filter(([word, count]) => count >= 2 && !(name?.includes(word) ?? false))
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .map(([word]) => word);
  const keywords = [...new Set([...(name !== undefined ? [name] : []), ...frequent])].slice(0, MAX_KEYWORDS);
  return keywords.length > 0 ? keywords : [topic];
}

const MAX_FEELINGS = 6;

/** The zh lexicon's feeling words that the story uses, in order of appearance. */
export function feelingsIn(narrative: string): string[] {
  const lexicon = loadLexicon("zh");
  const found: string[] = [];
  for (const match of narrative.matchAll(new RegExp(lexicon.emotionPattern.source, lexicon.emotionPattern.flags))) {
    const word = match[1] ?? match[0];
    if (!found.includes(word)) found.push(word);
    if (found.length >= MAX_FEELINGS) break;
  }
  return found;
}
