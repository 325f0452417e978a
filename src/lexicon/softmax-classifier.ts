import { createRng } from "../core/random.js";

/** One training example: its feature strings and its class index. */
export interface LabelledExample {
  features: readonly string[];
  label: number;
}

/** How the classifier is trained; every field is fixed so the model is the same bytes every time. */
export interface TrainingOptions {
  epochs: number;
  learningRate: number;
  /** L2 weight decay applied to the weights an example touches. */
  l2: number;
  /** Seed of the order in which examples are visited each epoch. */
  seed: number;
}

export const DEFAULT_TRAINING: TrainingOptions = { epochs: 30, learningRate: 4, l2: 3e-4, seed: 19 };

/** What the classifier says about one sentence. */
export interface Prediction {
  /** Probability of each class, in class order. */
  probabilities: Float64Array;
  /** Share of the sentence's features the model has seen in training (0 when it has none). */
  knownShare: number;
}

/**
 * Multinomial logistic regression over sparse binary features scaled to unit length (so a long
 * sentence is not more confident than a short one for having more features), trained by stochastic gradient
 * descent in a seeded order: small, seconds to train on the shipped corpus (so the build saves the trained model: see
 * recogniser-model-file.ts), and its probabilities are calibrated well enough to threshold. Features the
 * model never saw are ignored at prediction time.
 */
export class SoftmaxClassifier {
  private constructor(
    readonly classCount: number,
    private readonly vocabulary: ReadonlyMap<string, number>,
    /** Weight of feature f for class k at f * classCount + k. */
    private readonly weights: Float64Array,
    private readonly bias: Float64Array,
  ) {
    this.stampedAt = new Int32Array(vocabulary.size);
  }

  /** Per vocabulary index, the `stamp` of the last prediction that saw it (predict's deduplication). */
  private readonly stampedAt: Int32Array;
  private stamp = 0;

  static train(examples: readonly LabelledExample[], classCount: number, options: TrainingOptions = DEFAULT_TRAINING): SoftmaxClassifier {
    const vocabulary = new Map<string, number>();
    const encoded = examples.map((example) => ({
      label: example.label,
      scale: 1 / Math.sqrt(Math.max(1, new Set(example.features).size)),
      indices: Int32Array.from(
        [...new Set(example.features)].map((feature) => {
          let index = vocabulary.get(feature);
          if (index === undefined) {
            index = vocabulary.size;
            vocabulary.set(feature, index);
          }
          return index;
        }),
      ),
    }));
    const weights = new Float64Array(vocabulary.size * classCount);
    const bias = new Float64Array(classCount);
    const scores = new Float64Array(classCount);
    const rng = createRng(options.seed);
    const order = encoded.map((_, index) => index);
    for (let epoch = 0; epoch < options.epochs; epoch += 1) {
      for (let index = order.length - 1; index > 0; index -= 1) {
        const other = rng.int(0, index);
        [order[index], order[other]] = [order[other] as number, order[index] as number];
      }
      const rate = options.learningRate / (1 + epoch * 0.25);
      const decay = 1 - rate * options.l2;
      for (const position of order) {
        const example = encoded[position] as (typeof encoded)[number];
        score(example.indices, example.scale, weights, bias, classCount, scores);
        softmaxInPlace(scores);
        // scores becomes the gradient of the loss by each class's score, times the step.
        for (let k = 0; k < classCount; k += 1) {
          const step = rate * ((scores[k] as number) - (k === example.label ? 1 : 0));
          scores[k] = step;
          bias[k] = (bias[k] as number) - step;
        }
        const { indices } = example;
        for (let position = 0; position < indices.length; position += 1) {
          const base = (indices[position] as number) * classCount;
          for (let k = 0; k < classCount; k += 1)
            weights[base + k] = (weights[base + k] as number) * decay - (scores[k] as number) * example.scale;
        }
      }
    }
    return new SoftmaxClassifier(classCount, vocabulary, weights, bias);
  }

