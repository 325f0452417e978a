"""When the environment client sends a request again, how long it waits, and when it stops.

A request is retried when the failure says nothing about the request itself:

- HTTP 429 and every 5xx but 501, *whatever the body says*: load balancers, proxies and gateways
  answer 429, 500, 502, 503 and 504 with bodies of their own (HTML, plain text, or JSON without a
  ``retryable`` field), and a trainer must ride those out. 501 means the route does not exist on
  that server (for example the session API with ``--workers`` > 1); sending it again cannot help;
- HTTP 408, and any other status whose JSON body says ``"retryable": true`` (``aeb serve`` says so
  for 409 ``session_busy``);
- a connection that could not be opened, was dropped before a whole answer arrived, or stayed
  silent longer than the read timeout (a stalled server or proxy).

Retrying is safe for the stateless API because a step is a function of its token, messages and
reply: the server stores nothing, so a step sent twice is answered twice the same way.

The budget is bounded twice: at most ``max_attempts`` requests per call, and no retry that would
start after ``max_elapsed`` seconds from the first attempt. A ``Retry-After`` header (delay in
seconds, or an HTTP date) replaces the backoff delay; when it asks for more time than the budget
has left, the client gives up at once instead of sleeping past its deadline.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Optional


@dataclass(frozen=True)
class RetryPolicy:
    """The retry budget of one client call (a reset, a step, a batch)."""

    #: Requests sent per call, the first one included (1 = never retry).
    max_attempts: int = 8
    #: Seconds from the first attempt after which no retry is started; each attempt's read timeout is
    #: also cut to what is left, so a call never takes much longer than this.
    max_elapsed: float = 300.0
    #: Delay before the first retry, in seconds; it doubles with each retry, with jitter.
    backoff: float = 0.5
    #: Largest backoff delay, in seconds.
    max_backoff: float = 30.0

    def __post_init__(self) -> None:
        if not isinstance(self.max_attempts, int) or isinstance(self.max_attempts, bool) or self.max_attempts < 1:
            raise ValueError(f"max_attempts must be an integer >= 1, got {self.max_attempts!r}")
        for name in ("max_elapsed", "backoff", "max_backoff"):
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value) or value < 0:
                raise ValueError(f"{name} must be a finite number of seconds >= 0, got {value!r}")
        if self.max_elapsed <= 0:
            raise ValueError(f"max_elapsed must be > 0 seconds, got {self.max_elapsed!r}")

    def backoff_delay(self, retry: int, rng: random.Random) -> float:
        """The wait before retry number ``retry`` (0 for the first): exponential, capped, with jitter
        between half and all of it, so that many clients that failed together do not return together."""
        base = min(self.max_backoff, self.backoff * (2.0 ** min(retry, 62)))
        return base * (0.5 + rng.random() / 2)


def is_retryable_status(status: int, body_says_retryable: bool) -> bool:
    """Whether an HTTP error status is worth sending again (see the module's documentation)."""
    if status in (408, 429):
        return True
    if 500 <= status <= 599:
        return status != 501
    return body_says_retryable


def retry_after_seconds(header: Optional[str], now: float) -> Optional[float]:
    """The delay a ``Retry-After`` header asks for, in seconds (0 for a date in the past), or None
    when it is absent or unreadable. ``now`` is the wall clock (seconds since the epoch)."""
    if header is None:
        return None
    value = header.strip()
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        pass
    else:
        return seconds if math.isfinite(seconds) and seconds >= 0 else None
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when is None or when.tzinfo is None:
        # An HTTP date is always GMT; a date without a zone is not one.
        return None
    return max(0.0, when.timestamp() - now)
