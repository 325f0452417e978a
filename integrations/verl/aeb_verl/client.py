"""A blocking client of AEB's environment server (``aeb serve``), standard library only.

Used by the verl interaction (``aeb_verl.interaction``) and the dataset builder
(``aeb_verl.prepare``); usable from any trainer. It speaks the stateless API (``/v1/reset``,
``/v1/step``, ``/v1/step/batch``), where an episode's state travels in a signed token, so that any
request can be sent again and any replica can answer it.

- **Several servers.** ``base_urls`` lists one or more replicas (or load balancers). Episodes are
  spread over them round robin (``pick_route``); a call made with an episode's route goes to that
  server first, and each retry moves on to the next server, so one dead replica costs one attempt.
- **Retries.** See ``aeb_verl.retry``: 429 and 5xx by status, ``Retry-After`` honoured, dropped and
  stalled connections retried, within a bounded budget. After the budget a call raises
  ``AebEnvironmentError`` (never a made-up answer).
- **Connections.** Keep-alive HTTP/1.1, one connection per thread and server, so the client can be
  shared by a thread pool (the interaction runs it through ``asyncio.to_thread``). A keep-alive
  connection the server closed while idle is reopened at once.
- **Secrets.** The bearer token goes in the ``Authorization`` header only; URLs with credentials in
  them are refused, and no log line or error contains the token.
"""

from __future__ import annotations

import http.client
import itertools
import json
import logging
import random
import socket
import ssl
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Optional, Sequence, Union
from urllib.parse import urlsplit

from .retry import RetryPolicy, is_retryable_status, retry_after_seconds

logger = logging.getLogger(__name__)


class AebEnvironmentError(RuntimeError):
    """A failed call: the HTTP status (0 when no answer came), the server's error code (or
    ``connection_failed``, ``connection_dropped``, ``timeout``, ``invalid_response``), whether a
    retry could have helped, and how many attempts were made."""

    def __init__(self, status: int, code: str, message: str, retryable: bool, attempts: int = 1):
        super().__init__(f"{status} {code}: {message}" if status else f"{code}: {message}")
        self.status = status
        self.code = code
        self.detail = message
        self.retryable = retryable
        self.attempts = attempts

    def after_attempts(self, attempts: int, why: str) -> "AebEnvironmentError":
        """The same failure, saying the client gave up and why."""
        return AebEnvironmentError(self.status, self.code, f"{self.detail} (gave up after {attempts} attempt{'s' if attempts != 1 else ''}: {why})", self.retryable, attempts)


@dataclass(frozen=True)
class ServerAddress:
    """One server, parsed once from its URL."""

    scheme: str
    host: str
    port: Optional[int]
    prefix: str

    @property
    def display(self) -> str:
        """The URL as it may appear in logs and errors."""
        port = f":{self.port}" if self.port else ""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{self.scheme}://{host}{port}{self.prefix}"

    @classmethod
    def parse(cls, url: str) -> "ServerAddress":
        if not isinstance(url, str) or not url.strip():
            raise ValueError(f"a server URL must be a non-empty string, got {url!r}")
        parsed = urlsplit(url.strip())
        if parsed.username is not None or parsed.password is not None:
            # Never echo the URL: it holds a credential.
            raise ValueError("a server URL must not contain credentials (user:password@): give the bearer token in $AEB_SERVER_TOKEN")
        if parsed.scheme not in ("http", "https") or not parsed.hostname:
            raise ValueError(f"not an http(s) URL: {url!r}")
        if parsed.query or parsed.fragment:
            raise ValueError(f"a server URL takes no query or fragment: {url!r}")
        try:
            port = parsed.port
        except ValueError:
            raise ValueError(f"bad port in server URL {url!r}") from None
        return cls(parsed.scheme, parsed.hostname, port, parsed.path.rstrip("/"))


def parse_server_urls(urls: Union[str, Sequence[str]]) -> list[ServerAddress]:
    """One URL, a comma-separated list, or a sequence of URLs."""
    items = urls.split(",") if isinstance(urls, str) else list(urls)
    servers = [ServerAddress.parse(item) for item in items if not (isinstance(item, str) and not item.strip())]
    if not servers:
        raise ValueError("no server URL given")
    return servers


class _TransportFailure(Exception):
    """No usable answer arrived: the connection could not be opened, was dropped, or stalled."""

    def __init__(self, code: str, reason: str, before_response: bool):
        super().__init__(reason)
        self.code = code
        self.reason = reason
        self.before_response = before_response


