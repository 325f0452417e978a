"""The reward functions on the extra_info verl 0.9's reward loop hands them: the sum, the marks, and
bad input (``test_verl_agent_loop`` runs them inside verl's reward loop)."""

from __future__ import annotations

import unittest

import support  # noqa: F401  (puts the package on sys.path)

import aeb_verl.reward as aeb_reward


class NumpyLike:
    """What verl hands over after its object arrays: values with ``tolist``/``item``."""

    def __init__(self, values):
        self.values = values

    def tolist(self):
        return list(self.values)


class NumpyBool:
    def __init__(self, value: bool):
        self.value = value

    def item(self) -> bool:
        return self.value


def merged(**fields):
    """extra_info as the naive manager builds it: the row's own, the loop's fields, num_turns."""
    return {"index": 3, "aeb_episode": {"scenario_id": "x"}, "turn_scores": [0.0, 0.0, 0.64], "tool_rewards": [], "aeb_error": None, "aeb_budget_cut": False, "num_turns": 7, "rollout_reward_scores": {}, **fields}


class Scores(unittest.TestCase):
    def test_the_score_is_the_sum_of_the_turn_rewards(self) -> None:
        self.assertAlmostEqual(aeb_reward.compute_score(data_source="aeb/gaslighting", solution_str="...", ground_truth="", extra_info=merged()), 0.64)
        self.assertEqual(aeb_reward.compute_score_with_marks(data_source="aeb/gaslighting", solution_str="...", ground_truth="", extra_info=merged()), {"score": 0.64, "aeb_failed": 0.0, "aeb_truncated": 0.0, "aeb_env_turns": 3.0})
        self.assertAlmostEqual(aeb_reward.compute_score("aeb", "", extra_info=merged(turn_scores=[0.05, -0.02])), 0.03)

    def test_numpy_values_are_read(self) -> None:
        self.assertAlmostEqual(aeb_reward.compute_score("aeb", "", extra_info=merged(turn_scores=NumpyLike([0.1, 0.2]), aeb_budget_cut=NumpyBool(False))), 0.3)

    def test_the_missing_rewards_error_says_how_to_set_verl_up(self) -> None:
        with self.assertRaisesRegex(ValueError, "agent_name 'aeb'.*agent_loop_config_path"):
            aeb_reward.compute_score_with_marks("aeb", "", extra_info={"rollout_reward_scores": {}, "num_turns": 2})

    def test_malformed_fields_are_named(self) -> None:
        with self.assertRaisesRegex(ValueError, "extra_info.turn_scores must be a list"):
            aeb_reward.compute_score("aeb", "", extra_info=merged(turn_scores="0.5"))
        with self.assertRaisesRegex(ValueError, "extra_info.turn_scores must hold numbers"):
            aeb_reward.compute_score("aeb", "", extra_info=merged(turn_scores=[0.1, "x"]))
        with self.assertRaisesRegex(ValueError, "extra_info.aeb_budget_cut must be true or false"):
            aeb_reward.compute_score_with_marks("aeb", "", extra_info=merged(aeb_budget_cut="no"))
        with self.assertRaisesRegex(ValueError, "extra_info.aeb_error must be the error text or None"):
            aeb_reward.compute_score_with_marks("aeb", "", extra_info=merged(aeb_error=1))


class Marks(unittest.TestCase):
    def test_a_failed_episode_is_marked_and_scored_failed_score_never_silently(self) -> None:
        failed = merged(turn_scores=[0.02], aeb_error="connection_failed: connection refused")
        self.assertEqual(aeb_reward.compute_score_with_marks("aeb", "", extra_info=failed), {"score": 0.0, "aeb_failed": 1.0, "aeb_truncated": 0.0, "aeb_env_turns": 1.0})
        self.assertEqual(aeb_reward.compute_score_with_marks("aeb", "", extra_info=failed, failed_score=-1.0)["score"], -1.0)
        with self.assertRaisesRegex(ValueError, "environment failed"):
            aeb_reward.compute_score("aeb", "", extra_info=failed)

    def test_a_dialogue_the_budget_cut_is_marked_truncated(self) -> None:
        cut = aeb_reward.compute_score_with_marks("aeb", "", extra_info=merged(turn_scores=[0.0, 0.0, 0.0], aeb_budget_cut=True))
        self.assertEqual((cut["score"], cut["aeb_truncated"]), (0.0, 1.0))
        self.assertEqual(aeb_reward.compute_score_with_marks("aeb", "", extra_info=merged())["aeb_truncated"], 0.0)

    def test_every_sample_gets_the_same_keys(self) -> None:
        # verl stacks reward_extra_info by the first sample's keys.
        shapes = [merged(), merged(aeb_error="timeout"), merged(turn_scores=[], aeb_budget_cut=True)]
        keys = {tuple(sorted(aeb_reward.compute_score_with_marks("aeb", "", extra_info=info))) for info in shapes}
        self.assertEqual(len(keys), 1)


if __name__ == "__main__":
    unittest.main()
