"""The trainer config, the interaction config and the launch script of a prepared directory,
rendered from the templates in ``aeb_verl/templates/`` (data, not code).

Values are substituted quoted for where they land: as JSON in YAML files (a JSON string, number,
list or ``true``/``false`` is a valid YAML flow value, so no path or URL can break the YAML), and
with ``shlex.quote`` in the shell script.
"""

from __future__ import annotations

import json
import os
import shlex
from dataclasses import dataclass
from string import Template
from typing import Any, Mapping, Optional

TEMPLATES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "templates")

#: Tokens of the whole dialogue (every assistant and user turn) by default, with and without thinking.
RESPONSE_LENGTH = {True: 12288, False: 8192}
PROMPT_LENGTH = 1024


@dataclass(frozen=True)
class TrainerChoices:
    """What the trainer config leaves to the user of ``aeb_verl.prepare``."""

    algorithm: str = "grpo"
    model: str = "Qwen/Qwen2.5-7B-Instruct"
    think: bool = False
    train_batch_size: int = 32
    rollout_n: Optional[int] = None
    n_gpus_per_node: int = 8
    nnodes: int = 1
    tensor_parallel: int = 2
    total_epochs: int = 20
    max_response_length: Optional[int] = None

    def __post_init__(self) -> None:
        if self.algorithm not in ("grpo", "ppo"):
            raise ValueError(f"algorithm must be grpo or ppo, got {self.algorithm!r}")
        for name in ("train_batch_size", "n_gpus_per_node", "nnodes", "tensor_parallel", "total_epochs"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be >= 1, got {getattr(self, name)}")
        if self.rollout_n is not None and self.rollout_n < 1:
            raise ValueError(f"rollout_n must be >= 1, got {self.rollout_n}")
        if self.algorithm == "grpo" and self.rollout_n == 1:
            raise ValueError("GRPO compares several rollouts of the same row: rollout_n must be >= 2")
        if self.max_response_length is not None and self.max_response_length < 256:
            raise ValueError(f"max_response_length must be >= 256 tokens, got {self.max_response_length}")

    @property
    def samples_per_row(self) -> int:
        return self.rollout_n if self.rollout_n is not None else (8 if self.algorithm == "grpo" else 1)

    @property
    def response_length(self) -> int:
        return self.max_response_length if self.max_response_length is not None else RESPONSE_LENGTH[self.think]

    @property
    def experiment_name(self) -> str:
        model = self.model.rstrip("/").rsplit("/", 1)[-1].lower()
        return f"{model}-{self.algorithm}-{'think' if self.think else 'nothink'}"


def render(template_name: str, quoted_values: Mapping[str, str]) -> str:
    """The template with its placeholders replaced; a placeholder without a value raises KeyError."""
    with open(os.path.join(TEMPLATES, template_name), encoding="utf-8") as handle:
        template = Template(handle.read())
    return template.substitute(quoted_values)


def yaml_value(value: Any) -> str:
    return json.dumps(value, ensure_ascii=True)


def trainer_config(choices: TrainerChoices, *, paths: Mapping[str, str], max_turns: int, searchpath: str) -> str:
    """The Hydra primary config (``trainer.yaml``). ``paths``: train_files, val_files,
    interaction_config, reward_path, launch_script, config_dir, rollout_data_dir,
    validation_data_dir, checkpoint_dir (all absolute)."""
    grpo = choices.algorithm == "grpo"
    total_length = PROMPT_LENGTH + choices.response_length
    values = {
        **paths,
        "searchpath": searchpath,
        "train_batch_size": choices.train_batch_size,
        "ppo_mini_batch_size": choices.train_batch_size,
        "max_prompt_length": PROMPT_LENGTH,
        "max_response_length": choices.response_length,
        "ppo_max_token_len_per_gpu": 3 * total_length,
        "adv_estimator": "grpo" if grpo else "gae",
        "model": choices.model,
        "rollout_n": choices.samples_per_row,
        "use_kl_loss": grpo,
        "kl_loss_coef": 0.001 if grpo else 0.0,
        "tensor_parallel": choices.tensor_parallel,
        "max_assistant_turns": max_turns + 1,
        "max_user_turns": max_turns,
        "experiment_name": choices.experiment_name,
        "nnodes": choices.nnodes,
        "n_gpus_per_node": choices.n_gpus_per_node,
        "total_epochs": choices.total_epochs,
    }
    return render("trainer.yaml", {key: yaml_value(value) for key, value in values.items()})


def interaction_config(*, name: str, base_urls: list[str], preset: str, reward_mode: str, on_error: str, read_timeout: float) -> str:
    values = {"name": name, "base_urls": base_urls, "preset": preset, "reward_mode": reward_mode, "on_error": on_error, "read_timeout": read_timeout}
    return render("interaction.yaml", {key: yaml_value(value) for key, value in values.items()})


def launch_script(*, config_dir: str, package_parent: str, verl_root: Optional[str]) -> str:
    change_directory = f"cd {shlex.quote(verl_root)}" if verl_root else "# Run from the verl repository's root (the trainer config finds verl's configs there)."
    return render("launch.sh", {"config_dir": shlex.quote(config_dir), "package_parent": shlex.quote(package_parent), "change_directory": change_directory})
