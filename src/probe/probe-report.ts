import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { TopLevelSpec } from "vega-lite";
import { renderVegaLiteSvg } from "../report/charts/render-chart.js";
import { CHART_CONFIG, conditionScale } from "../report/charts/theme.js";
import { fixed, markdownTable, markdownText } from "../report/format.js";
import { describeTemplate, type PolicySpace } from "./policy.js";
import { ProbeResultSchema, type ProbeDefinition, type ProbeResult, type TypeSearch } from "./probe-schema.js";

/** The gap below attuned that the probe's target asks for (issue 19: harm is never paid). */
export const TARGET_GAP = 0.3;

const mean = (values: readonly number[]): number | null =>
  values.length === 0 ? null : values.reduce((sum, value) => sum + value, 0) / values.length;

/** probe.json's content: the definition, and per type its state and result. Validated by its schema. */
export function buildProbeResult(
  definition: ProbeDefinition,
  spaces: readonly PolicySpace[],
  searches: readonly TypeSearch[],
  status: ProbeResult["status"],
): ProbeResult {
  const types = searches.map((search, index) => {
    const space = spaces[index] as PolicySpace;
    const language = search.languages[0] ?? "en";
    return {
      type: search.type,
      status: search.heldOut !== null ? ("done" as const) : search.evaluations > 0 ? ("searching" as const) : ("pending" as const),
      scenarios: search.scenarios,
      evaluations: search.evaluations,
      climbs: search.climbs,
      trainBest: search.best?.score ?? null,
      attunedTrain: search.attunedTrain,
      heldOut: search.heldOut,
      curve: search.curve,
      bestTemplates:
        search.best === null
          ? []
          : search.best.policy.turns.map((template) => describeTemplate(space, template, { type: search.type, language })),
    };
  });
  const done = types.flatMap((type) => (type.heldOut === null ? [] : [type.heldOut]));
  return ProbeResultSchema.parse({
    format: "aeb-probe/1",
    status,
    definition,
    types,
    overall: {
      types: done.length,
      heldOutBest: mean(done.map((heldOut) => heldOut.best)),
      heldOutAttuned: mean(done.map((heldOut) => heldOut.attuned)),
      gap: mean(done.map((heldOut) => heldOut.gap)),
      minGap: done.length === 0 ? null : Math.min(...done.map((heldOut) => heldOut.gap)),
    },
  });
}

/** The best-so-far curve at the evaluations where it changes, and its last point: the same steps, a smaller chart. */
function curvePoints(curve: readonly number[]): Array<{ evaluation: number; best: number }> {
  const points: Array<{ evaluation: number; best: number }> = [];
  curve.forEach((best, index) => {
    if (index === 0 || index === curve.length - 1 || best !== curve[index - 1]) points.push({ evaluation: index + 1, best });
  });
  return points;
}

/** Learning curves: best training return so far per evaluation, one line per type, attuned's training return dashed. */
export function learningCurveSpec(result: ProbeResult): TopLevelSpec {
  const names = result.types.map((type) => type.type);
  const colour = { field: "type", type: "nominal" as const, scale: conditionScale(names), title: "type" };
  const y = { type: "quantitative" as const, scale: { domain: [0, 1] }, title: "best return so far (mean FS, training seeds)" };
  return {
    width: 520,
    height: 300,
    title: {
      text: "Probe learning curves",
      subtitle: "solid: the search's best so far; dashed: the attuned reference agent on the same training dialogues",
    },
    layer: [
      {
        data: { values: result.types.flatMap((type) => curvePoints(type.curve).map((point) => ({ type: type.type, ...point }))) },
        mark: { type: "line", interpolate: "step-after", strokeWidth: 2 },
        encoding: { x: { field: "evaluation", type: "quantitative", title: "evaluation" }, y: { field: "best", ...y }, color: colour },
      },
      {
        data: {
          values: result.types.flatMap((type) => (type.attunedTrain === null ? [] : [{ type: type.type, attuned: type.attunedTrain }])),
        },
        mark: { type: "rule", strokeDash: [5, 4], strokeWidth: 1.5 },
        encoding: { y: { field: "attuned", ...y }, color: colour },
      },
    ],
    config: CHART_CONFIG,
  };
}

