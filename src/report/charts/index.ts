import type { TopLevelSpec } from "vega-lite";
import type { DialogueRow } from "../../metrics/dialogue-row.js";
import type { RunSummary } from "../../analysis/summary-schema.js";
import { ecsBeforeAfterSpec } from "./ecs-before-after.js";
import { ecsVsFsSpec } from "./ecs-vs-fs.js";
import { emotionTrajectorySpec } from "./emotion-trajectory.js";
import { fsByConditionSpec } from "./fs-by-condition.js";
import { lengthVsFsSpec } from "./length-vs-fs.js";
import { scoredRows } from "./chart-data.js";
import { sampleCaption, sampleDialogueIds } from "./point-sample.js";
import { renderVegaLiteSvg } from "./render-chart.js";
import { typeHeatmapSpec } from "./type-heatmap.js";

export { NO_ECS_MESSAGE } from "./theme.js";
export { emotionPath, emotionTrajectories } from "./chart-data.js";
export { hasActiveContent, scopeSvg, renderVegaLiteSvg } from "./render-chart.js";

/** One chart of the report: a Vega-Lite spec that is a pure function of the summary and the dialogues' rows (numbers, no text). */
export interface ChartDefinition {
  /** Stable id, used for the HTML anchor and to scope the SVG's ids. */
  id: string;
  title: string;
  /** How to read it, in a sentence or two (shown under the chart). */
  caption: string;
  spec: TopLevelSpec;
}

export interface RenderedChart extends ChartDefinition {
  svg: string;
  warnings: string[];
}

/** The report's six charts, in order (see docs/reports.md), from the dialogues' rows (metrics/dialogue-row.ts). */
export function chartDefinitions(summary: RunSummary, rows: readonly DialogueRow[]): ChartDefinition[] {
  // The two charts with a point per dialogue draw the same dialogues: every one, or above a few thousand the same fixed sample (point-sample.ts).
  const sample = sampleDialogueIds(scoredRows(rows), summary.seed);
  const sampled = sampleCaption(sample);
  return [
    {
      id: "chart-fs",
      title: "Final score per condition",
      caption:
        "Mean FS (final emotion / 100) per condition, with the seeded percentile-bootstrap 95% CI from summary.json; a condition with fewer than two scored dialogues has no interval.",
      spec: fsByConditionSpec(summary),
    },
    {
      id: "chart-type-heatmap",
      title: "Final score by condition and trajectory type",
      caption:
        "Mean FS of each condition on each trajectory type; the colour scale is fixed to [0, 1]. Cell sizes are in the per-type table.",
      spec: typeHeatmapSpec(summary),
    },
    {
      id: "chart-emotion-trajectory",
      title: "Mean emotion over the dialogue",
      caption:
        "Mean emotion after each agent reply (0 = the user's opening). A dialogue that ended early keeps its final emotion for the later steps, so each line averages the same dialogues throughout. Band: mean ± 1.96 standard errors.",
      spec: emotionTrajectorySpec(summary, rows),
    },
    {
      id: "chart-ecs-vs-fs",
      title: "Outcome against legibility (ECS vs FS)",
      caption:
        "The dissociation plot: each point is a dialogue, diamonds are condition means. Moving right without moving up means outcomes improved while the user's state did not become easier to read." +
        sampled,
      spec: ecsVsFsSpec(summary, rows, sample),
    },
    {
      id: "chart-ecs-phase",
      title: "ECS before and after the manipulation turn",
      caption:
        "Mean ECS over the turns before and from the manipulation turn on, per trajectory type; a falling line is an ECS drop. Cooperative users (SAGE/RLVER profiles) have no manipulation turn and are not shown.",
      spec: ecsBeforeAfterSpec(summary, rows),
    },
    {
      id: "chart-length-vs-fs",
      title: "Reply length against final score",
      caption:
        "Each point is a dialogue (its mean visible reply length in characters), diamonds are condition means. FS rising with length across conditions hints at a length confound; see the length-confound table." +
        sampled,
      spec: lengthVsFsSpec(summary, rows, sample),
    },
  ];
}

/** Renders every chart to inline SVG (in order; Vega's renderer is not re-entrant-safe across views sharing counters). */
export async function renderCharts(summary: RunSummary, rows: readonly DialogueRow[]): Promise<RenderedChart[]> {
  const rendered: RenderedChart[] = [];
  for (const chart of chartDefinitions(summary, rows)) {
    const { svg, warnings } = await renderVegaLiteSvg(chart.spec, chart.id);
    rendered.push({ ...chart, svg, warnings });
  }
  return rendered;
}
