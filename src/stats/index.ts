/**
 * AEB statistics: the tests and intervals used to compare conditions in benchmark reports,
 * each matching a named SciPy (or statsmodels) function; see docs/statistics.md.
 */
export { StatsInputError } from "./errors.js";

// Tests and intervals.
export {
  bootstrapMeanCI,
  bootstrapStatisticCI,
  type BootstrapMeanResult,
  type BootstrapOptions,
  type BootstrapStatisticResult,
} from "./bootstrap.js";
export { wilsonInterval } from "./wilson.js";
export { mannWhitneyU, type MannWhitneyResult } from "./mann-whitney.js";
export { wilcoxonSignedRank, type WilcoxonResult } from "./wilcoxon.js";
export { mcnemarExact, mcnemarFromPairs, type McNemarResult } from "./mcnemar.js";
export { holmAdjust } from "./holm.js";
export { ols, olsTerm, INTERCEPT, type OlsPredictor, type OlsResult, type OlsTerm } from "./ols.js";
export { lengthConfound, type ConditionEffect, type LengthConfoundResult } from "./length-confound.js";
export { spearman, type SpearmanResult } from "./spearman.js";
export { pearson, type PearsonResult } from "./pearson.js";
export { kendallTauB, type KendallResult } from "./kendall.js";

// Building blocks.
export { averageRanks, tieCorrectionSum, type Ranking } from "./ranks.js";
export { erfc, normalCdf, normalPdf, normalQuantile, normalSf } from "./normal.js";
export { studentTCdf, studentTSf, studentTTwoSidedP } from "./student-t.js";
export { binomialCdf } from "./binomial.js";
export { incompleteBeta, logBeta, logGamma, type IncompleteBeta } from "./special-functions.js";
