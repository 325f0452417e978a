"""Writes a ready-to-launch verl training directory for AEB from a running ``aeb serve``.

    python3 -m aeb_verl.prepare --url http://aeb-env:8787 --out /data/aeb-grpo --suite full \\
        --recipe aeb --repeats 16 --val-fraction 0.2 --python /opt/verl-venv/bin/python
    /data/aeb-grpo/launch.sh

The directory holds, with absolute paths throughout:

- ``train.parquet`` / ``validation.parquet`` (or ``train.jsonl`` / ``validation.jsonl`` when
  pandas and pyarrow are not importable; verl 0.9 reads both): one row per episode
  (``aeb_verl.dataset``), validation on held-out scenarios (``aeb_verl.split``);
- ``agent_loop.yaml``: the registration of the AEB agent loop with its environment settings
  (``aeb_verl.settings`` explains every key);
- ``trainer.yaml``: the Hydra config for ``verl.trainer.main_ppo`` of verl 0.9 (the AEB loop as the
  rows' and the default agent loop, the recipe's budgets and schedule, the reward function under
  ``reward.custom_reward_function``);
- ``launch.sh``: the launch command, with the interpreter that has verl; ``manifest.json``: what
  was written and from what.

``--recipe aeb`` (default) is AEB's recipe; ``--recipe rlver`` is RLVER's (``train_rlver.sh``):
docs/training.md has the table. The bearer token is read from ``$AEB_SERVER_TOKEN`` and written
nowhere.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
from typing import Any, Optional, Sequence

from . import __version__
from . import reward as reward_module
from .client import AebEnvironmentClient, AebEnvironmentError
from .dataset import build_rows, check_uniform_schema, choose_format, file_name, write_rows
from .retry import RetryPolicy
from .launch_files import RECIPES, TrainerChoices, agent_loop_config, launch_script, trainer_config
from .settings import ON_ERROR, PRESETS, REWARD_MODES
from .split import split_scenarios
from .verl_target import detect

PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
#: The AEB checkout this package sits in, when it does (integrations/verl/aeb_verl).
CHECKOUT_PROMPTS = os.path.normpath(os.path.join(PACKAGE_DIR, "..", "..", "..", "prompts"))
WRITTEN = ("manifest.json", "trainer.yaml", "agent_loop.yaml", "launch.sh")


def parse_arguments(argv: Optional[Sequence[str]]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python3 -m aeb_verl.prepare", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    source = parser.add_argument_group("environment")
    source.add_argument("--url", action="append", help="server URL; repeat or comma-separate for replicas (default: $AEB_SERVER_URL, else http://127.0.0.1:8787)")
    source.add_argument("--suite", help="only scenarios of this suite")
    source.add_argument("--types", help="only these trajectory types (comma-separated)")
    source.add_argument("--preset", default="rlver", choices=PRESETS, help="emotion rules (default rlver, as RLVER trained)")
    source.add_argument("--reward-mode", default="final", choices=REWARD_MODES, help="final (RLVER: emotion / 100 at the end) or delta")
    source.add_argument("--on-error", default="raise", choices=ON_ERROR, help="after the retry budget: raise (stop the step) or mark (score 0, aeb_failed)")
    source.add_argument("--read-timeout", type=float, default=120.0, help="seconds a step may take (above the server's --step-timeout)")
    source.add_argument("--max-attempts", type=int, default=8, help="requests per call to the server, the first included (this command's own calls)")
    data = parser.add_argument_group("data")
    data.add_argument("--out", required=True, help="the directory to write")
    data.add_argument("--seed", type=int, default=1, help="run seed of every row (as aeb run --seed) and of the split")
    data.add_argument("--repeats", type=int, default=8, help="training rows per scenario (repeats 0..N-1)")
    data.add_argument("--val-repeats", type=int, default=2, help="validation rows per held-out scenario")
    data.add_argument("--val-fraction", type=float, default=0.2, help="share of scenarios held out for validation, spread over types (default 0.2)")
    data.add_argument("--val-scenarios", help="hold out these scenario ids instead (comma-separated)")
    data.add_argument("--val-types", help="hold out every scenario of these trajectory types as well (comma-separated)")
    data.add_argument("--format", default="auto", choices=("auto", "parquet", "jsonl"), help="parquet when pandas and pyarrow are importable (auto), else JSON Lines (.jsonl)")
    data.add_argument("--think", action="store_true", help="the think-then-reply system prompt (the reply after </think> is what the user sees)")
    data.add_argument("--prompts-dir", help=f"AEB's prompts directory (default: {CHECKOUT_PROMPTS} when it exists)")
    data.add_argument("--system-prompt-file", help="one system prompt for every row instead of AEB's agent prompt")
    data.add_argument("--no-system-prompt", action="store_true", help="rows start with the user's opening")
    trainer = parser.add_argument_group("trainer (unset: the recipe's value; docs/training.md has both recipes)")
    trainer.add_argument("--recipe", default="aeb", choices=tuple(RECIPES), help="aeb (GRPO, one sample per dialogue) or rlver (RLVER's train_rlver.sh: PPO, past think stripped, one sample per turn, vLLM)")
    trainer.add_argument("--algorithm", choices=("grpo", "ppo"), help="aeb: grpo; rlver: ppo (a critic, adv_estimator gae)")
    trainer.add_argument("--model", default="Qwen/Qwen2.5-7B-Instruct")
    trainer.add_argument("--rollout-n", type=int, help="samples per row (default 8 for grpo, 1 for ppo)")
    trainer.add_argument("--rollout", dest="rollout_name", choices=("vllm", "sglang"), help="the rollout engine (aeb: sglang; rlver: vllm)")
    trainer.add_argument("--train-batch-size", type=int)
    trainer.add_argument("--max-response-length", type=int, help="tokens of a dialogue sample (aeb: 8192, 12288 with --think) or of a turn sample (rlver: 10000)")
    trainer.add_argument("--n-gpus-per-node", type=int)
    trainer.add_argument("--nnodes", type=int)
    trainer.add_argument("--tensor-parallel", type=int, help="rollout tensor parallel size")
    trainer.add_argument("--epochs", type=int)
    trainer.add_argument("--storage-units", type=int, help="TransferQueue storage units, one CPU each (default two per node; 1 on a machine with few CPUs)")
    trainer.add_argument("--python", help="the interpreter that has verl 0.9, written into launch.sh (default: this one)")
    trainer.add_argument("--verl-root", help="a verl checkout instead of the installed package: its configs are found by absolute path and launch.sh cds there")
    parser.add_argument("--force", action="store_true", help="overwrite a directory prepared before")
    parser.add_argument("--version", action="version", version=f"aeb_verl {__version__}")
    return parser.parse_args(argv)


def _list(value: Optional[str]) -> list[str]:
    return [item.strip() for item in value.split(",") if item.strip()] if value else []


def _server_urls(arguments: argparse.Namespace) -> list[str]:
    urls = [item for value in (arguments.url or []) for item in _list(value)]
    return urls or _list(os.environ.get("AEB_SERVER_URL")) or ["http://127.0.0.1:8787"]


def _system_prompts(arguments: argparse.Namespace, languages: set[str]) -> dict[str, str]:
    if arguments.no_system_prompt:
        return {language: "" for language in languages}
    if arguments.system_prompt_file:
        with open(arguments.system_prompt_file, encoding="utf-8") as handle:
            text = handle.read().strip()
        if not text:
            raise ValueError(f"{arguments.system_prompt_file} is empty (use --no-system-prompt for none)")
        return {language: text for language in languages}
    directory = arguments.prompts_dir or CHECKOUT_PROMPTS
    if not os.path.isdir(directory):
        raise ValueError(f"no prompts directory at {directory}: give --prompts-dir (AEB's prompts/), --system-prompt-file or --no-system-prompt")
    prompts = {}
    for language in sorted(languages):
        path = os.path.join(directory, language, "agent-think.md" if arguments.think else "agent-direct.md")
        try:
            with open(path, encoding="utf-8") as handle:
                text = handle.read().strip()
        except FileNotFoundError:
            raise ValueError(f"no agent prompt for language {language!r} at {path}") from None
        if "{{" in text:
            raise ValueError(f"{path} has placeholders; this command fills none")
        prompts[language] = text
    return prompts


def _claim(directory: str, force: bool) -> None:
    if os.path.isdir(directory) and os.listdir(directory):
        if not os.path.exists(os.path.join(directory, "manifest.json")):
            raise ValueError(f"{directory} is not empty and was not written by this command; choose another --out")
        if not force:
            raise ValueError(f"{directory} was prepared before; give --force to overwrite it")
    os.makedirs(directory, exist_ok=True)


def _sha256(path: str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _write(path: str, text: str, executable: bool = False) -> None:
    temporary = f"{path}.partial"
    with open(temporary, "w", encoding="utf-8") as handle:
        handle.write(text)
    if executable:
        os.chmod(temporary, 0o755)
    os.replace(temporary, path)


def _max_turns(client: AebEnvironmentClient, scenarios: list[dict[str, Any]], arguments: argparse.Namespace) -> dict[str, int]:
    """Each scenario's turn limit under the chosen preset, as the server states it (one reset each)."""
    limits = {}
    for scenario in scenarios:
        reset = client.reset({"scenarioId": scenario["id"], "seed": arguments.seed, "repeat": 0, "preset": arguments.preset, "rewardMode": arguments.reward_mode})
        if reset.get("messages", [{}])[0].get("content") != scenario["opening"]:
            raise ValueError(f"scenario {scenario['id']}: the reset's opening differs from the listed one (is a replica serving other scenario files?)")
        limits[scenario["id"]] = int(reset["maxTurns"])
    return limits


