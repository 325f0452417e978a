/**
 * How much of the positive-validity figures (test/validity-corpus.test.ts, docs/offline-user.md)
 * belongs to the shipped recogniser's training seed. The recogniser is trained by stochastic
 * gradient descent in a seeded visiting order for 30 epochs, which is early stopping rather than an
 * unfinished approach to one model (docs/offline-user.md, "Seeds, epochs and convergence"), so another seed
 * gives another model on the same corpus, and the held-out half's good-reply mean moves by up to about
 * 0.03 with it. This plays both halves of the corpus with the shipped model (seed 19) and with
 * the same corpus trained under other seeds, and prints each seed's figures, their mean and range.
 *
 *   npm run bench:validity                # seeds 19,7,23,41,5
 *   npm run bench:validity -- 19,3,11     # other seeds
 */
import { cpus } from "node:os";
import { REPLY_QUALITIES, type ReplyQuality } from "../src/agents/validity-corpus-agent.js";
import { shippedCorpus, shippedRecogniser, trainRecogniser, type MoveRecogniser } from "../src/lexicon/move-recogniser.js";
import { DEFAULT_TRAINING } from "../src/lexicon/softmax-classifier.js";
import { playValidityCorpus, type ValidityFigures } from "../src/probe/validity-corpus.js";
import { OfflineSimulatedUser } from "../src/simulated-user/offline-user.js";

type HalfFigures = Pick<ValidityFigures, "rho" | "means">;

const seeds = (process.argv[2] ?? `${DEFAULT_TRAINING.seed},7,23,41,5`).split(",").map((text) => {
  const seed = Number(text);
  if (text.trim() === "" || !Number.isInteger(seed)) {
    process.stderr.write(`bench:validity: "${text}" is not an integer seed; give seeds as a comma-separated list, e.g. 19,7,23\n`);
    process.exit(2);
  }
  return seed;
});

const mean = (values: readonly number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
const playHalf = (recogniser: MoveRecogniser, heldOut: boolean) => playValidityCorpus(new OfflineSimulatedUser({ recogniser }), heldOut);

const line = (figures: HalfFigures) =>
  `Spearman ${figures.rho.toFixed(3)}; ${REPLY_QUALITIES.map((name) => `${name} ${figures.means[name].toFixed(3)}`).join(", ")}`;

process.stdout.write(`positive-validity corpus over recogniser training seeds ${seeds.join(", ")} (${cpus().length} CPUs; one process)\n`);
const results: Array<{ seed: number; tuning: HalfFigures; heldOut: HalfFigures }> = [];
for (const seed of seeds) {
  const recogniser = seed === DEFAULT_TRAINING.seed ? shippedRecogniser() : trainRecogniser(shippedCorpus(), { ...DEFAULT_TRAINING, seed });
  const tuning = await playHalf(recogniser, false);
  const heldOut = await playHalf(recogniser, true);
  results.push({ seed, tuning, heldOut });
  process.stdout.write(
    `seed ${seed}${seed === DEFAULT_TRAINING.seed ? " (shipped)" : ""}\n  tuning   ${line(tuning)}\n  held-out ${line(heldOut)}\n`,
  );
}
for (const half of ["tuning", "heldOut"] as const) {
  const good = results.map((result) => result[half].means.good);
  const summary: HalfFigures = {
    rho: mean(results.map((result) => result[half].rho)),
    means: Object.fromEntries(REPLY_QUALITIES.map((name) => [name, mean(results.map((result) => result[half].means[name]))])) as Record<
      ReplyQuality,
      number
    >,
  };
  process.stdout.write(
    `mean over ${results.length} seeds, ${half === "heldOut" ? "held-out" : "tuning"}: ${line(summary)} (good ranges ${Math.min(...good).toFixed(3)}-${Math.max(...good).toFixed(3)})\n`,
  );
}
