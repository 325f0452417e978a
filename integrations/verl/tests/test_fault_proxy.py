"""Forty episodes through a flaky network: the interaction, driven as verl's tool agent loop drives
it, behind a proxy injecting 10% 429, 5% 500, 5% 503, 3% dropped connections and 2% stalls, finishes
every episode with exactly the rewards and user messages it gets without the proxy (those of the
``aeb run`` it replays, which ``test_tool_agent_loop`` shows the direct path reproduces)."""

from __future__ import annotations

import unittest

import support
from fault_proxy import FaultProxy
from support import LoopLimits, needs_verl_reference, reward_like_naive_manager, run_concurrently, run_like_tool_agent_loop

import aeb_verl.reward as aeb_reward

if support.BASE_INTERACTION is not None:
    from aeb_verl.interaction import AebInteraction

EPISODES = 40
# Short timeouts keep the test fast: a stall costs one read timeout, a retry a few milliseconds.
FLAKY = {"max_attempts": 12, "max_elapsed": 60, "backoff": 0.005, "max_backoff": 0.05, "connect_timeout": 2, "read_timeout": 0.5, "seed": 14}


def setUpModule() -> None:  # noqa: N802
    support.server()



@needs_verl_reference
class FlakyNetwork(unittest.TestCase):
    def play(self, base_url: str, records: list, rows: dict, **config):
        env = AebInteraction({"name": "aeb", "base_urls": [base_url], "reward_mode": "final", **config})
        trainer = support.prepared_directory()["manifest"]["trainer"]
        limits = LoopLimits(max_assistant_turns=trainer["max_assistant_turns"], max_user_turns=trainer["max_user_turns"])

        def replies(record):
            return lambda turn, messages: record["turns"][turn]["agent"]["text"]

        try:
            return run_concurrently([run_like_tool_agent_loop(env, rows[(record["scenarioId"], record["repeat"])], replies(record), limits) for record in records])
        finally:
            env.close()

    def test_forty_episodes_complete_with_the_same_rewards_through_the_fault_proxy(self) -> None:
        _, records = support.run_dialogues()
        records = records[:EPISODES]
        prepared = support.prepared_directory()
        rows = {(row["extra_info"]["scenario_id"], row["extra_info"]["repeat"]): row for row in prepared["train"] + prepared["validation"]}
        proxy = FaultProxy(support.server()["url"], seed=14, stall_seconds=1.0)
        try:
            flaky = self.play(proxy.url, records, rows, **FLAKY)
        finally:
            proxy.close()
        self.assertEqual(len(flaky), EPISODES)
        for record, noisy in zip(records, flaky):
            row = rows[(record["scenarioId"], record["repeat"])]
            self.assertEqual(noisy.extra_fields["turn_scores"], [0.0] * (len(record["turns"]) - 1) + [record["final"]["emotion"] / 100], record["id"])
            self.assertEqual([message["content"] for message in noisy.messages[len(row["prompt"]) + 1 :: 2]], [turn["user"]["text"] for turn in record["turns"]], record["id"])
            marked = reward_like_naive_manager(aeb_reward.compute_score_with_marks, row, noisy)
            self.assertEqual((marked["aeb_failed"], marked["aeb_truncated"], marked["aeb_env_turns"]), (0.0, 0.0, float(len(record["turns"]))), record["id"])
            self.assertAlmostEqual(marked["score"], record["final"]["fs"], places=9, msg=record["id"])
        # The mix really was injected, every kind of it.
        total = proxy.forwarded + sum(proxy.injected.values())
        self.assertEqual(set(proxy.injected), {"429", "500", "503", "drop", "stall"}, proxy.injected)
        self.assertGreater(sum(proxy.injected.values()) / total, 0.15, (proxy.injected, total))


if __name__ == "__main__":
    unittest.main()
