/** One dialogue, whole: its facts, the judges' verdicts, the emotion line and every turn. */
import { api, type DialogueRecord, type RunList } from "../api.js";
import { EmotionLine } from "../components/emotion-line.js";
import { TurnView } from "../components/turn-view.js";
import { fixed } from "../format.js";
import { coloursOf, judgeLabel, labelsOf, type RunLabels } from "../labels.js";
import { compareHref, dialogueHref } from "../route.js";
import { useFetch } from "../use-fetch.js";

/** What kind of simulated user: adversarial types name their trait; SAGE/RLVER profiles are cooperative. */
export function TypeBadge({ record }: { record: Pick<DialogueRecord, "type"> }) {
  return record.type === "cooperative" ? (
    <span class="type cooperative">cooperative user (SAGE/RLVER profile)</span>
  ) : (
    <span class="type">{record.type}</span>
  );
}

function Judges({ record, labels }: { record: DialogueRecord; labels: RunLabels }) {
  const ecs = Object.entries(record.ecs ?? {});
  const hid = Object.entries(record.hid ?? {});
  if (ecs.length === 0 && hid.length === 0) return <p class="note">No judge scored this dialogue.</p>;
  return (
    <div class="judges">
      {ecs.length === 0 ? null : (
        <table>
          <caption>
            ECS judges
            {ecs.some(([name]) => labels.heuristicEcsJudges[name] !== undefined)
              ? " and heuristic baselines (not model judges: their score is not an ECS of a model)"
              : ""}
          </caption>
          <thead>
            <tr>
              <th>judge</th>
              <th>model</th>
              <th class="num">score</th>
              <th class="num">before</th>
              <th class="num">after</th>
              <th class="num">drop</th>
              <th class="num">Spearman</th>
              <th class="num">turns judged</th>
              <th class="num">unreadable</th>
            </tr>
          </thead>
          <tbody>
            {ecs.map(([name, judgement]) => (
              <tr key={name}>
                <td>{judgeLabel(name, labels)}</td>
                <td>{judgement.model ?? ""}</td>
                <td class="num">{fixed(judgement.score)}</td>
                <td class="num">{fixed(judgement.before)}</td>
                <td class="num">{fixed(judgement.after)}</td>
                <td class="num">{fixed(judgement.drop)}</td>
                <td class="num">{fixed(judgement.spearman ?? null)}</td>
                <td class="num">{judgement.turns ?? (judgement.estimates ?? []).length}</td>
                <td class="num">{(judgement.errors ?? []).length}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {hid.length === 0 ? null : (
        <table>
          <caption>Independent HID judges</caption>
          <thead>
            <tr>
              <th>judge</th>
              <th>verdict</th>
              <th class="num">turn</th>
              <th>evidence (quoted from the agent)</th>
            </tr>
          </thead>
          <tbody>
            {hid.map(([name, judgement]) => (
              <tr key={name}>
                <td>{name}</td>
                <td>{judgement.verdict ?? (judgement.error === undefined ? "n/a" : "left out")}</td>
                <td class="num">{judgement.turn ?? ""}</td>
                <td>{judgement.error === undefined ? (judgement.evidence ?? "") : <span class="error-text">{judgement.error}</span>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}

export function DialogueView({ runs, run, id }: { runs: RunList; run: number; id: string }) {
  const loaded = useFetch(`dialogue:${run}:${id}`, () => api.dialogue(run, id));
  if (loaded.state === "loading") return <p class="status">Loading {id}…</p>;
  if (loaded.state === "error") return <p class="error">{loaded.message}</p>;
  const { record, siblings, label } = loaded.value;
  const others = siblings.filter((sibling) => !(sibling.run === run && sibling.id === record.id));
  const labels = labelsOf(runs, run);
  return (
    <article class="dialogue">
      <h1>{record.id}</h1>
      <p class="meta">
        run {label} · condition <strong>{record.condition}</strong> · scenario {record.scenarioId} · repeat {record.repeat} · seed{" "}
        {record.seed} · preset {record.preset} · <TypeBadge record={record} />
        {record.type === "cooperative" ? null : ` · manipulation turn ${record.manipulationTurn}`}
      </p>
      <p class="outcome">
        {record.status === "error" ? (
          <span class="error-text">
            ended in error:{" "}
            {record.error === undefined
              ? "(no message)"
              : `${record.error.kind} at ${record.error.stage.replace("_", " ")}: ${record.error.message}`}
          </span>
        ) : (
          <>
            FS <strong>{fixed(record.final.fs)}</strong> · final emotion <strong>{record.final.emotion}</strong> · {record.endReason} after{" "}
            {record.turns.length} turn(s)
          </>
        )}
      </p>
      <p>
        <a href={compareHref(record.scenarioId, record.repeat)}>This scenario and repeat in every condition, side by side →</a>
        {others.length === 0 ? null : (
          <span class="siblings">
            {" "}
            also:{" "}
            {others.map((sibling) => (
              <a key={`${sibling.run}:${sibling.id}`} href={dialogueHref(sibling.run, sibling.id)}>
                {sibling.condition}
                {sibling.run === run ? "" : ` (run ${sibling.run})`}
              </a>
            ))}
          </span>
        )}
      </p>
      <EmotionLine record={record} colours={coloursOf(runs)} labels={labels} />
      <Judges record={record} labels={labels} />
      {labels.hidLabel === "HID" ? null : (
        <p class="note hid-note">{`${labels.hidLabel}: under the offline simulated user a turn's HID verdict is the same move test that sets the reward, not an independent signal; an HID judge (aeb judge) gives one.`}</p>
      )}
      <h2>Transcript</h2>
      <div class="msg user opening">
        <div class="who">
          user (opening{record.opening.source === "simulated_user" ? ", written by the simulated user" : ""}) · emotion{" "}
          <strong>{record.opening.emotion}</strong>
        </div>
        <p class="text">{record.opening.text}</p>
      </div>
      {record.turns.map((turn) => (
        <TurnView key={turn.index} record={record} turn={turn} labels={labels} />
      ))}
    </article>
  );
}
