"""The worker process's environment (``aeb_verl.environment``) against a live server: one per
process and configuration, and replies longer than the server takes."""

from __future__ import annotations

import asyncio
import unittest

import support

from aeb_verl.client import AebEnvironmentClient
from aeb_verl.environment import MAX_REPLY_UTF16_UNITS, forget_process_environments, process_environment
from aeb_verl.settings import EnvironmentSettings


def setUpModule() -> None:  # noqa: N802
    support.server()


def settings(**config) -> EnvironmentSettings:
    return EnvironmentSettings.from_config({"base_urls": [support.server()["url"]], **config})


class OnePerProcess(unittest.TestCase):
    def tearDown(self) -> None:
        forget_process_environments()

    def test_the_same_settings_share_one_environment_and_other_settings_get_their_own(self) -> None:
        first = process_environment(settings())
        self.assertIs(process_environment(settings()), first)
        self.assertIsNot(process_environment(settings(max_failure_rate=0.5)), first)

    def test_episodes_of_one_environment_take_the_replicas_in_turn(self) -> None:
        environment = process_environment(EnvironmentSettings.from_config({"base_urls": [support.server()["url"], support.server()["url"] + "/"]}))
        client = AebEnvironmentClient(support.server()["url"], auth_token=support.TOKEN)
        scenario = client.scenarios()[0]["id"]
        client.close()

        async def routes() -> list[int]:
            episodes = [await environment.reset({"scenarioId": scenario, "seed": 1, "repeat": repeat}) for repeat in range(4)]
            return [episode.route for episode in episodes]

        self.assertEqual(asyncio.run(routes()), [0, 1, 0, 1])


class LongReplies(unittest.TestCase):
    def tearDown(self) -> None:
        forget_process_environments()

    def test_a_reply_longer_than_the_server_takes_is_cut_to_its_limit_and_answered(self) -> None:
        environment = process_environment(settings())
        client = AebEnvironmentClient(support.server()["url"], auth_token=support.TOKEN)
        scenario = client.scenarios()[0]["id"]
        client.close()

        async def play() -> tuple[dict, list]:
            episode = await environment.reset({"scenarioId": scenario, "seed": 1})
            answer = await environment.step(episode, "I am listening. " * 2000)
            return answer, episode.messages

        answer, messages = asyncio.run(play())
        self.assertIsInstance(answer["message"], str)
        self.assertEqual(len(messages[-2]["content"]), MAX_REPLY_UTF16_UNITS)
        self.assertTrue(messages[-2]["content"].startswith("I am listening. I am listening."))


if __name__ == "__main__":
    unittest.main()
