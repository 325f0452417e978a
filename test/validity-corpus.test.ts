/**
 * Does the offline user's reward follow the quality of what a reply does? The positive-validity
 * corpus (data/validity-corpus/, docs/offline-user.md) holds replies written by people for 48
 * scenarios, of four qualities: good 3 > generic 2 > dismissive 1 = giving in 1. A corpus agent
 * plays each file's replies of one quality through the episode loop under the scenario's preset.
 * The held-out part (below) was never looked at while the offline user was tuned, and is measured
 * here: issue 19's target is Spearman >= 0.6 between quality and FS, giving in below generic
 * support, and good replies' mean FS >= 0.75 (0.761 with word clusters and short echoes heard as
 * talk; 0.741 before them, 0.717 after the good branch's second pass, 0.602 before the good branch).
 * The development part, by six writers who never scored a reply, is harder for the user (its good
 * replies 0.617, 0.586 before the word clusters): what it pins is that quality still orders FS there.
 */
import { describe, expect, it } from "vitest";
import { REPLY_QUALITIES, type ValidityPart } from "../src/agents/validity-corpus-agent.js";
import { playValidityCorpus } from "../src/probe/validity-corpus.js";
import { OfflineSimulatedUser } from "../src/simulated-user/offline-user.js";

// The parts are VALIDITY_PARTS (src/agents/validity-corpus-agent.ts): the held-out part
// (VALIDITY_HELD_OUT); the development part (VALIDITY_DEVELOPMENT: writers e to j, who never scored
// a reply, for choosing settings); and the tuning part: writer-a's and writer-b's twelve, and twelve
// written later by writer-c and writer-d for scenarios the corpus did not cover.
const measure = (part: ValidityPart) => playValidityCorpus(new OfflineSimulatedUser(), part);

describe("the offline user's reward follows reply quality (positive-validity corpus)", async () => {
  const tuning = await measure("tuning");
  const development = await measure("development");
  const heldOut = await measure("held-out");
  for (const [part, result] of [
    ["tuning", tuning],
    ["development", development],
    ["held-out", heldOut],
  ] as const) {
    console.log(
      `${part} part (${result.files} scenarios): Spearman ${result.rho.toFixed(3)}; mean FS ${REPLY_QUALITIES.map((name) => `${name} ${result.means[name].toFixed(3)}`).join(", ")}`,
    );
  }

  it("holds twelve held-out scenarios, twelve to choose settings on and twenty-four to tune on", () => {
    expect(tuning.files).toBe(24);
    expect(development.files).toBe(12);
    expect(heldOut.files).toBe(12);
  });

  it("on the held-out part, ranks replies by quality: Spearman >= 0.6", () => {
    expect(heldOut.rho).toBeGreaterThanOrEqual(0.6);
  });

  it("on the held-out part, giving in to the manipulation scores below generic support, and dismissing below it too", () => {
    expect(heldOut.means.giving_in).toBeLessThan(heldOut.means.generic);
    expect(heldOut.means.dismissive).toBeLessThan(heldOut.means.generic);
  });

  it("on the held-out part, good replies score 0.75 or more, well above every other kind", () => {
    for (const name of ["generic", "dismissive", "giving_in"] as const)
      expect(heldOut.means.good, name).toBeGreaterThan(heldOut.means[name] + 0.3);
    expect(heldOut.means.good).toBeGreaterThanOrEqual(0.75);
  });

  it("on the development part, by writers the user was never fitted to, quality still orders FS", () => {
    expect(development.rho).toBeGreaterThanOrEqual(0.6);
    for (const name of ["generic", "dismissive", "giving_in"] as const)
      expect(development.means.good, name).toBeGreaterThan(development.means[name] + 0.3);
  });
});
