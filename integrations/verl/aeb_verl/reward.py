"""verl reward functions for AEB rollouts (``reward.custom_reward_function.path`` and ``.name``).

This file is loaded by path (verl's ``load_extern_object``), so it imports nothing but the standard
library.

Where the rewards come from. The AEB agent loop (``aeb_verl.agent_loop``) returns, in its
``extra_fields``, ``turn_scores`` (the server's reward for every turn it judged), ``aeb_error``
(why the environment failed, or None) and ``aeb_budget_cut`` (the token budget ended the dialogue). verl 0.9's reward loop (``RewardLoopWorker`` with the
``naive`` reward manager) merges those fields into the row's ``extra_info`` and calls
``compute_score(data_source=, solution_str=, ground_truth=, extra_info=)``.

The episode's reward is the sum of its turn rewards: in ``final`` mode (RLVER's) only the terminal
turn pays, emotion / 100; in ``delta`` mode every turn pays its change / 100, so the sum is
(final - start emotion) / 100.

Two things are not rewards and are reported, never hidden:

- a **failed** episode: the environment stayed unreachable past the client's retry budget and the
  loop ran with ``on_error: mark``;
- a **truncated** episode: the next turn did not fit the token budget, so the dialogue stopped
  before the environment ended it. In ``final`` mode it earns 0 (no terminal turn was paid): raise
  the budgets so the environment ends every dialogue.

``compute_score`` returns a number and raises on a failed episode. ``compute_score_with_marks``
(what ``aeb_verl.prepare`` configures) returns verl's dict form, ``{"score", "aeb_failed",
"aeb_truncated", "aeb_env_turns"}``, the same keys for every sample: a failed episode scores
``failed_score`` (default 0, settable through ``reward.custom_reward_function.reward_kwargs``) with
``aeb_failed`` 1, so the marks reach verl's metrics and rollout dumps.
"""

from __future__ import annotations

from typing import Any, Optional

__all__ = ["compute_score", "compute_score_with_marks", "turn_rewards"]

_MISSING = (
    "no AEB turn rewards: extra_info has no turn_scores. The row must run in the AEB agent loop (agent_name 'aeb', registered by "
    "actor_rollout_ref.rollout.agent.agent_loop_config_path) and be scored by verl's reward loop; python3 -m aeb_verl.prepare writes such a setup"
)


def turn_rewards(extra_info: Optional[dict[str, Any]]) -> Optional[list[float]]:
    """The per-turn rewards the agent loop returned, or None when there are none."""
    info = extra_info if isinstance(extra_info, dict) else {}
    values = info.get("turn_scores")
    if values is None:
        return None
    return _floats(values, "extra_info.turn_scores")


def compute_score(data_source: str, solution_str: str, ground_truth: Any = None, extra_info: Optional[dict[str, Any]] = None, **kwargs: Any) -> float:
    """The episode's reward, the sum of its turn rewards; raises for a failed episode."""
    rewards = turn_rewards(extra_info)
    if rewards is None:
        raise ValueError(_MISSING)
    if _failed(extra_info):
        raise ValueError("the AEB environment failed during this episode (on_error: mark); use compute_score_with_marks to score such samples as marked failures")
    return float(sum(rewards))


def compute_score_with_marks(
    data_source: str,
    solution_str: str,
    ground_truth: Any = None,
    extra_info: Optional[dict[str, Any]] = None,
    failed_score: float = 0.0,
    **kwargs: Any,
) -> dict[str, float]:
    """verl's dict form: ``score`` plus the marks ``aeb_failed``, ``aeb_truncated`` and ``aeb_env_turns``."""
    rewards = turn_rewards(extra_info)
    if rewards is None:
        raise ValueError(_MISSING)
    failed = _failed(extra_info)
    return {
        "score": float(failed_score) if failed else float(sum(rewards)),
        "aeb_failed": 1.0 if failed else 0.0,
        "aeb_truncated": 1.0 if not failed and _flag(extra_info, "aeb_budget_cut") else 0.0,
        "aeb_env_turns": float(len(rewards)),
    }


def _failed(extra_info: Optional[dict[str, Any]]) -> bool:
    error = (extra_info or {}).get("aeb_error")
    if error is not None and not isinstance(error, str):
        raise ValueError(f"extra_info.aeb_error must be the error text or None, got {error!r}")
    return error is not None


def _flag(extra_info: Optional[dict[str, Any]], key: str) -> bool:
    value = (extra_info or {}).get(key, False)
    if hasattr(value, "item") and not isinstance(value, (bool, int, float)):
        value = value.item()
    if not isinstance(value, (bool, int)) or value not in (0, 1):
        raise ValueError(f"extra_info.{key} must be true or false, got {value!r}")
    return bool(value)


def _floats(values: Any, where: str) -> list[float]:
    if hasattr(values, "tolist"):
        values = values.tolist()
    if not isinstance(values, (list, tuple)):
        raise ValueError(f"{where} must be a list of numbers, got {type(values).__name__}")
    rewards = []
    for value in values:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            if hasattr(value, "item"):
                value = value.item()
            else:
                raise ValueError(f"{where} must hold numbers, got {value!r}")
        rewards.append(float(value))
    return rewards