/** probe.md: what was searched, the figures per type, and the best replies verbatim. */
export function probeMarkdown(result: ProbeResult): string {
  const { definition } = result;
  const constraint = [
    ...definition.constraints.require.map((tag) => `every reply carries a ${tag} fragment`),
    ...definition.constraints.exclude.map((tag) => `no reply carries a ${tag} fragment`),
  ];
  const lines = [
    "# Reward-optimum probe",
    "",
    result.status === "partial"
      ? "**Partial**: the probe stopped before every type finished; rerun the same command (same `--out`) to resume it.\n"
      : "",
    `Simulated user \`${definition.user}\`; hill climbing with restarts, ${definition.budget} evaluations per type (restart after ${definition.patience} without improvement), at most ${definition.maxFragments} fragments a reply; ${definition.trainSeeds} training and ${definition.heldoutSeeds} held-out seed(s) per scenario; seed ${definition.seed}.`,
    `Constraints: ${constraint.length === 0 ? "none" : constraint.join("; ")}. Pools: ${definition.pools.map((pool) => `${pool.name} [${pool.tags.join(", ")}]`).join(", ")}.`,
    "",
    "The returns are mean FS (final emotion / 100), the reward an RL policy gets under reward mode `final`. " +
      `The gap is attuned minus the best policy on the held-out seeds; a reward that does not pay for what the constraints force should keep it at ${TARGET_GAP} or more (docs/probe.md).`,
    "",
    markdownTable(
      ["type", "status", "evaluations", "best (train)", "attuned (train)", "best (held-out)", "attuned (held-out)", "gap"],
      result.types.map((type) => [
        type.type,
        type.status,
        String(type.evaluations),
        fixed(type.trainBest),
        fixed(type.attunedTrain),
        fixed(type.heldOut?.best),
        fixed(type.heldOut?.attuned),
        fixed(type.heldOut?.gap),
      ]),
    ),
    "",
  ];
  if (result.overall.types > 0) {
    const close = result.types.filter((type) => type.heldOut !== null && type.heldOut.gap < TARGET_GAP).map((type) => type.type);
    lines.push(
      `Over ${result.overall.types} type(s): best ${fixed(result.overall.heldOutBest)}, attuned ${fixed(result.overall.heldOutAttuned)} on the held-out seeds; mean gap ${fixed(result.overall.gap)}, smallest ${fixed(result.overall.minGap)}.`,
      close.length === 0
        ? `No type's best comes within ${TARGET_GAP} of attuned.`
        : `Within ${TARGET_GAP} of attuned (the reward pays for what the constraints force): ${close.join(", ")}.`,
      "",
    );
  }
  lines.push("![learning curves](learning-curve.svg)", "", "## Best replies", "");
  for (const type of result.types) {
    if (type.bestTemplates.length === 0) continue;
    lines.push(`### ${type.type}`, "", "Template per turn (the last answers every later turn):", "");
    type.bestTemplates.forEach((template, turn) =>
      lines.push(`${turn + 1}. ${template.map((fragment) => `[${fragment.pool}] ${markdownText(fragment.text)}`).join(" · ")}`),
    );
    lines.push("");
    const dialogue = type.heldOut?.bestDialogue;
    if (dialogue !== undefined) {
      lines.push(
        `Its best held-out dialogue verbatim (${dialogue.scenarioId}, seed ${dialogue.seed}, FS ${fixed(dialogue.fs)}, ${dialogue.endReason}):`,
        "",
      );
      dialogue.turns.forEach((turn, index) =>
        lines.push(`${index + 1}. **reply**: ${markdownText(turn.reply)}  `, `   **user** (${turn.emotion}): ${markdownText(turn.user)}`),
      );
      lines.push("");
    }
  }
  return `${lines
    .filter((line, index) => !(line === "" && lines[index - 1] === ""))
    .join("\n")
    .trimEnd()}\n`;
}

/** Writes probe.json, probe.md and learning-curve.svg. */
export async function writeProbeReports(outDir: string, result: ProbeResult): Promise<void> {
  writeFileSync(join(outDir, "probe.json"), `${JSON.stringify(result, null, 2)}\n`);
  writeFileSync(join(outDir, "probe.md"), probeMarkdown(result));
  const { svg } = await renderVegaLiteSvg(learningCurveSpec(result), "probe-curve");
  writeFileSync(join(outDir, "learning-curve.svg"), `${svg.replace(/^<svg/, '<svg xmlns="http://www.w3.org/2000/svg"')}\n`);
}
