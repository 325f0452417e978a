/**
 * The classifier's prediction deduplicates its features without building a Set of them (a stamp
 * per vocabulary index); it must give what the Set-based prediction gave, to the bit, since the
 * offline user's thresholds compare these probabilities. The reference below is that prediction,
 * computed from the classifier's own snapshot.
 */
import { describe, expect, it } from "vitest";
import { loadValidityCorpus } from "../src/agents/validity-corpus-agent.js";
import { loadMoveCorpus, SENTENCE_CLASSES } from "../src/lexicon/move-corpus.js";
import { examplesOf, recogniserFeatures } from "../src/lexicon/move-recogniser.js";
import { splitSentences } from "../src/lexicon/sentences.js";
import { type ClassifierSnapshot, DEFAULT_TRAINING, SoftmaxClassifier } from "../src/lexicon/softmax-classifier.js";

/** The prediction as it was: the distinct features in a Set, looked up in its insertion order. */
function setBasedPrediction(
  snapshot: ClassifierSnapshot,
): (features: readonly string[]) => { probabilities: number[]; knownShare: number } {
  const vocabulary = new Map(snapshot.vocabulary.map((feature, index) => [feature, index]));
  const weights = snapshot.weights;
  const bias = snapshot.bias;
  const classes = snapshot.classCount;
  return (features) => {
    const known: number[] = [];
    const distinct = new Set(features);
    for (const feature of distinct) {
      const index = vocabulary.get(feature);
      if (index !== undefined) known.push(index);
    }
    const scores = new Float64Array(classes);
    for (const index of known)
      for (let k = 0; k < classes; k += 1) scores[k] = (scores[k] as number) + (weights[index * classes + k] as number);
    const scale = 1 / Math.sqrt(Math.max(1, distinct.size));
    for (let k = 0; k < classes; k += 1) scores[k] = (scores[k] as number) * scale + (bias[k] as number);
    let max = Number.NEGATIVE_INFINITY;
    for (const value of scores) max = Math.max(max, value);
    let sum = 0;
    for (let k = 0; k < classes; k += 1) {
      const exp = Math.exp((scores[k] as number) - max);
      scores[k] = exp;
      sum += exp;
    }
    for (let k = 0; k < classes; k += 1) scores[k] = (scores[k] as number) / sum;
    return { probabilities: [...scores], knownShare: distinct.size === 0 ? 0 : known.length / distinct.size };
  };
}

describe("SoftmaxClassifier.predict", () => {
  // A small model trained here (two corpus files, 3 epochs): the comparison needs a real vocabulary, not the shipped model's seconds of training.
  const voices = loadMoveCorpus().slice(0, 2);
  const classifier = SoftmaxClassifier.train(examplesOf(voices), SENTENCE_CLASSES.length, { ...DEFAULT_TRAINING, epochs: 3 });
  const reference = setBasedPrediction(classifier.toSnapshot());

  it("gives the Set-based probabilities to the bit on every move-corpus sentence and every validity-corpus sentence", () => {
    const corpusSentences = loadMoveCorpus().flatMap((voice) => Object.values(voice.corpus.sentences).flat());
    const validitySentences = loadValidityCorpus().flatMap((file) =>
      Object.values(file.replies)
        .flat()
        .flatMap((reply) => splitSentences(reply).map((sentence) => sentence.own)),
    );
    const texts = [...corpusSentences, ...validitySentences];
    expect(validitySentences.length).toBeGreaterThan(500);
    let unknownSeen = 0;
    for (const text of texts) {
      const features = recogniserFeatures(text);
      const expected = reference(features);
      const got = classifier.predict(features);
      if (expected.knownShare < 1) unknownSeen += 1;
      expect(got.knownShare).toBe(expected.knownShare);
      expect([...got.probabilities]).toEqual(expected.probabilities);
    }
    // Sentences outside the two training files carry features the model never saw: the unknown path is exercised.
    expect(unknownSeen).toBeGreaterThan(1000);
  });

  it("counts a repeated feature once and an empty feature list as nothing known", () => {
    const features = recogniserFeatures("I hear how unfair that was, and it makes sense you are angry.");
    const doubled = [...features, ...features, "NEVER_SEEN_FEATURE", "NEVER_SEEN_FEATURE"];
    expect([...classifier.predict(doubled).probabilities]).toEqual(reference(doubled).probabilities);
    expect(classifier.predict(doubled).knownShare).toBe(reference(doubled).knownShare);
    expect(classifier.predict([]).knownShare).toBe(0);
    expect([...classifier.predict([]).probabilities]).toEqual(reference([]).probabilities);
  });
});