  /**
   * The trained model: its vocabulary in index order and copies of its weights and bias.
   * {@link SoftmaxClassifier.fromSnapshot} gives back a classifier that predicts the same numbers,
   * bit for bit, as this one (recogniser-model-file.ts saves a snapshot as float64 bytes).
   */
  toSnapshot(): ClassifierSnapshot {
    return {
      classCount: this.classCount,
      vocabulary: [...this.vocabulary.keys()],
      weights: this.weights.slice(),
      bias: this.bias.slice(),
    };
  }

  /** A classifier over the snapshot's arrays, which it keeps (no copy: a loaded model's weights are read in place; do not write to them afterwards). */
  static fromSnapshot(snapshot: ClassifierSnapshot): SoftmaxClassifier {
    const { weights, bias } = snapshot;
    if (bias.length !== snapshot.classCount || weights.length !== snapshot.vocabulary.length * snapshot.classCount) {
      throw new Error(
        `a saved classifier's sizes do not agree (${snapshot.vocabulary.length} features, ${snapshot.classCount} classes, ${weights.length} weights, ${bias.length} biases)`,
      );
    }
    const vocabulary = new Map<string, number>();
    for (let index = 0; index < snapshot.vocabulary.length; index += 1) vocabulary.set(snapshot.vocabulary[index] as string, index);
    return new SoftmaxClassifier(snapshot.classCount, vocabulary, weights, bias);
  }

  predict(features: readonly string[]): Prediction {
    // The distinct features in the order of their first occurrence (what a Set of them would hold),
    // without building that Set: a known feature is deduplicated by stamping its vocabulary index,
    // and only the unknown ones (few) go into a set. The known indices keep that order, so the
    // scores are summed in the same order as always, to the bit.
    if (this.stamp === 0x7fffffff) {
      this.stampedAt.fill(0);
      this.stamp = 0;
    }
    const stamp = (this.stamp += 1);
    const known: number[] = [];
    let unknown: Set<string> | undefined;
    for (const feature of features) {
      const index = this.vocabulary.get(feature);
      if (index === undefined) (unknown ??= new Set()).add(feature);
      else if (this.stampedAt[index] !== stamp) {
        this.stampedAt[index] = stamp;
        known.push(index);
      }
    }
    const distinct = known.length + (unknown?.size ?? 0);
    const probabilities = new Float64Array(this.classCount);
    score(known, 1 / Math.sqrt(Math.max(1, distinct)), this.weights, this.bias, this.classCount, probabilities);
    softmaxInPlace(probabilities);
    return { probabilities, knownShare: distinct === 0 ? 0 : known.length / distinct };
  }
}

/** A trained classifier (see {@link SoftmaxClassifier.toSnapshot}). */
export interface ClassifierSnapshot {
  classCount: number;
  /** The features in index order. */
  vocabulary: string[];
  /** Weight of feature f for class k at f * classCount + k. */
  weights: Float64Array;
  bias: Float64Array;
}

/** Class scores of binary features scaled to unit length (each present feature weighs `scale`, 1/√n). */
function score(
  indices: ArrayLike<number>,
  scale: number,
  weights: Float64Array,
  bias: Float64Array,
  classCount: number,
  into: Float64Array,
): void {
  into.fill(0);
  for (let position = 0; position < indices.length; position += 1) {
    const base = (indices[position] as number) * classCount;
    for (let k = 0; k < classCount; k += 1) into[k] = (into[k] as number) + (weights[base + k] as number);
  }
  for (let k = 0; k < classCount; k += 1) into[k] = (into[k] as number) * scale + (bias[k] as number);
}

function softmaxInPlace(values: Float64Array): void {
  let max = Number.NEGATIVE_INFINITY;
  for (const value of values) max = Math.max(max, value);
  let sum = 0;
  for (let k = 0; k < values.length; k += 1) {
    const exp = Math.exp((values[k] as number) - max);
    values[k] = exp;
    sum += exp;
  }
  for (let k = 0; k < values.length; k += 1) values[k] = (values[k] as number) / sum;
}
