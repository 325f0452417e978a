"""A small client of AEB's environment server (``aeb serve``), standard library only.

Used by the verl interaction (aeb_interaction.py) and the dataset builder (prepare_data.py); usable
from any trainer. Plain HTTP(S) to the server, no proxy (the environment is an internal service). Errors come back as ``AebEnvironmentError`` with the server's ``code`` and
``retryable``; retryable failures (a model call of an LLM simulated user, a rate limit, a replica
shutting down, an unreachable server) are retried with exponential backoff, honouring
``Retry-After``. Retrying a step is safe: the same token, messages and reply give the same answer.
"""

from __future__ import annotations

import http.client
import json
import logging
import os
import random
import re
import threading
import time
from typing import Any, Optional
from urllib.parse import urlsplit

logger = logging.getLogger(__name__)
logger.setLevel(os.getenv("VERL_LOGGING_LEVEL", "WARN"))

THINK_BLOCK = re.compile(r"<think>.*?</think>\s*", re.DOTALL)


class AebEnvironmentError(RuntimeError):
    """An error answer of the environment server: HTTP status, code, and whether a retry may help."""

    def __init__(self, status: int, code: str, message: str, retryable: bool):
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code
        self.retryable = retryable


class AebEnvironmentClient:
    """A small blocking client of ``aeb serve`` (standard library only): keep-alive connections (one
    per thread, so it can be used from a thread pool), retries with backoff."""

    def __init__(self, base_url: str, auth_token: Optional[str] = None, timeout: float = 120.0, max_retries: int = 6, backoff: float = 0.5, max_backoff: float = 30.0):
        parsed = urlsplit(base_url)
        if parsed.scheme not in ("http", "https") or not parsed.hostname:
            raise ValueError(f"not an http(s) URL: {base_url!r}")
        self.base_url = base_url.rstrip("/")
        self._scheme = parsed.scheme
        self._host = parsed.hostname
        self._port = parsed.port
        self._prefix = parsed.path.rstrip("/")
        self.auth_token = auth_token or None
        self.timeout = timeout
        self.max_retries = max_retries
        self.backoff = backoff
        self.max_backoff = max_backoff
        self._local = threading.local()
        self._connections: list[http.client.HTTPConnection] = []
        self._lock = threading.Lock()

    def reset(self, **request: Any) -> dict[str, Any]:
        return self._request("POST", "/v1/reset", {key: value for key, value in request.items() if value is not None})

    def step(self, token: str, messages: list[dict[str, str]], reply: str) -> dict[str, Any]:
        return self._request("POST", "/v1/step", {"token": token, "messages": messages, "reply": reply})

    def step_batch(self, steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Steps of several episodes in one request; each result is {"ok": True, "result": ...} or {"ok": False, "status", "error"}."""
        return self._request("POST", "/v1/step/batch", {"steps": steps})["results"]

    def scenarios(self) -> list[dict[str, Any]]:
        return self._request("GET", "/v1/scenarios", None)["scenarios"]

    def health(self) -> dict[str, Any]:
        return self._request("GET", "/healthz", None)

    def _connection(self) -> http.client.HTTPConnection:
        connection = getattr(self._local, "connection", None)
        if connection is None:
            factory = http.client.HTTPSConnection if self._scheme == "https" else http.client.HTTPConnection
            connection = factory(self._host, self._port, timeout=self.timeout)
            self._local.connection = connection
            with self._lock:
                self._connections.append(connection)
        return connection

    def _drop_connection(self) -> None:
        connection = getattr(self._local, "connection", None)
        if connection is not None:
            connection.close()
            with self._lock:
                if connection in self._connections:
                    self._connections.remove(connection)
        self._local.connection = None

    def close(self) -> None:
        """Closes every connection this client opened (in any thread)."""
        with self._lock:
            connections, self._connections = self._connections, []
        for connection in connections:
            connection.close()

    def _request(self, method: str, path: str, body: Optional[dict[str, Any]]) -> dict[str, Any]:
        data = None if body is None else json.dumps(body).encode("utf-8")
        headers = {"accept": "application/json"}
        if data is not None:
            headers["content-type"] = "application/json"
        if self.auth_token:
            headers["authorization"] = f"Bearer {self.auth_token}"
        attempt = 0
        stale_retried = False
        while True:
            retry_after: Optional[float] = None
            reused = getattr(self._local, "connection", None) is not None
            try:
                connection = self._connection()
                connection.request(method, self._prefix + path, body=data, headers=headers)
                response = connection.getresponse()
                payload = response.read()
                if (response.getheader("connection") or "").lower() == "close":
                    self._drop_connection()
            except (OSError, http.client.HTTPException) as error:
                # Unreachable, reset or slow: the step is deterministic, so sending it again is safe.
                self._drop_connection()
                if reused and not stale_retried:
                    # The server closed an idle keep-alive connection: reconnect at once.
                    stale_retried = True
                    continue
                if attempt >= self.max_retries:
                    raise AebEnvironmentError(0, "unreachable", f"{self.base_url}{path}: {error!r}", True) from None
                logger.warning("aeb environment unreachable (%r); retrying (%d/%d)", error, attempt + 1, self.max_retries)
            else:
                if 200 <= response.status < 300:
                    return json.loads(payload.decode("utf-8")) if payload else {}
                failure = _error_of(response.status, payload)
                if not failure.retryable or attempt >= self.max_retries:
                    raise failure
                header = response.getheader("retry-after")
                retry_after = float(header) if header and header.replace(".", "", 1).isdigit() else None
                logger.warning("aeb environment: %s; retrying (%d/%d)", failure, attempt + 1, self.max_retries)
            delay = min(self.max_backoff, self.backoff * (2**attempt)) * (0.5 + random.random() / 2)
            time.sleep(min(self.max_backoff, retry_after) if retry_after is not None else delay)
            attempt += 1


def _error_of(status: int, payload: bytes) -> AebEnvironmentError:
    try:
        body = json.loads(payload.decode("utf-8"))
        return AebEnvironmentError(status, str(body.get("code", "unknown")), str(body.get("error", "")), bool(body.get("retryable", False)))
    except (ValueError, AttributeError):
        return AebEnvironmentError(status, "unknown", payload[:200].decode("utf-8", "replace"), status in (408, 429, 502, 503, 504))


def strip_think(text: str) -> str:
    """The visible reply: closed ``<think>`` blocks removed (a broken one is left for the environment to penalise)."""
    return THINK_BLOCK.sub("", text).strip()
