import type { TopLevelSpec } from "vega-lite";
import type { PairAgreement } from "../../analysis/agreement-schema.js";
import { placeholderSpec } from "./placeholder.js";
import { CHART_CONFIG, conditionScale } from "./theme.js";

/**
 * The final emotion of every matched dialogue under simulated user A (x) and under B (y), coloured
 * by agent, with the diagonal where the two agree. Points far from the diagonal are profiles the
 * two users judged differently; a cloud above it is B scoring higher. Final emotions are integers,
 * so equal pairs are drawn once, larger by how many dialogues share them.
 */
export function agreementScatterSpec(pair: PairAgreement): TopLevelSpec {
  if (pair.matched.length === 0) return placeholderSpec("no matched dialogues", "no dialogue was scored by both simulated users");
  const counts = new Map<string, { agent: string; finalA: number; finalB: number; dialogues: number }>();
  for (const dialogue of pair.matched) {
    const key = `${dialogue.agent}\u0000${dialogue.finalA}\u0000${dialogue.finalB}`;
    const point = counts.get(key) ?? { agent: dialogue.agent, finalA: dialogue.finalA, finalB: dialogue.finalB, dialogues: 0 };
    point.dialogues += 1;
    counts.set(key, point);
  }
  const values = [...counts.values()];
  const colour = { field: "agent", type: "nominal" as const, scale: conditionScale(pair.sharedAgents), title: "agent" };
  const axis = (user: string, label: string) => ({
    type: "quantitative" as const,
    title: `final emotion under ${label}: ${user}`,
    scale: { domain: [0, 100], padding: 10 },
  });
  return {
    width: 380,
    height: 380,
    layer: [
      {
        data: {
          values: [
            { finalA: 0, finalB: 0 },
            { finalA: 100, finalB: 100 },
          ],
        },
        mark: { type: "line", color: "#999", strokeDash: [4, 4], strokeWidth: 1 },
        encoding: { x: { field: "finalA", ...axis(pair.a, "A") }, y: { field: "finalB", ...axis(pair.b, "B") } },
      },
      {
        data: { values },
        mark: { type: "point", filled: true, opacity: 0.5 },
        encoding: {
          x: { field: "finalA", ...axis(pair.a, "A") },
          y: { field: "finalB", ...axis(pair.b, "B") },
          color: colour,
          size: { field: "dialogues", type: "quantitative", title: "dialogues", scale: { range: [30, 300], zero: false } },
        },
      },
    ],
    config: CHART_CONFIG,
  };
}
