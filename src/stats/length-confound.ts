/**
 * Is a difference in FS between two conditions explained by response length?
 *
 * Longer replies often score higher with LLM judges, so a condition that makes the agent
 * more verbose can look better for that reason alone. This fits two OLS models on the pooled
 * dialogues of both conditions:
 *
 *   unadjusted: FS ~ 1 + condition
 *   adjusted:   FS ~ 1 + condition + z(length)
 *
 * where condition is 0 for A and 1 for B and z(length) is the length standardized over the
 * pooled data with the population SD (ddof = 0, like `scipy.stats.zscore`). The condition
 * coefficient is the B − A difference in mean FS; if it shrinks towards 0 (and its p grows)
 * once length is in the model, the effect is at least partly a length effect. Standardizing
 * does not change the condition estimate or its p-value; it only makes the length
 * coefficient read as "FS change per SD of length".
 */
import { ols, olsTerm } from "./ols.js";
import { StatsInputError } from "./errors.js";
import { requireFiniteSample } from "./validate.js";

/** The condition (B vs A) coefficient of one model. */
export interface ConditionEffect {
  /** Estimated FS difference B − A (holding standardized length fixed in the adjusted model). */
  coefficient: number;
  standardError: number;
  /** Two-sided p-value of the coefficient (Student t). */
  p: number;
}

export interface LengthConfoundResult {
  /** FS ~ condition. */
  unadjusted: ConditionEffect;
  /** FS ~ condition + z(length), plus the length coefficient itself (FS change per SD of length). */
  adjusted: ConditionEffect & { lengthCoefficient: number; lengthP: number };
}

const CONDITION = "condition";
const LENGTH = "lengthZ";

/**
 * Condition effect on FS with and without adjusting for length. `fsA[i]` and `lengthA[i]`
 * describe the same dialogue of condition A; likewise for B.
 *
 * Throws StatsInputError when the adjusted model cannot be fitted: all lengths equal (length
 * cannot confound anything and cannot be standardized), or length perfectly separating the
 * conditions in a linear way (the two effects cannot be told apart).
 */
export function lengthConfound(
  fsA: readonly number[],
  fsB: readonly number[],
  lengthA: readonly number[],
  lengthB: readonly number[],
): LengthConfoundResult {
  requireFiniteSample(fsA, "lengthConfound: fsA");
  requireFiniteSample(fsB, "lengthConfound: fsB");
  requireFiniteSample(lengthA, "lengthConfound: lengthA");
  requireFiniteSample(lengthB, "lengthConfound: lengthB");
  if (fsA.length !== lengthA.length || fsB.length !== lengthB.length) {
    throw new StatsInputError(
      `lengthConfound: each FS needs its length, but fsA/lengthA have ${fsA.length}/${lengthA.length} and fsB/lengthB have ${fsB.length}/${lengthB.length} values`,
    );
  }
  const fs = [...fsA, ...fsB];
  const condition = [...fsA.map(() => 0), ...fsB.map(() => 1)];
  const lengths = [...lengthA, ...lengthB];
  const mean = lengths.reduce((sum, value) => sum + value, 0) / lengths.length;
  const sd = Math.sqrt(lengths.reduce((sum, value) => sum + (value - mean) ** 2, 0) / lengths.length);
  if (sd === 0) {
    throw new StatsInputError("lengthConfound: all lengths are equal, so length cannot be standardized or adjusted for");
  }
  const lengthZ = lengths.map((value) => (value - mean) / sd);

  const unadjustedFit = ols(fs, [{ name: CONDITION, values: condition }]);
  let adjustedFit;
  try {
    adjustedFit = ols(fs, [
      { name: CONDITION, values: condition },
      { name: LENGTH, values: lengthZ },
    ]);
  } catch (error) {
    if (error instanceof StatsInputError && error.message.includes("rank deficient")) {
      throw new StatsInputError("lengthConfound: length is a linear function of the condition, so their effects cannot be separated");
    }
    throw error;
  }
  const pick = (fit: typeof unadjustedFit): ConditionEffect => {
    const { coefficient, standardError, p } = olsTerm(fit, CONDITION);
    return { coefficient, standardError, p };
  };
  const length = olsTerm(adjustedFit, LENGTH);
  return {
    unadjusted: pick(unadjustedFit),
    adjusted: { ...pick(adjustedFit), lengthCoefficient: length.coefficient, lengthP: length.p },
  };
}
