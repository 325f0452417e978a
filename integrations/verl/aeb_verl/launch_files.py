"""The trainer config, the agent loop registration and the launch script of a prepared directory,
rendered from the templates in ``aeb_verl/templates/`` (data, not code), and the two recipes
(``templates/recipes.json``: AEB's and RLVER's settings).

Values are substituted quoted for where they land: as JSON in YAML files (a JSON string, number,
list, ``null`` or ``true``/``false`` is a valid YAML flow value, so no path or URL can break the
YAML), and with ``shlex.quote`` in the shell script.
"""

from __future__ import annotations

import json
import os
import shlex
from dataclasses import dataclass
from string import Template
from typing import Any, Mapping, Optional

from .dataset import AGENT_LOOP as AGENT_NAME

TEMPLATES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "templates")
RECIPES_FILE = os.path.join(TEMPLATES, "recipes.json")


def load_recipes() -> dict[str, dict[str, Any]]:
    with open(RECIPES_FILE, encoding="utf-8") as handle:
        return json.load(handle)


RECIPES = load_recipes()


@dataclass(frozen=True)
class TrainerChoices:
    """The trainer settings of a prepared directory: the recipe's, with the command's overrides."""

    recipe: str = "aeb"
    model: str = "Qwen/Qwen2.5-7B-Instruct"
    think: bool = False
    algorithm: Optional[str] = None
    train_batch_size: Optional[int] = None
    rollout_n: Optional[int] = None
    n_gpus_per_node: Optional[int] = None
    nnodes: Optional[int] = None
    tensor_parallel: Optional[int] = None
    total_epochs: Optional[int] = None
    max_response_length: Optional[int] = None
    rollout_name: Optional[str] = None
    storage_units: Optional[int] = None

    def __post_init__(self) -> None:
        if self.recipe not in RECIPES:
            raise ValueError(f"recipe must be one of {', '.join(RECIPES)}, got {self.recipe!r}")
        if self.setting("algorithm") not in ("grpo", "ppo"):
            raise ValueError(f"algorithm must be grpo or ppo, got {self.setting('algorithm')!r}")
        if self.setting("rollout_name") not in ("vllm", "sglang"):
            raise ValueError(f"rollout must be vllm or sglang, got {self.setting('rollout_name')!r}")
        for name in ("train_batch_size", "n_gpus_per_node", "nnodes", "tensor_parallel", "total_epochs", "storage_units"):
            value = getattr(self, name)
            if value is not None and value < 1:
                raise ValueError(f"{name} must be >= 1, got {value}")
        if self.rollout_n is not None and self.rollout_n < 1:
            raise ValueError(f"rollout_n must be >= 1, got {self.rollout_n}")
        if self.setting("algorithm") == "grpo" and self.samples_per_row == 1:
            raise ValueError("GRPO compares several rollouts of the same row: rollout_n must be >= 2")
        if self.max_response_length is not None and self.max_response_length < 256:
            raise ValueError(f"max_response_length must be >= 256 tokens, got {self.max_response_length}")

    def setting(self, name: str) -> Any:
        """The command's value when given, else the recipe's."""
        value = getattr(self, name, None)
        return value if value is not None else RECIPES[self.recipe][name]

    @property
    def algorithm_name(self) -> str:
        return self.setting("algorithm")

    @property
    def samples_per_row(self) -> int:
        if self.rollout_n is not None:
            return self.rollout_n
        recipe_n = RECIPES[self.recipe]["rollout_n"]
        if recipe_n is not None and self.algorithm is None:
            return recipe_n
        return 8 if self.algorithm_name == "grpo" else 1

    @property
    def response_length(self) -> int:
        if self.max_response_length is not None:
            return self.max_response_length
        return RECIPES[self.recipe]["max_response_length"]["think" if self.think else "direct"]

    @property
    def prompt_length(self) -> int:
        return RECIPES[self.recipe]["max_prompt_length"]

    @property
    def storage_unit_count(self) -> int:
        """TransferQueue's storage units: the command's, else verl's recommended two per node."""
        return self.storage_units if self.storage_units is not None else 2 * self.setting("nnodes")

    @property
    def experiment_name(self) -> str:
        model = self.model.rstrip("/").rsplit("/", 1)[-1].lower()
        return f"{model}-{self.recipe}-{self.algorithm_name}-{'think' if self.think else 'nothink'}"


