"""Builds a verl dataset of AEB episodes from a running ``aeb serve``.

Each row is one episode: the prompt is the scenario's opening line as the user's first message
(after an optional system prompt), and ``extra_info.interaction_kwargs`` tells the interaction which
scenario, seed and repeat to reset, so the environment and the prompt agree. Repeats use the same
run seed as ``aeb run --seed`` would.

    python3 prepare_data.py --url http://127.0.0.1:8787 --out data/aeb/train.parquet --repeats 16 --seed 1
    python3 prepare_data.py --url ... --out data/aeb/train.jsonl      # JSON lines, no pandas needed

Writes parquet when the output ends in .parquet (needs pandas and pyarrow, as verl does), else JSONL.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any, Optional

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from aeb_client import AebEnvironmentClient  # noqa: E402

DEFAULT_SYSTEM_PROMPT = "You are talking with someone who wants to be heard. Reply as a caring, perceptive friend would."


def build_rows(scenarios: list[dict[str, Any]], repeats: int, seed: int, preset: str, reward_mode: str, system_prompt: Optional[str], types: Optional[set[str]] = None) -> list[dict[str, Any]]:
    rows = []
    for scenario in scenarios:
        if types and scenario["type"] not in types:
            continue
        for repeat in range(repeats):
            prompt = ([{"role": "system", "content": system_prompt}] if system_prompt else []) + [{"role": "user", "content": scenario["opening"]}]
            rows.append(
                {
                    "data_source": "aeb",
                    "prompt": prompt,
                    "ability": "empathy",
                    "reward_model": {"style": "rule", "ground_truth": ""},
                    "extra_info": {
                        "index": len(rows),
                        "scenario_id": scenario["id"],
                        "type": scenario["type"],
                        "interaction_kwargs": {"name": "aeb", "scenario_id": scenario["id"], "seed": seed, "repeat": repeat, "preset": preset, "reward_mode": reward_mode},
                    },
                }
            )
    return rows


def write_rows(rows: list[dict[str, Any]], out: str) -> None:
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    if out.endswith(".parquet"):
        import pandas  # verl's own dependency

        pandas.DataFrame(rows).to_parquet(out)
        return
    with open(out, "w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--url", default=os.environ.get("AEB_SERVER_URL", "http://127.0.0.1:8787"))
    parser.add_argument("--out", required=True)
    parser.add_argument("--repeats", type=int, default=8)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--preset", default="rlver", choices=["rlver", "aeb", "sage", "scenario"])
    parser.add_argument("--reward-mode", default="final", choices=["final", "delta"])
    parser.add_argument("--types", default=None, help="comma-separated trajectory types")
    parser.add_argument("--system-prompt", default=DEFAULT_SYSTEM_PROMPT, help="empty for none")
    args = parser.parse_args(argv)
    client = AebEnvironmentClient(args.url, auth_token=os.environ.get("AEB_SERVER_TOKEN"))
    types = set(args.types.split(",")) if args.types else None
    try:
        rows = build_rows(client.scenarios(), args.repeats, args.seed, args.preset, args.reward_mode, args.system_prompt or None, types)
    finally:
        client.close()
    write_rows(rows, args.out)
    print(f"{len(rows)} episodes -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
