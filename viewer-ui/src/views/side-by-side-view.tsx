/**
 * One scenario and repeat across conditions (and runs), side by side: every condition met the
 * same simulated-user randomness, so the turns line up and the replies can be compared directly.
 * A legend above the columns names each condition's and judge's colour, which are the same in
 * every column, run and page (labels.ts); every column's chart shares one x axis, the longest
 * dialogue's.
 */
import { api, type DialogueRecord, type RunList } from "../api.js";
import { EmotionLine } from "../components/emotion-line.js";
import { AgentReply, UserReply } from "../components/turn-view.js";
import { fixed } from "../format.js";
import { coloursOf, judgeLabel, labelsOf, type Colours } from "../labels.js";
import { compareHref, dialogueHref } from "../route.js";
import { useFetch } from "../use-fetch.js";
import { TypeBadge } from "./dialogue-view.js";

/** The colours of the columns' conditions and judges, with what each line is. */
function Legend({
  runs,
  dialogues,
  colours,
}: {
  runs: RunList;
  dialogues: ReadonlyArray<{ run: number; record: DialogueRecord }>;
  colours: Colours;
}) {
  const conditions = [...new Set(dialogues.map(({ record }) => record.condition))];
  const judges = new Map<string, string>();
  for (const { run, record } of dialogues) {
    for (const [name, judgement] of Object.entries(record.ecs ?? {}))
      if ((judgement.estimates ?? []).length > 0 && !judges.has(name)) judges.set(name, judgeLabel(name, labelsOf(runs, run)));
  }
  const adversarial = dialogues.some(({ record }) => record.type !== "cooperative");
  return (
    <figure class="side-legend">
      <ul class="legend" aria-label="legend">
        {conditions.map((condition) => (
          <li key={`condition:${condition}`} data-legend-condition={condition}>
            <svg width="26" height="10" aria-hidden="true">
              <line x1="1" x2="25" y1="5" y2="5" stroke={colours.condition(condition)} stroke-width="3" />
            </svg>
            {condition}: emotion
          </li>
        ))}
        {[...judges].map(([name, label]) => (
          <li key={`judge:${name}`} data-legend-judge={name}>
            <svg width="26" height="10" aria-hidden="true">
              <line x1="1" x2="25" y1="5" y2="5" stroke={colours.judge(name)} stroke-width="2" stroke-dasharray="5 4" />
            </svg>
            {label}: predicted
          </li>
        ))}
        {adversarial ? <li class="legend-manipulation">dotted red line: the manipulation turn begins</li> : null}
      </ul>
      <figcaption class="note">
        Every column's chart has the same axes: x agent replies so far (0 = the user's opening), y emotion 0-100. Colours stay the same in
        every column, run and page.
      </figcaption>
    </figure>
  );
}

export function SideBySideView({ runs, params }: { runs: RunList; params: URLSearchParams }) {
  const colours = coloursOf(runs);
  const loaded = useFetch(`compare:${params.toString()}`, () => api.sideBySide(params));
  const scenario = params.get("scenario") ?? "";
  const repeat = Number(params.get("repeat") ?? "0");
  const chosenRuns = params.getAll("run").map(Number);
  return (
    <section class="side-by-side">
      <h1>
        {scenario} · repeat {repeat}
      </h1>
      <nav class="repeat-nav">
        {repeat > 0 ? <a href={compareHref(scenario, repeat - 1, chosenRuns)}>← repeat {repeat - 1}</a> : null}
        <a href={compareHref(scenario, repeat + 1, chosenRuns)}>repeat {repeat + 1} →</a>
      </nav>
      {loaded.state === "loading" ? <p class="status">Loading…</p> : null}
      {loaded.state === "error" ? <p class="error">{loaded.message}</p> : null}
      {loaded.state === "ready"
        ? (() => {
            const { dialogues, omitted } = loaded.value;
            const first = dialogues[0]?.record;
            const turns = dialogues.reduce((most, { record }) => Math.max(most, record.turns.length), 0);
            const showRun = runs.runs.length > 1;
            return (
              <>
                {first === undefined ? null : (
                  <p class="meta">
                    <TypeBadge record={first} />
                    {first.type === "cooperative" ? null : ` · manipulation turn ${first.manipulationTurn}`} · {dialogues.length}{" "}
                    dialogue(s){omitted > 0 ? `; ${omitted} more not shown (filter the runs or conditions)` : ""}
                  </p>
                )}
                <Legend runs={runs} dialogues={dialogues} colours={colours} />
                <div class="table-wrap">
                  <table class="columns">
                    <thead>
                      <tr>
                        {dialogues.map(({ run, label, record }) => (
                          <th
                            key={`${run}:${record.id}`}
                            data-condition={record.condition}
                            style={{ borderTop: `4px solid ${colours.condition(record.condition)}` }}
                          >
                            <a href={dialogueHref(run, record.id)}>{record.condition}</a>
                            {showRun ? <div class="note">{label}</div> : null}
                            <div class="note">
                              {record.status === "error"
                                ? `error: ${record.error === undefined ? "" : `${record.error.kind}: ${record.error.message}`}`
                                : `FS ${fixed(record.final.fs)} · ${record.endReason} after ${record.turns.length}`}
                            </div>
                          </th>
                        ))}
                      </tr>
                    </thead>
                    <tbody>
                      <tr>
                        {dialogues.map(({ run, record }) => (
                          <td key={`${run}:${record.id}`}>
                            <EmotionLine
                              record={record}
                              colours={colours}
                              labels={labelsOf(runs, run)}
                              width={280}
                              height={130}
                              compact
                              steps={turns}
                            />
                          </td>
                        ))}
                      </tr>
                      <tr>
                        {dialogues.map(({ run, record }) => (
                          <td key={`${run}:${record.id}`}>
                            <div class="msg user opening">
                              <div class="who">user (opening) · emotion {record.opening.emotion}</div>
                              <p class="text">{record.opening.text}</p>
                            </div>
                          </td>
                        ))}
                      </tr>
                      {Array.from({ length: turns }, (_, index) => (
                        <tr key={index} data-turn={index}>
                          {dialogues.map(({ run, record }) => {
                            const turn = record.turns[index];
                            const manipulation = record.type !== "cooperative" && index === record.manipulationTurn;
                            return (
                              <td key={`${run}:${record.id}`}>
                                {turn === undefined ? (
                                  <p class="note">(ended)</p>
                                ) : (
                                  <>
                                    <div class={`turn-label${manipulation ? " manipulation" : ""}`}>
                                      turn {index}
                                      {manipulation ? " · manipulation turn" : ""}
                                    </div>
                                    <AgentReply turn={turn} />
                                    <UserReply turn={turn} hidLabel={labelsOf(runs, run).hidLabel} showAppraisal={false} />
                                  </>
                                )}
                              </td>
                            );
                          })}
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </div>
              </>
            );
          })()
        : null}
    </section>
  );
}
