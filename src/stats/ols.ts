/**
 * Ordinary least squares with an intercept: coefficients, classical standard errors,
 * t statistics, two-sided p-values and R².
 *
 * Fitted by Householder QR of the design matrix rather than by inverting XᵀX, so nearly
 * collinear predictors lose about half as many digits. The inference is the textbook one
 * (homoscedastic errors): σ̂² = RSS/(n − p), Cov(β̂) = σ̂²(XᵀX)⁻¹ = σ̂²R⁻¹R⁻ᵀ, t = β̂/SE,
 * p = 2·P(T_{n−p} > |t|). This is what `scipy.stats.linregress` reports for one predictor
 * and what statsmodels OLS reports in general; tests compare against numpy.linalg.lstsq
 * with these formulas (ols.test.ts).
 */
import { StatsInputError } from "./errors.js";
import { studentTTwoSidedP } from "./student-t.js";
import { requireFiniteSample } from "./validate.js";

/** One explanatory variable: a name for the result table and one value per observation. */
export interface OlsPredictor {
  name: string;
  values: readonly number[];
}

/** Estimate and inference for one coefficient. */
export interface OlsTerm {
  /** "intercept" or the predictor's name. */
  name: string;
  coefficient: number;
  standardError: number;
  /** coefficient / standardError. */
  t: number;
  /** Two-sided p-value from Student t with `residualDf` degrees of freedom. */
  p: number;
}

export interface OlsResult {
  /** The intercept first, then one term per predictor in the order given. */
  terms: OlsTerm[];
  /** 1 − RSS/TSS; NaN when y is constant (TSS = 0). */
  rSquared: number;
  /** n − (number of predictors + 1). */
  residualDf: number;
  n: number;
  /** √(RSS/residualDf), the estimated error standard deviation. */
  residualStandardError: number;
}

/** Name of the constant term in `OlsResult.terms`. */
export const INTERCEPT = "intercept";

/**
 * A column counts as collinear with the columns before it when less than this fraction of its
 * norm lies outside their span. Exact collinearity leaves ~1e-16; real data is far above 1e-10.
 */
const COLLINEARITY_TOLERANCE = 1e-10;

/** Fits y = β₀ + Σ βⱼ·predictorⱼ + ε by least squares. */
export function ols(y: readonly number[], predictors: readonly OlsPredictor[]): OlsResult {
  requireFiniteSample(y, "ols: y");
  const names = [INTERCEPT, ...predictors.map((predictor) => predictor.name)];
  if (new Set(names).size !== names.length) {
    throw new StatsInputError(`ols: predictor names must be unique and not "${INTERCEPT}", but got ${JSON.stringify(names.slice(1))}`);
  }
  for (const predictor of predictors) {
    requireFiniteSample(predictor.values, `ols: predictor "${predictor.name}"`);
    if (predictor.values.length !== y.length) {
      throw new StatsInputError(`ols: predictor "${predictor.name}" has ${predictor.values.length} values but y has ${y.length}`);
    }
  }
  const n = y.length;
  const p = names.length;
  if (n <= p) {
    throw new StatsInputError(`ols: ${p} coefficients need more than ${p} observations to estimate the error, but there are ${n}`);
  }

  const columns = [new Array<number>(n).fill(1), ...predictors.map((predictor) => [...predictor.values])];
  const { r, qtY } = householderQr(
    columns.map((column) => [...column]),
    [...y],
    names,
  );
  const coefficients = solveUpperTriangular(r, qtY.slice(0, p));

  let rss = 0;
  for (let i = 0; i < n; i++) {
    let fitted = 0;
    for (let j = 0; j < p; j++) fitted += (coefficients[j] as number) * (columns[j]?.[i] as number);
    rss += ((y[i] as number) - fitted) ** 2;
  }
  const residualDf = n - p;
  const sigmaSquared = rss / residualDf;

  // diag((XᵀX)⁻¹) = row sums of squares of R⁻¹.
  const rInverse = invertUpperTriangular(r);
  const terms = names.map((name, j) => {
    const row = rInverse[j] as number[];
    const variance = sigmaSquared * row.reduce((sum, value) => sum + value * value, 0);
    const coefficient = coefficients[j] as number;
    const standardError = Math.sqrt(variance);
    const t = coefficient / standardError;
    return { name, coefficient, standardError, t, p: studentTTwoSidedP(t, residualDf) };
  });

  const mean = y.reduce((sum, value) => sum + value, 0) / n;
  const tss = y.reduce((sum, value) => sum + (value - mean) ** 2, 0);
  return { terms, rSquared: 1 - rss / tss, residualDf, n, residualStandardError: Math.sqrt(sigmaSquared) };
}

