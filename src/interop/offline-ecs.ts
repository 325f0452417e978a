import type { DialogueRecord } from "../core/dialogue.js";
import { OfflineEcsJudge } from "../judges/offline-ecs-judge.js";
import { judgeEcs } from "../judges/apply-judge.js";
import { detectLanguage } from "../lexicon/lexicon.js";

export const OFFLINE_ECS_JUDGE_NAME = "offline-lexicon";

/** Adds the offline ECS judge's scores to records that carry no ECS yet (imported SAGE dialogues). */
export async function withOfflineEcs(records: readonly DialogueRecord[]): Promise<DialogueRecord[]> {
  const judge = new OfflineEcsJudge();
  const judged: DialogueRecord[] = [];
  for (const record of records) {
    if (record.status !== "done" || (record.ecs !== undefined && Object.keys(record.ecs).length > 0)) {
      judged.push(record);
      continue;
    }
    const ecs = await judgeEcs(record, judge, detectLanguage(record.opening.text));
    judged.push({ ...record, ecs: { [OFFLINE_ECS_JUDGE_NAME]: ecs } });
  }
  return judged;
}
