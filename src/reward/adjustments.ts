import type { Adjustment } from "../core/dialogue.js";
import type { Detector, DetectorFinding, DetectorInput } from "./detector.js";
import { formulaicComfort } from "./formulaic-comfort.js";
import { injection } from "./injection.js";
import { repetition } from "./repetition.js";

/** The detectors applied to every agent reply, in the order their findings are recorded. */
export const DEFAULT_DETECTORS: readonly Detector[] = [formulaicComfort, repetition, injection];

export interface AdjustmentResult {
  findings: DetectorFinding[];
  adjustments: Adjustment[];
  /** Sum of the additive adjustments (injection is handled by forcing the change). */
  total: number;
  injected: boolean;
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
  };
}
