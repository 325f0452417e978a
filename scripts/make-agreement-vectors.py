#!/usr/bin/env python3
"""Reference figures for `aeb agreement`, computed independently with SciPy and NumPy.

For each pair of simulated users A and B (docs/agreement.md): agents matched by condition name and
dialogues by (condition, scenario id, repeat); per shared agent the mean final emotion under A and
B, the level shift B - A with a seeded paired percentile-bootstrap interval, Pearson and Spearman
correlation of the final emotions (scipy.stats.pearsonr, spearmanr) and the share of matched
dialogues with the same outcome class; the same pooled; and the agents' ranking over the units
every shared agent has, compared by scipy.stats.spearmanr and scipy.stats.kendalltau, with
percentile-bootstrap intervals that resample those units. The bootstrap draws come from a
line-for-line copy of src/core/random.ts (mulberry32) and deriveSeed, as in
scripts/make-stats-vectors.py, so the intervals must match to the last digit.

Run from the repository root:

    python3 scripts/make-agreement-vectors.py
        writes src/analysis/fixtures/agreement-vectors.json: a synthetic case (inputs included)
        and, when ../shared/data/sage/cross-simulator exists, SAGE's three models under the
        DeepSeek-V3 and the GPT-4o simulators (figures only; the files stay outside the repo)
    python3 scripts/make-agreement-vectors.py --synthetic
        prints the synthetic case only
    python3 scripts/make-agreement-vectors.py --check SEED RESAMPLES LABEL=PATH LABEL=PATH...
        prints the figures for these simulated users (run directories or SAGE result
        directories/files): test/agreement.test.ts runs it on two runs it makes

The inputs are read without any of AEB's code: dialogues.jsonl and SAGE result files are split on
"\\n" and parsed with json; a SAGE dialogue's outcome is success at emo_point >= 100, collapse
below 10 (the sage preset's rules), an AEB dialogue's comes from its endReason.
"""

from __future__ import annotations

import json
import math
import re
import sys
import warnings
from pathlib import Path

import numpy as np
import scipy
from scipy import stats

sys.path.insert(0, str(Path(__file__).resolve().parent))
from aeb_random import Mulberry32, derive_seed  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
OUTPUT = ROOT / "src" / "analysis" / "fixtures" / "agreement-vectors.json"
CROSS_SIMULATOR = ROOT / ".." / "shared" / "data" / "sage" / "cross-simulator"
def num(value):
    if value is None:
        return None
    value = float(value)
    return None if math.isnan(value) else value


