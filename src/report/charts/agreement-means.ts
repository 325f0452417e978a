import type { TopLevelSpec } from "vega-lite";
import type { PairAgreement } from "../../analysis/agreement-schema.js";
import { placeholderSpec } from "./placeholder.js";
import { CHART_CONFIG, conditionScale } from "./theme.js";

/**
 * Each shared agent's mean final emotion under simulated user A and under B (over the units every
 * agent has under both), one line per agent: parallel lines are a level shift that keeps the
 * ranking, crossing lines are a change of rank.
 */
export function agreementMeansSpec(pair: PairAgreement): TopLevelSpec {
  if (pair.ranking.agents.length === 0)
    return placeholderSpec("no agents to rank", "no (scenario, repeat) was scored for every shared agent by both simulated users");
  const users = [`A: ${pair.a}`, `B: ${pair.b}`];
  const values = pair.ranking.agents.flatMap((agent) => [
    { agent: agent.agent, user: users[0], mean: agent.meanA, label: agent.meanA.toFixed(1) },
    { agent: agent.agent, user: users[1], mean: agent.meanB, label: `${agent.meanB.toFixed(1)} ${agent.agent}` },
  ]);
  const colour = { field: "agent", type: "nominal" as const, scale: conditionScale(pair.sharedAgents), title: "agent" };
  const x = {
    field: "user",
    type: "ordinal" as const,
    sort: users,
    title: "simulated user",
    axis: { labelAngle: 0 },
    scale: { domain: users, padding: 0.6 },
  };
  const y = { field: "mean", type: "quantitative" as const, title: "mean final emotion (0-100)", scale: { domain: [0, 100] } };
  return {
    width: 360,
    height: 320,
    data: { values },
    layer: [
      { mark: { type: "line", strokeWidth: 2.5 }, encoding: { x, y, color: colour, detail: { field: "agent" } } },
      { mark: { type: "point", filled: true, size: 80, opacity: 1 }, encoding: { x, y, color: colour } },
      {
        transform: [{ filter: `datum.user === ${JSON.stringify(users[0])}` }],
        mark: { type: "text", align: "right", dx: -10, fontSize: 11 },
        encoding: { x, y, text: { field: "label" }, color: colour },
      },
      {
        transform: [{ filter: `datum.user === ${JSON.stringify(users[1])}` }],
        mark: { type: "text", align: "left", dx: 10, fontSize: 11 },
        encoding: { x, y, text: { field: "label" }, color: colour },
      },
    ],
    config: CHART_CONFIG,
  };
}
