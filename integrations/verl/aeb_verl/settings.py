"""The interaction's configuration: the ``config`` mapping of its entry in verl's interaction
config file, checked key by key so that a typo fails at start-up with the key's name instead of
being ignored for a whole training run.

=======================  =====================================================================
key                      meaning (default)
=======================  =====================================================================
``base_urls``            list of server URLs (replicas or load balancers); episodes are spread
                         over them and retries move to the next one. ``base_url`` (one URL) is
                         accepted too. Default: ``$AEB_SERVER_URL`` (comma-separated for several)
``auth_token_env``       environment variable holding the bearer token (``AEB_SERVER_TOKEN``);
                         the token itself never belongs in a config file
``preset``               ``rlver`` (default), ``aeb``, ``sage`` or ``scenario``
``reward_mode``          ``final`` (default: emotion / 100 at the last turn) or ``delta``
``on_error``             ``raise`` (default) or ``mark``; see below
``max_failure_rate``     with ``mark``: once 20 episodes have started, more than this fraction
                         failing raises after all (0.05)
``max_attempts``         requests per call, the first included (8)
``max_elapsed``          seconds a call may spend retrying (300)
``backoff``              first retry delay in seconds, doubling (0.5); ``max_backoff`` caps it (30)
``connect_timeout``      seconds to open a connection (10)
``read_timeout``         seconds an answer may take (120; above the server's ``--step-timeout``)
``episode_idle_timeout`` seconds after which an episode nobody touched is forgotten (1800): verl
                         never calls ``finalize_interaction``, and a dialogue the trainer cuts
                         short never reaches ``done``
``tags``                 string map sent with every reset (with the row's ``split`` added), for a
                         server that records episodes (``aeb serve --record``). Off by default:
                         a server without ``--record`` support refuses unknown fields
``seed``                 seed of the retry jitter (timing only; default: drawn at random)
=======================  =====================================================================

``on_error``: after the client's retry budget, ``raise`` lets the error end the rollout step (verl
stops; resume from the last checkpoint), while ``mark`` ends that dialogue, returns a NaN turn score
as an unforgeable failure marker (only the interaction writes ``turn_scores``), and lets
``aeb_verl.reward.compute_score_with_marks`` score the sample 0 with ``aeb_failed = 1``.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from typing import Any, Mapping, Optional

from .retry import RetryPolicy

PRESETS = ("rlver", "aeb", "sage", "scenario")
REWARD_MODES = ("final", "delta")
ON_ERROR = ("raise", "mark")

# `name` is put into the config by verl's interaction registry.
_KEYS = {
    "name",
    "base_url",
    "base_urls",
    "auth_token_env",
    "preset",
    "reward_mode",
    "on_error",
    "max_failure_rate",
    "max_attempts",
    "max_elapsed",
    "backoff",
    "max_backoff",
    "connect_timeout",
    "read_timeout",
    "episode_idle_timeout",
    "tags",
    "seed",
}


@dataclass(frozen=True)
class InteractionSettings:
    base_urls: tuple[str, ...]
    auth_token_env: str = "AEB_SERVER_TOKEN"
    preset: str = "rlver"
    reward_mode: str = "final"
    on_error: str = "raise"
    max_failure_rate: float = 0.05
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    connect_timeout: float = 10.0
    read_timeout: float = 120.0
    episode_idle_timeout: float = 1800.0
    tags: Optional[dict[str, str]] = None
    seed: Optional[int] = None

    def auth_token(self, environ: Mapping[str, str] = os.environ) -> Optional[str]:
        return environ.get(self.auth_token_env) or None

    @classmethod
    def from_config(cls, config: Mapping[str, Any], environ: Mapping[str, str] = os.environ) -> "InteractionSettings":
        unknown = sorted(set(config) - _KEYS)
        if "auth_token" in unknown:
            raise ValueError("interaction config: auth_token does not belong in a config file (configs end up in logs); put the token in $AEB_SERVER_TOKEN or name another variable with auth_token_env")
        if unknown:
            raise ValueError(f"interaction config: unknown key(s) {', '.join(unknown)}; known: {', '.join(sorted(_KEYS - {'name'}))}")
        if "base_url" in config and "base_urls" in config:
            raise ValueError("interaction config: give base_url or base_urls, not both")
        urls: Any = config.get("base_urls", config.get("base_url")) or environ.get("AEB_SERVER_URL")
        if not urls:
            raise ValueError("interaction config: no server; set base_urls (or base_url) or $AEB_SERVER_URL")
        if isinstance(urls, str):
            urls = [part for part in urls.split(",") if part.strip()]
        if not isinstance(urls, (list, tuple)) or not all(isinstance(url, str) for url in urls):
            raise ValueError(f"interaction config: base_urls must be a list of URLs, got {urls!r}")
        retry_fields = {key: config[key] for key in ("max_attempts", "max_elapsed", "backoff", "max_backoff") if key in config}
        try:
            retry = RetryPolicy(**retry_fields)
        except ValueError as error:
            raise ValueError(f"interaction config: {error}") from None
        tags = config.get("tags")
        if tags is not None and (not isinstance(tags, Mapping) or not all(isinstance(key, str) and isinstance(value, str) for key, value in tags.items())):
            raise ValueError(f"interaction config: tags must map strings to strings, got {tags!r}")
        seed = config.get("seed")
        if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
            raise ValueError(f"interaction config: seed must be an integer, got {seed!r}")
        auth_token_env = config.get("auth_token_env", "AEB_SERVER_TOKEN")
        if not isinstance(auth_token_env, str) or not auth_token_env:
            raise ValueError(f"interaction config: auth_token_env must name an environment variable, got {auth_token_env!r}")
        return cls(
            base_urls=tuple(url.strip() for url in urls),
            auth_token_env=auth_token_env,
            preset=_choice(config, "preset", PRESETS, "rlver"),
            reward_mode=_choice(config, "reward_mode", REWARD_MODES, "final"),
            on_error=_choice(config, "on_error", ON_ERROR, "raise"),
            max_failure_rate=_number(config, "max_failure_rate", 0.05, upper=1.0),
            retry=retry,
            connect_timeout=_number(config, "connect_timeout", 10.0, positive=True),
            read_timeout=_number(config, "read_timeout", 120.0, positive=True),
            episode_idle_timeout=_number(config, "episode_idle_timeout", 1800.0, positive=True),
            tags=dict(tags) if tags is not None else None,
            seed=seed,
        )


def _choice(config: Mapping[str, Any], key: str, choices: tuple[str, ...], default: str) -> str:
    value = config.get(key, default)
    if value not in choices:
        raise ValueError(f"interaction config: {key} must be one of {', '.join(choices)}, got {value!r}")
    return value


def _number(config: Mapping[str, Any], key: str, default: float, positive: bool = False, upper: Optional[float] = None) -> float:
    value = config.get(key, default)
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value) or value < 0 or (positive and value == 0) or (upper is not None and value > upper):
        bound = f"in [0, {upper}]" if upper is not None else ("> 0" if positive else ">= 0")
        raise ValueError(f"interaction config: {key} must be a number {bound}, got {value!r}")
    return float(value)