class AebEnvironmentClient:
    """A blocking client of one or more ``aeb serve`` replicas; thread-safe."""

    def __init__(
        self,
        base_urls: Union[str, Sequence[str]],
        auth_token: Optional[str] = None,
        *,
        retry: Optional[RetryPolicy] = None,
        connect_timeout: float = 10.0,
        read_timeout: float = 120.0,
        seed: Optional[int] = None,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
        wall_clock: Callable[[], float] = time.time,
    ):
        """``read_timeout`` is how long an answer may take once the request is sent: above the
        server's ``--step-timeout`` (60 s by default) when the simulated user is a model. ``seed``
        seeds the backoff jitter (it changes timing only, never answers); ``sleep`` and the clocks
        are injectable for tests."""
        self.servers = parse_server_urls(base_urls)
        if auth_token is not None and any(character in auth_token for character in "\r\n"):
            raise ValueError("the bearer token must not contain line breaks")
        for name, value in (("connect_timeout", connect_timeout), ("read_timeout", read_timeout)):
            if not isinstance(value, (int, float)) or isinstance(value, bool) or not value > 0:
                raise ValueError(f"{name} must be a number of seconds > 0, got {value!r}")
        self._auth_token = auth_token or None
        self.retry = retry or RetryPolicy()
        self.connect_timeout = float(connect_timeout)
        self.read_timeout = float(read_timeout)
        self._rng = random.Random(seed)
        self._rng_lock = threading.Lock()
        self._sleep = sleep
        self._clock = clock
        self._wall_clock = wall_clock
        self._routes = itertools.count()
        self._local = threading.local()
        self._open: set[http.client.HTTPConnection] = set()
        self._open_lock = threading.Lock()

    def __repr__(self) -> str:
        return f"AebEnvironmentClient({[server.display for server in self.servers]!r})"

    # -- the API ---------------------------------------------------------------------------------

    def pick_route(self) -> int:
        """The server an episode should start on: round robin over ``base_urls``."""
        return next(self._routes) % len(self.servers)

    def reset(self, request: dict[str, Any], route: Optional[int] = None) -> dict[str, Any]:
        """``POST /v1/reset``; fields that are None are left out."""
        return self.call("POST", "/v1/reset", {key: value for key, value in request.items() if value is not None}, route)

    def step(self, token: str, messages: list[dict[str, str]], reply: str, route: Optional[int] = None) -> dict[str, Any]:
        """``POST /v1/step``: the agent's visible reply to the episode the token and messages describe."""
        return self.call("POST", "/v1/step", {"token": token, "messages": messages, "reply": reply}, route)

    def step_batch(self, steps: list[dict[str, Any]], route: Optional[int] = None) -> list[dict[str, Any]]:
        """Steps of several episodes in one request; each result is ``{"ok": True, "result": ...}`` or
        ``{"ok": False, "status", "error"}`` (a failed step inside a batch is not retried here)."""
        return self.call("POST", "/v1/step/batch", {"steps": steps}, route)["results"]

    def scenarios(self) -> list[dict[str, Any]]:
        """``GET /v1/scenarios``: id, type, suite, language, title, opening and preset of each."""
        return self.call("GET", "/v1/scenarios", None)["scenarios"]

    def health(self, route: int = 0) -> dict[str, Any]:
        return self.call("GET", "/healthz", None, route)

    def close(self) -> None:
        """Closes every connection this client opened, in any thread."""
        with self._open_lock:
            connections, self._open = self._open, set()
        for connection in connections:
            connection.close()

    # -- one call, with retries ------------------------------------------------------------------

    def call(self, method: str, path: str, body: Optional[dict[str, Any]], route: Optional[int] = None) -> dict[str, Any]:
        """Sends a request until it succeeds, fails for good, or the retry budget is spent."""
        data = None if body is None else json.dumps(body, ensure_ascii=False).encode("utf-8")
        headers = {"accept": "application/json"}
        if data is not None:
            headers["content-type"] = "application/json"
        if self._auth_token:
            headers["authorization"] = f"Bearer {self._auth_token}"
        first = self.pick_route() if route is None else route % len(self.servers)
        policy = self.retry
        deadline = self._clock() + policy.max_elapsed
        attempts = 0
        while True:
            server_index = (first + attempts) % len(self.servers)
            server = self.servers[server_index]
            attempts += 1
            retry_after: Optional[float] = None
            try:
                status, retry_after_header, payload = self._exchange(server_index, method, path, data, headers, max(0.001, deadline - self._clock()))
            except _TransportFailure as failure:
                error = AebEnvironmentError(0, failure.code, f"{method} {server.display}{path}: {failure.reason}", True, attempts)
            else:
                if 200 <= status < 300:
                    answer = _json_object(payload)
                    if answer is not None:
                        return answer
                    # Every answer of the API is a JSON object: anything else came from something in between.
                    error = AebEnvironmentError(status, "invalid_response", f"{method} {server.display}{path}: the answer is not a JSON object", True, attempts)
                else:
                    error = _error_of(status, payload, attempts)
                    retry_after = retry_after_seconds(retry_after_header, self._wall_clock())
            if not error.retryable:
                raise error
            if attempts >= policy.max_attempts:
                raise error.after_attempts(attempts, "the attempt limit") from None
            delay = retry_after if retry_after is not None else self._backoff(attempts - 1)
            if self._clock() + delay >= deadline:
                why = f"the server asked to wait {delay:.3g} s, past the time budget" if retry_after is not None else "the time budget"
                raise error.after_attempts(attempts, why) from None
            logger.warning("aeb environment: %s; retrying in %.3g s (attempt %d of at most %d)", error, delay, attempts + 1, policy.max_attempts)
            if delay > 0:
                self._sleep(delay)

    def _backoff(self, retry: int) -> float:
        with self._rng_lock:
            return self.retry.backoff_delay(retry, self._rng)

    # -- one exchange on a keep-alive connection -------------------------------------------------

    def _exchange(self, server_index: int, method: str, path: str, data: Optional[bytes], headers: dict[str, str], time_left: float) -> tuple[int, Optional[str], bytes]:
        """One request and its answer; a keep-alive connection closed by the server while idle is
        reopened and the request sent once more at once (that is not a failure of the server)."""
        server = self.servers[server_index]
        for fresh_retry in (False, True):
            connection, reused = self._connection(server_index)
            try:
                if connection.sock is None:
                    connection.timeout = min(self.connect_timeout, time_left)
                    connection.connect()
                connection.sock.settimeout(min(self.read_timeout, time_left))
                connection.request(method, server.prefix + path, body=data, headers=headers)
                response = connection.getresponse()
                payload = response.read()
            except (OSError, http.client.HTTPException) as error:
                self._discard(server_index)
                failure = _classify(error)
                if reused and failure.before_response and not fresh_retry:
                    continue
                raise failure from None
            if response.will_close:
                self._discard(server_index)
            return response.status, response.getheader("retry-after"), payload
        raise AssertionError("unreachable")

    def _connection(self, server_index: int) -> tuple[http.client.HTTPConnection, bool]:
        connections: dict[int, http.client.HTTPConnection] = self._local.__dict__.setdefault("connections", {})
        connection = connections.get(server_index)
        if connection is not None:
            return connection, True
        server = self.servers[server_index]
        if server.scheme == "https":
            connection = http.client.HTTPSConnection(server.host, server.port, timeout=self.connect_timeout, context=ssl.create_default_context())
        else:
            connection = http.client.HTTPConnection(server.host, server.port, timeout=self.connect_timeout)
        connections[server_index] = connection
        with self._open_lock:
            self._open.add(connection)
        return connection, False

    def _discard(self, server_index: int) -> None:
        connections: dict[int, http.client.HTTPConnection] = self._local.__dict__.setdefault("connections", {})
        connection = connections.pop(server_index, None)
        if connection is not None:
            connection.close()
            with self._open_lock:
                self._open.discard(connection)


