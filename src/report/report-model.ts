/**
 * What both reports show, computed once from the saved record (summary.json + dialogues.jsonl):
 * the tables as text cells, the notes and the worst dialogues. `markdown-report.ts` and
 * `html-report.ts` only lay this out.
 *
 * Everything but the worst dialogues' transcripts comes from compact per-dialogue rows
 * (metrics/dialogue-row.ts: numbers, no text), so a report of a long run does not hold its
 * dialogues in memory; the few records shown with text are read separately (see
 * {@link transcriptIds}).
 */
import type { DialogueRecord } from "../core/dialogue.js";
import type { ConditionSummary, RunSummary } from "../analysis/summary-schema.js";
import { dialogueRow, sortedById, type DialogueRow } from "../metrics/dialogue-row.js";
import type { RunSetup } from "../record/load-run.js";
import type { Invocation } from "../record/manifest.js";
import { typeOrder } from "./charts/chart-data.js";
import { COOPERATIVE_LABEL, isCooperative } from "./cooperative.js";
import { FIDELITY_DOC, presetEntries, promptPackEntry, unreadableTurnsEntry } from "./procedure.js";
import { heuristicEcsTitle, noModelJudgeNote } from "../analysis/ecs-judges.js";
import { ecsJudgesOfRows, readRowEcs, reportEcsKinds } from "./ecs.js";
import { cellValue, fixed, formatP, hasReplyTokens, headlineHeader, NO_MODEL_JUDGE, percent, replyLengthCells, withCI } from "./format.js";
import { comparisonTables, SIGNIFICANCE_LEVEL, type ComparisonTableModel } from "./comparison-tables.js";
import { judgeSections, summaryEcsJudges, summarySections } from "./summary-sections.js";
import { isOfflineSimulator, OFFLINE_HID_NOTE, simulatorHidLabel } from "./hid-label.js";

/** Everything a report is made from: the saved record, as rows, with the few transcripts it shows. */
export interface ReportInput {
  summary: RunSummary;
  /** Every line of dialogues.jsonl as a compact row (errored dialogues included: the report excludes and counts them). */
  rows: readonly DialogueRow[];
  /** The full records of (at least) the dialogues of {@link transcriptIds}, by id. */
  transcripts: ReadonlyMap<string, DialogueRecord>;
  setup?: RunSetup;
  /** Problems met while reading the run directory (a torn last line...), shown with the notes. */
  readingNotes?: readonly string[];
  title?: string;
}

export interface Table {
  header: string[];
  rows: string[][];
}

export interface ReportModel {
  title: string;
  facts: Array<[string, string]>;
  /**
   * How the dialogues were run (procedure.ts): each preset's loop, the LLM simulated user's prompt
   * pack, what each ECS judge did with unreadable turns, and where the departures from the sources are listed.
   */
  procedure: Array<[string, string]>;
  headline: Table;
  /** Sentences under the headline table (what n/a means...). */
  headlineNotes: string[];
  /** What the simulated user's HID is called here: "HID (offline: move test)" under the offline user (hid-label.ts), else "HID". */
  hidLabel: string;
  byType: Table;
  /**
   * One table per ECS judge (`summary.conditions[].ecsByJudge`), in the summary's order, with the
   * title the reports give it: the headline's says so, a heuristic's says what it is.
   */
  ecsByJudge: Array<{ judge: string; title: string; headline: boolean; heuristic: boolean; table: Table }>;
  /** Said in the ECS section when there is no table (or some entries could not be read). */
  ecsByJudgeNote: string | null;
  /** Whether the ECS tables split ECS before/after the manipulation turn (not when every dialogue is a cooperative user, which has none). */
  ecsByPhase: boolean;
  /** What before/after mean where cooperative users (no manipulation turn) are among the dialogues; null when none is. */
  ecsPhaseNote: string | null;
  /** The simulator's HID beside each independent HID judge's; null when no independent HID judge ran. */
  hidJudges: Table | null;
  /** The dialogues in error by cause (kind and stage), with a count and one example each; null when none failed. */
  errorCauses: Table | null;
  /** Token usage per model role; null when summary.json has none (offline runs). */
  usage: Table | null;
  usageNote: string | null;
  /**
   * One compact table per metric and Holm family (comparison-tables.ts): the reference family's
   * first, one row per pair with both tests and the matched difference's CI.
   */
  comparisons: ComparisonTableModel[];
  /** The reference condition of the comparisons (summary.json's `reference`); null when none. */
  reference: string | null;
  /** What the metric names and r mean, under the comparison tables (null when there are none). */
  comparisonsLegend: string | null;
  /** Said instead of comparison tables when there are none. */
  comparisonsNote: string | null;
  lengthConfound: Table | null;
  lengthConfoundNote: string | null;
  notes: string[];
  worst: Array<{ condition: string; dialogues: DialogueRecord[] }>;
  ecsJudges: string[];
}

