#!/usr/bin/env python3
"""Write src/stats/fixtures/scipy-vectors.json: reference values for AEB's statistics module.

Every case pairs an input with what SciPy (and NumPy) return for it, so the TypeScript
tests in src/stats/*.test.ts can check that each function matches its SciPy counterpart.
Where the reference library is not installed here (statsmodels), the value is computed
from the published formula with SciPy's building blocks, as noted beside each section.

Run from the repository root:

    python3 scripts/make-stats-vectors.py

Inputs are drawn from numpy.random.default_rng with fixed seeds, so the file only changes
when this script or the SciPy/NumPy versions change. JSON has no NaN or Infinity: NaN is
written as null and the tests read null back as NaN.
"""

from __future__ import annotations

import json
import math
import sys
import warnings
from pathlib import Path

import numpy as np
import scipy
from scipy import special, stats

sys.path.insert(0, str(Path(__file__).resolve().parent))
from aeb_random import Mulberry32  # noqa: E402

OUTPUT = Path(__file__).resolve().parent.parent / "src" / "stats" / "fixtures" / "scipy-vectors.json"


def num(value):
    """A float for JSON: NaN becomes null, infinities become the strings "Infinity"/"-Infinity"."""
    value = float(value)
    if math.isnan(value):
        return None
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    return value


def nums(values):
    return [num(v) for v in values]


def quiet(call):
    """Run a SciPy call without printing the warnings it raises for degenerate inputs."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return call()


rng = np.random.default_rng(20240917)


def fs_like(size, step=0.1):
    """Scores in [0, 1] on a coarse grid, the shape of AEB's per-dialogue FS values: many ties."""
    return list(np.round(np.round(rng.uniform(0, 1, size) / step) * step, 10))


def rounded(values, decimals=6):
    return [float(v) for v in np.round(np.asarray(values, dtype=float), decimals)]


# --------------------------------------------------------------------------------------
# ranks: scipy.stats.rankdata(method="average") and the tie-group sizes in sorted order
# --------------------------------------------------------------------------------------

def tie_groups(values):
    _, counts = np.unique(np.asarray(values, dtype=float), return_counts=True)
    return [int(c) for c in counts]


rank_inputs = {
    "no ties": [3.0, 1.0, 2.0],
    "one tie pair": [10.0, 20.0, 10.0, 30.0],
    "all equal": [5.0, 5.0, 5.0, 5.0],
    "single value": [42.0],
    "negative and zero": [-1.5, 0.0, -1.5, 2.0, 0.0, 0.0],
    "fs-like grid": fs_like(25),
    "random normal": rounded(rng.normal(0, 1, 40), 1),
}
ranks = [
    {"name": name, "values": values, "ranks": nums(stats.rankdata(values)), "tieGroups": tie_groups(values)}
    for name, values in rank_inputs.items()
]

# --------------------------------------------------------------------------------------
# distribution helpers: scipy.special / scipy.stats
# --------------------------------------------------------------------------------------

normal = [
    {"z": z, "cdf": num(special.ndtr(z)), "sf": num(special.ndtr(-z))}
    for z in [-38.0, -20.0, -8.5, -5.0, -3.2, -1.959963984540054, -1.0, -0.3, -1e-5, 0.0, 1e-8,
              0.25, 0.7, 1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 6.0, 10.0, 25.0, 37.5]
]
normal_quantile = [
    {"p": p, "z": num(special.ndtri(p))}
    for p in [1e-300, 1e-20, 1e-10, 1e-5, 0.001, 0.025, 0.05, 0.1, 0.3, 0.5, 0.6, 0.9, 0.975, 0.999, 1 - 1e-10]
]
student_t = []
for df in [1, 2, 3, 4, 5, 7, 10, 17, 30, 58, 100, 1000, 100000]:
    for t in [-40.0, -6.0, -2.5, -1.0, -0.1, 0.0, 0.3, 1.2, 2.0, 3.7, 8.0, 25.0, 1e4]:
        student_t.append({"t": t, "df": df, "cdf": num(stats.t.cdf(t, df)), "sf": num(stats.t.sf(t, df))})
