/**
 * The offline user's move recogniser (src/lexicon/move-recogniser.ts) measured on phrasings never
 * used to build it: the held-out voices of data/move-corpus/held-out.yaml, one per language, each
 * written by a different helper from the voices the shipped model trains on. A sentence counts as
 * recognised as class c when c is the recogniser's best class at the reader's `heard` threshold
 * (data/offline-user/reading.yaml). The per-class table is printed (docs/offline-user.md quotes it);
 * the floors pin macro precision and recall per language, and harm recall (contempt, dismissing
 * and pressuring), a little below the measured figures.
 */
import { describe, expect, it } from "vitest";
import { HARM_CLASSES, heldOutVoices, loadMoveCorpus, SENTENCE_CLASSES, type SentenceClass } from "../src/lexicon/move-corpus.js";
import { shippedRecogniser } from "../src/lexicon/move-recogniser.js";
import { loadReadingThresholds } from "../src/simulated-user/read-reply.js";

const FLOORS: Record<string, { precision: number; recall: number; harmRecall: number }> = {
  "en/second-language.yaml": { precision: 0.85, recall: 0.8, harmRecall: 0.75 },
  "zh/zh-netizen.yaml": { precision: 0.78, recall: 0.68, harmRecall: 0.75 },
};

describe("move recognition on held-out voices", () => {
  const recogniser = shippedRecogniser();
  const heard = loadReadingThresholds().heard;
  const heldOut = heldOutVoices();

  it("holds out one voice per language, and never trains on it", () => {
    expect(heldOut.some((file) => file.startsWith("en/"))).toBe(true);
    expect(heldOut.some((file) => file.startsWith("zh/"))).toBe(true);
    for (const file of heldOut) expect(recogniser.trainedOn).not.toContain(file);
    expect(Object.keys(FLOORS).sort()).toEqual([...heldOut].sort());
  });

  it.each(Object.keys(FLOORS))("%s: macro precision and recall, and harm recall, stay above their floors", (file) => {
    const voice = loadMoveCorpus().find((candidate) => candidate.file === file)!;
    const truePositive = new Map<SentenceClass, number>();
    const predicted = new Map<SentenceClass, number>();
    const actual = new Map<SentenceClass, number>();
    const bump = (map: Map<SentenceClass, number>, label: SentenceClass) => map.set(label, (map.get(label) ?? 0) + 1);
    for (const label of SENTENCE_CLASSES) {
      for (const sentence of voice.corpus.sentences[label] ?? []) {
        bump(actual, label);
        const reading = recogniser.read(sentence);
        if (reading.probability < heard) continue;
        bump(predicted, reading.best);
        if (reading.best === label) bump(truePositive, label);
      }
    }
    const rows = SENTENCE_CLASSES.filter((label) => (actual.get(label) ?? 0) > 0).map((label) => ({
      label,
      precision: (truePositive.get(label) ?? 0) / Math.max(1, predicted.get(label) ?? 0),
      recall: (truePositive.get(label) ?? 0) / (actual.get(label) ?? 1),
      n: actual.get(label) ?? 0,
    }));
    console.log(
      `${file}\n${rows.map((row) => `${row.label.padEnd(18)} P ${row.precision.toFixed(2)} R ${row.recall.toFixed(2)} (n ${row.n})`).join("\n")}`,
    );
    const macro = (key: "precision" | "recall") => rows.reduce((sum, row) => sum + row[key], 0) / rows.length;
    const harm = rows.filter((row) => (HARM_CLASSES as readonly string[]).includes(row.label));
    console.log(
      `${file}: macro precision ${macro("precision").toFixed(3)}, macro recall ${macro("recall").toFixed(3)}, harm recall ${harm.map((row) => row.recall.toFixed(2)).join(" / ")}`,
    );
    expect(rows.length).toBe(SENTENCE_CLASSES.length);
    expect(macro("precision")).toBeGreaterThanOrEqual(FLOORS[file]!.precision);
    expect(macro("recall")).toBeGreaterThanOrEqual(FLOORS[file]!.recall);
    expect(harm.map((row) => row.label).sort()).toEqual([...HARM_CLASSES].sort());
    for (const row of harm) expect(row.recall, row.label).toBeGreaterThanOrEqual(FLOORS[file]!.harmRecall);
  });
});
