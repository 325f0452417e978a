/**
 * One scenario and repeat across conditions (and runs), side by side: every condition met the
 * same simulated-user randomness, so the turns line up and the replies can be compared directly.
 */
import { api, type RunList } from "../api.js";
import { EmotionLine } from "../components/emotion-line.js";
import { AgentReply, UserReply } from "../components/turn-view.js";
import { fixed } from "../format.js";
import { compareHref, dialogueHref } from "../route.js";
import { useFetch } from "../use-fetch.js";
import { TypeBadge } from "./dialogue-view.js";

export function SideBySideView({ runs, params }: { runs: RunList; params: URLSearchParams }) {
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
                    {first.type === "cooperative" ? null : ` · manipulation turn ${first.manipulationTurn}`} · {dialogues.length} dialogue(s){omitted > 0 ? `; ${omitted} more not shown (filter the runs or conditions)` : ""}
                  </p>
                )}
                <div class="table-wrap">
                  <table class="columns">
                    <thead>
                      <tr>
                        {dialogues.map(({ run, label, record }) => (
                          <th key={`${run}:${record.id}`} data-condition={record.condition}>
                            <a href={dialogueHref(run, record.id)}>{record.condition}</a>
                            {showRun ? <div class="note">{label}</div> : null}
                            <div class="note">{record.status === "error" ? `error: ${record.error === undefined ? "" : `${record.error.kind}: ${record.error.message}`}` : `FS ${fixed(record.final.fs)} · ${record.endReason} after ${record.turns.length}`}</div>
                          </th>
                        ))}
                      </tr>
                    </thead>
                    <tbody>
                      <tr>
                        {dialogues.map(({ run, record }) => (
                          <td key={`${run}:${record.id}`}>
                            <EmotionLine record={record} width={280} height={130} compact />
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
                                    <UserReply turn={turn} showAppraisal={false} />
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
