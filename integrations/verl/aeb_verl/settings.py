"""The AEB agent loop's configuration: the keys of its entry in verl's agent loop registration file
(``agent_loop.yaml``, written by ``python3 -m aeb_verl.prepare``), checked key by key so that a typo
fails at start-up with the key's name instead of being ignored for a whole training run.

The entry's top-level keys (besides verl's ``name`` and ``_target_``):

=======================  =====================================================================
key                      meaning (default)
=======================  =====================================================================
``environment``          the environment server and its client (table below)
``past_think``           ``keep`` (default, AEB's recipe): the policy's context holds its earlier
                         replies as generated, ``<think>`` blocks included (one token sequence
                         per dialogue); ``strip`` (RLVER's): the context holds only what the user
                         saw of them, re-rendered by the chat template
``samples``              ``dialogue`` (default): one training sample per dialogue (every
                         assistant turn trained, user turns masked); ``turn`` (RLVER's): one
                         sample per assistant turn, its context as the prompt and the dialogue's
                         reward at its last token (needs verl's default V1 trainer)
``max_turn_tokens``      tokens one reply may take (RLVER: 5000); default: what is left of
                         ``rollout.response_length``
=======================  =====================================================================

``environment``:

=============================  ===============================================================
key                            meaning (default)
=============================  ===============================================================
``base_urls``                  list of server URLs (replicas or load balancers); episodes are
                               spread over them round robin, one counter per worker process,
                               and retries move to the next one. ``base_url`` (one URL) is
                               accepted too. Default: ``$AEB_SERVER_URL`` (comma-separated)
``auth_token_env``             environment variable holding the bearer token
                               (``AEB_SERVER_TOKEN``); the token never belongs in a config file
``preset``                     ``rlver`` (default), ``aeb``, ``aeb-plus``, ``sage`` or ``scenario``
``reward_mode``                ``final`` (default: emotion / 100 at the last turn) or ``delta``
``on_error``                   ``raise`` (default) or ``mark``; see below
``max_failure_rate``           with ``mark``: once ``failure_rate_min_episodes`` episodes have
                               started in a worker process, more than this fraction failing
                               raises after all (0.05)
``failure_rate_min_episodes``  episodes a worker starts before the rate is enforced (20)
``max_attempts``               requests per call, the first included (8)
``max_elapsed``                seconds a call may spend retrying (300)
``backoff``                    first retry delay in seconds, doubling (0.5); ``max_backoff``
                               caps it (30)
``connect_timeout``            seconds to open a connection (10)
``read_timeout``               seconds an answer may take (120; above the server's
                               ``--step-timeout``)
``max_concurrent_requests``    requests one worker process has in flight at most (64): its
                               thread pool, as the client blocks
``tags``                       string map sent with every reset (with the row's ``split``
                               added), for a server that records episodes (``--record``)
``seed``                       seed of the retry jitter (timing only; default: drawn at random)
=============================  ===============================================================

``on_error``: after the client's retry budget, ``raise`` lets the error end the rollout step (verl
stops; resume from the last checkpoint), while ``mark`` ends that dialogue and marks it
``aeb_failed``, which ``aeb_verl.reward.compute_score_with_marks`` scores ``failed_score`` (0) with
``aeb_failed = 1`` (never a silent reward).
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from typing import Any, Mapping, Optional

from .retry import RetryPolicy

PRESETS = ("rlver", "aeb", "aeb-plus", "sage", "scenario")
REWARD_MODES = ("final", "delta")
ON_ERROR = ("raise", "mark")
PAST_THINK = ("keep", "strip")
SAMPLES = ("dialogue", "turn")

_ENVIRONMENT_KEYS = {
    "base_url",
    "base_urls",
    "auth_token_env",
    "preset",
    "reward_mode",
    "on_error",
    "max_failure_rate",
    "failure_rate_min_episodes",
    "max_attempts",
    "max_elapsed",
    "backoff",
    "max_backoff",
    "connect_timeout",
    "read_timeout",
    "max_concurrent_requests",
    "tags",
    "seed",
}
_LOOP_KEYS = {"environment", "past_think", "samples", "max_turn_tokens"}


@dataclass(frozen=True)
class EnvironmentSettings:
    base_urls: tuple[str, ...]
    auth_token_env: str = "AEB_SERVER_TOKEN"
    preset: str = "rlver"
    reward_mode: str = "final"
    on_error: str = "raise"
    max_failure_rate: float = 0.05
    failure_rate_min_episodes: int = 20
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    connect_timeout: float = 10.0
    read_timeout: float = 120.0
    max_concurrent_requests: int = 64
    tags: Optional[tuple[tuple[str, str], ...]] = None
    seed: Optional[int] = None

    def auth_token(self, environ: Mapping[str, str] = os.environ) -> Optional[str]:
        return environ.get(self.auth_token_env) or None

    @classmethod
    def from_config(cls, config: Mapping[str, Any], environ: Mapping[str, str] = os.environ) -> "EnvironmentSettings":
        where = "agent loop config: environment"
        if not isinstance(config, Mapping):
            raise ValueError(f"{where} must be a mapping, got {type(config).__name__}")
        unknown = sorted(set(config) - _ENVIRONMENT_KEYS)
        if "auth_token" in unknown:
            raise ValueError(f"{where}.auth_token does not belong in a config file (configs end up in logs); put the token in $AEB_SERVER_TOKEN or name another variable with auth_token_env")
        if unknown:
            raise ValueError(f"{where}: unknown key(s) {', '.join(unknown)}; known: {', '.join(sorted(_ENVIRONMENT_KEYS))}")
        if "base_url" in config and "base_urls" in config:
            raise ValueError(f"{where}: give base_url or base_urls, not both")
        urls: Any = config.get("base_urls", config.get("base_url")) or environ.get("AEB_SERVER_URL")
        if not urls:
            raise ValueError(f"{where}: no server; set base_urls (or base_url) or $AEB_SERVER_URL")
        if isinstance(urls, str):
            urls = [part for part in urls.split(",") if part.strip()]
        if not isinstance(urls, (list, tuple)) or not urls or not all(isinstance(url, str) for url in urls):
            raise ValueError(f"{where}.base_urls must be a list of URLs, got {urls!r}")
        retry_fields = {key: config[key] for key in ("max_attempts", "max_elapsed", "backoff", "max_backoff") if key in config}
        try:
            retry = RetryPolicy(**retry_fields)
        except ValueError as error:
            raise ValueError(f"{where}: {error}") from None
        tags = config.get("tags")
        if tags is not None and (not isinstance(tags, Mapping) or not all(isinstance(key, str) and isinstance(value, str) for key, value in tags.items())):
            raise ValueError(f"{where}.tags must map strings to strings, got {tags!r}")
        seed = config.get("seed")
        if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
            raise ValueError(f"{where}.seed must be an integer, got {seed!r}")
        auth_token_env = config.get("auth_token_env", "AEB_SERVER_TOKEN")
        if not isinstance(auth_token_env, str) or not auth_token_env:
            raise ValueError(f"{where}.auth_token_env must name an environment variable, got {auth_token_env!r}")
        return cls(
            base_urls=tuple(url.strip() for url in urls),
            auth_token_env=auth_token_env,
            preset=_choice(config, "preset", PRESETS, "rlver", where),
            reward_mode=_choice(config, "reward_mode", REWARD_MODES, "final", where),
            on_error=_choice(config, "on_error", ON_ERROR, "raise", where),
            max_failure_rate=_number(config, "max_failure_rate", 0.05, where, upper=1.0),
            failure_rate_min_episodes=_integer(config, "failure_rate_min_episodes", 20, where),
            retry=retry,
            connect_timeout=_number(config, "connect_timeout", 10.0, where, positive=True),
            read_timeout=_number(config, "read_timeout", 120.0, where, positive=True),
            max_concurrent_requests=_integer(config, "max_concurrent_requests", 64, where),
            tags=tuple(sorted(tags.items())) if tags is not None else None,
            seed=seed,
        )


@dataclass(frozen=True)
class LoopSettings:
    environment: EnvironmentSettings
    past_think: str = "keep"
    samples: str = "dialogue"
    max_turn_tokens: Optional[int] = None

    @classmethod
    def from_config(cls, config: Mapping[str, Any], environ: Mapping[str, str] = os.environ) -> "LoopSettings":
        unknown = sorted(set(config) - _LOOP_KEYS)
        if unknown:
            raise ValueError(f"agent loop config: unknown key(s) {', '.join(unknown)}; known: {', '.join(sorted(_LOOP_KEYS))} (and verl's name and _target_)")
        max_turn_tokens = config.get("max_turn_tokens")
        if max_turn_tokens is not None:
            max_turn_tokens = _integer(config, "max_turn_tokens", 0, "agent loop config")
        return cls(
            environment=EnvironmentSettings.from_config(config.get("environment") or {}, environ),
            past_think=_choice(config, "past_think", PAST_THINK, "keep", "agent loop config"),
            samples=_choice(config, "samples", SAMPLES, "dialogue", "agent loop config"),
            max_turn_tokens=max_turn_tokens,
        )


def _choice(config: Mapping[str, Any], key: str, choices: tuple[str, ...], default: str, where: str) -> str:
    value = config.get(key, default)
    if value not in choices:
        raise ValueError(f"{where}: {key} must be one of {', '.join(choices)}, got {value!r}")
    return value


def _number(config: Mapping[str, Any], key: str, default: float, where: str, positive: bool = False, upper: Optional[float] = None) -> float:
    value = config.get(key, default)
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value) or value < 0 or (positive and value == 0) or (upper is not None and value > upper):
        bound = f"in [0, {upper}]" if upper is not None else ("> 0" if positive else ">= 0")
        raise ValueError(f"{where}: {key} must be a number {bound}, got {value!r}")
    return float(value)


def _integer(config: Mapping[str, Any], key: str, default: int, where: str) -> int:
    value = config.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise ValueError(f"{where}: {key} must be an integer >= 1, got {value!r}")
    return value
