import { loadLexicon, MOVE_IDS, type LexicalMove, type Lexicon } from "./lexicon.js";
import { heldOutVoices, loadMoveCorpus, SENTENCE_CLASSES, type CorpusVoice, type SentenceClass } from "./move-corpus.js";
import { memoByText } from "./memo.js";
import { screenOf } from "./pattern-screen.js";
import { sentenceFeatures, stemWord } from "./sentence-features.js";
import { shippedWordClusters } from "./word-clusters.js";
import {
  defaultModelPath,
  readSavedRecogniser,
  recogniserKey,
  savedRecogniser,
  writeSavedRecogniser,
  type SavedRecogniser,
} from "./recogniser-model-file.js";
import { DEFAULT_TRAINING, SoftmaxClassifier, type LabelledExample, type TrainingOptions } from "./softmax-classifier.js";

/** What the recogniser hears in one sentence. */
export interface SentenceReading {
  /** The most likely class and its probability. */
  best: SentenceClass;
  probability: number;
  /** Every class with its probability, most likely first (only those above 1%). */
  ranked: ReadonlyArray<{ label: SentenceClass; probability: number }>;
  /** Share of the sentence's features seen in training: a sentence of words never seen is not heard. */
  knownShare: number;
}

/** A trained recogniser: a classifier over sentence features, with its memo of sentences read. */
export interface MoveRecogniser {
  read(sentence: string): SentenceReading;
  /** The corpus files it was trained on. */
  trainedOn: readonly string[];
  /**
   * Is this word (lowercase English, or a Han bigram) common in the training corpus (in at least
   * COMMON_IN sentences)? Common words are the vocabulary of what replies do; the rest is topic.
   */
  knowsWord(word: string): boolean;
}

/** A word in at least this many corpus sentences is part of the vocabulary of moves, not of topics. */
export const COMMON_IN = 3;

/**
 * The features of a sentence: its words and characters with the shipped word clusters
 * (sentence-features.ts, word-clusters.ts), and one feature for
 * each lexicon move whose patterns match it (both languages' lexicons), so the lexicon's curated
 * phrases are evidence whose weight the classifier learns from the corpus.
 */
export function recogniserFeatures(sentence: string): string[] {
  const features = sentenceFeatures(sentence, shippedWordClusters());
  for (const { anyMove, moves } of moveScreens()) {
    // Most sentences match no pattern of a lexicon at all: one scan says so, instead of one per move.
    if (!anyMove(sentence)) continue;
    for (const { move, matches } of moves) if (matches(sentence)) features.push(`LEX_${move}`);
  }
  return features;
}

/**
 * Per lexicon (English, then Chinese): does any pattern of any move match (one scan), and per move
 * in MOVE_IDS order, does any of its patterns match? The first is true exactly when one of the
 * second is (pattern-screen.ts), so asking it first changes no feature.
 */
let screened:
  Array<{ anyMove: (text: string) => boolean; moves: Array<{ move: LexicalMove; matches: (text: string) => boolean }> }> | undefined;
function moveScreens(): NonNullable<typeof screened> {
  screened ??= ([loadLexicon("en"), loadLexicon("zh")] as Lexicon[]).map((lexicon) => ({
    anyMove: screenOf(MOVE_IDS.flatMap((move) => lexicon.moves[move])),
    moves: MOVE_IDS.map((move) => ({ move, matches: screenOf(lexicon.moves[move]) })),
  }));
  return screened;
}

export function examplesOf(voices: readonly CorpusVoice[]): LabelledExample[] {
  const examples: LabelledExample[] = [];
  for (const { corpus } of voices) {
    for (const label of SENTENCE_CLASSES) {
      for (const sentence of corpus.sentences[label] ?? [])
        examples.push({ features: recogniserFeatures(sentence), label: SENTENCE_CLASSES.indexOf(label) });
    }
  }
  return examples;
}

/** What a recogniser is made of: the classifier and the features common in its corpus. */
interface RecogniserModel {
  classifier: SoftmaxClassifier;
  /** Word and Han-bigram features in at least COMMON_IN training sentences. */
  commonFeatures: ReadonlySet<string>;
  trainedOn: readonly string[];
}

