import type { Adjustment } from "../core/dialogue.js";
import type { Detector, DetectorFinding, DetectorInput } from "./detector.js";
import { emptyReply } from "./empty-reply.js";
import { formulaicComfort } from "./formulaic-comfort.js";
import { injection, injectionChange } from "./injection.js";
import { repetition } from "./repetition.js";

/** The detectors applied to every agent reply, in the order their findings are recorded. */
export const DEFAULT_DETECTORS: readonly Detector[] = [formulaicComfort, repetition, injection, emptyReply];

/** Findings that override the simulated user: the turn's whole change is forced to -D (or -10 without a clamp). */
export const FORCING_FINDINGS: ReadonlySet<DetectorFinding["id"]> = new Set(["injection", "empty_reply"]);

export interface AdjustmentResult {
  findings: DetectorFinding[];
  adjustments: Adjustment[];
  /** Sum of the additive adjustments (injection and empty replies are handled by forcing the change). */
  total: number;
  injected: boolean;
  /** A finding of FORCING_FINDINGS fired: see {@link forceChange}. */
  forced: boolean;
}

/** Runs the detectors on one reply. */
export function computeAdjustments(input: DetectorInput, detectors: readonly Detector[] = DEFAULT_DETECTORS): AdjustmentResult {
  // NFKC first: full-width letters and other look-alikes must not slip an injection past the patterns.
  const normalised: DetectorInput = { ...input, reply: input.reply.normalize("NFKC"), userText: input.userText.normalize("NFKC") };
  const findings = detectors.map((detector) => detector(normalised)).filter((finding): finding is DetectorFinding => finding !== null);
  return {
    findings,
    adjustments: findings.map((finding) => ({ kind: finding.id, value: finding.value, evidence: finding.evidence })),
    total: findings.reduce((sum, finding) => sum + finding.value, 0),
    injected: findings.some((finding) => finding.id === "injection"),
    forced: findings.some((finding) => FORCING_FINDINGS.has(finding.id)),
  };
}

/**
 * The adjustments of a turn and their sum, once a forcing finding (injection, empty reply) has
 * overridden the simulated user: the first forcing adjustment is given the value that makes the
 * simulator's change plus every adjustment add up to the forced change, so the recorded parts still
 * explain the emotion's move. Without a forcing finding the adjustments are returned as they are.
 */
export function forceChange(
  result: AdjustmentResult,
  simulatorDelta: number,
  clamp: number | null,
): { adjustments: Adjustment[]; total: number } {
  if (!result.forced) return { adjustments: result.adjustments, total: result.total };
  const forced = injectionChange(clamp);
  const override = forced - simulatorDelta - result.total;
  const first = result.adjustments.findIndex((adjustment) => FORCING_FINDINGS.has(adjustment.kind as DetectorFinding["id"]));
  return {
    adjustments: result.adjustments.map((adjustment, index) => (index === first ? { ...adjustment, value: override } : adjustment)),
    total: forced - simulatorDelta,
  };
}
