/**
 * What `aeb run` and `aeb judge` print when they finish: the headline table, then each heuristic
 * ECS judge under the name that says what it is (never in the headline), then why the headline
 * ECS is n/a when no model judge ran, and, under the offline user, that its HID is the reward's
 * move test. A pure function of summary.json and the run's recorded simulator.
 */
import { HEURISTIC_ECS_JUDGES, heuristicEcsTitle, type HeuristicEcsJudge } from "../analysis/ecs-judges.js";
import type { RunSummary } from "../analysis/summary-schema.js";
import { HEADLINE_HEADER, headlineHeader, headlineRows, NO_MODEL_JUDGE, textTable, withCI } from "./format.js";
import { isOfflineSimulator, OFFLINE_HID_LABEL } from "./hid-label.js";

/** The summary's heuristic ECS judges (`judges.heuristicEcs`: name -> judge id) with what each is. */
function heuristicsOf(summary: RunSummary): Array<{ name: string } & HeuristicEcsJudge> {
  return Object.entries(summary.judges.heuristicEcs ?? {}).map(([name, id]) => ({
    name,
    ...(HEURISTIC_ECS_JUDGES[id] ?? { label: "ECS heuristic", description: "not a model judge" }),
  }));
}

/** `simulator`: the run config's simulator (run.json's), which decides how HID is labelled. */
export function renderTerminalSummary(summary: RunSummary, simulator?: unknown): string {
  const noModelJudge = summary.judges.ecs.length > 0 && summary.judges.headlineEcs === null;
  const offline = isOfflineSimulator(simulator);
  const header = offline ? HEADLINE_HEADER.map((cell) => (cell === "HID" ? OFFLINE_HID_LABEL : cell)) : HEADLINE_HEADER;
  const parts = [
    textTable(headlineHeader(summary.conditions, header), headlineRows(summary.conditions, noModelJudge ? NO_MODEL_JUDGE : "n/a")),
  ];
  for (const heuristic of heuristicsOf(summary)) {
    const rows = summary.conditions.map((condition) => {
      const cell = condition.ecsByJudge[heuristic.name];
      return [condition.name, cell?.mean === null || cell === undefined ? "n/a" : withCI(cell.mean), String(cell?.judged ?? 0)];
    });
    parts.push(`${heuristicEcsTitle(heuristic)}\n${textTable(["condition", "ECS [95% CI]", "judged"], rows)}`);
  }
  if (offline)
    parts.push(
      `${OFFLINE_HID_LABEL}: under the offline user HID is the same move test that sets the reward, not an independent signal (docs/reports.md).`,
    );
  const causes = summary.errorCauses ?? [];
  if (causes.length > 0) {
    const lines = causes.map(
      (cause) =>
        `  ${cause.count} x ${cause.kind} at ${cause.stage.replace("_", " ")}${cause.retryable ? "" : " (a rerun alone will not help)"}, e.g. ${cause.example.dialogueId}: ${cause.example.message}`,
    );
    parts.push(`${summary.errors} dialogue(s) ended in error, by cause:\n${lines.join("\n")}`);
  }
  if (noModelJudge)
    parts.push(
      `ECS is ${NO_MODEL_JUDGE}: ${summary.judges.ecs.join(", ")} ${summary.judges.ecs.length > 1 ? "are heuristics" : "is a heuristic"}, not a model judge; the headline shows ECS only from a model judge (judges.ecs with kind: llm).`,
    );
  return parts.join("\n\n");
}