binomial = []
for n, ks in [(1, [0, 1]), (5, [0, 1, 2, 4, 5]), (20, [0, 3, 9, 10, 15]), (101, [0, 10, 49, 50, 60]),
              (1000, [0, 400, 480, 499, 520, 999]), (5000, [2300, 2450, 2499])]:
    for k in ks:
        for p in [0.5, 0.1, 0.73]:
            binomial.append({"k": k, "n": n, "p": p, "cdf": num(stats.binom.cdf(k, n, p))})
log_gamma = [{"x": x, "value": num(special.gammaln(x))}
             for x in [1e-8, 0.1, 0.5, 1.0, 1.5, 2.0, 2.5, 3.7, 9.99, 10.0, 10.5, 33.3, 100.0, 1234.5, 1e6]]
incomplete_beta = []
for a, b in [(0.5, 0.5), (0.5, 5.0), (5.0, 0.5), (1.0, 1.0), (2.0, 3.0), (15.0, 0.5), (50.0, 50.0),
             (500.0, 0.5), (40.0, 60.0), (1000.0, 1001.0), (3.3, 250.0)]:
    for x in [1e-6, 0.01, 0.2, 0.5, 0.77, 0.95, 0.999]:
        incomplete_beta.append({"x": x, "a": a, "b": b, "value": num(special.betainc(a, b, x))})

# --------------------------------------------------------------------------------------
# Mann-Whitney U: scipy.stats.mannwhitneyu(x, y) with all defaults
# --------------------------------------------------------------------------------------

def mwu_branch(x, y):
    """The branch method='auto' takes in this SciPy: exact unless both samples exceed 8 or there are ties."""
    n1, n2 = len(x), len(y)
    has_ties = len(np.unique(np.concatenate([x, y]))) < n1 + n2
    if n1 > 8 and n2 > 8:
        return "asymptotic"
    return "asymptotic" if has_ties else "exact"


def mann_whitney_case(name, x, y):
    x = [float(v) for v in x]
    y = [float(v) for v in y]
    result = quiet(lambda: stats.mannwhitneyu(x, y))
    branch = mwu_branch(x, y)
    # Check the branch rule against SciPy itself: the explicit method must give the same p.
    explicit = quiet(lambda: stats.mannwhitneyu(x, y, method=branch))
    assert explicit.pvalue == result.pvalue or (math.isnan(explicit.pvalue) and math.isnan(result.pvalue)), name
    n1, n2 = len(x), len(y)
    u1 = float(result.statistic)
    # SciPy does not report z; its p without continuity correction pins down |z| of the normal approximation.
    no_continuity = quiet(lambda: stats.mannwhitneyu(x, y, use_continuity=False, method="asymptotic"))
    return {"name": name, "x": x, "y": y, "u1": num(u1), "p": num(result.pvalue), "method": branch,
            "rankBiserial": num(2 * u1 / (n1 * n2) - 1), "pAsymptoticNoContinuity": num(no_continuity.pvalue)}


mann_whitney = [
    mann_whitney_case("scipy docs example (exact)", [19, 22, 16, 29, 24], [20, 11, 17, 12]),
    mann_whitney_case("n=1 each, no tie (exact)", [1], [2]),
    mann_whitney_case("n=1 each, tied (asymptotic, zero variance)", [1], [1]),
    mann_whitney_case("all equal, small", [3, 3, 3], [3, 3, 3, 3]),
    mann_whitney_case("all equal, large", [0.5] * 12, [0.5] * 10),
    mann_whitney_case("U at the centre (exact, p clipped to 1)", [1, 4], [2, 3]),
    mann_whitney_case("complete separation, n1=8 n2=40 (exact)", range(1, 9), range(9, 49)),
    mann_whitney_case("n1=8 n2=8 no ties (exact: 8 is not > 8)", rounded(rng.normal(0, 1, 8)),
                      rounded(rng.normal(0.8, 1, 8))),
    mann_whitney_case("n1=9 n2=9 no ties (asymptotic)", rounded(rng.normal(0, 1, 9)), rounded(rng.normal(0.8, 1, 9))),
    mann_whitney_case("n1=3 n2=60 no ties (exact)", rounded(rng.normal(1, 1, 3)), rounded(rng.normal(0, 1, 60))),
    mann_whitney_case("n1=7 n2=5 with ties (asymptotic)", [1, 2, 2, 3, 5, 5, 8], [2, 4, 5, 6, 9]),
    mann_whitney_case("negative numbers", rounded(rng.normal(-3, 2, 15)), rounded(rng.normal(-2, 2, 12))),
    mann_whitney_case("fs-like, many ties", fs_like(30), fs_like(40)),
    mann_whitney_case("fs-like quarter grid, first higher", list(np.minimum(1, np.array(fs_like(25, 0.25)) + 0.25)),
                      fs_like(25, 0.25)),
    mann_whitney_case("large n", rounded(rng.normal(0, 1, 200)), rounded(rng.normal(0.2, 1, 250))),
    mann_whitney_case("large n, second sample small (exact)", rounded(rng.normal(0, 1, 300)),
                      rounded(rng.normal(0.5, 1, 6))),
]