/** The term called `name` in an OLS result; throws if there is none. */
export function olsTerm(result: OlsResult, name: string): OlsTerm {
  const term = result.terms.find((candidate) => candidate.name === name);
  if (term === undefined) throw new StatsInputError(`olsTerm: no term named "${name}" in this fit`);
  return term;
}

/**
 * Householder QR of the n×p matrix given as `columns` (overwritten), applied to `y` as well.
 * Returns R (p×p, upper triangular, as rows) and Qᵀy. Throws StatsInputError naming the first
 * column that is (numerically) a linear combination of the previous ones.
 */
function householderQr(columns: number[][], y: number[], names: readonly string[]): { r: number[][]; qtY: number[] } {
  const n = y.length;
  const p = columns.length;
  const originalNorms = columns.map((column) => Math.sqrt(column.reduce((sum, value) => sum + value * value, 0)));
  for (let k = 0; k < p; k++) {
    const column = columns[k] as number[];
    let normSquared = 0;
    for (let i = k; i < n; i++) normSquared += (column[i] as number) ** 2;
    const norm = Math.sqrt(normSquared);
    if (!(norm > COLLINEARITY_TOLERANCE * (originalNorms[k] as number))) {
      throw new StatsInputError(
        `ols: design matrix is rank deficient: predictor "${names[k]}" is constant or a linear combination of the intercept and the predictors before it`,
      );
    }
    // Reflect column k onto alpha·e_k; choosing alpha's sign opposite to the pivot avoids cancellation.
    const pivot = column[k] as number;
    const alpha = pivot >= 0 ? -norm : norm;
    const v = column.slice(k);
    v[0] = pivot - alpha;
    const vNormSquared = v.reduce((sum, value) => sum + value * value, 0);
    const reflect = (target: number[]): void => {
      let dot = 0;
      for (let i = 0; i < v.length; i++) dot += (v[i] as number) * (target[k + i] as number);
      const scale = (2 * dot) / vNormSquared;
      for (let i = 0; i < v.length; i++) target[k + i] = (target[k + i] as number) - scale * (v[i] as number);
    };
    for (let j = k; j < p; j++) reflect(columns[j] as number[]);
    reflect(y);
  }
  const r = Array.from({ length: p }, (_, i) => Array.from({ length: p }, (_, j) => (j >= i ? (columns[j]?.[i] as number) : 0)));
  return { r, qtY: y };
}

/** Solves R·x = b for upper triangular R by back substitution. */
function solveUpperTriangular(r: number[][], b: number[]): number[] {
  const p = b.length;
  const x = new Array<number>(p).fill(0);
  for (let i = p - 1; i >= 0; i--) {
    let sum = b[i] as number;
    for (let j = i + 1; j < p; j++) sum -= (r[i]?.[j] as number) * (x[j] as number);
    x[i] = sum / (r[i]?.[i] as number);
  }
  return x;
}

/** R⁻¹ for upper triangular R, column by column (R·X = I). */
function invertUpperTriangular(r: number[][]): number[][] {
  const p = r.length;
  const inverse = Array.from({ length: p }, () => new Array<number>(p).fill(0));
  for (let column = 0; column < p; column++) {
    const unit = Array.from({ length: p }, (_, i) => (i === column ? 1 : 0));
    solveUpperTriangular(r, unit).forEach((value, row) => {
      (inverse[row] as number[])[column] = value;
    });
  }
  return inverse;
}
