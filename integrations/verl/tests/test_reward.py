"""The reward functions: every shape of turn rewards verl has delivered, the marks, and bad input."""

from __future__ import annotations

import math
import unittest

import support  # noqa: F401  (puts the package on sys.path)

import aeb_verl.reward as aeb_reward


class NumpyLike:
    """What verl hands over after its object arrays: values with ``tolist``/``item``."""

    def __init__(self, values):
        self.values = values

    def tolist(self):
        return list(self.values)


class TurnRewardShapes(unittest.TestCase):
    def test_the_reward_function_sums_the_turn_rewards_from_any_verl_version(self) -> None:
        self.assertAlmostEqual(aeb_reward.compute_score("aeb", "", extra_info={"rollout_reward_scores": {"user_turn_rewards": [0, 0, 0.87]}}), 0.87)
        self.assertAlmostEqual(aeb_reward.compute_score("aeb", "", reward_scores={"user_turn_rewards": [0.05, -0.02]}), 0.03)
        with self.assertRaises(ValueError):
            aeb_reward.compute_score("aeb", "", extra_info={})

    def test_current_verl_delivers_turn_scores_merged_into_extra_info(self) -> None:
        # As the reward loop's naive manager calls it: keywords, turn_scores beside the row's own extra_info.
        extra_info = {"index": 3, "interaction_kwargs": {"name": "aeb"}, "turn_scores": [0.0, 0.0, 0.64], "tool_rewards": [], "num_turns": 7, "rollout_reward_scores": {}}
        self.assertAlmostEqual(aeb_reward.compute_score(data_source="aeb/gaslighting", solution_str="...", ground_truth="", extra_info=extra_info), 0.64)
        self.assertEqual(aeb_reward.compute_score_with_marks(data_source="aeb/gaslighting", solution_str="...", ground_truth="", extra_info=extra_info), {"score": 0.64, "aeb_failed": 0.0, "aeb_truncated": 0.0, "aeb_env_turns": 3.0})

    def test_turn_scores_win_over_the_empty_rollout_reward_scores_and_numpy_values_are_read(self) -> None:
        extra_info = {"turn_scores": NumpyLike([0.1, 0.2]), "rollout_reward_scores": {"user_turn_rewards": [9.0]}}
        self.assertAlmostEqual(aeb_reward.compute_score("aeb", "", extra_info=extra_info), 0.3)

    def test_the_missing_rewards_error_says_how_to_set_verl_up(self) -> None:
        with self.assertRaisesRegex(ValueError, "tool_agent.*interaction_config_path"):
            aeb_reward.compute_score_with_marks("aeb", "", extra_info={"rollout_reward_scores": {}, "num_turns": 2})

    def test_malformed_turn_scores_are_named(self) -> None:
        with self.assertRaisesRegex(ValueError, "extra_info.turn_scores must be a list"):
            aeb_reward.compute_score("aeb", "", extra_info={"turn_scores": "0.5"})
        with self.assertRaisesRegex(ValueError, "extra_info.turn_scores must hold numbers"):
            aeb_reward.compute_score("aeb", "", extra_info={"turn_scores": [0.1, "x"]})


class Marks(unittest.TestCase):
    def test_a_failed_episode_is_marked_and_scored_failed_score_never_silently(self) -> None:
        extra_info = {"turn_scores": [0.02, math.nan], "num_turns": 5}
        self.assertEqual(aeb_reward.compute_score_with_marks("aeb", "", extra_info=extra_info), {"score": 0.0, "aeb_failed": 1.0, "aeb_truncated": 0.0, "aeb_env_turns": 2.0})
        self.assertEqual(aeb_reward.compute_score_with_marks("aeb", "", extra_info=extra_info, failed_score=-1.0)["score"], -1.0)
        with self.assertRaisesRegex(ValueError, "environment failed"):
            aeb_reward.compute_score("aeb", "", extra_info=extra_info)

    def test_a_dialogue_the_trainer_cut_is_marked_truncated(self) -> None:
        # Three judged turns and a fourth reply the environment never saw: 4 assistant + 3 user + 1.
        cut = aeb_reward.compute_score_with_marks("aeb", "", extra_info={"turn_scores": [0.0, 0.0, 0.0], "num_turns": 8})
        self.assertEqual((cut["score"], cut["aeb_truncated"]), (0.0, 1.0))
        ended = aeb_reward.compute_score_with_marks("aeb", "", extra_info={"turn_scores": [0.0, 0.0, 0.4], "num_turns": 7})
        self.assertEqual(ended["aeb_truncated"], 0.0)
        unknown = aeb_reward.compute_score_with_marks("aeb", "", extra_info={"turn_scores": [0.4]})
        self.assertEqual(unknown["aeb_truncated"], 0.0)

    def test_every_sample_gets_the_same_keys(self) -> None:
        # verl stacks reward_extra_info by the first sample's keys.
        shapes = [{"turn_scores": [0.5], "num_turns": 3}, {"turn_scores": [math.nan], "num_turns": 3}, {"turn_scores": [], "num_turns": 2}]
        keys = {tuple(sorted(aeb_reward.compute_score_with_marks("aeb", "", extra_info=info))) for info in shapes}
        self.assertEqual(len(keys), 1)


if __name__ == "__main__":
    unittest.main()
