"""One environment per worker process: the HTTP client, its thread pool and the failure counter.

verl builds a new agent loop object for every sample (``AgentLoopWorker._run_agent_loop``), so
anything kept on the loop object lives for one dialogue. What must span dialogues lives here,
once per worker process and configuration:

- the client, so episodes are spread round robin over ``base_urls`` (a fresh client per sample
  would start every episode on the first replica) and keep-alive connections are reused;
- the counts of episodes started and failed, so ``max_failure_rate`` is a rate over the worker's
  episodes (a counter per sample never sees more than one failure);
- a thread pool of ``max_concurrent_requests`` threads for the blocking client (asyncio's default
  pool has a handful of threads on a small CPU count, and a step with an LLM user takes seconds).

The episode's state travels as the server's signed token, so the server stores nothing and any
replica can answer any step; retries are therefore safe.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Optional

from .client import AebEnvironmentClient, AebEnvironmentError
from .settings import EnvironmentSettings

logger = logging.getLogger(__name__)

#: The longest reply ``aeb serve`` takes, in UTF-16 code units (JavaScript string length;
#: ``MAX_REPLY_CHARS`` in src/server/api-schemas.ts). A longer one would be refused with a 400.
MAX_REPLY_UTF16_UNITS = 20_000

_RESET_FIELDS = ("token", "messages", "emotion", "rewardMode", "maxTurns", "scenario", "episodeId")
_STEP_FIELDS = ("token", "message", "emotion", "change", "reward", "done", "endReason", "turnIndex")


class AebProtocolError(ValueError):
    """The server's answer lacks a field this adapter needs (a server of another version?)."""


@dataclass
class Episode:
    """One dialogue on the server, as the loop plays it."""

    route: int
    token: str
    messages: list[dict[str, str]]
    emotion: int
    max_turns: int
    episode_id: str
    scenario_id: str
    done: bool = False
    end_reason: Optional[str] = None
    turn_rewards: list[float] = field(default_factory=list)


class ProcessEnvironment:
    """The worker process's connection to ``aeb serve`` (see the module's documentation)."""

    def __init__(self, settings: EnvironmentSettings):
        self.settings = settings
        self.client = AebEnvironmentClient(
            list(settings.base_urls),
            auth_token=settings.auth_token(),
            retry=settings.retry,
            connect_timeout=settings.connect_timeout,
            read_timeout=settings.read_timeout,
            seed=settings.seed,
        )
        self.pool = ThreadPoolExecutor(max_workers=settings.max_concurrent_requests, thread_name_prefix="aeb-env")
        self.started = 0
        self.failed = 0

    async def _call(self, function: Any, *arguments: Any) -> Any:
        return await asyncio.get_running_loop().run_in_executor(self.pool, function, *arguments)

    async def reset(self, request: dict[str, Any]) -> Episode:
        """Starts an episode on the next replica (round robin); counts it as started."""
        route = self.client.pick_route()
        self.started += 1
        answer = await self._call(self.client.reset, request, route)
        _require(answer, _RESET_FIELDS, "reset")
        return Episode(
            route=route,
            token=answer["token"],
            messages=list(answer["messages"]),
            emotion=answer["emotion"],
            max_turns=answer["maxTurns"],
            episode_id=answer["episodeId"],
            scenario_id=answer["scenario"]["id"],
        )

    async def step(self, episode: Episode, reply: str) -> dict[str, Any]:
        """Sends the visible reply (cut to what the server takes: the user reads no further);
        advances the episode; returns the server's answer."""
        reply = cut_to_server_limit(reply)
        answer = await self._call(self.client.step, episode.token, episode.messages, reply, episode.route)
        _require(answer, _STEP_FIELDS, "step")
        episode.messages = episode.messages + [{"role": "assistant", "content": reply}, {"role": "user", "content": answer["message"]}]
        episode.token = answer["token"]
        episode.emotion = answer["emotion"]
        episode.done = bool(answer["done"])
        episode.end_reason = answer["endReason"]
        episode.turn_rewards.append(float(answer["reward"]))
        return answer

    def failure(self, error: AebEnvironmentError) -> None:
        """After the client's retry budget: raise (``on_error: raise``), or count the failure and
        raise only once the worker's failure rate exceeds ``max_failure_rate``."""
        self.failed += 1
        if self.settings.on_error == "raise":
            raise error
        logger.error("aeb environment: an episode failed and is marked aeb_failed (score failed_score): %s", error)
        if self.started >= self.settings.failure_rate_min_episodes and self.failed / self.started > self.settings.max_failure_rate:
            raise AebEnvironmentError(
                error.status,
                "failure_rate_exceeded",
                f"{self.failed} of {self.started} episodes of this worker failed, more than max_failure_rate {self.settings.max_failure_rate:g}; last: {error}",
                False,
                error.attempts,
            )

    def close(self) -> None:
        self.client.close()
        self.pool.shutdown(wait=False)


def cut_to_server_limit(reply: str) -> str:
    """The reply, cut to ``MAX_REPLY_UTF16_UNITS`` (a policy can write more than the server takes;
    the simulated user then reads the beginning, as a person reads a wall of text)."""
    if len(reply) <= MAX_REPLY_UTF16_UNITS // 2 or len(reply.encode("utf-16-le")) // 2 <= MAX_REPLY_UTF16_UNITS:
        return reply
    units = 0
    for position, character in enumerate(reply):
        units += 2 if ord(character) > 0xFFFF else 1
        if units > MAX_REPLY_UTF16_UNITS:
            logger.warning("aeb environment: a reply of %d characters was cut to the server's limit of %d UTF-16 units", len(reply), MAX_REPLY_UTF16_UNITS)
            return reply[:position]
    return reply


_ENVIRONMENTS: dict[EnvironmentSettings, ProcessEnvironment] = {}
_LOCK = threading.Lock()


def process_environment(settings: EnvironmentSettings) -> ProcessEnvironment:
    """The process's environment for these settings, made on first use."""
    with _LOCK:
        environment = _ENVIRONMENTS.get(settings)
        if environment is None:
            environment = _ENVIRONMENTS[settings] = ProcessEnvironment(settings)
        return environment


def forget_process_environments() -> None:
    """Closes and drops every environment of this process (tests; the end of training)."""
    with _LOCK:
        environments = list(_ENVIRONMENTS.values())
        _ENVIRONMENTS.clear()
    for environment in environments:
        environment.close()


def _require(answer: Any, fields: tuple[str, ...], what: str) -> None:
    if not isinstance(answer, dict):
        raise AebProtocolError(f"the server's {what} answer is not an object")
    missing = [name for name in fields if name not in answer]
    if missing:
        raise AebProtocolError(f"the server's {what} answer lacks {', '.join(missing)}: is it an aeb serve of another version?")
