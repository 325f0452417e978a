"""Shared fixtures of the verl integration's tests.

- verl's real ``BaseInteraction``, loaded from the pinned reference copy
  (``../shared/reference/verl-b178a3c/`` beside the repository, or ``$AEB_VERL_REFERENCE``);
  tests that need it skip when it is absent;
- a live ``aeb serve`` (``$AEB_SERVER_URL`` and ``$AEB_SERVER_TOKEN``, as ``npm test`` passes them,
  or one started here from the built CLI);
- the dialogues of an ``aeb run`` on the same scenarios (``$AEB_RUN_DIALOGUES`` with
  ``$AEB_RUN_SEED``, or a run made here);
- ``run_like_tool_agent_loop`` and ``reward_like_naive_manager``: verl's tool agent loop and reward
  loop manager, as far as they concern an interaction, restated step by step (their code needs
  torch, transformers and Ray; ``test_tool_agent_loop`` checks the reference files still say what
  these functions assume);
- ``StubServer``: a scripted HTTP server for the client's failure paths.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import http.server
import importlib.util
import io
import json
import logging
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import types
import unittest
from dataclasses import dataclass, field
from typing import Any, Callable, Optional
from uuid import uuid4

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE_ROOT = os.path.dirname(HERE)
REPOSITORY = os.path.dirname(os.path.dirname(PACKAGE_ROOT))
CLI = os.environ.get("AEB_CLI", os.path.join(REPOSITORY, "dist", "cli", "main.js"))
SCENARIOS = os.environ.get("AEB_SCENARIOS", os.path.join(REPOSITORY, "scenarios", "starter"))
VERL_REFERENCE = os.environ.get("AEB_VERL_REFERENCE", os.path.join(os.path.dirname(REPOSITORY), "shared", "reference", "verl-b178a3c"))

sys.path.insert(0, PACKAGE_ROOT)

# Retries are expected here: keep their warnings out of the test output (tests that read them add a handler).
logging.getLogger("aeb_verl").addHandler(logging.NullHandler())
logging.getLogger("aeb_verl").propagate = False


# -- verl's real BaseInteraction ---------------------------------------------------------------------


def load_verl_base_interaction() -> Optional[type]:
    """verl's ``BaseInteraction`` from the reference copy, installed as ``verl.interactions.base``
    (so ``aeb_verl.interaction`` imports it as it would inside verl); None when the copy is absent.
    An installed verl is left alone and used."""
    try:
        from verl.interactions.base import BaseInteraction  # noqa: F401

        return BaseInteraction
    except ImportError:
        pass
    path = os.path.join(VERL_REFERENCE, "verl", "interactions", "base.py")
    if not os.path.isfile(path):
        return None
    for name in ("verl", "verl.interactions"):
        if name not in sys.modules:
            package = types.ModuleType(name)
            package.__path__ = []  # a package with nothing else in it
            sys.modules[name] = package
    spec = importlib.util.spec_from_file_location("verl.interactions.base", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["verl.interactions.base"] = module
    spec.loader.exec_module(module)
    return module.BaseInteraction


BASE_INTERACTION = load_verl_base_interaction()
needs_verl_reference = unittest.skipIf(BASE_INTERACTION is None, f"verl's reference files are absent ({VERL_REFERENCE})")


def reference_text(relative_path: str) -> str:
    with open(os.path.join(VERL_REFERENCE, relative_path), encoding="utf-8") as handle:
        return handle.read()


# -- a live server and an aeb run ----------------------------------------------------------------------

SERVER: dict[str, Any] = {}


def server() -> dict[str, Any]:
    """URL and token of the server under test, starting one when none was given."""
    if SERVER:
        return SERVER
    url = os.environ.get("AEB_SERVER_URL")
    if url:
        SERVER.update(url=url, token=os.environ.get("AEB_SERVER_TOKEN"))
        return SERVER
    token = "python-test-token"
    env = {**os.environ, "AEB_SERVER_SECRET": "python-test-secret-python-test", "AEB_SERVER_TOKEN": token}
    process = subprocess.Popen(["node", CLI, "serve", "--scenarios", SCENARIOS, "--host", "127.0.0.1", "--port", "0", "--log-level", "warn"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, text=True)
    assert process.stdout is not None
    for line in process.stdout:
        match = re.search(r"listening on (http://127\.0\.0\.1:\d+)", line)
        if match:
            SERVER.update(url=match.group(1), token=token, process=process)
            os.environ["AEB_SERVER_TOKEN"] = token
            # One server for every test module of this process.
            atexit.register(stop_server)
            return SERVER
    raise RuntimeError("aeb serve did not start")


def stop_server() -> None:
    process = SERVER.get("process")
    if process is not None:
        process.terminate()
        process.wait(timeout=30)
        process.stdout.close()
    SERVER.clear()


RUN: dict[str, Any] = {}


def run_dialogues() -> tuple[int, list[dict[str, Any]]]:
    """(seed, finished dialogues) of an ``aeb run`` of the reference agents on the test scenarios."""
    if not RUN:
        path = os.environ.get("AEB_RUN_DIALOGUES")
        seed = int(os.environ.get("AEB_RUN_SEED", "7"))
        if not path:
            directory = tempfile.mkdtemp(prefix="aeb-verl-run-")
            atexit.register(shutil.rmtree, directory, True)
            result = subprocess.run(["node", CLI, "run", "--scenarios", SCENARIOS, "--seed", str(seed), "--out", directory, "--no-progress"], capture_output=True, text=True)
            if result.returncode != 0:
                raise RuntimeError(f"aeb run failed: {result.stderr}")
            path = os.path.join(directory, "dialogues.jsonl")
        with open(path, encoding="utf-8") as handle:
            records = sorted((json.loads(line) for line in handle if line.strip()), key=lambda record: record["id"])
        RUN.update(seed=seed, records=records)
    return RUN["seed"], RUN["records"]


# -- verl's tool agent loop and naive reward manager, restated ----------------------------------------


@dataclass
class LoopLimits:
    """The tool agent loop's stopping rules. ``response_length`` counts characters here (verl
    counts tokens of the whole response, assistant and user turns alike)."""

    max_assistant_turns: Optional[int] = None
    max_user_turns: Optional[int] = None
    response_length: Optional[int] = None


@dataclass
class LoopOutput:
    messages: list[dict[str, Any]]
    extra_fields: dict[str, Any]
    num_turns: int
    interaction_metrics: list[dict[str, Any]] = field(default_factory=list)


async def run_like_tool_agent_loop(interaction: Any, row: dict[str, Any], generate: Callable[[int, list[dict[str, Any]]], str], limits: LoopLimits = LoopLimits()) -> LoopOutput:
    """One rollout of a dataset row as ``ToolAgentLoop.run`` plays it with an interaction and no
    tools: ``generate(assistant_turn, messages)`` stands in for the policy."""
    messages = list(row["prompt"])  # kwargs["raw_prompt"]
    interaction_kwargs = row["extra_info"]["interaction_kwargs"]
    if "name" not in interaction_kwargs:
        raise ValueError("'name' key is required in interaction_kwargs")
    request_id = uuid4().hex
    await interaction.start_interaction(request_id, **interaction_kwargs)
    turn_scores: list[float] = []
    assistant_turns = user_turns = response_used = 0
    metrics = []
    while True:
        # GENERATING
        text = generate(assistant_turns, messages)
        assistant_turns += 1
        response_used += len(text)
        if limits.response_length and response_used >= limits.response_length:
            break
        if limits.max_assistant_turns and assistant_turns >= limits.max_assistant_turns:
            break
        if limits.max_user_turns and user_turns >= limits.max_user_turns:
            break
        messages.append({"role": "assistant", "content": text})
        # INTERACTING
        done, user_text, reward, details = await interaction.generate_response(request_id, messages, **interaction_kwargs)
        user_turns += 1
        messages.append({"role": "user", "content": user_text})
        metrics.append(details)
        if reward is not None:
            turn_scores.append(reward)
        response_used += len(user_text)
        if done:
            break
    return LoopOutput(messages=messages, extra_fields={"turn_scores": turn_scores, "tool_rewards": []}, num_turns=user_turns + assistant_turns + 1, interaction_metrics=metrics)


def reward_like_naive_manager(compute_score: Callable[..., Any], row: dict[str, Any], output: LoopOutput) -> Any:
    """``NaiveRewardManager.run_single`` of the reward loop, minus the tokenizer: the agent loop's
    extra fields merged into the row's ``extra_info``, then ``compute_score`` by keyword."""
    extra_info = json.loads(json.dumps(row.get("extra_info") or {}))
    extra_info.update(output.extra_fields.items())
    extra_info["num_turns"] = output.num_turns
    extra_info["rollout_reward_scores"] = {}
    solution = "".join(message["content"] for message in output.messages[len(row["prompt"]) :])
    return compute_score(data_source=row["data_source"], solution_str=solution, ground_truth=row["reward_model"]["ground_truth"], extra_info=extra_info)


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


