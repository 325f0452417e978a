/**
 * The viewer's HTTP API: the query strings it accepts (validated here, without coercing anything
 * it does not name) and the bodies it answers with. The front end (viewer/) imports these types,
 * never the schemas' code.
 */
import { z } from "zod";
import type { DialogueRecord } from "../core/dialogue.js";
import type { ErrorBody as HttpErrorBody, HttpErrorCode } from "../http/http-error.js";

/** A query parameter given once, several times (`?flag=a&flag=b`), or not at all, as a list. */
const textList = z
  .union([z.string(), z.array(z.string())])
  .optional()
  .transform((value) => (value === undefined ? [] : Array.isArray(value) ? value : [value]).filter((item) => item !== ""));

const integerText = (what: string, min: number, max: number) =>
  z
    .string()
    .regex(/^\d+$/, `${what} must be a whole number`)
    .transform(Number)
    .pipe(z.number().int().min(min, `${what} must be at least ${min}`).max(max, `${what} must be at most ${max}`));

const numberText = (what: string, min: number, max: number) =>
  z
    .string()
    .regex(/^\d+(\.\d+)?$/, `${what} must be a number`)
    .transform(Number)
    .pipe(z.number().min(min, `${what} must be at least ${min}`).max(max, `${what} must be at most ${max}`));

/** How the dialogue table can be sorted. */
export const SortKeySchema = z.enum(["default", "id", "fs", "finalEmotion", "lowestEmotion", "turns", "judgeGap", "predictionGap"]);
export type SortKey = z.infer<typeof SortKeySchema>;

/** Which emotion the emotion range applies to. */
export const EmotionOfSchema = z.enum(["final", "lowest"]);

/** Which disagreement the threshold applies to. */
export const DisagreementSchema = z.enum(["judges", "prediction"]);

/** Most rows one page may ask for. */
export const MAX_PAGE_SIZE = 200;
/** Longest search text. */
export const MAX_QUERY_CHARS = 200;

/** `GET /api/dialogues`: filters (each list matches any of its values), search, sort and page. */
export const DialogueQuerySchema = z.strictObject({
  /** Runs by their position in the list given to `aeb view` (0 first); none: every run. */
  run: textList.pipe(z.array(integerText("run", 0, 10_000))),
  condition: textList,
  type: textList,
  scenario: textList,
  endReason: textList,
  /** `done` or `error`. */
  status: textList.pipe(z.array(z.enum(["done", "error"]))),
  /** Dialogues that raised any of these flags on some turn. */
  flag: textList,
  /** The emotion range (inclusive, 0-100), on the final or on the lowest emotion. */
  emotionMin: integerText("emotionMin", 0, 100).optional(),
  emotionMax: integerText("emotionMax", 0, 100).optional(),
  emotionOf: EmotionOfSchema.default("final"),
  /**
   * Judge disagreement at least `disagreementMin`: `judges`, the largest |ECS of judge A - ECS of
   * judge B| (0-1); `prediction`, the largest |predicted - true emotion| of any judged turn (0-100).
   */
  disagreement: DisagreementSchema.optional(),
  disagreementMin: numberText("disagreementMin", 0, 100).optional(),
  /** Text to find in the replies (opening, agent and user), case-insensitive. */
  q: z.string().max(MAX_QUERY_CHARS, `q must be at most ${MAX_QUERY_CHARS} characters`).optional(),
  sort: SortKeySchema.default("default"),
  order: z.enum(["asc", "desc"]).default("asc"),
  offset: integerText("offset", 0, 100_000_000).default(0),
  limit: integerText("limit", 1, MAX_PAGE_SIZE).default(50),
});
export type DialogueQuery = z.infer<typeof DialogueQuerySchema>;
export type DialogueQueryInput = z.input<typeof DialogueQuerySchema>;

/** `GET /api/dialogue?run=N&id=ID` and the side-by-side view. */
export const DialogueRefSchema = z.strictObject({
  run: integerText("run", 0, 10_000),
  id: z.string().min(1, "id is required"),
});
export type DialogueRef = z.infer<typeof DialogueRefSchema>;

/** `GET /api/side-by-side?scenario=ID&repeat=N`: the same scenario and repeat in every condition of the chosen runs. */
export const SideBySideQuerySchema = z.strictObject({
  scenario: z.string().min(1, "scenario is required"),
  repeat: integerText("repeat", 0, 1_000_000),
  run: textList.pipe(z.array(integerText("run", 0, 10_000))),
  condition: textList,
});
export type SideBySideQuery = z.infer<typeof SideBySideQuerySchema>;

