"""verl reward functions for AEB rollouts (``custom_reward_function.path`` and ``.name``).

This file is loaded by path (verl's ``load_extern_object``), so it imports nothing but the standard
library.

Where the rewards come from. The interaction (``aeb_verl.interaction``) returns a reward for each
turn the environment judged. In current verl (commit b178a3c) the ``tool_agent`` loop appends them
to ``turn_scores`` and returns them in its ``extra_fields``; the reward loop's manager
(``reward_loop/reward_manager/naive.py``) merges those fields into the row's ``extra_info``, adds
``num_turns`` (user turns + assistant turns + 1) and ``rollout_reward_scores`` (``{}`` there), and
calls ``compute_score(data_source=, solution_str=, ground_truth=, extra_info=)``. Older verl
versions (the sglang rollout removed in December 2025) delivered the rewards as
``user_turn_rewards`` inside ``extra_info["rollout_reward_scores"]`` or a ``reward_scores``
argument; both shapes are still read.

The episode's reward is the sum of its turn rewards: in ``final`` mode (RLVER's) only the terminal
turn pays, emotion / 100; in ``delta`` mode every turn pays its change / 100, so the sum is
(final - start emotion) / 100.

Two things are not rewards and are reported, never hidden:

- a **failed** episode: the environment stayed unreachable past the client's retry budget and the
  interaction ran with ``on_error: mark``; it put NaN in ``turn_scores``;
- a **truncated** episode: the trainer stopped the dialogue (``max_assistant_turns``,
  ``max_user_turns`` or the response length) after the policy replied and before the environment
  judged that reply. The tool agent loop then counts one more assistant turn than user turns, so
  ``num_turns`` is ``2 * len(turn_scores) + 2`` instead of ``+ 1``. In ``final`` mode such a
  dialogue earns 0 (no terminal turn was paid): raise the limits so the environment ends every
  dialogue (``python3 -m aeb_verl.prepare`` sets them).

``compute_score`` returns a number and raises on a failed episode. ``compute_score_with_marks``
(what ``aeb_verl.prepare`` configures) returns verl's dict form, ``{"score", "aeb_failed",
"aeb_truncated", "aeb_env_turns"}``, the same keys for every sample: a failed episode scores
``failed_score`` (default 0, settable through ``custom_reward_function.reward_kwargs``) with
``aeb_failed`` 1, so the marks reach verl's validation metrics and rollout dumps.
"""

from __future__ import annotations

import math
from typing import Any, Optional

__all__ = ["compute_score", "compute_score_with_marks", "turn_rewards"]

_MISSING = (
    "no AEB turn rewards: extra_info has no turn_scores. The row must run in verl's tool_agent loop (agent_name 'tool_agent', "
    "or actor_rollout_ref.rollout.agent.default_agent_loop=tool_agent) with "
    "actor_rollout_ref.rollout.multi_turn.interaction_config_path set, and rewards computed by the reward loop "
    "(reward_model.use_reward_loop=true, verl's default); python3 -m aeb_verl.prepare writes such a setup"
)


def turn_rewards(extra_info: Optional[dict[str, Any]], kwargs: Optional[dict[str, Any]] = None) -> Optional[list[float]]:
    """The per-turn rewards of the episode in whichever shape this verl delivered them, or None."""
    info = extra_info if isinstance(extra_info, dict) else {}
    extras = kwargs or {}
    current = info.get("turn_scores")
    if current is not None:
        return _floats(current, "extra_info.turn_scores")
    for where, source in (("extra_info.rollout_reward_scores", info.get("rollout_reward_scores")), ("reward_scores", extras.get("reward_scores")), ("extra_info.reward_scores", info.get("reward_scores"))):
        if isinstance(source, dict) and source.get("user_turn_rewards") is not None:
            return _floats(source["user_turn_rewards"], f"{where}.user_turn_rewards")
    if extras.get("user_turn_rewards") is not None:
        return _floats(extras["user_turn_rewards"], "user_turn_rewards")
    return None


def compute_score(data_source: str, solution_str: str, ground_truth: Any = None, extra_info: Optional[dict[str, Any]] = None, **kwargs: Any) -> float:
    """The episode's reward, the sum of its turn rewards; raises for a failed episode."""
    rewards = turn_rewards(extra_info, kwargs)
    if rewards is None:
        raise ValueError(_MISSING)
    if any(math.isnan(reward) for reward in rewards):
        raise ValueError("the AEB environment failed during this episode (a NaN turn score from on_error: mark); use compute_score_with_marks to score such samples as marked failures")
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
    rewards = turn_rewards(extra_info, kwargs)
    if rewards is None:
        raise ValueError(_MISSING)
    failed = any(math.isnan(reward) for reward in rewards)
    num_turns = (extra_info or {}).get("num_turns")
    truncated = not failed and _is_integer(num_turns) and int(num_turns) > 2 * len(rewards) + 1
    return {
        "score": float(failed_score) if failed else float(sum(rewards)),
        "aeb_failed": 1.0 if failed else 0.0,
        "aeb_truncated": 1.0 if truncated else 0.0,
        "aeb_env_turns": float(len(rewards)),
    }


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


def _is_integer(value: Any) -> bool:
    if value is None or isinstance(value, bool):
        return False
    if hasattr(value, "item") and not isinstance(value, (int, float)):
        value = value.item()
    return isinstance(value, int) or (isinstance(value, float) and value.is_integer())