def prepared_directory() -> dict[str, Any]:
    """A directory written by ``python3 -m aeb_verl.prepare`` against the server under test, with
    the run's seed and the scenarios' own presets (what ``aeb run`` plays), once per test process.
    Written to ``$AEB_PREPARE_DIR`` when set (``npm test`` then checks its YAML files)."""
    if not PREPARED:
        from aeb_verl import prepare

        seed, _ = run_dialogues()
        directory = os.environ.get("AEB_PREPARE_DIR")
        if not directory:
            directory = tempfile.mkdtemp(prefix="aeb-verl-prepared-")
            atexit.register(shutil.rmtree, directory, True)
        arguments = ["--url", server()["url"], "--out", directory, "--force", "--format", "jsonl", "--seed", str(seed), "--preset", "scenario", "--repeats", "1", "--val-repeats", "1", "--val-fraction", "0.25"]
        with contextlib.redirect_stdout(io.StringIO()):
            code = prepare.main(arguments)
        if code != 0:
            raise RuntimeError("aeb_verl.prepare failed")
        with open(os.path.join(directory, "manifest.json"), encoding="utf-8") as handle:
            manifest = json.load(handle)
        from aeb_verl.dataset import read_rows

        PREPARED.update(directory=directory, manifest=manifest, train=read_rows(manifest["train"]["file"]), validation=read_rows(manifest["validation"]["file"]))
    return PREPARED


def run_concurrently(coroutines: list[Any], threads: int = 32) -> list[Any]:
    """Runs coroutines together on one event loop, as verl's agent loop worker runs its rollouts,
    with a thread pool large enough that a stalled request does not hold up the others."""
    from concurrent.futures import ThreadPoolExecutor

    async def gather() -> list[Any]:
        asyncio.get_running_loop().set_default_executor(ThreadPoolExecutor(max_workers=threads))
        return await asyncio.gather(*coroutines)

    return asyncio.run(gather())