# --------------------------------------------------------------------------------------
# Wilcoxon signed-rank: scipy.stats.wilcoxon(x, y) with all defaults
# --------------------------------------------------------------------------------------

def wilcoxon_branch(d):
    """method='auto' in SciPy 1.17 (scipy/stats/_wilcoxon.py), decided on the full length of d."""
    d = np.asarray(d, dtype=float)
    if len(d) > 50:
        return "asymptotic"
    nonzero = np.abs(d[d != 0])
    has_ties = len(np.unique(nonzero)) < len(nonzero)
    has_zeros = bool(np.any(d == 0))
    if not (has_ties or has_zeros):
        return "exact"
    if len(d) <= 13:
        return "permutation"
    return "asymptotic"


def wilcoxon_case(name, x, y=None):
    x = [float(v) for v in x]
    y = None if y is None else [float(v) for v in y]
    d = np.asarray(x) - (0 if y is None else np.asarray(y))
    result = quiet(lambda: stats.wilcoxon(x, y))
    branch = wilcoxon_branch(d)
    if branch == "permutation":
        explicit = quiet(lambda: stats.wilcoxon(x, y, method=stats.PermutationMethod()))
    else:
        explicit = quiet(lambda: stats.wilcoxon(x, y, method=branch))
    assert (explicit.pvalue == result.pvalue) or (math.isnan(explicit.pvalue) and math.isnan(result.pvalue)), name
    nonzero = d[d != 0]
    n = len(nonzero)
    asymptotic = quiet(lambda: stats.wilcoxon(x, y, method="asymptotic"))
    ranks_abs = stats.rankdata(np.abs(nonzero)) if n else np.array([])
    r_plus = float(np.sum(ranks_abs[nonzero > 0]))
    r_minus = float(np.sum(ranks_abs[nonzero < 0]))
    return {
        "name": name, "x": x, **({} if y is None else {"y": y}),
        "statistic": num(result.statistic), "p": num(result.pvalue), "method": branch, "n": n,
        "rPlus": r_plus, "rMinus": r_minus,
        # SciPy reports z only for method='asymptotic', as -|z| (no continuity correction by default).
        "zAsymptotic": num(asymptotic.zstatistic),
        "matchedPairsRankBiserial": num((r_plus - r_minus) / (r_plus + r_minus)) if n else None,
    }


def no_ties(size, loc=0.3):
    """Differences with distinct magnitudes and no zeros (exact branch for size <= 50)."""
    while True:
        d = rounded(rng.normal(loc, 1, size), 6)
        if len(set(abs(v) for v in d)) == size and 0.0 not in d:
            return d


