"""verl dataset rows for AEB episodes, and the files that hold them.

One row is one episode to roll out (GRPO's ``rollout.n`` samples of a row share its scenario, seed
and repeat, so they meet the same user randomness and differ only by the policy's replies):

``data_source``   ``aeb/<type>``: verl groups its validation metrics by it, so each trajectory type
                  gets its own reward curve
``agent_name``    ``aeb``: the AEB agent loop (``aeb_verl.agent_loop``, registered by the
                  directory's ``agent_loop.yaml``; without it verl falls back to
                  ``rollout.agent.default_agent_loop``, which the trainer config sets to ``aeb``
                  too: verl's own default, ``single_turn_agent``, never calls the environment)
``prompt``        the system prompt, then the scenario's opening as the user's first message
``ability``       ``empathy``
``reward_model``  ``{"style": "rule", "ground_truth": ""}`` (verl reads ``ground_truth``; unused)
``extra_info``    ``index``; ``split`` (``train`` or ``validation``); ``held_out_by`` (``scenario``,
                  ``type``, or ``""`` for training rows); the scenario's ``scenario_id``, ``type``,
                  ``suite``, ``language``; ``seed`` and ``repeat``; and ``aeb_episode``, what the
                  loop resets: ``scenario_id``, ``seed``, ``repeat``, ``preset``,
                  ``reward_mode``, ``split``

Every row of a file has the same keys with the same types, as Arrow (verl reads the files with
Hugging Face ``datasets``) wants one schema per file.

Files. verl 0.9's ``RLHFDataset`` (``verl/utils/dataset/rl_dataset.py``) reads a file ending in
``.parquet`` with ``datasets.load_dataset("parquet")`` and one ending in ``.json`` or ``.jsonl``
with ``datasets.load_dataset("json")``, which reads JSON Lines; any other ending is refused. Rows
are written as parquet when pandas and pyarrow are importable (as on any machine with verl), and
otherwise as JSON Lines (``.jsonl``).
"""

from __future__ import annotations

import importlib.util
import json
import os
from typing import Any, Optional, Sequence

DATA_SOURCE_PREFIX = "aeb/"
#: The ``agent_name`` of AEB rows: the AEB agent loop's name in the registration file.
AGENT_LOOP = "aeb"
#: The key of ``extra_info`` that describes the row's episode.
EPISODE_KEY = "aeb_episode"


def build_rows(
    scenarios: Sequence[dict[str, Any]],
    *,
    split: str,
    held_out_by: dict[str, str],
    repeats: int,
    seed: int,
    preset: str,
    reward_mode: str,
    system_prompts: dict[str, str],
) -> list[dict[str, Any]]:
    """One row per scenario and repeat, scenarios in the given order, repeats 0..repeats-1.
    ``system_prompts`` maps a scenario language to its system prompt ("" for none)."""
    if repeats < 1:
        raise ValueError(f"repeats must be >= 1, got {repeats}")
    rows = []
    for scenario in scenarios:
        language = scenario.get("language", "en")
        if language not in system_prompts:
            raise ValueError(f"no system prompt for language {language!r} (scenario {scenario['id']})")
        system_prompt = system_prompts[language]
        for repeat in range(repeats):
            prompt = ([{"role": "system", "content": system_prompt}] if system_prompt else []) + [{"role": "user", "content": scenario["opening"]}]
            rows.append(
                {
                    "data_source": DATA_SOURCE_PREFIX + scenario["type"],
                    "agent_name": AGENT_LOOP,
                    "prompt": prompt,
                    "ability": "empathy",
                    "reward_model": {"style": "rule", "ground_truth": ""},
                    "extra_info": {
                        "index": len(rows),
                        "split": split,
                        "held_out_by": held_out_by.get(scenario["id"], ""),
                        "scenario_id": scenario["id"],
                        "type": scenario["type"],
                        "suite": scenario.get("suite", ""),
                        "language": language,
                        "seed": seed,
                        "repeat": repeat,
                        EPISODE_KEY: {
                            "scenario_id": scenario["id"],
                            "seed": seed,
                            "repeat": repeat,
                            "preset": preset,
                            "reward_mode": reward_mode,
                            "split": split,
                        },
                    },
                }
            )
    return rows


def parquet_available() -> bool:
    return importlib.util.find_spec("pandas") is not None and importlib.util.find_spec("pyarrow") is not None


def choose_format(requested: str) -> str:
    """``parquet`` or ``jsonl`` for ``auto``, ``parquet`` or ``jsonl``."""
    if requested == "auto":
        return "parquet" if parquet_available() else "jsonl"
    if requested == "parquet" and not parquet_available():
        raise ValueError("--format parquet needs pandas and pyarrow (pip install pandas pyarrow), or use --format jsonl")
    if requested not in ("parquet", "jsonl"):
        raise ValueError(f"unknown format {requested!r}")
    return requested


def file_name(stem: str, data_format: str) -> str:
    """``train.parquet``, or ``train.jsonl`` for JSON Lines."""
    return f"{stem}.parquet" if data_format == "parquet" else f"{stem}.jsonl"


def write_rows(rows: Sequence[dict[str, Any]], path: str, data_format: str) -> None:
    """Writes the rows to ``path`` (replacing it), all at once so a crash leaves no half file."""
    temporary = f"{path}.partial"
    if data_format == "parquet":
        import pandas  # verl's own dependency

        pandas.DataFrame(list(rows)).to_parquet(temporary, index=False)
    else:
        with open(temporary, "w", encoding="utf-8") as handle:
            for row in rows:
                handle.write(json.dumps(row, ensure_ascii=False, sort_keys=True) + "\n")
    os.replace(temporary, path)


def read_rows(path: str) -> list[dict[str, Any]]:
    """Reads rows back (JSON Lines files; parquet through pandas)."""
    if path.endswith(".parquet"):
        import pandas

        return pandas.read_parquet(path).to_dict("records")
    with open(path, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def check_uniform_schema(rows: Sequence[dict[str, Any]], what: str) -> None:
    """Raises unless every row has the same nested keys with the same value types (one Arrow schema)."""
    first: Optional[dict[str, str]] = None
    for index, row in enumerate(rows):
        shape = schema_of(row)
        if first is None:
            first = shape
        elif shape != first:
            differing = sorted(key for key in set(shape) | set(first) if shape.get(key) != first.get(key))
            raise ValueError(f"{what}: row {index} differs from row 0 at {', '.join(differing[:5])}; verl reads a file with one schema")


def schema_of(row: Any) -> dict[str, str]:
    """The nested keys and value types of a row (list items share their list's path)."""
    shape: dict[str, str] = {}

    def visit(item: Any, where: str) -> None:
        if isinstance(item, dict):
            shape[where or "."] = "object"
            for key, child in item.items():
                visit(child, f"{where}.{key}" if where else key)
        elif isinstance(item, list):
            shape[where] = "list"
            for child in item:
                visit(child, f"{where}[]")
        else:
            shape[where] = type(item).__name__

    visit(row, "")
    return shape