def prepare(arguments: argparse.Namespace) -> dict[str, Any]:
    """Writes the directory; returns the manifest."""
    trainer_choices = TrainerChoices(
        recipe=arguments.recipe,
        algorithm=arguments.algorithm,
        model=arguments.model,
        think=arguments.think,
        train_batch_size=arguments.train_batch_size,
        rollout_n=arguments.rollout_n,
        n_gpus_per_node=arguments.n_gpus_per_node,
        nnodes=arguments.nnodes,
        tensor_parallel=arguments.tensor_parallel,
        total_epochs=arguments.epochs,
        max_response_length=arguments.max_response_length,
        rollout_name=arguments.rollout_name,
        storage_units=arguments.storage_units,
    )
    if arguments.seed < 0:
        raise ValueError(f"--seed must be >= 0, got {arguments.seed}")
    if arguments.read_timeout <= 0:
        raise ValueError(f"--read-timeout must be > 0 seconds, got {arguments.read_timeout}")
    verl = detect(arguments.python, arguments.verl_root)
    out = os.path.abspath(arguments.out)
    data_format = choose_format(arguments.format)

    urls = _server_urls(arguments)
    client = AebEnvironmentClient(urls, auth_token=os.environ.get("AEB_SERVER_TOKEN"), read_timeout=arguments.read_timeout, retry=RetryPolicy(max_attempts=arguments.max_attempts))
    try:
        listed = client.scenarios()
        scenarios = [scenario for scenario in listed if arguments.suite is None or scenario.get("suite") == arguments.suite]
        types = _list(arguments.types)
        unknown_types = sorted(set(types) - {scenario["type"] for scenario in scenarios})
        if unknown_types:
            raise ValueError(f"no scenario of type(s) {', '.join(unknown_types)} among those served")
        if types:
            scenarios = [scenario for scenario in scenarios if scenario["type"] in types]
        if not scenarios:
            raise ValueError(f"the server lists no scenario{' of suite ' + arguments.suite if arguments.suite else ''}")
        split = split_scenarios(scenarios, seed=arguments.seed, val_fraction=arguments.val_fraction, val_scenarios=_list(arguments.val_scenarios), val_types=_list(arguments.val_types))
        limits = _max_turns(client, scenarios, arguments)
    finally:
        client.close()

    prompts = _system_prompts(arguments, {scenario.get("language", "en") for scenario in scenarios})
    common = {"seed": arguments.seed, "preset": arguments.preset, "reward_mode": arguments.reward_mode, "system_prompts": prompts}
    train_rows = build_rows(split.train, split="train", held_out_by={}, repeats=arguments.repeats, **common)
    validation_rows = build_rows(split.validation, split="validation", held_out_by=split.held_out_by, repeats=arguments.val_repeats, **common)
    check_uniform_schema(train_rows + validation_rows, "rows")

    _claim(out, arguments.force)
    paths = {
        "train_files": os.path.join(out, file_name("train", data_format)),
        "val_files": os.path.join(out, file_name("validation", data_format)),
        "agent_loop_config": os.path.join(out, "agent_loop.yaml"),
        "reward_path": os.path.abspath(reward_module.__file__),
        "launch_script": os.path.join(out, "launch.sh"),
        "config_dir": out,
        "rollout_data_dir": os.path.join(out, "rollouts"),
        "validation_data_dir": os.path.join(out, "validation-rollouts"),
        "checkpoint_dir": os.path.join(out, "checkpoints"),
    }
    # Both formats, and the .json name of JSON Lines files aeb_verl 0.2 wrote.
    for stale in [file_name(stem, other) for stem in ("train", "validation") for other in ("parquet", "jsonl")] + ["train.json", "validation.json"]:
        if os.path.join(out, stale) not in (paths["train_files"], paths["val_files"]) and os.path.exists(os.path.join(out, stale)):
            os.remove(os.path.join(out, stale))
    write_rows(train_rows, paths["train_files"], data_format)
    write_rows(validation_rows, paths["val_files"], data_format)
    max_turns = max(limits.values())
    _write(os.path.join(out, "trainer.yaml"), trainer_config(trainer_choices, paths=paths, searchpath=verl.searchpath, verl_version=verl.version))
    _write(paths["agent_loop_config"], agent_loop_config(trainer_choices, base_urls=urls, preset=arguments.preset, reward_mode=arguments.reward_mode, on_error=arguments.on_error, read_timeout=arguments.read_timeout))
    python_path = os.pathsep.join([os.path.dirname(PACKAGE_DIR)] + ([verl.root] if verl.root else []))
    _write(paths["launch_script"], launch_script(config_dir=out, python_path=python_path, python=verl.python, verl_root=verl.root, verl_version=verl.version), executable=True)

    manifest = {
        "format": 1,
        "written_by": f"aeb_verl.prepare {__version__}",
        "servers": [server.display for server in client.servers],
        "episode": {"preset": arguments.preset, "reward_mode": arguments.reward_mode, "max_turns": max_turns, "max_turns_by_scenario": limits, "think": arguments.think, "on_error": arguments.on_error},
        "selection": {"suite": arguments.suite, "types": types or None},
        "split": {
            "seed": arguments.seed,
            "val_fraction": None if arguments.val_scenarios else arguments.val_fraction,
            "val_scenarios": _list(arguments.val_scenarios) or None,
            "val_types": _list(arguments.val_types) or None,
        },
        "train": {
            "file": paths["train_files"],
            "sha256": _sha256(paths["train_files"]),
            "rows": len(train_rows),
            "repeats": arguments.repeats,
            "scenarios": [{"id": scenario["id"], "type": scenario["type"]} for scenario in split.train],
        },
        "validation": {
            "file": paths["val_files"],
            "sha256": _sha256(paths["val_files"]),
            "rows": len(validation_rows),
            "repeats": arguments.val_repeats,
            "scenarios": [{"id": scenario["id"], "type": scenario["type"], "held_out_by": split.held_out_by[scenario["id"]]} for scenario in split.validation],
        },
        "format_of_rows": data_format,
        "trainer": {
            "recipe": trainer_choices.recipe,
            "algorithm": trainer_choices.algorithm_name,
            "model": trainer_choices.model,
            "rollout": trainer_choices.setting("rollout_name"),
            "rollout_n": trainer_choices.samples_per_row,
            "train_batch_size": trainer_choices.setting("train_batch_size"),
            "max_prompt_length": trainer_choices.prompt_length,
            "max_response_length": trainer_choices.response_length,
            "past_think": RECIPES[trainer_choices.recipe]["past_think"],
            "samples": RECIPES[trainer_choices.recipe]["samples"],
            "max_turn_tokens": RECIPES[trainer_choices.recipe]["max_turn_tokens"],
        },
        "verl": {"version": verl.version, "python": verl.python, "root": verl.root, "config_searchpath": verl.searchpath},
        "files": {
            "trainer_config": os.path.join(out, "trainer.yaml"),
            "agent_loop_config": paths["agent_loop_config"],
            "reward_function": paths["reward_path"],
            "reward_function_name": "compute_score_with_marks",
            "launch": paths["launch_script"],
        },
    }
    _write(os.path.join(out, "manifest.json"), json.dumps(manifest, indent=2, sort_keys=True, ensure_ascii=False) + "\n")
    return manifest


def main(argv: Optional[Sequence[str]] = None) -> int:
    arguments = parse_arguments(argv)
    try:
        manifest = prepare(arguments)
    except (ValueError, OSError, AebEnvironmentError) as error:
        print(f"aeb_verl.prepare: {error}", file=sys.stderr)
        return 1
    train, validation = manifest["train"], manifest["validation"]
    print(f"{train['rows']} training rows ({len(train['scenarios'])} scenarios) -> {train['file']}")
    print(f"{validation['rows']} validation rows ({len(validation['scenarios'])} held-out scenarios) -> {validation['file']}")
    print(f"launch: {manifest['files']['launch']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