fs_a = fs_like(40)
fs_b = list(np.clip(np.round(np.array(fs_a) + np.round(rng.normal(0.05, 0.15, 40), 1), 10), 0, 1))
wilcoxon = [
    wilcoxon_case("n=1", [5.0]),
    wilcoxon_case("n=2, both positive", [1.0, 2.0]),
    wilcoxon_case("n=5 all positive (exact)", [1, 2, 3, 4, 5]),
    wilcoxon_case("n=10 no ties (exact)", no_ties(10)),
    wilcoxon_case("n=25 no ties, paired x and y (exact)", rounded(rng.normal(1, 1, 25)), rounded(rng.normal(1.4, 1, 25))),
    wilcoxon_case("n=50 no ties (exact: 50 is not > 50)", no_ties(50, 0.2)),
    wilcoxon_case("n=51 no ties (asymptotic)", no_ties(51, 0.35)),
    wilcoxon_case("n=120 no ties (asymptotic)", no_ties(120, 0.1)),
    wilcoxon_case("zeros, n=6 (permutation)", [0, 1, -2, 2, 3, 0.5]),
    wilcoxon_case("ties, n=8 (permutation)", [1, -1, 2, 2, 3, -3, 4, 5]),
    wilcoxon_case("zeros and ties, n=13 (permutation)", [0, 0, 1, 1, -1, 2, 3, 3, 3, -4, 5, 6, 7]),
    wilcoxon_case("ties, n=14 (asymptotic)", [1, -1, 2, 2, 3, -3, 4, 5, 6, 6, 7, -8, 9, 10]),
    wilcoxon_case("zeros, n=20 (asymptotic)", [0, 0, 0] + no_ties(17, 0.5)),
    wilcoxon_case("all zero, n=4 (permutation: p=1)", [0, 0, 0, 0]),
    wilcoxon_case("all zero, n=20 (asymptotic: p is NaN)", [0.0] * 20),
    wilcoxon_case("negative numbers, paired", rounded(rng.normal(-5, 1, 30)), rounded(rng.normal(-4.5, 1, 30))),
    wilcoxon_case("fs-like paired scores, many ties and zeros", fs_a, fs_b),
    wilcoxon_case("fs-like paired, n=12 (permutation)", fs_like(12), fs_like(12)),
    wilcoxon_case("roundoff in x - y", [0.3, 0.6, 0.9, 1.2, 1.5], [0.1, 0.4, 0.7, 1.0, 1.35]),
    wilcoxon_case("large with ties", list(np.round(rng.normal(0.1, 1, 300), 1))),
]

# --------------------------------------------------------------------------------------
# McNemar exact: statsmodels mcnemar(exact=True) == binomtest(min(b, c), b + c, 0.5)
# --------------------------------------------------------------------------------------

def mcnemar_case(b, c):
    n = b + c
    p = 1.0 if n == 0 else stats.binomtest(min(b, c), n, 0.5).pvalue
    return {"b": b, "c": c, "statistic": min(b, c), "p": num(p)}


mcnemar = [mcnemar_case(b, c) for b, c in [(0, 0), (0, 1), (0, 5), (5, 0), (3, 3), (1, 10), (4, 5), (7, 2),
                                            (20, 35), (100, 150), (60, 61), (1000, 1100), (2500, 2400)]]

# --------------------------------------------------------------------------------------
# Wilson interval: statsmodels proportion_confint(method="wilson"), formula written out
# --------------------------------------------------------------------------------------

def wilson_case(k, n, confidence=0.95):
    crit = stats.norm.isf((1 - confidence) / 2)
    q = k / n
    crit2 = crit ** 2
    denom = 1 + crit2 / n
    center = (q + crit2 / (2 * n)) / denom
    dist = crit * np.sqrt(q * (1.0 - q) / n + crit2 / (4.0 * n ** 2)) / denom
    return {"k": k, "n": n, "confidence": confidence, "low": num(center - dist), "high": num(center + dist)}


wilson = [wilson_case(k, n) for k, n in [(0, 1), (1, 1), (0, 10), (10, 10), (5, 10), (1, 3), (37, 120),
                                         (999, 1000), (1, 1000000), (450, 1000)]]
wilson += [wilson_case(7, 20, 0.9), wilson_case(7, 20, 0.99)]

# --------------------------------------------------------------------------------------
# Holm: statsmodels multipletests(method="holm"), from the definition
# adjusted p_(i) = max over j <= i of min(1, (m - j + 1) * p_(j)), p sorted ascending.
# --------------------------------------------------------------------------------------

def holm_by_definition(pvalues):
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: pvalues[i])
    adjusted = [0.0] * m
    for position, index in enumerate(order):
        adjusted[index] = max(min(1.0, (m - j) * pvalues[order[j]]) for j in range(position + 1))
    return adjusted