def render(template_name: str, quoted_values: Mapping[str, str]) -> str:
    """The template with its placeholders replaced; a placeholder without a value raises KeyError."""
    with open(os.path.join(TEMPLATES, template_name), encoding="utf-8") as handle:
        template = Template(handle.read())
    return template.substitute(quoted_values)


def yaml_value(value: Any) -> str:
    return json.dumps(value, ensure_ascii=True)


def trainer_config(choices: TrainerChoices, *, paths: Mapping[str, str], searchpath: str, verl_version: str) -> str:
    """The Hydra primary config (``trainer.yaml``). ``paths``: train_files, val_files,
    agent_loop_config, reward_path, launch_script, config_dir, rollout_data_dir,
    validation_data_dir, checkpoint_dir (all absolute)."""
    grpo = choices.algorithm_name == "grpo"
    recipe = RECIPES[choices.recipe]
    token_budget = recipe["ppo_max_token_len_per_gpu"] or 3 * (choices.prompt_length + choices.response_length)
    values = {
        **paths,
        "recipe": choices.recipe,
        "verl_version": verl_version,
        "searchpath": searchpath,
        "agent_name": AGENT_NAME,
        "train_batch_size": choices.setting("train_batch_size"),
        "ppo_mini_batch_size": choices.setting("train_batch_size"),
        "max_prompt_length": choices.prompt_length,
        "max_response_length": choices.response_length,
        "ppo_max_token_len_per_gpu": token_budget,
        "adv_estimator": "grpo" if grpo else "gae",
        "model": choices.model,
        "rollout_n": choices.samples_per_row,
        "use_kl_loss": grpo,
        "kl_loss_coef": 0.001 if grpo else 0.0,
        "actor_lr": recipe["actor_lr"],
        "actor_warmup": recipe["actor_warmup"],
        "critic_lr": recipe["critic_lr"],
        "critic_warmup": recipe["critic_warmup"],
        "ref_param_offload": recipe["ref_param_offload"],
        "rollout_name": choices.setting("rollout_name"),
        "tensor_parallel": choices.setting("tensor_parallel"),
        "gpu_memory_utilization": recipe["gpu_memory_utilization"],
        "storage_units": choices.storage_unit_count,
        "experiment_name": choices.experiment_name,
        "nnodes": choices.setting("nnodes"),
        "n_gpus_per_node": choices.setting("n_gpus_per_node"),
        "total_epochs": choices.setting("total_epochs"),
        "total_training_steps": recipe["total_training_steps"],
        "save_freq": recipe["save_freq"],
        "test_freq": recipe["test_freq"],
        "val_before_train": recipe["val_before_train"],
    }
    return render("trainer.yaml", {key: yaml_value(value) for key, value in values.items()})


def agent_loop_config(choices: TrainerChoices, *, base_urls: list[str], preset: str, reward_mode: str, on_error: str, read_timeout: float) -> str:
    """The agent loop registration file (``agent_loop.yaml``)."""
    recipe = RECIPES[choices.recipe]
    values = {
        "agent_name": AGENT_NAME,
        "past_think": recipe["past_think"],
        "samples": recipe["samples"],
        "max_turn_tokens": recipe["max_turn_tokens"],
        "base_urls": base_urls,
        "preset": preset,
        "reward_mode": reward_mode,
        "on_error": on_error,
        "read_timeout": read_timeout,
    }
    return render("agent_loop.yaml", {key: yaml_value(value) for key, value in values.items()})


def launch_script(*, config_dir: str, python_path: str, python: str, verl_root: Optional[str], verl_version: str) -> str:
    change_directory = f"cd {shlex.quote(verl_root)}" if verl_root else "# verl is the installed package of the interpreter below."
    return render("launch.sh", {"config_dir": shlex.quote(config_dir), "python_path": shlex.quote(python_path), "python": shlex.quote(python), "change_directory": change_directory, "verl_version": verl_version})
