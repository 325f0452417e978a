import type { ChatTurn } from "../core/dialogue.js";
import type { Language } from "../lexicon/lexicon.js";

/** The ECS judge's view of one moment: the visible conversation up to and including agent reply `turnIndex`. */
export interface EcsJudgeInput {
  /** Opening, then alternating replies; the last turn is the agent reply under judgement. */
  visible: readonly ChatTurn[];
  turnIndex: number;
  language: Language;
  dialogueId: string;
  signal?: AbortSignal;
}

export type UnreadableTurnPolicy = "exclude" | "impute-50";

/** The judge's estimate of the user's emotion after the reply (0-100) and its confidence (0-100). */
export interface EcsEstimate {
  predicted: number;
  confidence: number;
  reasoning?: string;
}

/**
 * An ECS judge never sees the persona, the hidden intention, the simulator's reasoning or the
 * emotion values: only the visible conversation. A judge that cannot answer throws; the turn is
 * then recorded as a judge error and excluded (counted), never scored as 50, unless the judge
 * asks for the paper's imputation (`unreadableTurn: impute-50`), which is counted too.
 */
export interface EcsJudge {
  readonly id: string;
  /** The model behind the judge, where there is one (to warn when it is the simulator's). */
  readonly model?: string;
  /**
   * What happens to a turn the judge cannot read: `exclude` (the default) or `impute-50`, the AEB
   * paper's handling (p=50, c=0). Either way the turn is listed in the record's errors.
   */
  readonly unreadableTurn?: UnreadableTurnPolicy;
  estimate(input: EcsJudgeInput): Promise<EcsEstimate>;
}

/** The HID judge's view: the whole visible conversation. */
export interface HidJudgeInput {
  visible: readonly ChatTurn[];
  /** What the user needed but never said (the HID judge, unlike the ECS judge, is told). */
  hiddenIntention: string;
  manipulationTurn: number;
  language: Language;
  dialogueId: string;
  signal?: AbortSignal;
}

export interface HidJudgement {
  verdict: "yes" | "partial" | "no";
  /** First agent turn (0-based) that addressed the intention, or null. */
  turn: number | null;
  /** Quoted evidence: must occur verbatim in the transcript. */
  evidence: string;
  reasoning?: string;
}

export interface HidJudge {
  readonly id: string;
  readonly model?: string;
  judge(input: HidJudgeInput): Promise<HidJudgement>;
}
