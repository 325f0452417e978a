"""verl custom reward function for AEB rollouts (``custom_reward_function.path``).

The interaction (aeb_interaction.py) returns a reward for every user turn; verl collects them as
``user_turn_rewards`` (in ``extra_info["rollout_reward_scores"]`` or ``reward_scores``, depending on
the verl version). The episode's reward is their sum: in ``final`` mode only the terminal turn pays
(emotion / 100, as RLVER trained); in ``delta`` mode the sum is (final - start emotion) / 100.

Set verl's ``multi_turn.max_assistant_turns`` to at least the preset's turn limit (8 for rlver and
aeb, 10 for sage), so the environment, not the trainer, ends each episode and the terminal reward
is always paid.
"""

from __future__ import annotations

from typing import Any, Optional


def _turn_rewards(extra_info: Optional[dict[str, Any]], kwargs: dict[str, Any]) -> Optional[list[float]]:
    for source in ((extra_info or {}).get("rollout_reward_scores"), kwargs.get("reward_scores"), (extra_info or {}).get("reward_scores")):
        if isinstance(source, dict) and isinstance(source.get("user_turn_rewards"), (list, tuple)):
            return [float(value) for value in source["user_turn_rewards"]]
    if isinstance(kwargs.get("user_turn_rewards"), (list, tuple)):
        return [float(value) for value in kwargs["user_turn_rewards"]]
    return None


def compute_score(data_source: str, solution_str: str, ground_truth: Any = None, extra_info: Optional[dict[str, Any]] = None, **kwargs: Any) -> float:
    rewards = _turn_rewards(extra_info, kwargs)
    if rewards is None:
        raise ValueError("no user_turn_rewards from the AEB interaction: is multi_turn.interaction_config_path set?")
    return float(sum(rewards))