/**
 * Trains a recogniser on these corpus files (deterministic: same files and options, same model).
 * Other options than the shipped ones measure how much a figure owes to them (bench/validity.ts
 * trains the shipped corpus with other visiting-order seeds).
 */
export function trainRecogniser(voices: readonly CorpusVoice[], options: TrainingOptions = DEFAULT_TRAINING): MoveRecogniser {
  return recogniserOf(trainModel(voices, options));
}

function trainModel(voices: readonly CorpusVoice[], options: TrainingOptions = DEFAULT_TRAINING): RecogniserModel {
  const examples = examplesOf(voices);
  const classifier = SoftmaxClassifier.train(examples, SENTENCE_CLASSES.length, options);
  const sentencesWith = new Map<string, number>();
  for (const example of examples)
    for (const feature of new Set(example.features)) sentencesWith.set(feature, (sentencesWith.get(feature) ?? 0) + 1);
  const commonFeatures = new Set<string>();
  for (const [feature, count] of sentencesWith)
    if (count >= COMMON_IN && (feature.startsWith("W_") || feature.startsWith("C2_"))) commonFeatures.add(feature);
  return { classifier, commonFeatures, trainedOn: voices.map((voice) => voice.file) };
}

function recogniserOf(model: RecogniserModel): MoveRecogniser {
  const { classifier, commonFeatures } = model;
  const knowsWord = (word: string) => commonFeatures.has(/^[a-z]/.test(word) ? `W_${stemWord(word)}` : `C2_${word}`);
  const read = memoByText((sentence: string): SentenceReading => {
    const { probabilities, knownShare } = classifier.predict(recogniserFeatures(sentence));
    const ranked = SENTENCE_CLASSES.map((label, index) => ({ label, probability: probabilities[index] as number }))
      .filter((entry) => entry.probability >= 0.01)
      .sort((a, b) => b.probability - a.probability);
    const top = ranked[0] ?? { label: "off_topic" as SentenceClass, probability: 0 };
    return { best: top.label, probability: top.probability, ranked, knownShare };
  });
  return { read, trainedOn: model.trainedOn, knowsWord };
}

let shipped: MoveRecogniser | undefined;

/**
 * The offline user's recogniser: trained on every corpus file under data/move-corpus/ except the
 * held-out ones (data/move-corpus/held-out.yaml), which only measure it. Once per process
 * (memoised), and loaded from the model the build saved when its key matches (training takes
 * seconds; recogniser-model-file.ts).
 */
export function shippedRecogniser(): MoveRecogniser {
  if (shipped === undefined) {
    const key = recogniserKey(DEFAULT_TRAINING);
    const saved = readSavedRecogniser(defaultModelPath(), key);
    shipped = recogniserOf(saved !== undefined ? modelOfSaved(saved) : trainShipped());
  }
  return shipped;
}

/** Trains the shipped recogniser and saves it at `path` (the build's step; returns the key). */
export function saveShippedRecogniser(path: string = defaultModelPath()): string {
  const key = recogniserKey(DEFAULT_TRAINING);
  const model = trainShipped();
  writeSavedRecogniser(path, savedRecogniser(key, [...model.trainedOn], [...model.commonFeatures], model.classifier.toSnapshot()));
  return key;
}

function trainShipped(): RecogniserModel {
  return trainModel(shippedCorpus());
}

/** The corpus files the shipped recogniser trains on: every one but the held-out voices. */
export function shippedCorpus(): CorpusVoice[] {
  const heldOut = new Set(heldOutVoices());
  return loadMoveCorpus().filter((voice) => !heldOut.has(voice.file));
}

/** A recogniser from a saved model (what shippedRecogniser does when the key matches). */
export function recogniserFromSaved(saved: SavedRecogniser): MoveRecogniser {
  return recogniserOf(modelOfSaved(saved));
}

function modelOfSaved(saved: SavedRecogniser): RecogniserModel {
  return {
    classifier: SoftmaxClassifier.fromSnapshot(saved.classifier),
    commonFeatures: new Set(saved.commonFeatures),
    trainedOn: saved.trainedOn,
  };
}