def quiet(call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return call()


def percentile_interval(values, confidence=0.95):
    tail = (1 - confidence) / 2
    low, high = np.percentile(values, [100 * tail, 100 * (1 - tail)])
    return [float(low), float(high)]


# --------------------------------------------------------------------------------------
# Reading, independently of AEB
# --------------------------------------------------------------------------------------

def outcome_of_end_reason(end_reason):
    return end_reason if end_reason in ("success", "collapse") else "neither"


def sage_scenario_id(profile_id):
    slug = re.sub(r"[^a-z0-9]+", "-", str(profile_id).lower()).strip("-")
    return f"sage-{slug or 'profile'}"


def read_sage_file(path):
    condition = path.name[: -len("_result.jsonl")] if path.name.endswith("_result.jsonl") else path.stem
    dialogues = []
    for line in path.read_text(encoding="utf-8").split("\n"):
        if not line.strip():
            continue
        row = json.loads(line)
        final = float(row["emo_point"])
        outcome = "success" if final >= 100 else "collapse" if final < 10 else "neither"
        dialogues.append({"condition": condition, "scenarioId": sage_scenario_id(row["id"]), "repeat": 0, "final": final, "outcome": outcome, "done": True})
    return dialogues


def read_path(path):
    path = Path(path)
    if path.is_dir() and (path / "dialogues.jsonl").exists():
        dialogues = []
        for line in (path / "dialogues.jsonl").read_text(encoding="utf-8").split("\n"):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError:
                continue  # a torn last line
            dialogues.append({"condition": row["condition"], "scenarioId": row["scenarioId"], "repeat": row["repeat"], "final": float(row["final"]["emotion"]),
                              "outcome": outcome_of_end_reason(row["endReason"]), "done": row["status"] == "done"})
        # Agents in the run's condition order (run.json), whatever order the dialogues finished in.
        manifest = path / "run.json"
        order = [condition["name"] for condition in json.loads(manifest.read_text())["config"]["conditions"]] if manifest.exists() else []
        dialogues.sort(key=lambda dialogue: (order.index(dialogue["condition"]) if dialogue["condition"] in order else len(order), dialogue["condition"]))
        return dialogues
    if path.is_dir():
        return [dialogue for file in sorted(path.glob("*_result.jsonl")) for dialogue in read_sage_file(file)]
    return read_sage_file(path)


# --------------------------------------------------------------------------------------
# The figures
# --------------------------------------------------------------------------------------

def index_user(dialogues):
    by_agent = {}
    for dialogue in dialogues:
        if not dialogue["done"]:
            continue
        by_agent.setdefault(dialogue["condition"], {})[(dialogue["scenarioId"], dialogue["repeat"])] = dialogue
    return by_agent


def correlations(finals_a, finals_b):
    if len(finals_a) < 3 or len(set(finals_a)) == 1 or len(set(finals_b)) == 1:
        return None, None
    return num(stats.pearsonr(finals_a, finals_b).statistic), num(stats.spearmanr(finals_a, finals_b).statistic)


def dialogue_figures(pairs):
    finals_a = [a["final"] for a, _ in pairs]
    finals_b = [b["final"] for _, b in pairs]
    pearson, spearman = correlations(finals_a, finals_b)
    same = sum(1 for a, b in pairs if a["outcome"] == b["outcome"])
    return {"n": len(pairs), "pearson": pearson, "spearman": spearman, "sameOutcome": same}


def paired_bootstrap(differences, resamples, seed):
    generator = Mulberry32(seed)
    n = len(differences)
    means = []
    for _ in range(resamples):
        total = 0.0
        for _ in range(n):
            total += differences[generator.int(0, n - 1)]
        means.append(total / n)
    return percentile_interval(means)


def rank_figures(label_a, label_b, shared, matched, seed, resamples):
    lookups = [dict(matched[agent]) for agent in shared]
    units = [key for key, _ in matched[shared[0]] if all(key in lookup for lookup in lookups)]
    finals_a = [[lookup[unit][0]["final"] for unit in units] for lookup in lookups]
    finals_b = [[lookup[unit][1]["final"] for unit in units] for lookup in lookups]
    n = len(units)
    means_a = [sum(row) / n for row in finals_a]
    means_b = [sum(row) / n for row in finals_b]
    ranks_a = [len(shared) + 1 - rank for rank in stats.rankdata(means_a)]
    ranks_b = [len(shared) + 1 - rank for rank in stats.rankdata(means_b)]
    agents = [{"agent": agent, "meanA": means_a[i], "meanB": means_b[i], "rankA": float(ranks_a[i]), "rankB": float(ranks_b[i])} for i, agent in enumerate(shared)]
    result = {"units": n, "agents": agents, "spearman": None, "kendall": None}
    if len(shared) < 3:
        return result
    rho = num(quiet(lambda: stats.spearmanr(means_a, means_b).statistic))
    tau = num(quiet(lambda: stats.kendalltau(means_a, means_b).statistic))
    if rho is None:
        return result
    generator = Mulberry32(derive_seed(seed, "agreement", label_a, label_b, "rank"))
    rhos, taus = [], []
    for _ in range(resamples):
        indices = [generator.int(0, n - 1) for _ in range(n)]
        resampled_a, resampled_b = [], []
        for row_a, row_b in zip(finals_a, finals_b):
            total_a = total_b = 0.0
            for index in indices:
                total_a += row_a[index]
                total_b += row_b[index]
            resampled_a.append(total_a / n)
            resampled_b.append(total_b / n)
        if len(set(resampled_a)) == 1 or len(set(resampled_b)) == 1:
            continue
        rhos.append(float(stats.spearmanr(resampled_a, resampled_b).statistic))
        taus.append(float(stats.kendalltau(resampled_a, resampled_b).statistic))
    result["spearman"] = {"value": rho, "ci95": percentile_interval(rhos) if n >= 2 and rhos else None, "undefinedResamples": resamples - len(rhos) if n >= 2 else 0}
    result["kendall"] = {"value": tau, "ci95": percentile_interval(taus) if n >= 2 and taus else None, "undefinedResamples": resamples - len(taus) if n >= 2 else 0}
    return result


def pair_figures(label_a, dialogues_a, label_b, dialogues_b, seed, resamples):
    a, b = index_user(dialogues_a), index_user(dialogues_b)
    shared = [agent for agent in a if agent in b]
    matched, agents = {}, []
    unmatched_a = unmatched_b = 0
    for agent in shared:
        keys = sorted(key for key in a[agent] if key in b[agent])
        unmatched_a += sum(1 for key in a[agent] if key not in b[agent])
        unmatched_b += sum(1 for key in b[agent] if key not in a[agent])
        pairs = [(a[agent][key], b[agent][key]) for key in keys]
        matched[agent] = list(zip(keys, pairs))
        differences = [y["final"] - x["final"] for x, y in pairs]
        figures = dialogue_figures(pairs)
        figures.update({
            "agent": agent,
            "meanA": float(np.mean([x["final"] for x, _ in pairs])) if pairs else None,
            "meanB": float(np.mean([y["final"] for _, y in pairs])) if pairs else None,
            "shift": {
                "mean": sum(differences) / len(differences) if differences else None,
                "ci95": paired_bootstrap(differences, resamples, derive_seed(seed, "agreement", label_a, label_b, "shift", agent)) if len(differences) >= 2 else None,
            },
        })
        agents.append(figures)
    pooled = dialogue_figures([pair for agent in shared for _, pair in matched[agent]])
    return {
        "a": label_a,
        "b": label_b,
        "sharedAgents": shared,
        "agentsOnlyInA": [agent for agent in a if agent not in b],
        "agentsOnlyInB": [agent for agent in b if agent not in a],
        "matchedDialogues": pooled["n"],
        "unmatchedInA": unmatched_a,
        "unmatchedInB": unmatched_b,
        "ranking": rank_figures(label_a, label_b, shared, matched, seed, resamples) if shared else None,
        "agents": agents,
        "pooled": pooled,
    }


def figures(users, seed, resamples):
    return [pair_figures(users[i][0], users[i][1], users[j][0], users[j][1], seed, resamples) for i in range(len(users)) for j in range(i + 1, len(users))]


# --------------------------------------------------------------------------------------
# The synthetic case: three simulated users, four agents, 30 scenarios x 2 repeats, with an
# agent only one user scored, dialogues only one user scored, an errored dialogue and ties.
# --------------------------------------------------------------------------------------

def synthetic_case():
    rng = np.random.default_rng(20261201)
    agents = ["alpha", "beta", "gamma", "delta"]
    quality = {"alpha": 70, "beta": 55, "gamma": 40, "delta": 25}
    profile = rng.normal(0, 15, 30)

    def user(label, shift, noise, drop, extra_agent=None):
        dialogues = []
        for agent in agents + ([extra_agent] if extra_agent else []):
            for scenario in range(30):
                for repeat in range(2):
                    if (agent, scenario, repeat) in drop:
                        continue
                    base = quality.get(agent, 50) + shift + profile[scenario]
                    final = float(np.clip(np.round((base + rng.normal(0, noise)) / 5) * 5, 0, 100))
                    outcome = "success" if final >= 95 else "collapse" if final <= 10 else "neither"
                    dialogues.append({"condition": agent, "scenarioId": f"s{scenario:02d}", "repeat": repeat, "final": final, "outcome": outcome, "done": True})
        return {"label": label, "dialogues": dialogues}

    users = [
        user("strict", 0, 12, drop={("beta", 3, 1), ("gamma", 7, 0)}, extra_agent="only-strict"),
        user("lenient", 18, 20, drop={("beta", 4, 0)}),
        user("noisy", 5, 35, drop=set()),
    ]
    users[0]["dialogues"].append({"condition": "alpha", "scenarioId": "s99", "repeat": 0, "final": 0.0, "outcome": "neither", "done": False})
    seed, resamples = 7, 400
    return {
        "seed": seed,
        "resamples": resamples,
        "users": [{"label": u["label"], "dialogues": [[d["condition"], d["scenarioId"], d["repeat"], d["final"], d["outcome"], d["done"]] for d in u["dialogues"]]} for u in users],
        "expected": figures([(u["label"], u["dialogues"]) for u in users], seed, resamples),
    }


def main(argv):
    if argv[:1] == ["--check"]:
        seed, resamples = int(argv[1]), int(argv[2])
        users = []
        for argument in argv[3:]:
            label, paths = argument.split("=", 1)
            users.append((label, [dialogue for path in paths.split(",") for dialogue in read_path(path)]))
        print(json.dumps(figures(users, seed, resamples), allow_nan=False))
        return
    synthetic = synthetic_case()
    if argv[:1] == ["--synthetic"]:
        print(json.dumps(synthetic, allow_nan=False))
        return
    vectors = {"generatedBy": "scripts/make-agreement-vectors.py", "scipyVersion": scipy.__version__, "numpyVersion": np.__version__, "synthetic": synthetic}
    if CROSS_SIMULATOR.exists():
        seed, resamples = 1, 10000
        labels = ["deepseek-v3", "gpt-4o"]
        users = [(label, read_path(CROSS_SIMULATOR / label)) for label in labels]
        vectors["crossSimulator"] = {"paths": [f"../shared/data/sage/cross-simulator/{label}" for label in labels], "seed": seed, "resamples": resamples, "expected": figures(users, seed, resamples)}
    else:
        print(f"note: {CROSS_SIMULATOR} is absent; the cross-simulator case is left out", file=sys.stderr)
    OUTPUT.parent.mkdir(parents=True, exist_ok=True)
    OUTPUT.write_text(json.dumps(vectors, indent=1, allow_nan=False) + "\n")
    print(f"wrote {OUTPUT}")


if __name__ == "__main__":
    main(sys.argv[1:])
