import type { DialogueRecord } from "../core/dialogue.js";
import { ecsJudgementFailed, hidJudgementFailed, type EcsJudgement, type HidJudgement } from "../core/judgement.js";
import { judgeEcs, judgeHid } from "../judges/apply-judge.js";
import type { EcsJudge, HidJudge } from "../judges/judge.js";
import type { Scenario } from "../scenarios/scenario-schema.js";

/** The judges a run or `aeb judge` uses, by the names results carry. */
export interface NamedJudges {
  ecs: ReadonlyArray<{ name: string; judge: EcsJudge }>;
  hid: ReadonlyArray<{ name: string; judge: HidJudge }>;
}

/** New judgements of one dialogue, by judge name (only the judges that ran). */
export interface Judgements {
  ecs: Record<string, EcsJudgement>;
  hid: Record<string, HidJudgement>;
}

/**
 * Which judges still have work on a dialogue: those that never judged it, and those whose
 * judgement failed in part (an ECS turn it could not read, a HID verdict left out), which a rerun
 * tries again. With `all`, every judge (`aeb judge --rejudge`).
 */
export function judgesWithWork(record: DialogueRecord, judges: NamedJudges, all = false): NamedJudges {
  return {
    ecs: judges.ecs.filter(({ name }) => all || record.ecs?.[name] === undefined || ecsJudgementFailed(record.ecs[name])),
    hid: judges.hid.filter(({ name }) => all || record.hid?.[name] === undefined || hidJudgementFailed(record.hid[name])),
  };
}

/**
 * Runs judges on one finished dialogue. A judge that judged it before with failed turns judges
 * only those turns again and keeps the rest (unless `fresh`). Judge failures are values on the
 * judgement (per turn, per verdict), never the dialogue's error.
 */
export async function judgeDialogue(
  record: DialogueRecord,
  scenario: Pick<Scenario, "language" | "hiddenIntention">,
  judges: NamedJudges,
  options: { signal?: AbortSignal; fresh?: boolean } = {},
): Promise<Judgements> {
  const judged: Judgements = { ecs: {}, hid: {} };
  if (record.status !== "done") return judged;
  for (const { name, judge } of judges.ecs) {
    const previous = options.fresh === true ? undefined : record.ecs?.[name];
    judged.ecs[name] = await judgeEcs(
      record,
      judge,
      scenario.language,
      options.signal,
      ecsJudgementFailed(previous) ? previous : undefined,
    );
  }
  for (const { name, judge } of judges.hid)
    judged.hid[name] = await judgeHid(record, judge, scenario.hiddenIntention.text, scenario.language, options.signal);
  return judged;
}

/** The record with new judgements laid over its own, judge by judge. */
export function withNewJudgements(record: DialogueRecord, judged: Judgements): DialogueRecord {
  const ecs = Object.keys(judged.ecs).length > 0 ? { ecs: { ...(record.ecs ?? {}), ...judged.ecs } } : {};
  const hid = Object.keys(judged.hid).length > 0 ? { hid: { ...(record.hid ?? {}), ...judged.hid } } : {};
  return { ...record, ...ecs, ...hid };
}
