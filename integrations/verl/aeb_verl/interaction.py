"""AEB's RL environment as a verl multi-turn interaction.

``AebInteraction`` implements verl's ``BaseInteraction`` on top of ``aeb serve``. In current verl
(checked against commit b178a3c) an interaction runs only inside the ``tool_agent`` agent loop
(``verl/experimental/agent_loop/tool_agent_loop.py``), which, for each dataset row:

1. calls ``start_interaction(request_id, **extra_info["interaction_kwargs"])`` once;
2. generates the policy's reply, appends it to the message list as an assistant message (decoded
   with special tokens skipped, think text included), and stops *before* asking the interaction
   when ``max_assistant_turns``, ``max_user_turns`` or the response length is reached;
3. calls ``generate_response(request_id, messages, **interaction_kwargs)``, appends the returned
   text as the user's message and the returned reward to ``turn_scores``, and stops when the
   first element (``should_terminate_sequence``) is true, else goes back to 2;
4. returns ``turn_scores`` in its ``extra_fields``, which the reward manager merges into the
   ``extra_info`` it gives ``compute_score`` (see ``aeb_verl.reward``).

It never calls ``calculate_score`` or ``finalize_interaction``, so this class forgets an episode's
token and messages when the episode ends, and forgets episodes left idle (cut short by the trainer)
after ``episode_idle_timeout`` seconds.

The server is stateless: each episode's state travels as a signed token, kept here per
``request_id`` together with the visible messages it is bound to. Retries are therefore safe (the
same token, messages and reply give the same answer), and any replica can serve any step.

Configuration: see ``aeb_verl.settings``. Per-row parameters (``interaction_kwargs``, written by
``python3 -m aeb_verl.prepare``): ``name`` (verl's; must match the interaction's name),
``scenario_id`` (or ``type``/``suite`` to let the server sample one), ``seed`` and ``repeat`` (as
``aeb run``), optional ``preset`` and ``reward_mode`` overriding the config, ``split`` (recorded in
tags), ``episode_id``, and ``trainer_step`` (an integer sent as ``trainerStep``; verl itself passes
no training step to interactions).
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Optional
from uuid import uuid4

from verl.interactions.base import BaseInteraction

from .client import AebEnvironmentClient, AebEnvironmentError
from .settings import InteractionSettings
from .visible_reply import visible_reply

logger = logging.getLogger(__name__)

#: The turn score that marks a failed episode (``on_error: mark``); see ``aeb_verl.reward``.
FAILED_TURN_SCORE = math.nan
#: Episodes to see before ``max_failure_rate`` is enforced (a few early failures are not a rate).
FAILURE_RATE_MIN_EPISODES = 20

_RESET_FIELDS = ("token", "messages", "emotion", "rewardMode", "maxTurns", "scenario", "episodeId")
_STEP_FIELDS = ("token", "message", "emotion", "change", "reward", "done", "endReason", "turnIndex")


class AebProtocolError(ValueError):
    """The server's answer lacks a field this adapter needs (a server of another version?)."""


@dataclass
class _Episode:
    route: int
    token: Optional[str] = None
    messages: list[dict[str, str]] = field(default_factory=list)
    reward_mode: str = "final"
    emotion: int = 0
    start_emotion: int = 0
    max_turns: int = 0
    done: bool = False
    end_reason: Optional[str] = None
    turn_rewards: list[float] = field(default_factory=list)
    info: dict[str, Any] = field(default_factory=dict)
    failure: Optional[AebEnvironmentError] = None
    opening_checked: bool = False
    touched: float = 0.0