def _classify(error: BaseException) -> _TransportFailure:
    """A transport error as a retryable failure with a code saying what happened."""
    if isinstance(error, (TimeoutError, socket.timeout)):
        return _TransportFailure("timeout", "no answer within the timeout", before_response=False)
    if isinstance(error, ConnectionRefusedError):
        return _TransportFailure("connection_failed", "connection refused", before_response=False)
    if isinstance(error, (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError, ConnectionAbortedError)):
        return _TransportFailure("connection_dropped", f"the connection was closed before an answer ({type(error).__name__})", before_response=True)
    if isinstance(error, (http.client.IncompleteRead, http.client.BadStatusLine, http.client.HTTPException)):
        return _TransportFailure("connection_dropped", f"the answer was cut or malformed ({type(error).__name__})", before_response=False)
    return _TransportFailure("connection_failed", f"{type(error).__name__}: {error}", before_response=False)


def _json_object(payload: bytes) -> Optional[dict[str, Any]]:
    try:
        value = json.loads(payload.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None
    return value if isinstance(value, dict) else None


def _error_of(status: int, payload: bytes, attempts: int) -> AebEnvironmentError:
    """An error answer: the server's JSON error body when there is one, else the status alone."""
    code, message, body_says_retryable = "http_error", "", False
    body = _json_object(payload)
    if body is not None and isinstance(body.get("code"), str):
        code = body["code"]
        message = str(body.get("error", ""))
        body_says_retryable = body.get("retryable") is True
    else:
        text = payload[:200].decode("utf-8", "replace").strip()
        message = f"{http.client.responses.get(status, 'HTTP error')}{': ' + text if text else ''}"
    return AebEnvironmentError(status, code, message, is_retryable_status(status, body_says_retryable), attempts)