/**
 * The report input of dialogues held in memory as records (an import, a test, a small run): their
 * rows, and the records of the dialogues the report shows with text, as a streamed read of
 * dialogues.jsonl would give them (the first scored record of an id).
 */
export function reportInputOfRecords(summary: RunSummary, records: readonly DialogueRecord[], extra: Omit<ReportInput, "summary" | "rows" | "transcripts"> = {}): ReportInput {
  const rows = records.map(dialogueRow);
  const wanted = transcriptIds(summary, rows);
  const transcripts = new Map<string, DialogueRecord>();
  for (const record of records) if (wanted.has(record.id) && record.status === "done" && !transcripts.has(record.id)) transcripts.set(record.id, record);
  return { ...extra, summary, rows, transcripts };
}

/** How many of the lowest-FS dialogues per condition the reports print. */
export const WORST_PER_CONDITION = 3;

/**
 * A plug-in config as a few words: its kind and its id or model ("reference formulaic",
 * "llm qwen2.5-7b think"). Only these fields are shown; endpoints (URLs, key variable names) never are.
 */
export function describePlugin(value: unknown): string {
  if (value === null || typeof value !== "object") return cellValue(value);
  const fields = value as Record<string, unknown>;
  const endpoint = fields.endpoint !== null && typeof fields.endpoint === "object" ? (fields.endpoint as Record<string, unknown>) : {};
  const parts = [fields.kind, fields.id ?? fields.model ?? fields.name ?? endpoint.model].filter((part): part is string => typeof part === "string");
  if (fields.think === true) parts.push("think");
  if (fields.fused === true) parts.push("fused");
  return parts.length > 0 ? parts.join(" ") : "(unnamed plug-in)";
}

function collapseCell(condition: ConditionSummary): string {
  if (condition.n === 0) return "n/a";
  const ci = condition.collapseCi95;
  return ci === null ? percent(condition.collapseRate) : `${percent(condition.collapseRate)} [${percent(ci[0])}, ${percent(ci[1])}]`;
}

function fsCell(condition: ConditionSummary): string {
  if (condition.n === 0) return "n/a";
  if (condition.fs.ci95 === null) return `${fixed(condition.fs.mean)} (n=${condition.n}: no CI)`;
  return withCI(condition.fs);
}

