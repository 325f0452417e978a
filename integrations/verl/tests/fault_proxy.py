"""A fault-injecting HTTP proxy for testing the environment client (standard library only).

It sits between the client and ``aeb serve`` and, for each request, either forwards it or injects
one of the failures gateways and networks produce:

=============  ======================================================================  =======
fault          what the client sees                                                    default
=============  ======================================================================  =======
``429``        429 with a plain-text body and ``Retry-After`` (seconds, or an HTTP      10%
               date, alternately; both already due)
``500``        500 with an HTML body                                                    5%
``503``        503 with a JSON body that has no ``retryable`` field                     5%
``drop``       the connection closed after the request, with no answer                 3%
``stall``      no answer at all until ``stall_seconds`` have passed, then a close       2%
=============  ======================================================================  =======

With ``mix=()`` it only forwards, and records what it forwarded (``exchanges``).

Seeded and independent of timing: the fault for a request is drawn from
``Random(seed, SHA-256 of the request, how many times this same request came before)``, so the
same client traffic meets the same faults however its requests interleave, and a retried request
draws afresh.
"""

from __future__ import annotations

import email.utils
import hashlib
import http.client
import http.server
import json
import random
import threading
import time
from collections import Counter
from typing import Any, Optional
from urllib.parse import urlsplit

DEFAULT_MIX = (("429", 0.10), ("500", 0.05), ("503", 0.05), ("drop", 0.03), ("stall", 0.02))


class _QuietServer(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that gave up on a slow answer (its read timeout) closed the connection: expected here.
        pass


class FaultProxy:
    def __init__(self, upstream: str, *, seed: int, mix: tuple[tuple[str, float], ...] = DEFAULT_MIX, stall_seconds: float = 1.0):
        if sum(share for _, share in mix) >= 1:
            raise ValueError("the fault shares must leave room for forwarding")
        parsed = urlsplit(upstream)
        self.upstream_host = parsed.hostname or "127.0.0.1"
        self.upstream_port = parsed.port
        self.seed = seed
        self.mix = mix
        self.stall_seconds = stall_seconds
        self.injected: Counter[str] = Counter()
        self.forwarded = 0
        #: Every forwarded request and its answer: ``(path, request body, status, answer body)``,
        #: bodies parsed as JSON (what reached the server, for tests that check the wire).
        self.exchanges: list[tuple[str, Any, int, Any]] = []
        self._seen: Counter[str] = Counter()
        self._lock = threading.Lock()
        self._local = threading.local()
        self._upstream: list[http.client.HTTPConnection] = []
        self._stop = threading.Event()
        proxy = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def handle_any(self) -> None:
                length = int(self.headers.get("content-length", "0"))
                body = self.rfile.read(length) if length else b""
                fault = proxy._draw(self.command, self.path, body)
                if fault == "drop":
                    self.close_connection = True
                    return
                if fault == "stall":
                    proxy._stop.wait(proxy.stall_seconds)
                    self.close_connection = True
                    return
                if fault == "429":
                    retry_after = "0" if proxy.injected["429"] % 2 else email.utils.formatdate(time.time() - 1, usegmt=True)
                    self._answer(429, b"Too Many Requests", "text/plain", {"retry-after": retry_after})
                elif fault == "500":
                    self._answer(500, b"<html><body><h1>500 Internal Server Error</h1></body></html>", "text/html", {})
                elif fault == "503":
                    self._answer(503, b'{"message": "no healthy upstream"}', "application/json", {})
                else:
                    status, headers, payload = proxy._forward(self.command, self.path, body, self.headers)
                    proxy._record(self.path, body, status, payload)
                    self._answer(status, payload, headers.get("content-type", "application/json"), {key: value for key, value in headers.items() if key == "retry-after"})

            def _answer(self, status: int, payload: bytes, content_type: str, headers: dict[str, str]) -> None:
                self.send_response(status)
                self.send_header("content-type", content_type)
                self.send_header("content-length", str(len(payload)))
                for name, value in headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(payload)

            do_GET = handle_any  # noqa: N815
            do_POST = handle_any  # noqa: N815

            def log_message(self, *args: Any) -> None:
                pass

        self.server = _QuietServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self._thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
        self._thread.start()

    def _record(self, path: str, body: bytes, status: int, payload: bytes) -> None:
        def parsed(raw: bytes) -> Any:
            try:
                return json.loads(raw) if raw else None
            except ValueError:
                return raw
        with self._lock:
            self.exchanges.append((path, parsed(body), status, parsed(payload)))

    def _draw(self, method: str, path: str, body: bytes) -> Optional[str]:
        digest = hashlib.sha256(method.encode() + b" " + path.encode() + b"\n" + body).hexdigest()
        with self._lock:
            occurrence = self._seen[digest]
            self._seen[digest] += 1
        draw = random.Random(f"{self.seed}:{digest}:{occurrence}").random()
        for fault, share in self.mix:
            if draw < share:
                with self._lock:
                    self.injected[fault] += 1
                return fault
            draw -= share
        with self._lock:
            self.forwarded += 1
        return None

    def _forward(self, method: str, path: str, body: bytes, headers: Any) -> tuple[int, dict[str, str], bytes]:
        connection: Optional[http.client.HTTPConnection] = getattr(self._local, "connection", None)
        forwarded_headers = {name: value for name, value in headers.items() if name.lower() in ("content-type", "authorization", "accept")}
        for attempt in (0, 1):
            if connection is None:
                connection = http.client.HTTPConnection(self.upstream_host, self.upstream_port, timeout=30)
                self._local.connection = connection
                with self._lock:
                    self._upstream.append(connection)
            try:
                connection.request(method, path, body=body or None, headers=forwarded_headers)
                response = connection.getresponse()
                payload = response.read()
                return response.status, {key.lower(): value for key, value in response.getheaders()}, payload
            except (OSError, http.client.HTTPException):
                connection.close()
                connection = None
                self._local.connection = None
                if attempt == 1:
                    raise
        raise AssertionError("unreachable")

    def close(self) -> None:
        self._stop.set()
        self.server.shutdown()
        self.server.server_close()
        with self._lock:
            upstream, self._upstream = self._upstream, []
        for connection in upstream:
            connection.close()