holm_inputs = [
    [0.01],
    [0.01, 0.02, 0.03],
    [0.01, 0.04, 0.03, 0.005],
    [0.04, 0.04, 0.01, 0.5],
    [0.0, 1.0, 0.2],
    [0.3, 0.2, 0.4, 0.6],
    [0.01, 0.011, 0.012, 0.5, 0.9],
    list(np.round(rng.uniform(0, 0.2, 12), 6)),
]
holm = [{"p": [float(v) for v in ps], "adjusted": holm_by_definition([float(v) for v in ps])} for ps in holm_inputs]

# --------------------------------------------------------------------------------------
# OLS with intercept: numpy.linalg.lstsq + classical standard errors, p from scipy.stats.t
# --------------------------------------------------------------------------------------

def ols_reference(y, predictors):
    y = np.asarray(y, dtype=float)
    x = np.column_stack([np.ones(len(y))] + [np.asarray(p["values"], dtype=float) for p in predictors])
    n, k = x.shape
    beta, *_ = np.linalg.lstsq(x, y, rcond=None)
    residuals = y - x @ beta
    rss = float(residuals @ residuals)
    df = n - k
    sigma2 = rss / df
    covariance = sigma2 * np.linalg.inv(x.T @ x)
    se = np.sqrt(np.diag(covariance))
    t = beta / se
    p = 2 * stats.t.sf(np.abs(t), df)
    tss = float(np.sum((y - y.mean()) ** 2))
    return {"coefficients": nums(beta), "standardErrors": nums(se), "t": nums(t), "p": nums(p),
            "rSquared": num(1 - rss / tss), "df": df}


def ols_case(name, y, predictors):
    y = [float(v) for v in y]
    predictors = [{"name": p["name"], "values": [float(v) for v in p["values"]]} for p in predictors]
    case = {"name": name, "y": y, "predictors": predictors, **ols_reference(y, predictors)}
    if len(predictors) == 1:
        # Cross-check the one-predictor fit against scipy.stats.linregress.
        lr = stats.linregress(predictors[0]["values"], y)
        assert abs(lr.slope - case["coefficients"][1]) < 1e-10, name
        assert abs(lr.stderr - case["standardErrors"][1]) < 1e-10, name
        assert abs(lr.pvalue - case["p"][1]) < 1e-10, name
        case["linregress"] = {"slope": num(lr.slope), "intercept": num(lr.intercept), "stderr": num(lr.stderr),
                              "interceptStderr": num(lr.intercept_stderr), "pvalue": num(lr.pvalue),
                              "rvalue": num(lr.rvalue)}
    return case


x_small = [1.0, 2.0, 3.0, 4.0, 5.0]
x_mid = rounded(rng.normal(0, 1, 40), 4)
x_two = rounded(rng.normal(3, 2, 40), 4)
ols = [
    ols_case("small simple regression", [2.1, 3.9, 6.2, 7.8, 10.1], [{"name": "x", "values": x_small}]),
    ols_case("three points (df=1)", [1.0, 3.0, 2.0], [{"name": "x", "values": [0.0, 1.0, 2.0]}]),
    ols_case("noisy simple regression", rounded(0.5 * np.array(x_mid) + rng.normal(0, 1, 40), 4),
             [{"name": "x", "values": x_mid}]),
    ols_case("two predictors", rounded(1 + 0.3 * np.array(x_mid) - 0.2 * np.array(x_two) + rng.normal(0, 0.5, 40), 4),
             [{"name": "x1", "values": x_mid}, {"name": "x2", "values": x_two}]),
    ols_case("no relation (slope near 0)", rounded(rng.normal(0, 1, 30), 4),
             [{"name": "x", "values": rounded(rng.normal(0, 1, 30), 4)}]),
]

# --------------------------------------------------------------------------------------
# lengthConfound: FS ~ condition and FS ~ condition + z(length), z over the pooled lengths
# --------------------------------------------------------------------------------------

