/**
 * A dialogue's emotion after each agent reply (0 = the opening), with each ECS judge's
 * predictions beside it: a small SVG drawn with Preact elements, so every label is text.
 */
import type { DialogueRecord } from "../api.js";
import { judgeLabel, type Colours, type RunLabels } from "../labels.js";

interface Series {
  name: string;
  colour: string;
  dashed: boolean;
  points: Array<{ step: number; value: number; hollow: boolean }>;
}

/** The true emotion in the condition's colour, then each judge's predictions, dashed, in the judge's colour. */
export function emotionSeries(record: DialogueRecord, colours: Colours, labels: RunLabels): Series[] {
  const truth: Series = {
    name: "emotion (simulated user)",
    colour: colours.condition(record.condition),
    dashed: false,
    points: [
      { step: 0, value: record.opening.emotion, hollow: false },
      ...record.turns.map((turn) => ({ step: turn.index + 1, value: turn.user.emotion, hollow: turn.user.appraised === false })),
    ],
  };
  const judges = Object.entries(record.ecs ?? {})
    .filter(([, judgement]) => (judgement.estimates ?? []).length > 0)
    .map(([name, judgement]) => ({
      name: `${judgeLabel(name, labels)}: predicted`,
      colour: colours.judge(name),
      dashed: true,
      points: (judgement.estimates ?? []).map((estimate) => ({
        step: estimate.index + 1,
        value: estimate.predicted,
        hollow: estimate.imputed === true,
      })),
    }));
  return [truth, ...judges];
}

/**
 * `steps`: the x axis's last step; side by side gives every column the longest dialogue's, so the
 * columns share one axis. By default the dialogue's own length.
 */
export function EmotionLine({
  record,
  colours,
  labels,
  width = 640,
  height = 210,
  compact = false,
  steps: sharedSteps,
}: {
  record: DialogueRecord;
  colours: Colours;
  labels: RunLabels;
  width?: number;
  height?: number;
  compact?: boolean;
  steps?: number;
}) {
  const series = emotionSeries(record, colours, labels);
  const steps = Math.max(1, sharedSteps ?? record.turns.length);
  const margin = { left: 34, right: 12, top: 10, bottom: compact ? 22 : 40 };
  const plotWidth = width - margin.left - margin.right;
  const plotHeight = height - margin.top - margin.bottom;
  const x = (step: number) => margin.left + (step / steps) * plotWidth;
  const y = (value: number) => margin.top + (1 - value / 100) * plotHeight;
  const adversarial = record.type !== "cooperative";
  // Between the emotion before turn m (x = m) and the first one under the manipulation (x = m + 1).
  const manipulationX = x(record.manipulationTurn + 0.5);
  return (
    <figure class="emotion-line">
      <svg
        width={width}
        height={height}
        viewBox={`0 0 ${width} ${height}`}
        role="img"
        aria-label={`emotion over the dialogue ${record.id}`}
      >
        {[0, 25, 50, 75, 100].map((value) => (
          <g key={value}>
            <line class="grid" x1={margin.left} x2={width - margin.right} y1={y(value)} y2={y(value)} />
            <text class="axis" x={margin.left - 6} y={y(value) + 4} text-anchor="end">
              {value}
            </text>
          </g>
        ))}
        {Array.from({ length: steps + 1 }, (_, step) => (
          <text key={step} class="axis" x={x(step)} y={height - margin.bottom + 14} text-anchor="middle">
            {step}
          </text>
        ))}
        {adversarial && record.turns.length > record.manipulationTurn ? (
          <line class="manipulation" x1={manipulationX} x2={manipulationX} y1={margin.top} y2={margin.top + plotHeight} />
        ) : null}
        {series.map((line) => (
          <g key={line.name} class="series">
            <polyline
              fill="none"
              stroke={line.colour}
              stroke-width={2}
              stroke-dasharray={line.dashed ? "5 4" : undefined}
              points={line.points.map((point) => `${x(point.step)},${y(point.value)}`).join(" ")}
            />
            {line.points.map((point) => (
              <circle
                key={point.step}
                class="point"
                cx={x(point.step)}
                cy={y(point.value)}
                r={3.5}
                fill={point.hollow ? "#fff" : line.colour}
                stroke={line.colour}
                stroke-width={1.5}
              >
                <title>{`${line.name}, after reply ${point.step}: ${point.value}${point.hollow ? " (not appraised / imputed)" : ""}`}</title>
              </circle>
            ))}
          </g>
        ))}
      </svg>
      {compact ? null : (
        <figcaption>
          <ul class="legend">
            {series.map((line) => (
              <li key={line.name}>
                <svg width="26" height="10" aria-hidden="true">
                  <line
                    x1="1"
                    x2="25"
                    y1="5"
                    y2="5"
                    stroke={line.colour}
                    stroke-width="2"
                    stroke-dasharray={line.dashed ? "5 4" : undefined}
                  />
                </svg>
                {line.name}
              </li>
            ))}
            {adversarial ? (
              <li class="legend-manipulation">dotted red line: the manipulation turn ({record.manipulationTurn}) begins</li>
            ) : null}
          </ul>
          <span class="note">
            x: agent replies so far (0 = the user's opening); hollow points: a reply not appraised or an imputed judge turn.
          </span>
        </figcaption>
      )}
    </figure>
  );
}
