/**
 * Standard normal distribution: cdf, survival function and quantile.
 *
 * Used by the normal approximations of Mann-Whitney and Wilcoxon and by the Wilson interval.
 * The complementary error function is computed from the incomplete gamma function
 * Q(½, x²) (series below x² = 1.5, Lentz continued fraction above, Numerical Recipes §6.2),
 * which needs no table of fitted coefficients and is accurate to about 1e-15 relative, so
 * p-values far in the tails (1e-300) keep their digits. Tested against `scipy.special.ndtr`
 * and `ndtri` in normal.test.ts.
 */

// Nearest doubles to √π and √(2π) (Math.sqrt of the rounded π is one ulp off).
const SQRT_PI = 1.772453850905516;
const SQRT_2PI = 2.5066282746310007;
const SQRT1_2 = Math.SQRT1_2;
/** Below x² = a + 1 = 1.5 the series for the lower incomplete gamma converges fastest. */
const SERIES_LIMIT = Math.sqrt(1.5);
const EPSILON = 1e-17;
const MAX_TERMS = 10_000;
const TINY = 1e-300;

/**
 * e^(−x²) with the rounding error of x² removed: x is split into a part with 7 fractional
 * bits (whose square is exact) and a small remainder. Without this, e^(−x²) loses
 * about x²·2⁻⁵³ relative accuracy, i.e. 1e-13 at x = 26.
 */
function expMinusSquare(x: number): number {
  const head = Math.round(x * 128) / 128;
  const tail = x - head;
  return Math.exp(-head * head) * Math.exp(-tail * (2 * head + tail));
}

/** erf(x) for 0 ≤ x < √1.5 by the series erf(x) = 2x/√π · e^(−x²) · Σ (2x²)ⁿ / (2n+1)!!, all terms positive. */
function erfSeries(x: number): number {
  const twoXSquared = 2 * x * x;
  let term = 1;
  let sum = 1;
  for (let n = 1; n < MAX_TERMS; n++) {
    term *= twoXSquared / (2 * n + 1);
    sum += term;
    if (term < sum * EPSILON) break;
  }
  return ((2 * x) / SQRT_PI) * expMinusSquare(x) * sum;
}

/** erfc(x) for x ≥ √1.5 as Q(½, x²) by the modified Lentz continued fraction (Numerical Recipes `gcf`). */
function erfcContinuedFraction(x: number): number {
  const xSquared = x * x;
  const a = 0.5;
  let b = xSquared + 1 - a;
  let c = 1 / TINY;
  let d = 1 / b;
  let h = d;
  for (let i = 1; i < MAX_TERMS; i++) {
    const an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (Math.abs(d) < TINY) d = TINY;
    c = b + an / c;
    if (Math.abs(c) < TINY) c = TINY;
    d = 1 / d;
    const delta = d * c;
    h *= delta;
    if (Math.abs(delta - 1) < EPSILON) break;
  }
  // Q(a, X) = e^(−X) X^a / Γ(a) · h with X = x², a = ½, Γ(½) = √π.
  return (expMinusSquare(x) * x * h) / SQRT_PI;
}

/** Complementary error function erfc(x) = 1 − erf(x), accurate in relative terms for large x. */
export function erfc(x: number): number {
  if (Number.isNaN(x)) return Number.NaN;
  if (x < 0) return 2 - erfc(-x);
  if (x === Infinity) return 0;
  if (x < SERIES_LIMIT) return 1 - erfSeries(x);
  return erfcContinuedFraction(x);
}

/** Standard normal cdf Φ(z) = P(Z ≤ z); accurate in relative terms for very negative z. */
export function normalCdf(z: number): number {
  return 0.5 * erfc(-z * SQRT1_2);
}

/** Standard normal survival function 1 − Φ(z) = P(Z > z); accurate in relative terms for large z. */
export function normalSf(z: number): number {
  return 0.5 * erfc(z * SQRT1_2);
}

/** Standard normal density φ(z). */
export function normalPdf(z: number): number {
  return Math.exp(-0.5 * z * z) / SQRT_2PI;
}

/**
 * Quantile of the lower tail, p ≤ ½: a rough rational start (Abramowitz & Stegun 26.2.23,
 * error < 4.5e-4) polished by Halley steps on Φ(z) − p, which converge cubically to full precision.
 */
function lowerQuantile(p: number): number {
  const t = Math.sqrt(-2 * Math.log(p));
  let z = -(t - (2.515517 + 0.802853 * t + 0.010328 * t * t) / (1 + 1.432788 * t + 0.189269 * t * t + 0.001308 * t * t * t));
  for (let iteration = 0; iteration < 8; iteration++) {
    const step = (normalCdf(z) - p) / normalPdf(z);
    const next = z - step / (1 + (z * step) / 2);
    if (Math.abs(next - z) <= 1e-15 * Math.abs(next)) return next;
    z = next;
  }
  return z;
}

/**
 * Standard normal quantile Φ⁻¹(p), matching `scipy.special.ndtri` / `scipy.stats.norm.ppf`.
 * Returns −∞ at 0, +∞ at 1 and NaN outside [0, 1].
 */
export function normalQuantile(p: number): number {
  if (Number.isNaN(p) || p < 0 || p > 1) return Number.NaN;
  if (p === 0) return -Infinity;
  if (p === 1) return Infinity;
  if (p === 0.5) return 0;
  // For p > ½, 1 − p is exact in floating point (Sterbenz), so the upper tail loses nothing.
  return p < 0.5 ? lowerQuantile(p) : -lowerQuantile(1 - p);
}