def length_confound_case(name, fs_a, fs_b, length_a, length_b):
    fs_a, fs_b = [float(v) for v in fs_a], [float(v) for v in fs_b]
    length_a, length_b = [float(v) for v in length_a], [float(v) for v in length_b]
    y = fs_a + fs_b
    condition = [0.0] * len(fs_a) + [1.0] * len(fs_b)
    lengths = np.asarray(length_a + length_b)
    z = (lengths - lengths.mean()) / lengths.std()  # scipy.stats.zscore default: ddof=0
    unadjusted = ols_reference(y, [{"values": condition}])
    adjusted = ols_reference(y, [{"values": condition}, {"values": list(z)}])
    return {
        "name": name, "fsA": fs_a, "fsB": fs_b, "lengthA": length_a, "lengthB": length_b,
        "unadjusted": {"coefficient": unadjusted["coefficients"][1], "standardError": unadjusted["standardErrors"][1],
                       "p": unadjusted["p"][1]},
        "adjusted": {"coefficient": adjusted["coefficients"][1], "standardError": adjusted["standardErrors"][1],
                     "p": adjusted["p"][1], "lengthCoefficient": adjusted["coefficients"][2],
                     "lengthP": adjusted["p"][2]},
    }


len_a = list(np.round(rng.normal(120, 30, 35)))
len_b = list(np.round(rng.normal(170, 30, 30)))
fs_from_length = lambda lengths: list(np.clip(np.round(0.2 + 0.003 * np.array(lengths) + rng.normal(0, 0.1, len(lengths)), 1), 0, 1))
length_confound = [
    length_confound_case("B is longer and length drives FS", fs_from_length(len_a), fs_from_length(len_b), len_a, len_b),
    length_confound_case("lengths unrelated to condition", fs_like(25), list(np.minimum(1, np.array(fs_like(25)) + 0.1)),
                         list(np.round(rng.normal(150, 40, 25))), list(np.round(rng.normal(150, 40, 25)))),
    length_confound_case("tiny groups", [0.5, 0.7, 0.6], [0.9, 0.8], [100, 140, 120], [200, 150]),
]

# --------------------------------------------------------------------------------------
# Spearman: scipy.stats.spearmanr(x, y)
# --------------------------------------------------------------------------------------

def spearman_case(name, x, y):
    x, y = [float(v) for v in x], [float(v) for v in y]
    result = quiet(lambda: stats.spearmanr(x, y))
    return {"name": name, "x": x, "y": y, "rho": num(result.statistic), "p": num(result.pvalue)}


sx = rounded(rng.normal(0, 1, 60), 4)
spearman = [
    spearman_case("n=1 (undefined)", [1.0], [2.0]),
    spearman_case("n=2 (rho = 1, p undefined)", [1.0, 2.0], [1.0, 3.0]),
    spearman_case("n=3", [1, 2, 3], [1, 3, 2]),
    spearman_case("perfect monotone", [1, 2, 3, 4, 5], [2, 4, 8, 16, 32]),
    spearman_case("perfect inverse", [1, 2, 3, 4, 5, 6], [6, 5, 4, 3, 2, 1]),
    spearman_case("constant x (undefined)", [1, 1, 1, 1], [1, 2, 3, 4]),
    spearman_case("constant y (undefined)", [1, 2, 3, 4], [0.5, 0.5, 0.5, 0.5]),
    spearman_case("ties in both", [1, 2, 2, 3, 4, 4, 4, 5], [2, 1, 3, 3, 5, 4, 4, 6]),
    spearman_case("fs-like, many ties", fs_like(50), fs_like(50)),
    spearman_case("correlated normal", sx, rounded(0.4 * np.array(sx) + rng.normal(0, 1, 60), 4)),
    spearman_case("large n", rounded(rng.normal(0, 1, 500), 3), rounded(rng.normal(0, 1, 500), 3)),
    spearman_case("negative numbers", [-5, -3, -4, -1, -2], [-10, -30, -20, -50, -40]),
]

# --------------------------------------------------------------------------------------
# Bootstrap: src/core/random.ts (mulberry32, in scripts/aeb_random.py) and a line-for-line copy of
# bootstrapMeanCI, with numpy.percentile (linear interpolation) for the interval.
# --------------------------------------------------------------------------------------