/** One line of the dialogue table. */
export const DialogueSummarySchema = z.strictObject({
  run: z.number().int(),
  id: z.string(),
  condition: z.string(),
  scenarioId: z.string(),
  type: z.string(),
  repeat: z.number().int(),
  status: z.enum(["done", "error"]),
  endReason: z.string(),
  preset: z.string(),
  fs: z.number(),
  finalEmotion: z.number(),
  lowestEmotion: z.number(),
  turns: z.number().int(),
  /** Distinct flags raised on any turn. */
  flags: z.array(z.string()),
  /** The simulated user's HID (1 / 0.5 / 0 averaged from the manipulation turn on), or null; under the offline user the reward's move test (the run's `hidLabel`). */
  hid: z.number().nullable(),
  /** The run's headline ECS judge's score (the first ECS judge that is a model), or null; never a heuristic's. */
  ecs: z.number().nullable(),
  /** The run's lexicon baseline's score (its first heuristic ECS judge), or null. */
  lexiconBaseline: z.number().nullable(),
  judgeGap: z.number().nullable(),
  predictionGap: z.number().nullable(),
});
export type DialogueSummary = z.infer<typeof DialogueSummarySchema>;

export const DialoguePageSchema = z.strictObject({
  /** Dialogues that pass the filters (all pages). */
  total: z.number().int(),
  offset: z.number().int(),
  limit: z.number().int(),
  rows: z.array(DialogueSummarySchema),
});
export type DialoguePage = z.infer<typeof DialoguePageSchema>;

/** The distinct values of the filterable fields. */
export const FacetsSchema = z.strictObject({
  conditions: z.array(z.string()),
  types: z.array(z.string()),
  scenarios: z.array(z.string()),
  endReasons: z.array(z.string()),
  flags: z.array(z.string()),
  presets: z.array(z.string()),
  ecsJudges: z.array(z.string()),
});
export type Facets = z.infer<typeof FacetsSchema>;

/** `GET /api/runs`: the directories the viewer was opened on, and the facets of all of them. */
export const RunListSchema = z.strictObject({
  runs: z.array(
    z.strictObject({
      run: z.number().int(),
      label: z.string(),
      dir: z.string(),
      dialogues: z.number().int(),
      facets: FacetsSchema,
      readingNotes: z.array(z.string()),
      /** What the simulated user's HID is called in this run: "HID (offline: move test)" under the offline user, else "HID". */
      hidLabel: z.string(),
      /** The headline ECS judge (the first that is a model), or null when only heuristics or no judge ran. */
      headlineEcsJudge: z.string().nullable(),
      /** The heuristic ECS judges by name, each with what it is called ("ECS lexicon baseline"): never shown as ECS. */
      heuristicEcsJudges: z.record(z.string(), z.string()),
    }),
  ),
  facets: FacetsSchema,
});
export type RunList = z.infer<typeof RunListSchema>;

const TableSchema = z.strictObject({ header: z.array(z.string()), rows: z.array(z.array(z.string())) });
export type ReportTable = z.infer<typeof TableSchema>;

/** `GET /api/runs/:run/report`: the report's headline part, and its charts as SVG images. */
export const ReportPageSchema = z.strictObject({
  run: z.number().int(),
  label: z.string(),
  title: z.string(),
  facts: z.array(z.tuple([z.string(), z.string()])),
  headline: TableSchema,
  headlineNotes: z.array(z.string()),
  byType: TableSchema,
  notes: z.array(z.string()),
  /** Where the summary came from: summary.json as the run wrote it, or recomputed from the dialogues. */
  summarySource: z.enum(["summary.json", "recomputed"]),
  charts: z.array(z.strictObject({ id: z.string(), title: z.string(), caption: z.string(), url: z.string() })),
});
export type ReportPage = z.infer<typeof ReportPageSchema>;

/** A dialogue of another condition or run on the same scenario and repeat. */
export const SiblingSchema = z.strictObject({ run: z.number().int(), id: z.string(), condition: z.string() });

/** `GET /api/dialogue`: one whole record (judgements merged), and where its scenario ran elsewhere. */
export interface DialogueResponse {
  run: number;
  label: string;
  record: DialogueRecord;
  /** The run's headline ECS judge (the first that is a model; whose score the table shows), or null. */
  headlineJudge: string | null;
  siblings: Array<z.infer<typeof SiblingSchema>>;
}

/** `GET /api/side-by-side`: the dialogues of one scenario and repeat, by run and condition. */
export interface SideBySideResponse {
  scenario: string;
  repeat: number;
  dialogues: Array<{ run: number; label: string; record: DialogueRecord }>;
  /** Dialogues left out beyond the most one view shows. */
  omitted: number;
}

/**
 * The codes of the viewer's errors besides the shared ones (src/http/http-error.ts): a run,
 * dialogue, chart or file it does not have, and a run directory that changed while it was open.
 */
export type ViewerErrorCode = HttpErrorCode | "not_found" | "run_changed";

/** Every error body, the same as the environment server's: `{ error, code, retryable, issues? }`. */
export { ErrorBodySchema } from "../http/http-error.js";
export type ErrorBody = HttpErrorBody<ViewerErrorCode>;
