"""Shared fixtures of the verl integration's tests (verl itself is the installed package: nothing
of verl is copied or restated here).

- live ``aeb serve`` processes started here from the built CLI (``$AEB_CLI``, default
  ``dist/cli/main.js``), as many as a test needs replicas;
- a directory written by ``aeb_verl.prepare`` (``prepared_directory``);
- ``StubServer``: a scripted HTTP server for the client's failure paths.
"""

from __future__ import annotations

import atexit
import contextlib
import http.server
import io
import json
import logging
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE_ROOT = os.path.dirname(HERE)
REPOSITORY = os.path.dirname(os.path.dirname(PACKAGE_ROOT))
CLI = os.environ.get("AEB_CLI", os.path.join(REPOSITORY, "dist", "cli", "main.js"))
SCENARIOS = os.environ.get("AEB_SCENARIOS", os.path.join(REPOSITORY, "scenarios", "starter"))

sys.path.insert(0, PACKAGE_ROOT)

# Retries are expected here: keep their warnings out of the test output (tests that read them add a handler).
logging.getLogger("aeb_verl").addHandler(logging.NullHandler())
logging.getLogger("aeb_verl").propagate = False


# -- a live server and an aeb run ----------------------------------------------------------------------

SECRET = "python-test-secret-python-test-secret"
TOKEN = "python-test-token"
SERVERS: list[dict[str, Any]] = []


def start_server() -> dict[str, Any]:
    """A new ``aeb serve`` of the test scenarios on an ephemeral loopback port (every server of
    this process shares the secret, so any of them answers any episode's token), stopped at exit."""
    env = {**os.environ, "AEB_SERVER_SECRET": SECRET, "AEB_SERVER_TOKEN": TOKEN}
    process = subprocess.Popen(["node", CLI, "serve", "--scenarios", SCENARIOS, "--host", "127.0.0.1", "--port", "0", "--log-level", "warn"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, text=True)
    assert process.stdout is not None
    for line in process.stdout:
        match = re.search(r"listening on (http://127\.0\.0\.1:\d+)", line)
        if match:
            started = {"url": match.group(1), "token": TOKEN, "process": process}
            SERVERS.append(started)
            os.environ["AEB_SERVER_TOKEN"] = TOKEN
            if len(SERVERS) == 1:
                atexit.register(stop_servers)
            return started
    raise RuntimeError(f"aeb serve did not start (is {CLI} built? npm run build)")


def server() -> dict[str, Any]:
    """URL and token of the first server of this process, started on first use."""
    return SERVERS[0] if SERVERS else start_server()


def stop_servers() -> None:
    for started in SERVERS:
        started["process"].terminate()
        started["process"].wait(timeout=30)
        started["process"].stdout.close()
    SERVERS.clear()


# -- a scripted server ----------------------------------------------------------------------------------


class StubServer:
    """A local HTTP server answering from a script, recording each request's path and body.

    A script item is ``(status, body, headers)`` (a dict body is sent as JSON, bytes as they are),
    ``"drop"`` (close without answering) or ``("stall", seconds)`` (say nothing, then close)."""

    def __init__(self, script: list[Any]):
        self.script = list(script)
        self.requests: list[tuple[str, Any]] = []
        self.lock = threading.Lock()
        stub = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def handle_any(self) -> None:
                length = int(self.headers.get("content-length", "0"))
                raw = self.rfile.read(length) if length else b""
                with stub.lock:
                    stub.requests.append((self.path, json.loads(raw) if raw else None, dict(self.headers)))
                    # Past the script: a plain error, so that a test sending too much fails on its assertions.
                    item = stub.script.pop(0) if stub.script else (418, {"error": "the stub's script is exhausted", "code": "script_exhausted", "retryable": False}, {})
                if item == "drop":
                    self.close_connection = True
                    return
                if isinstance(item, tuple) and item[0] == "stall":
                    threading.Event().wait(item[1])
                    self.close_connection = True
                    return
                status, body, headers = item
                payload = body if isinstance(body, bytes) else json.dumps(body).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json" if not isinstance(body, bytes) else "text/html")
                self.send_header("content-length", str(len(payload)))
                for name, value in headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(payload)

            do_POST = handle_any  # noqa: N815
            do_GET = handle_any  # noqa: N815

            def log_message(self, *args: Any) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.server.handle_error = lambda request, client_address: None  # clients that time out hang up
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def __enter__(self) -> "StubServer":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


# -- a prepared training directory --------------------------------------------------------------------

PREPARED: dict[str, Any] = {}
PREPARED_SEED = 7


def prepared_directory() -> dict[str, Any]:
    """A directory written by ``python3 -m aeb_verl.prepare`` against the first server, with the
    scenarios' own presets (what ``aeb run`` plays), once per test process, for this interpreter's
    verl. Written to ``$AEB_PREPARE_DIR`` when set."""
    if not PREPARED:
        from aeb_verl import prepare

        seed = PREPARED_SEED
        directory = os.environ.get("AEB_PREPARE_DIR")
        if not directory:
            directory = tempfile.mkdtemp(prefix="aeb-verl-prepared-")
            atexit.register(shutil.rmtree, directory, True)
        arguments = ["--url", server()["url"], "--out", directory, "--force", "--format", "jsonl", "--python", sys.executable, "--seed", str(seed), "--preset", "scenario", "--repeats", "1", "--val-repeats", "1", "--val-fraction", "0.25"]
        with contextlib.redirect_stdout(io.StringIO()):
            code = prepare.main(arguments)
        if code != 0:
            raise RuntimeError("aeb_verl.prepare failed")
        with open(os.path.join(directory, "manifest.json"), encoding="utf-8") as handle:
            manifest = json.load(handle)
        from aeb_verl.dataset import read_rows

        PREPARED.update(directory=directory, manifest=manifest, train=read_rows(manifest["train"]["file"]), validation=read_rows(manifest["validation"]["file"]))
    return PREPARED


def unused_url() -> str:
    """A loopback URL nobody listens on (the port was free a moment ago)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{probe.getsockname()[1]}"