def bootstrap_case(values, resamples, confidence, seed):
    values = [float(v) for v in values]
    n = len(values)
    generator = Mulberry32(seed)
    means = []
    for _ in range(resamples):
        total = 0.0
        for _ in range(n):
            total += values[generator.int(0, n - 1)]
        means.append(total / n)
    tail = (1 - confidence) / 2
    low, high = np.percentile(means, [100 * tail, 100 * (1 - tail)])
    return {"values": values, "resamples": resamples, "confidence": confidence, "seed": seed,
            "mean": num(sum(values) / n), "low": num(low), "high": num(high)}


bootstrap = [
    bootstrap_case([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 2000, 0.95, 42),
    bootstrap_case(fs_like(30), 1000, 0.95, 7),
    bootstrap_case(fs_like(30), 1000, 0.9, 123456789),
    bootstrap_case([0.25], 500, 0.95, 1),
    bootstrap_case([-3.5, 2.25, 0.0, 11.0], 3000, 0.99, 4294967295),
]

# --------------------------------------------------------------------------------------
# Pearson: scipy.stats.pearsonr(x, y). Kendall: scipy.stats.kendalltau(x, y) (tau-b, method
# "auto"). Drawn after every section above, so their inputs do not change when these are added.
# --------------------------------------------------------------------------------------

def pearson_case(name, x, y):
    x, y = [float(v) for v in x], [float(v) for v in y]
    result = quiet(lambda: stats.pearsonr(x, y))
    return {"name": name, "x": x, "y": y, "r": num(result.statistic), "p": num(result.pvalue)}


px = rounded(rng.normal(0, 1, 80), 4)
pearson = [
    pearson_case("n=2 (r = -1, p = 1)", [1.0, 2.0], [5.0, 3.0]),
    pearson_case("n=3", [1, 2, 3], [1, 3, 2]),
    pearson_case("perfect linear", [1, 2, 3, 4, 5], [3, 5, 7, 9, 11]),
    pearson_case("perfect inverse", [0.5, 1.5, 2.5, 3.5], [10, 8, 6, 4]),
    pearson_case("constant x (undefined)", [2, 2, 2], [1, 2, 3]),
    pearson_case("constant y (undefined)", [1, 2, 3, 4], [7, 7, 7, 7]),
    pearson_case("final emotions, many ties", list(np.round(rng.uniform(0, 100, 100))), list(np.round(rng.uniform(0, 100, 100)))),
    pearson_case("correlated normal", px, rounded(0.3 * np.array(px) + rng.normal(0, 1, 80), 4)),
    pearson_case("strong correlation (tiny p)", px, rounded(np.array(px) + rng.normal(0, 0.05, 80), 4)),
    pearson_case("large n", rounded(rng.normal(0, 1, 800), 3), rounded(rng.normal(0, 1, 800), 3)),
    pearson_case("large offset (centring)", [1e6 + v for v in [1.0, 2.5, 2.0, 4.0, 3.5]], [3.0, 1.0, 2.0, 5.0, 4.0]),
]


def kendall_branch(x, y):
    """The branch method='auto' takes in this SciPy: exact without ties when n <= 33 or at most one pair is (dis)concordant."""
    n = len(x)
    ties = len(set(x)) < n or len(set(y)) < n
    if ties:
        return "asymptotic"
    discordant = sum(1 for i in range(n) for j in range(i + 1, n) if (x[i] - x[j]) * (y[i] - y[j]) < 0)
    total = n * (n - 1) // 2
    return "exact" if n <= 33 or min(discordant, total - discordant) <= 1 else "asymptotic"


def kendall_case(name, x, y):
    x, y = [float(v) for v in x], [float(v) for v in y]
    result = quiet(lambda: stats.kendalltau(x, y))
    branch = kendall_branch(x, y)
    if not math.isnan(result.statistic):
        explicit = quiet(lambda: stats.kendalltau(x, y, method=branch))
        assert explicit.pvalue == result.pvalue, name
    return {"name": name, "x": x, "y": y, "tau": num(result.statistic), "p": num(result.pvalue), "method": branch}


kx = rounded(rng.normal(0, 1, 60), 4)
kendall = [
    kendall_case("n=1 (undefined)", [1.0], [2.0]),
    kendall_case("n=2", [1.0, 2.0], [2.0, 1.0]),
    kendall_case("three agents, same order (exact)", [54.8, 37.55, 28.95], [70.34, 65.6, 40.81]),
    kendall_case("three agents, one swap (exact)", [54.8, 37.55, 28.95], [65.6, 70.34, 40.81]),
    kendall_case("five agents reversed (exact)", [1, 2, 3, 4, 5], [9, 7, 5, 3, 1]),
    kendall_case("n=12 no ties (exact)", rounded(rng.normal(0, 1, 12)), rounded(rng.normal(0, 1, 12))),
    kendall_case("n=33 no ties (exact)", rounded(rng.normal(0, 1, 33)), rounded(rng.normal(0, 1, 33))),
    kendall_case("n=34 no ties (asymptotic)", rounded(rng.normal(0, 1, 34)), rounded(rng.normal(0, 1, 34))),
    kendall_case("n=40 in order but one swap (exact: one discordant pair)", list(range(40)), list(range(39)) + [38.5]),
    kendall_case("ties in both (asymptotic)", [1, 2, 2, 3, 4, 4, 4, 5], [2, 1, 3, 3, 5, 4, 4, 6]),
    kendall_case("constant y (undefined)", [1, 2, 3], [4, 4, 4]),
    kendall_case("final emotions, many ties", list(np.round(rng.uniform(0, 100, 100) / 10) * 10), list(np.round(rng.uniform(0, 100, 100) / 10) * 10)),
    kendall_case("correlated normal", kx, rounded(0.5 * np.array(kx) + rng.normal(0, 1, 60), 4)),
]


# bootstrapStatisticCI: resample pair indices with mulberry32, as bootstrapMeanCI does, and take
# scipy's Pearson r of each resample; rounds where r is undefined are left out and counted.
def bootstrap_pearson_case(x, y, resamples, confidence, seed):
    x, y = [float(v) for v in x], [float(v) for v in y]
    n = len(x)
    generator = Mulberry32(seed)
    values = []
    undefined = 0
    for _ in range(resamples):
        indices = [generator.int(0, n - 1) for _ in range(n)]
        r = quiet(lambda: stats.pearsonr([x[i] for i in indices], [y[i] for i in indices]).statistic) if len({x[i] for i in indices}) > 1 and len({y[i] for i in indices}) > 1 else math.nan
        if math.isnan(r):
            undefined += 1
        else:
            values.append(float(r))
    tail = (1 - confidence) / 2
    low, high = np.percentile(values, [100 * tail, 100 * (1 - tail)])
    return {"x": x, "y": y, "resamples": resamples, "confidence": confidence, "seed": seed,
            "low": num(low), "high": num(high), "undefinedResamples": undefined}


bootstrap_statistic = [
    bootstrap_pearson_case(px[:25], rounded(0.3 * np.array(px[:25]) + rng.normal(0, 1, 25), 4), 1000, 0.95, 11),
    # Five pairs on two x values: some resamples draw one x value only, where r is undefined.
    bootstrap_pearson_case([0, 0, 0, 1, 1], [1, 2, 3, 4, 6], 2000, 0.9, 3),
]

vectors = {
    "generatedBy": "scripts/make-stats-vectors.py",
    "scipyVersion": scipy.__version__,
    "numpyVersion": np.__version__,
    "ranks": ranks,
    "normal": normal,
    "normalQuantile": normal_quantile,
    "studentT": student_t,
    "binomial": binomial,
    "logGamma": log_gamma,
    "incompleteBeta": incomplete_beta,
    "mannWhitney": mann_whitney,
    "wilcoxon": wilcoxon,
    "mcnemar": mcnemar,
    "wilson": wilson,
    "holm": holm,
    "ols": ols,
    "lengthConfound": length_confound,
    "spearman": spearman,
    "bootstrap": bootstrap,
    "pearson": pearson,
    "kendall": kendall,
    "bootstrapStatistic": bootstrap_statistic,
}

OUTPUT.parent.mkdir(parents=True, exist_ok=True)
OUTPUT.write_text(json.dumps(vectors, indent=1, allow_nan=False) + "\n")
print(f"wrote {OUTPUT} ({sum(len(v) for v in vectors.values() if isinstance(v, list))} cases)")
