/**
 * How much of the positive-validity figures (test/validity-corpus.test.ts, docs/offline-user.md)
 * belongs to the recogniser's training seed and options. The recogniser is trained by stochastic
 * gradient descent in a seeded visiting order for a set number of epochs, which is early stopping
 * rather than an unfinished approach to one model (docs/offline-user.md, "Seeds, epochs and
 * convergence"), so another seed gives another model on the same corpus, and the held-out part's
 * good-reply mean moves by up to about 0.03 with it. This plays the corpus's parts with the shipped
 * model (seed 19, the shipped options) and with the same corpus trained under other seeds and epoch
 * counts, and prints each model's figures and, per epoch count, their mean and range over seeds.
 *
 * Settings are chosen on the development part (data written for that, by writers who never scored a
 * reply), never on the held-out part: `--parts tuning,development` leaves the held-out part unplayed.
 *
 *   npm run bench:validity                                   # seeds 19,7,23,41,5, shipped epochs, all parts
 *   npm run bench:validity -- --seeds 19,3 --epochs 30,200 --l2 3e-4,1e-3 --parts tuning,development
 */
import { cpus } from "node:os";
import { parseArgs } from "node:util";
import { REPLY_QUALITIES, VALIDITY_PARTS, type ReplyQuality, type ValidityPart } from "../src/agents/validity-corpus-agent.js";
import { shippedCorpus, shippedRecogniser, trainRecogniser, type MoveRecogniser } from "../src/lexicon/move-recogniser.js";
import { DEFAULT_TRAINING } from "../src/lexicon/softmax-classifier.js";
import { playValidityCorpus, type ValidityFigures } from "../src/probe/validity-corpus.js";
import { OfflineSimulatedUser } from "../src/simulated-user/offline-user.js";

type PartFigures = Pick<ValidityFigures, "rho" | "means">;

const fail = (message: string): never => {
  process.stderr.write(`bench:validity: ${message}\n`);
  process.exit(2);
};

const { values } = parseArgs({
  options: {
    seeds: { type: "string", default: `${DEFAULT_TRAINING.seed},7,23,41,5` },
    epochs: { type: "string", default: String(DEFAULT_TRAINING.epochs) },
    l2: { type: "string", default: String(DEFAULT_TRAINING.l2) },
    parts: { type: "string", default: VALIDITY_PARTS.join(",") },
  },
});

const integers = (flag: string, text: string, least: number) =>
  text.split(",").map((item) => {
    const value = Number(item);
    if (item.trim() === "" || !Number.isInteger(value) || value < least)
      fail(
        `--${flag}: "${item}" is not an integer >= ${least}; give a comma-separated list, e.g. --${flag} ${flag === "seeds" ? "19,7,23" : "30,200"}`,
      );
    return value;
  });
const seeds = integers("seeds", values.seeds, 0);
const epochCounts = integers("epochs", values.epochs, 1);
const decays = values.l2.split(",").map((item) => {
  const value = Number(item);
  if (item.trim() === "" || !Number.isFinite(value) || value < 0)
    fail(`--l2: "${item}" is not a weight decay >= 0; give a comma-separated list, e.g. --l2 3e-4,1e-3`);
  return value;
});
const parts = values.parts.split(",").map((item) => {
  if (!(VALIDITY_PARTS as readonly string[]).includes(item))
    fail(`--parts: "${item}" is not a part; the parts are ${VALIDITY_PARTS.join(", ")}`);
  return item as ValidityPart;
});

const mean = (numbers: readonly number[]) => numbers.reduce((sum, value) => sum + value, 0) / numbers.length;
const line = (figures: PartFigures) =>
  `Spearman ${figures.rho.toFixed(3)}; ${REPLY_QUALITIES.map((name) => `${name} ${figures.means[name].toFixed(3)}`).join(", ")}`;
const isShipped = (seed: number, epochs: number, l2: number) =>
  seed === DEFAULT_TRAINING.seed && epochs === DEFAULT_TRAINING.epochs && l2 === DEFAULT_TRAINING.l2;

process.stdout.write(
  `positive-validity corpus, parts ${parts.join(", ")}, over recogniser training seeds ${seeds.join(", ")}, epochs ${epochCounts.join(", ")} and weight decays ${decays.join(", ")} (${cpus().length} CPUs; one process)\n`,
);
for (const l2 of decays)
  for (const epochs of epochCounts) {
    const setting = `epochs ${epochs}, l2 ${l2}`;
    const results: Array<Map<ValidityPart, PartFigures>> = [];
    for (const seed of seeds) {
      const started = performance.now();
      const recogniser: MoveRecogniser = isShipped(seed, epochs, l2)
        ? shippedRecogniser()
        : trainRecogniser(shippedCorpus(), { ...DEFAULT_TRAINING, seed, epochs, l2 });
      const trainedIn = (performance.now() - started) / 1000;
      const figures = new Map<ValidityPart, PartFigures>();
      for (const part of parts) figures.set(part, await playValidityCorpus(new OfflineSimulatedUser({ recogniser }), part));
      results.push(figures);
      process.stdout.write(
        `${setting}, seed ${seed}${isShipped(seed, epochs, l2) ? " (shipped)" : ` (trained in ${trainedIn.toFixed(1)} s)`}\n`,
      );
      for (const part of parts) process.stdout.write(`  ${part.padEnd(11)} ${line(figures.get(part)!)}\n`);
    }
    for (const part of parts) {
      const good = results.map((figures) => figures.get(part)!.means.good);
      const summary: PartFigures = {
        rho: mean(results.map((figures) => figures.get(part)!.rho)),
        means: Object.fromEntries(
          REPLY_QUALITIES.map((name) => [name, mean(results.map((figures) => figures.get(part)!.means[name]))]),
        ) as Record<ReplyQuality, number>,
      };
      process.stdout.write(
        `${setting}, mean over ${results.length} seeds, ${part}: ${line(summary)} (good ranges ${Math.min(...good).toFixed(3)}-${Math.max(...good).toFixed(3)})\n`,
      );
    }
  }
