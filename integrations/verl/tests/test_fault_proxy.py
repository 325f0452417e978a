"""Forty episodes through a flaky network: the agent loop's environment (``aeb_verl.environment``,
what ``AebAgentLoop`` resets and steps through) behind a proxy injecting 10% 429, 5% 500, 5% 503,
3% dropped connections and 2% stalls finishes every episode with exactly the rewards and user
messages it gets without the proxy."""

from __future__ import annotations

import asyncio
import json
import os
import unittest
from typing import Any

import support
from fault_proxy import FaultProxy

from aeb_verl.environment import ProcessEnvironment
from aeb_verl.settings import EnvironmentSettings

EPISODES = 40
# Short timeouts keep the test fast: a stall costs one read timeout, a retry a few milliseconds.
FLAKY = {"max_attempts": 12, "max_elapsed": 60, "backoff": 0.005, "max_backoff": 0.05, "connect_timeout": 2, "read_timeout": 0.5, "seed": 14}
with open(os.path.join(support.HERE, "fixtures", "policy-replies.json"), encoding="utf-8") as handle:
    REPLIES = [reply["visible"] for reply in json.load(handle)["replies"]]


def setUpModule() -> None:  # noqa: N802
    support.server()


async def play(environment: ProcessEnvironment, request: dict[str, Any]) -> tuple[list[float], list[str], str]:
    episode = await environment.reset(request)
    users = []
    for turn in range(100):
        answer = await environment.step(episode, REPLIES[turn % len(REPLIES)])
        users.append(answer["message"])
        if episode.done:
            return episode.turn_rewards, users, episode.end_reason
    raise AssertionError("the episode never ended")


def play_all(base_url: str, requests: list[dict[str, Any]], **config: Any) -> list[tuple[list[float], list[str], str]]:
    environment = ProcessEnvironment(EnvironmentSettings.from_config({"base_urls": [base_url], "reward_mode": "delta", "max_concurrent_requests": 48, **config}))

    async def gather() -> list[Any]:
        return await asyncio.gather(*(play(environment, request) for request in requests))

    try:
        return asyncio.run(gather())
    finally:
        environment.close()


class FlakyNetwork(unittest.TestCase):
    def test_forty_episodes_complete_with_the_same_rewards_through_the_fault_proxy(self) -> None:
        from aeb_verl.client import AebEnvironmentClient

        client = AebEnvironmentClient(support.server()["url"], auth_token=support.TOKEN)
        try:
            scenarios = [scenario["id"] for scenario in client.scenarios()]
        finally:
            client.close()
        requests = [{"scenarioId": scenarios[index % len(scenarios)], "seed": 7, "repeat": index // len(scenarios), "preset": "rlver", "rewardMode": "delta"} for index in range(EPISODES)]
        direct = play_all(support.server()["url"], requests)
        proxy = FaultProxy(support.server()["url"], seed=14, stall_seconds=1.0)
        try:
            flaky = play_all(proxy.url, requests, **FLAKY)
        finally:
            proxy.close()
        self.assertEqual(flaky, direct)
        self.assertTrue(any(reward != 0 for rewards, _, _ in direct for reward in rewards))
        # The mix really was injected, every kind of it.
        total = proxy.forwarded + sum(proxy.injected.values())
        self.assertEqual(set(proxy.injected), {"429", "500", "503", "drop", "stall"}, proxy.injected)
        self.assertGreater(sum(proxy.injected.values()) / total, 0.15, (proxy.injected, total))


if __name__ == "__main__":
    unittest.main()