class AebInteraction(BaseInteraction):
    """verl interaction: AEB's simulated user, with its emotion as the reward."""

    def __init__(self, config: dict[str, Any]):
        super().__init__(config)
        self.settings = InteractionSettings.from_config(config)
        self.client = AebEnvironmentClient(
            list(self.settings.base_urls),
            auth_token=self.settings.auth_token(),
            retry=self.settings.retry,
            connect_timeout=self.settings.connect_timeout,
            read_timeout=self.settings.read_timeout,
            seed=self.settings.seed,
        )
        self._episodes: OrderedDict[str, _Episode] = OrderedDict()
        self._clock: Callable[[], float] = time.monotonic
        self.started = 0
        self.failed = 0

    # -- verl's interface ------------------------------------------------------------------------

    async def start_interaction(self, instance_id: Optional[str] = None, **kwargs: Any) -> str:
        """Resets an episode on the server (see the module's documentation for the kwargs)."""
        if instance_id is None:
            instance_id = str(uuid4())
        self._forget_idle()
        request = self._reset_request(instance_id, kwargs)
        episode = _Episode(route=self.client.pick_route(), touched=self._clock())
        self._episodes[instance_id] = episode
        self.started += 1
        try:
            reset = await asyncio.to_thread(self.client.reset, request, episode.route)
            _require(reset, _RESET_FIELDS, "reset")
        except AebEnvironmentError as error:
            self._fail(instance_id, episode, error)
            return instance_id
        except BaseException:
            self._episodes.pop(instance_id, None)
            raise
        episode.token = reset["token"]
        episode.messages = list(reset["messages"])
        episode.reward_mode = reset["rewardMode"]
        episode.emotion = episode.start_emotion = reset["emotion"]
        episode.max_turns = reset["maxTurns"]
        episode.info = {"episode_id": reset["episodeId"], "scenario_id": reset["scenario"]["id"], "seed": reset.get("seed"), "repeat": reset.get("repeat"), "preset": reset.get("preset"), "max_turns": reset["maxTurns"]}
        return instance_id

    async def generate_response(self, instance_id: str, messages: list[dict[str, Any]], **kwargs: Any) -> tuple[bool, str, float, dict[str, Any]]:
        """Sends the policy's last reply; returns (done, the user's next message, this turn's reward, details)."""
        episode = self._episode(instance_id)
        episode.touched = self._clock()
        self._episodes.move_to_end(instance_id)
        if episode.failure is not None:
            return True, "", FAILED_TURN_SCORE, {"failed": True, "code": episode.failure.code, "error": str(episode.failure)}
        if episode.done:
            raise RuntimeError(f"episode {instance_id} already ended ({episode.end_reason}); the rollout should have stopped")
        if not messages or messages[-1].get("role") != "assistant":
            raise ValueError("generate_response expects the policy's reply as the last message")
        if not episode.opening_checked:
            self._check_opening(episode, messages)
        reply = visible_reply(_text_of(messages[-1].get("content")))
        try:
            result = await asyncio.to_thread(self.client.step, episode.token, episode.messages, reply, episode.route)
            _require(result, _STEP_FIELDS, "step")
        except AebEnvironmentError as error:
            self._fail(instance_id, episode, error)
            return True, "", FAILED_TURN_SCORE, {"failed": True, "code": error.code, "error": str(error)}
        reward = float(result["reward"])
        episode.messages = episode.messages + [{"role": "assistant", "content": reply}, {"role": "user", "content": result["message"]}]
        episode.token = result["token"]
        episode.emotion = result["emotion"]
        episode.done = bool(result["done"])
        episode.end_reason = result["endReason"]
        episode.turn_rewards.append(reward)
        if episode.done:
            # Nothing will ask for this episode's state again: keep only its summary.
            episode.token = None
            episode.messages = []
        details = {
            "emotion": result["emotion"],
            "change": result["change"],
            "simulator_change": result.get("simulatorChange"),
            "flags": result.get("flags", []),
            "adjustments": result.get("adjustments", []),
            "hid": result.get("hid"),
            "end_reason": result["endReason"],
            "turn": result["turnIndex"],
        }
        return episode.done, result["message"], reward, details

    async def calculate_score(self, instance_id: str, **kwargs: Any) -> float:
        """The episode's score so far: emotion / 100 (``final``), or the change since the start / 100 (``delta``)."""
        episode = self._episode(instance_id)
        if episode.failure is not None:
            return FAILED_TURN_SCORE
        if episode.reward_mode == "delta":
            return (episode.emotion - episode.start_emotion) / 100
        return episode.emotion / 100

    async def finalize_interaction(self, instance_id: str, **kwargs: Any) -> None:
        self._episodes.pop(instance_id, None)

    # -- helpers ---------------------------------------------------------------------------------

    def close(self) -> None:
        """Closes the HTTP connections (at the end of training)."""
        self.client.close()

    def opening(self, instance_id: str) -> str:
        """The user's opening message of a live episode (it must be the prompt the policy answered)."""
        episode = self._episode(instance_id)
        if not episode.messages:
            raise RuntimeError(f"episode {instance_id} holds no messages (it failed or ended)")
        return episode.messages[0]["content"]

    def episode_info(self, instance_id: str) -> dict[str, Any]:
        """Scenario, seeds, emotion, end reason and turn rewards of an episode (for logging)."""
        episode = self._episode(instance_id)
        return {**episode.info, "emotion": episode.emotion, "done": episode.done, "end_reason": episode.end_reason, "turn_rewards": list(episode.turn_rewards), "failed": episode.failure is not None}

    @property
    def live_episodes(self) -> int:
        return len(self._episodes)

    def _reset_request(self, instance_id: str, kwargs: Mapping[str, Any]) -> dict[str, Any]:
        scenario_id = kwargs.get("scenario_id")
        trainer_step = _integer_or_none(kwargs.get("trainer_step"), "trainer_step")
        if trainer_step is not None and trainer_step < 0:
            raise ValueError(f"interaction_kwargs.trainer_step must be an integer >= 0, got {trainer_step!r}")
        episode_id = kwargs.get("episode_id") or (f"verl/{scenario_id}/{kwargs.get('seed')}/{kwargs.get('repeat')}/{instance_id}" if scenario_id else f"verl/{instance_id}")
        request: dict[str, Any] = {
            "scenarioId": scenario_id,
            "type": kwargs.get("type"),
            "suite": kwargs.get("suite"),
            "seed": _integer_or_none(kwargs.get("seed"), "seed"),
            "repeat": _integer_or_none(kwargs.get("repeat"), "repeat"),
            "preset": kwargs.get("preset") or self.settings.preset,
            "rewardMode": kwargs.get("reward_mode") or self.settings.reward_mode,
            "episodeId": episode_id[:200],
            # Sent only when set: a server without `--record` support refuses unknown fields.
            "trainerStep": trainer_step,
        }
        if self.settings.tags is not None:
            split = kwargs.get("split")
            request["tags"] = {**self.settings.tags, **({"split": str(split)} if split else {})}
        return request

    def _episode(self, instance_id: str) -> _Episode:
        episode = self._episodes.get(instance_id)
        if episode is None:
            raise KeyError(f"no AEB episode {instance_id!r}: start_interaction was not called for it, it was finalized, or it sat idle longer than episode_idle_timeout")
        return episode

    def _check_opening(self, episode: _Episode, messages: list[dict[str, Any]]) -> None:
        """The policy must have answered the scenario's opening: a dataset built against other
        scenario files would otherwise train on rewards for a conversation that never happened."""
        episode.opening_checked = True
        user_turns = [_text_of(message.get("content")) for message in messages if message.get("role") == "user"]
        if user_turns and user_turns[0] != episode.messages[0]["content"]:
            raise ValueError(
                f"the prompt's first user message is not the opening of scenario {episode.info.get('scenario_id')!r} as the server has it; "
                "rebuild the dataset against the scenarios the server serves (python3 -m aeb_verl.prepare)"
            )

    def _fail(self, instance_id: str, episode: _Episode, error: AebEnvironmentError) -> None:
        """After the client's retry budget: raise, or mark the episode failed (never a silent reward)."""
        self.failed += 1
        if self.settings.on_error == "raise":
            self._episodes.pop(instance_id, None)
            raise error
        episode.failure = error
        episode.token = None
        episode.messages = []
        logger.error("aeb environment: episode %s failed and is marked (turn score NaN, aeb_failed=1): %s", instance_id, error)
        if self.started >= FAILURE_RATE_MIN_EPISODES and self.failed / self.started > self.settings.max_failure_rate:
            raise AebEnvironmentError(
                error.status,
                "failure_rate_exceeded",
                f"{self.failed} of {self.started} episodes failed, more than max_failure_rate {self.settings.max_failure_rate:g}; last: {error}",
                False,
                error.attempts,
            )

    def _forget_idle(self) -> None:
        """Drops episodes nobody touched for ``episode_idle_timeout`` seconds (oldest first)."""
        horizon = self._clock() - self.settings.episode_idle_timeout
        while self._episodes:
            instance_id, episode = next(iter(self._episodes.items()))
            if episode.touched > horizon:
                break
            del self._episodes[instance_id]


def _text_of(content: Any) -> str:
    """Message content as text (verl passes a string, or a list of parts for multimodal processors)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content if isinstance(part, dict) and isinstance(part.get("text", ""), str))
    return "" if content is None else str(content)


def _integer_or_none(value: Any, name: str) -> Optional[int]:
    if value is None:
        return None
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        raise ValueError(f"interaction_kwargs.{name} must be an integer, got {value!r}")
    # int, or a numpy integer from a row read back through Arrow or pandas.
    return int(value.__index__())


def _require(answer: Any, fields: tuple[str, ...], what: str) -> None:
    if not isinstance(answer, dict):
        raise AebProtocolError(f"the server's {what} answer is not a JSON object")
    missing = [name for name in fields if name not in answer]
    if missing:
        raise AebProtocolError(f"the server's {what} answer lacks {', '.join(missing)} (is it an aeb serve of another version?)")