/** The lowest-FS scored dialogues of each condition (ties broken by id), worst first. */
export function worstRows(rows: readonly DialogueRow[], conditions: readonly string[], count = WORST_PER_CONDITION): Array<{ condition: string; rows: DialogueRow[] }> {
  return conditions
    .map((condition) => ({
      condition,
      rows: rows
        .filter((row) => row.condition === condition && row.status === "done")
        .sort((a, b) => a.metrics.fs - b.metrics.fs || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
        .slice(0, count),
    }))
    .filter((group) => group.rows.length > 0);
}

/** Conditions in the summary's order, then those only the dialogues name (which the report notes). */
function conditionsWithOrphans(summary: RunSummary, rows: readonly DialogueRow[]): { names: string[]; orphans: string[] } {
  const names = summary.conditions.map((condition) => condition.name);
  const orphans = [...new Set(rows.map((row) => row.condition))].filter((name) => !names.includes(name));
  return { names, orphans };
}

/**
 * The ids of the dialogues the reports show with text (the worst of each condition): the only
 * full records a report needs besides the rows.
 */
export function transcriptIds(summary: RunSummary, rows: readonly DialogueRow[]): Set<string> {
  const { names, orphans } = conditionsWithOrphans(summary, rows);
  return new Set(worstRows(sortedById(rows), [...names, ...orphans]).flatMap((group) => group.rows.map((row) => row.id)));
}

/** Who made the record, with what, when: run.json's invocations as report facts (none for a record without them). */
export function provenanceFacts(invocations: readonly Invocation[]): Array<[string, string]> {
  const last = invocations.at(-1);
  if (last === undefined) return [];
  const { provenance } = last;
  const commit = provenance.commit === null ? "not run from a git checkout" : `commit ${provenance.commit.slice(0, 12)}${provenance.commitDirty === true ? " with uncommitted changes" : ""}`;
  const facts: Array<[string, string]> = [["made by", `AEB ${provenance.aebVersion} (${commit}), Node ${provenance.node}, ${provenance.platform}`]];
  const first = invocations[0] as Invocation;
  facts.push(["invocations", `${invocations.length}: first ${first.command} at ${first.startedAt}; last ${last.command} at ${last.startedAt}, ${last.outcome}${last.endedAt === null ? "" : ` at ${last.endedAt}`}`]);
  const versions = [...new Set(invocations.map((invocation) => invocation.provenance.aebVersion))];
  if (versions.length > 1) facts.push(["AEB versions", versions.join(", ")]);
  return facts;
}

/** "1 comparison entry", "3 comparison entries". */
function entries(count: number, kind: string): string {
  return `${count} ${kind} entr${count === 1 ? "y" : "ies"}`;
}

/** What the errors table is, under its heading in both reports. */
export const ERRORS_NOTE = "Dialogues that ended in error, by cause: the failure's kind and the stage of the turn it happened in, most frequent first, with the first such dialogue and its message. They are left out of every statistic; rerunning the same command retries them (a cause a rerun cannot help needs the fix its message names first).";

/** The errors-by-cause table of summary.json (`errorCauses`); null when no dialogue failed or the summary predates it. */
export function errorCausesTable(summary: RunSummary): Table | null {
  const causes = summary.errorCauses ?? [];
  if (causes.length === 0) return null;
  return {
    header: ["kind", "stage", "dialogues", "rerun can help", "example"],
    rows: causes.map((cause) => [cause.kind, cause.stage.replace("_", " "), String(cause.count), cause.retryable ? "yes" : "no", `${cause.example.dialogueId}: ${cause.example.message}`]),
  };
}

export function buildReportModel(unordered: ReportInput): ReportModel {
  // In id order, so that a report does not depend on the order in which dialogues finished.
  const input = { ...unordered, rows: sortedById(unordered.rows) };
  const { summary, rows } = input;
  const conditions = summary.conditions;
  const scored = rows.filter((row) => row.status === "done");
  /** ECS judges with a score on some dialogue (what the charts plot). */
  const scoringJudges = ecsJudgesOfRows(scored);
  /** The judges summary.json names (its first gives the headline ECS), then those only the dialogues carry. */
  const namedJudges = summaryEcsJudges(summary);
  const judges = [...namedJudges, ...scoringJudges.filter((judge) => !namedJudges.includes(judge))];
  const judgeTables = judgeSections(summary);
  /** Which judge gives the headline ECS (a model judge, or none) and which are heuristics. */
  const ecsKinds = reportEcsKinds(summary, rows, judges);
  const headlineJudge = ecsKinds.headline;
  const heuristicOf = (judge: string) => ecsKinds.heuristics.find((heuristic) => heuristic.name === judge);
  const headlineTable = judgeTables.ecs.find((table) => table.judge === headlineJudge);
  const hasHeadlineField = (summary.judges as { headlineEcs?: unknown } | undefined)?.headlineEcs !== undefined;
  /** The headline ECS of the condition at `index` of the summary: a model judge's mean, never a heuristic's. */
  const headlineEcsCell = (index: number, condition: ConditionSummary): string => {
    if (headlineJudge === null) return judges.length === 0 ? "n/a" : NO_MODEL_JUDGE;
    if (headlineTable !== undefined) {
      const cell = headlineTable.cells[index]?.cell ?? null;
      return cell === null ? "n/a" : withCI(cell.mean);
    }
    // A summary without per-judge tables: its `ecs` is the headline's only if it is the judge it names first.
    return hasHeadlineField || headlineJudge === namedJudges[0] ? withCI(condition.ecs) : "n/a";
  };
  const describeJudge = (judge: string) => {
    const heuristic = heuristicOf(judge);
    if (heuristic !== undefined) return `${judge} (${heuristic.label}: ${heuristic.description})`;
    return judge === headlineJudge ? `${judge} (model judge, the headline ECS)` : `${judge} (model judge)`;
  };
  const presets = [...new Set(rows.map((row) => row.preset))].sort();
  const offlineUser = isOfflineSimulator(input.setup?.simulator);
  const hidLabel = simulatorHidLabel(input.setup?.simulator);
  const simulatorHid = offlineUser ? "the simulated user's verdicts (offline: the reward's own move test, not independent)" : "the simulated user's verdicts";
  const types = typeOrder(conditions.flatMap((condition) => Object.keys(condition.byType)));

  const facts: Array<[string, string]> = [
    ["dialogues", `${summary.dialogues} (${summary.dialogues - summary.errors} scored, ${summary.errors} ended in error)`],
    ["conditions", conditions.map((condition) => condition.name).join(", ") || "none"],
    ["scenarios", String(summary.scenarios)],
    ["repeats per scenario", String(summary.repeats)],
    ["run seed", String(summary.seed)],
    ["trajectory types", types.join(", ") || "none"],
    ["presets", presets.join(", ") || "unknown"],
    ["ECS judges", judges.length === 0 ? "none (no ECS judge ran)" : judges.map(describeJudge).join(", ")],
    ["HID", judgeTables.hid.length === 0 ? simulatorHid : `${simulatorHid}; independent HID judges: ${judgeTables.hid.map((table) => table.judge).join(", ")}`],
  ];
  if (input.setup?.simulator !== undefined) facts.push(["simulated user", describePlugin(input.setup.simulator)]);
  facts.push(...provenanceFacts(input.setup?.invocations ?? []));
  for (const condition of input.setup?.conditions ?? []) if (condition.agent !== undefined) facts.push([`agent of ${condition.name}`, describePlugin(condition.agent)]);

  const conditionNamesForProcedure = [...new Set([...conditions.map((condition) => condition.name), ...rows.map((row) => row.condition)])];
  const procedure: Array<[string, string]> = presetEntries(rows, conditionNamesForProcedure);
  const promptPack = promptPackEntry(input.setup?.simulator, presets);
  if (promptPack !== null) procedure.push(["simulator prompt pack", promptPack]);
  for (const judge of judges) procedure.push([`ECS judge ${judge}: unreadable turns`, unreadableTurnsEntry(judge, rows)]);
  procedure.push(["fidelity to the sources", `how each preset and prompt pack departs from SAGE, RLVER and the AEB paper, and whether it changes the numbers: ${FIDELITY_DOC} in the AEB repository`]);

  const headlineNotes: string[] = [];
  const heuristicsNamed = ecsKinds.heuristics.map((heuristic) => `the ${heuristic.label} (${heuristic.name}) ${heuristic.description}`).join("; ");
  const modelJudges = judges.filter((judge) => heuristicOf(judge) === undefined);
  if (judges.length === 0) headlineNotes.push("ECS is n/a: no ECS judge ran.");
  else if (namedJudges.length === 0 && conditions.every((condition) => condition.ecs === null)) {
    headlineNotes.push(`ECS is n/a: summary.json has no ECS means, although the dialogues carry scores from ${scoringJudges.join(", ")} (the charts use them).`);
  } else if (headlineJudge === null) {
    headlineNotes.push(noModelJudgeNote(ecsKinds) ?? `ECS is n/a: ${NO_MODEL_JUDGE}.`);
  } else if (conditions.every((condition, index) => headlineEcsCell(index, condition) === "n/a")) {
    const others = scoringJudges.filter((judge) => judge !== headlineJudge);
    headlineNotes.push(`ECS is n/a: the headline's ECS judge, ${headlineJudge}, scored no dialogue${others.length > 0 ? ` (the ECS tables and charts show ${others.join(", ")})` : ""}.`);
  } else {
    headlineNotes.push(
      `ECS: the ${headlineJudge} judge's mean score (a model judge${modelJudges.length > 1 ? ", the first of several" : ""}); the ECS section below has ${judges.length > 1 ? "every judge's scores" : "its scores"} before and after the manipulation turn.` +
        (heuristicsNamed === "" ? "" : ` Not in this column: ${heuristicsNamed}; it is in the ECS section under that name.`),
    );
  }
  if (offlineUser) headlineNotes.push(OFFLINE_HID_NOTE);
  if (judgeTables.hid.length > 0) headlineNotes.push(`${hidLabel} is the simulated user's own verdicts; the independent HID judges (${judgeTables.hid.map((table) => table.judge).join(", ")}) are beside it in the HID table.`);
  if (conditions.some((condition) => condition.n > 0 && condition.fs.ci95 === null)) {
    headlineNotes.push("A condition with fewer than two scored dialogues has no confidence interval.");
  }

  const sections = summarySections(summary);
  // An older summary named its first ECS judge's comparisons `ecs` whatever the judge was; shown by name unless it is the headline.
  const legacyEcsJudge = !hasHeadlineField && namedJudges[0] !== undefined && namedJudges[0] !== headlineJudge ? namedJudges[0] : null;
  const metricName = (metric: string) => (metric === "ecs" && legacyEcsJudge !== null ? `ecs:${legacyEcsJudge}` : metric);
  const reference = typeof (summary as { reference?: unknown }).reference === "string" ? (summary as { reference: string }).reference : null;
  const comparisons = comparisonTables(sections.comparisons, reference, metricName);
  let comparisonsNote: string | null = null;
  if (comparisons.length === 0) comparisonsNote = "No comparisons: summary.json lists none.";
  const families = comparisons.some((table) => table.family === "all")
    ? " Holm p: adjusted over every comparison of one metric and test (this summary.json predates the reference family; aeb report --recompute gives it)."
    : reference === null
      ? " Holm p: adjusted over every pair of one metric and test (no reference condition: name one with report.reference in the run config or aeb report --reference)."
      : ` Holm p: adjusted within each family of one metric and test: the pairs with the reference condition ${reference} are one family, every other pair another, so adding conditions does not dilute the comparisons against the reference (docs/statistics.md).`;
  const comparisonsLegend =
    comparisons.length === 0
      ? null
      : [
          `Metrics: fs the final score; hid the simulated user's HID${offlineUser ? " (offline: the reward's move test, not independent)" : ""}`,
          headlineJudge !== null ? `; ecs the headline ECS judge's score (${headlineJudge}, a model judge), ecs:NAME another ECS judge's` : "; ecs:NAME an ECS judge's score (there is no headline ECS: no model judge ran)",
          ecsKinds.heuristics.length > 0 ? ` (${ecsKinds.heuristics.map((heuristic) => `ecs:${heuristic.name} is the ${heuristic.label}, not a model judge`).join("; ")})` : "",
          "; hid:NAME an independent HID judge's verdict; collapse the share of dialogues that collapsed.",
          " Each row is one pair, a against b (against the reference, the reference is b); each test's cell gives its p and its Holm-adjusted p.",
          " a − b [95% CI]: the mean of the matched differences (per-scenario means of the scenarios both ran; for collapse, the matched dialogues' collapse indicators) with a seeded percentile-bootstrap 95% interval.",
          " Tests: Wilcoxon signed-rank over those per-scenario means; Mann-Whitney over dialogues (the paper's); exact McNemar on collapses, matched by scenario and repeat.",
          families,
          " r: the effect size, positive when a tends to score higher than b (docs/statistics.md): Wilcoxon's matched-pairs rank-biserial, Mann-Whitney's rank-biserial.",
          ` Reading: which side is higher when the Holm p (of the matched test, else Mann-Whitney) is below ${SIGNIFICANCE_LEVEL} (for collapse, which collapsed more); otherwise "not significant": the data do not show a difference at that level, which is not evidence that the conditions are equal. The CI gives the differences the data still allow.`,
        ].join("");
  if (sections.unreadableComparisons > 0) {
    comparisonsNote = `${comparisonsNote ?? ""} ${entries(sections.unreadableComparisons, "comparison")} could not be read (missing metric, test, a, b or p) and ${sections.unreadableComparisons === 1 ? "is" : "are"} not shown.`.trim();
  }

  let lengthConfound: Table | null = null;
  let lengthConfoundNote: string | null = null;
  if (sections.lengthConfound === null) {
    lengthConfoundNote = "summary.json has no length-confound analysis, so whether reply length explains the FS differences is not tested here (see the reply-length chart).";
  } else if (sections.lengthConfound.length === 0) {
    lengthConfoundNote = "The length-confound analysis in summary.json is empty (no pair of conditions to test).";
  } else {
    lengthConfound = {
      header: ["a", "b", "condition coef.", "p", "coef. adjusted for length", "p adjusted", "rho(length, FS) in a", "rho(length, FS) in b"],
      rows: sections.lengthConfound.map((row) => [
        row.a,
        row.b,
        fixed(row.coefficient),
        formatP(row.p),
        fixed(row.coefficientAdjusted),
        formatP(row.pAdjusted),
        fixed(row.rhoA),
        fixed(row.rhoB),
      ]),
    };
  }
  if (sections.unreadableLengthConfound > 0) {
    lengthConfoundNote = `${lengthConfoundNote ?? ""} ${entries(sections.unreadableLengthConfound, "length-confound")} could not be read (missing a, b, coefficient or p) and ${sections.unreadableLengthConfound === 1 ? "is" : "are"} not shown.`.trim();
  }

  const ecsTitle = (judge: string) => {
    const heuristic = heuristicOf(judge);
    if (heuristic !== undefined) return heuristicEcsTitle(heuristic);
    return judge === headlineJudge ? `${judge} (the headline ECS)` : judge;
  };
  // Cooperative users (SAGE/RLVER profiles) have no manipulation turn: no before/after split for them.
  const cooperativeOnly = (condition: string) => {
    const ofCondition = scored.filter((row) => row.condition === condition);
    return ofCondition.length > 0 && ofCondition.every((row) => isCooperative(row.type));
  };
  const ecsByPhase = !(scored.length > 0 && scored.every((row) => isCooperative(row.type)));
  const mixedConditions = conditions.map((condition) => condition.name).filter((name) => !cooperativeOnly(name) && scored.some((row) => row.condition === name && isCooperative(row.type)));
  let ecsPhaseNote: string | null = null;
  if (!ecsByPhase) ecsPhaseNote = `Every dialogue is a ${COOPERATIVE_LABEL}, which has no manipulation turn, so ECS is not split before and after one.`;
  else if (scored.some((row) => isCooperative(row.type))) {
    ecsPhaseNote =
      `A ${COOPERATIVE_LABEL} has no manipulation turn: a condition of such dialogues only shows "n/a (cooperative)" before and after` +
      (mixedConditions.length > 0 ? `; in ${mixedConditions.join(", ")}, which mix them with adversarial dialogues, "after" also counts every judged turn of the cooperative ones.` : ".");
  }
  const COOPERATIVE_CELL = "n/a (cooperative)";
  const ecsByJudge = judgeTables.ecs.map(({ judge, cells }) => ({
    judge,
    title: ecsTitle(judge),
    headline: judge === headlineJudge,
    heuristic: heuristicOf(judge) !== undefined,
    table: ecsByPhase
      ? {
          header: ["condition", "ECS [95% CI]", "before manipulation", "after manipulation", "drop", "judged", "judge errors"],
          rows: cells.map(({ condition, cell }) => {
            if (cell === null) return [condition, "n/a", "n/a", "n/a", "n/a", "0", "0"];
            const phases = cooperativeOnly(condition) ? [COOPERATIVE_CELL, COOPERATIVE_CELL, COOPERATIVE_CELL] : [fixed(cell.before), fixed(cell.after), fixed(cell.drop)];
            return [condition, withCI(cell.mean), ...phases, String(cell.judged), String(cell.judgeErrors)];
          }),
        }
      : {
          header: ["condition", "ECS [95% CI]", "judged", "judge errors"],
          rows: cells.map(({ condition, cell }) => (cell === null ? [condition, "n/a", "0", "0"] : [condition, withCI(cell.mean), String(cell.judged), String(cell.judgeErrors)])),
        },
  }));
  let ecsByJudgeNote: string | null = null;
  if (ecsByJudge.length === 0) {
    ecsByJudgeNote = judges.length === 0 ? "No ECS judge ran." : `summary.json has no per-judge ECS (it predates judges); the charts use the dialogues' scores from ${judges.join(", ")}.`;
  }
  if (judgeTables.unreadable > 0) {
    ecsByJudgeNote = `${ecsByJudgeNote ?? ""} ${entries(judgeTables.unreadable, "per-judge")} of summary.json could not be read and ${judgeTables.unreadable === 1 ? "is" : "are"} shown as n/a.`.trim();
  }

  const hidJudges: Table | null =
    judgeTables.hid.length === 0
      ? null
      : {
          header: ["condition", `simulator ${hidLabel} [95% CI]`, ...judgeTables.hid.flatMap(({ judge }) => [`${judge} [95% CI]`, `${judge}: judged`, `${judge}: errors`])],
          rows: conditions.map((condition, index) => [
            condition.name,
            withCI(condition.hid),
            ...judgeTables.hid.flatMap(({ cells }) => {
              const cell = cells[index]?.cell ?? null;
              return cell === null ? ["n/a", "0", "0"] : [withCI(cell.mean), String(cell.judged), String(cell.judgeErrors)];
            }),
          ]),
        };

  let usage: Table | null = null;
  let usageNote: string | null = null;
  if (judgeTables.usage !== null && judgeTables.usage.length > 0) {
    const rows = judgeTables.usage;
    const total = (field: "calls" | "cachedCalls" | "failedCalls" | "requests" | "retries" | "promptTokens" | "completionTokens") => String(rows.reduce((sum, row) => sum + row[field], 0));
    usage = {
      header: ["role", "model", "calls", "cached", "failed", "requests", "retries", "prompt tokens", "completion tokens"],
      rows: [
        ...rows.map((row) => [row.role, row.model, String(row.calls), String(row.cachedCalls), String(row.failedCalls), String(row.requests), String(row.retries), String(row.promptTokens), String(row.completionTokens)]),
        ...(rows.length > 1 ? [["total", "", total("calls"), total("cachedCalls"), total("failedCalls"), total("requests"), total("retries"), total("promptTokens"), total("completionTokens")]] : []),
      ],
    };
  }
  if (judgeTables.unreadableUsage > 0) usageNote = `${entries(judgeTables.unreadableUsage, "usage")} could not be read and ${judgeTables.unreadableUsage === 1 ? "is" : "are"} not shown.`;

  const unreadableEcs = scored.reduce((sum, row) => sum + readRowEcs(row).unreadable, 0);
  const notes = [...(input.readingNotes ?? []), ...summary.notes];
  if (unreadableEcs > 0) notes.push(`${unreadableEcs} ECS entr${unreadableEcs === 1 ? "y has" : "ies have"} no numeric score and are left out of the charts.`);
  const { names: conditionNames, orphans } = conditionsWithOrphans(summary, rows);
  if (orphans.length > 0) notes.push(`dialogues.jsonl has condition(s) that summary.json does not: ${orphans.join(", ")} (they appear in the charts only).`);

  const withReplyTokens = hasReplyTokens(conditions);
  return {
    title: input.title ?? "AEB run report",
    facts,
    procedure,
    headline: {
      header: headlineHeader(conditions, ["condition", "n", "FS [95% CI]", "collapse [95% CI]", hidLabel, "ECS", "reply chars", "errors"]),
      rows: conditions.map((condition, index) => [
        condition.name,
        String(condition.n),
        fsCell(condition),
        collapseCell(condition),
        withCI(condition.hid),
        headlineEcsCell(index, condition),
        ...replyLengthCells(condition, withReplyTokens),
        String(condition.errors),
      ]),
    },
    headlineNotes,
    hidLabel,
    byType: {
      header: ["condition", ...types],
      rows: conditions.map((condition) => [
        condition.name,
        ...types.map((type) => {
          const cell = condition.byType[type];
          return cell === undefined ? "n/a" : `${fixed(cell.fsMean)} (n=${cell.n})`;
        }),
      ]),
    },
    ecsByJudge,
    ecsByJudgeNote,
    ecsByPhase,
    ecsPhaseNote,
    hidJudges,
    errorCauses: errorCausesTable(summary),
    usage,
    usageNote,
    comparisons,
    reference,
    comparisonsNote,
    comparisonsLegend,
    lengthConfound,
    lengthConfoundNote,
    notes,
    worst: worstRows(rows, [...conditionNames, ...orphans]).map((group) => ({ condition: group.condition, dialogues: group.rows.map((row) => transcriptOf(input, row)) })),
    ecsJudges: judges,
  };
}

/** The full record of a dialogue the report shows with text; its absence is a caller's error, not the data's. */
function transcriptOf(input: ReportInput, row: DialogueRow): DialogueRecord {
  const record = input.transcripts.get(row.id);
  if (record === undefined) throw new Error(`the report shows dialogue ${row.id} with its transcript, but its record was not provided (see transcriptIds)`);
  return record;
}
