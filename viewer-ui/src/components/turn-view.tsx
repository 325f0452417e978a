/**
 * One turn of a dialogue: the agent's reply (its think text folded), the user's answer with the
 * emotion and its change, the adjustments and flags with their evidence, the HID verdict, and
 * each ECS judge's prediction against the true emotion. Every text is rendered as text.
 */
import type { DialogueRecord, TurnRecord } from "../api.js";
import { codePoints, direction, signed } from "../format.js";
import { judgeLabel, type RunLabels } from "../labels.js";

type EcsJudgements = NonNullable<DialogueRecord["ecs"]>;

function JudgePredictions({ turn, judges, labels }: { turn: TurnRecord; judges: EcsJudgements; labels: RunLabels }) {
  const lines = Object.entries(judges).flatMap(([name, judgement]) => {
    const estimate = (judgement.estimates ?? []).find((candidate) => candidate.index === turn.index);
    const error = (judgement.errors ?? []).find((candidate) => candidate.index === turn.index);
    if (estimate === undefined && error === undefined) return [];
    return [{ name, estimate, error }];
  });
  if (lines.length === 0) return null;
  return (
    <ul class="predictions">
      {lines.map(({ name, estimate, error }) => (
        <li key={name}>
          <span class="judge">{judgeLabel(name, labels)}</span>
          {estimate === undefined ? null : (
            <>
              {" predicted "}
              <strong>{estimate.predicted}</strong>
              {` (confidence ${estimate.confidence}) vs true ${estimate.actual}: off by `}
              <strong class={Math.abs(estimate.predicted - estimate.actual) >= 20 ? "down" : undefined}>
                {Math.abs(estimate.predicted - estimate.actual)}
              </strong>
              {estimate.imputed === true ? " · imputed (unreadable turn scored p=50, c=0)" : ""}
            </>
          )}
          {error === undefined ? null : <span class="error-text">{` could not read this turn: ${error.error}`}</span>}
        </li>
      ))}
    </ul>
  );
}

export function AgentReply({ turn }: { turn: TurnRecord }) {
  return (
    <div class="msg agent">
      <div class="who">
        agent · {turn.agent.chars} chars{turn.agent.tokens === undefined ? "" : ` · ${turn.agent.tokens} tokens`}
      </div>
      {turn.agent.think === undefined ? null : (
        <details class="think">
          <summary>think ({codePoints(turn.agent.think)} chars)</summary>
          <p class="text">{turn.agent.think}</p>
        </details>
      )}
      <p class="text">{turn.agent.text}</p>
    </div>
  );
}

export function UserReply({ turn, hidLabel, showAppraisal = true }: { turn: TurnRecord; hidLabel: string; showAppraisal?: boolean }) {
  const user = turn.user;
  if (user.appraised === false) {
    return (
      <div class="msg user unappraised">
        <div class="who">
          not appraised: the preset's loop stops at this reply, so the user neither read nor answered it · emotion{" "}
          <strong>{user.emotion}</strong> (unchanged)
          {user.flags.map((flag) => (
            <span key={flag} class="flag">
              {flag}
            </span>
          ))}
        </div>
      </div>
    );
  }
  return (
    <div class="msg user">
      <div class="who">
        user · emotion <strong>{user.emotion}</strong> (<span class={direction(user.delta)}>{signed(user.delta)}</span>; simulator proposed{" "}
        {signed(user.simulatorDelta)})
        {user.hid === undefined ? null : (
          <span class={`hid hid-${user.hid}`}>
            {" "}
            · {hidLabel} {user.hid}
          </span>
        )}
        {user.flags.map((flag) => (
          <span key={flag} class="flag">
            {flag}
          </span>
        ))}
      </div>
      <p class="text">{user.text}</p>
      {user.adjustments.length === 0 ? null : (
        <ul class="adjustments">
          {user.adjustments.map((adjustment, index) => (
            <li key={index}>
              {adjustment.kind} <span class={direction(adjustment.value)}>{signed(adjustment.value)}</span>
              {adjustment.evidence === undefined ? null : <>: “{adjustment.evidence}”</>}
            </li>
          ))}
        </ul>
      )}
      {showAppraisal && user.appraisal !== undefined && Object.keys(user.appraisal).length > 0 ? (
        <details class="appraisal">
          <summary>the simulated user's hidden appraisal</summary>
          <pre class="text">{JSON.stringify(user.appraisal, null, 2)}</pre>
        </details>
      ) : null}
    </div>
  );
}

export function TurnView({ record, turn, labels }: { record: DialogueRecord; turn: TurnRecord; labels: RunLabels }) {
  const manipulation = record.type !== "cooperative" && turn.index === record.manipulationTurn;
  return (
    <div class="turn" data-turn={turn.index}>
      <div class={`turn-label${manipulation ? " manipulation" : ""}`}>
        turn {turn.index}
        {manipulation ? " · manipulation turn" : ""}
      </div>
      <AgentReply turn={turn} />
      <UserReply turn={turn} hidLabel={labels.hidLabel} />
      <JudgePredictions turn={turn} judges={record.ecs ?? {}} labels={labels} />
    </div>
  );
}
