"""AEB's RL environment as a verl multi-turn interaction.

``AebInteraction`` implements verl's ``BaseInteraction`` (start_interaction, generate_response,
calculate_score, finalize_interaction) on top of ``aeb serve``: every rollout turn sends the
policy's reply to the environment and gets back the simulated user's next message and a reward
(RLVER's verifiable emotion reward; spec section 7). It uses the Python standard library only.

The server is stateless: each episode's state travels as a signed token, which this class keeps per
rollout (``instance_id``) together with the messages the token is bound to. Any replica behind a
load balancer can serve any step, and a step that failed with a retryable error (a model call of an
LLM simulated user, a rate limit) is retried as is: the same token, messages and reply give the same
answer.

Configuration (the ``config`` mapping of the interaction in verl's interaction config YAML):

``base_url``       the server, e.g. ``http://aeb-env:8787`` (default: ``$AEB_SERVER_URL``)
``auth_token``     bearer token (default: ``$AEB_SERVER_TOKEN``)
``preset``         ``rlver`` (default), ``aeb``, ``sage`` or ``scenario``
``reward_mode``    ``final`` (default; emotion / 100 at the last turn) or ``delta``
``strip_think``    remove ``<think>...</think>`` blocks before sending the reply (default true)
``timeout``        seconds per HTTP request (default 120)
``max_retries``    retries of a retryable failure (default 6), with exponential backoff
``on_error``       ``raise`` (default) or ``terminate`` (end the rollout with reward 0)

Per-sample parameters come from the dataset's ``interaction_kwargs`` (see prepare_data.py):
``scenario_id``, or ``type``/``suite`` to sample one; ``seed`` and ``repeat`` (as ``aeb run``);
``preset`` and ``reward_mode`` override the config.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
from dataclasses import dataclass, field
from typing import Any, Optional
from uuid import uuid4

from verl.interactions.base import BaseInteraction

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from aeb_client import AebEnvironmentClient, AebEnvironmentError, strip_think  # noqa: E402

logger = logging.getLogger(__name__)
logger.setLevel(os.getenv("VERL_LOGGING_LEVEL", "WARN"))


def _text_of(content: Any) -> str:
    """Message content as text (verl passes a string, or a list of parts for multimodal processors)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content if isinstance(part, dict))
    return "" if content is None else str(content)


@dataclass
class _Episode:
    token: str
    messages: list[dict[str, str]]
    reward_mode: str
    emotion: int
    start_emotion: int
    done: bool = False
    end_reason: Optional[str] = None
    turn_rewards: list[float] = field(default_factory=list)
    info: dict[str, Any] = field(default_factory=dict)


class AebInteraction(BaseInteraction):
    """verl interaction: the AEB simulated user, with its emotion as the reward."""

    def __init__(self, config: dict[str, Any]):
        super().__init__(config)
        base_url = config.get("base_url") or os.environ.get("AEB_SERVER_URL")
        if not base_url:
            raise ValueError("AebInteraction needs config.base_url or $AEB_SERVER_URL")
        self.client = AebEnvironmentClient(
            base_url,
            auth_token=config.get("auth_token") or os.environ.get("AEB_SERVER_TOKEN"),
            timeout=float(config.get("timeout", 120)),
            max_retries=int(config.get("max_retries", 6)),
        )
        self.preset = config.get("preset", "rlver")
        self.reward_mode = config.get("reward_mode", "final")
        self.strip_think = bool(config.get("strip_think", True))
        self.on_error = config.get("on_error", "raise")
        self._episodes: dict[str, _Episode] = {}

    async def start_interaction(self, instance_id: Optional[str] = None, **kwargs: Any) -> str:
        """Resets an episode. kwargs: scenario_id | type | suite, seed, repeat, preset, reward_mode (others ignored)."""
        if instance_id is None:
            instance_id = str(uuid4())
        request = {
            "scenarioId": kwargs.get("scenario_id"),
            "type": kwargs.get("type"),
            "suite": kwargs.get("suite"),
            "seed": kwargs.get("seed"),
            "repeat": kwargs.get("repeat"),
            "preset": kwargs.get("preset") or self.preset,
            "rewardMode": kwargs.get("reward_mode") or self.reward_mode,
            "episodeId": kwargs.get("episode_id"),
        }
        reset = await asyncio.to_thread(lambda: self.client.reset(**request))
        self._episodes[instance_id] = _Episode(
            token=reset["token"],
            messages=reset["messages"],
            reward_mode=reset["rewardMode"],
            emotion=reset["emotion"],
            start_emotion=reset["emotion"],
            info={"scenario_id": reset["scenario"]["id"], "episode_seed": reset["episodeSeed"], "seed": reset["seed"], "preset": reset["preset"], "max_turns": reset["maxTurns"]},
        )
        return instance_id

    def opening(self, instance_id: str) -> str:
        """The user's opening message of the episode (it must be the prompt the policy answered)."""
        return self._episodes[instance_id].messages[0]["content"]

    async def generate_response(self, instance_id: str, messages: list[dict[str, Any]], **kwargs: Any) -> tuple[bool, str, float, dict[str, Any]]:
        """Sends the policy's last reply; returns (done, the user's next message, this turn's reward, details)."""
        episode = self._episodes[instance_id]
        if episode.done:
            return True, "", 0.0, {"emotion": episode.emotion, "end_reason": episode.end_reason, "already_done": True}
        last = messages[-1] if messages else {}
        if last.get("role") != "assistant":
            raise ValueError("generate_response expects the policy's reply as the last message")
        reply = _text_of(last.get("content"))
        if self.strip_think:
            reply = strip_think(reply)
        try:
            result = await asyncio.to_thread(self.client.step, episode.token, episode.messages, reply)
        except AebEnvironmentError as error:
            if self.on_error != "terminate":
                raise
            logger.error("aeb environment: %s; ending the rollout", error)
            episode.done = True
            episode.end_reason = "error"
            return True, "", 0.0, {"error": str(error), "code": error.code}
        episode.token = result["token"]
        episode.messages = episode.messages + [{"role": "assistant", "content": reply}, {"role": "user", "content": result["message"]}]
        episode.emotion = result["emotion"]
        episode.done = result["done"]
        episode.end_reason = result["endReason"]
        episode.turn_rewards.append(float(result["reward"]))
        details = {
            "emotion": result["emotion"],
            "change": result["change"],
            "simulator_change": result["simulatorChange"],
            "flags": result["flags"],
            "adjustments": result["adjustments"],
            "hid": result["hid"],
            "end_reason": result["endReason"],
            "turn": result["turnIndex"],
        }
        return result["done"], result["message"], float(result["reward"]), details

    async def calculate_score(self, instance_id: str, **kwargs: Any) -> float:
        """The episode's score so far: emotion / 100 (``final``), or the sum of the changes / 100 (``delta``)."""
        episode = self._episodes[instance_id]
        if episode.reward_mode == "delta":
            return (episode.emotion - episode.start_emotion) / 100
        return episode.emotion / 100

    async def finalize_interaction(self, instance_id: str, **kwargs: Any) -> None:
        self._episodes.pop(instance_id, None)

    def close(self) -> None:
        """Closes the HTTP connections (at the end of training)."""
        self.client.close()

    def episode_info(self, instance_id: str) -> dict[str, Any]:
        """Scenario, seeds, emotion, end reason and turn rewards of a live episode (for logging)."""
        episode = self._episodes[instance_id]
        return {**episode.info, "emotion": episode.emotion, "done": episode.done, "end_reason": episode.end_reason, "turn_rewards": list(episode.turn_rewards)}
