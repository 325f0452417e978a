"""The environment client's failure handling, against scripted servers: what is retried, how long it
waits (an injected sleep records the delays, so nothing here waits for real but the stalls), the
budget, several servers, and secrets."""

from __future__ import annotations

import email.utils
import io
import logging
import socket
import unittest

from support import StubServer

from aeb_verl.client import AebEnvironmentClient, AebEnvironmentError
from aeb_verl.retry import RetryPolicy, is_retryable_status, retry_after_seconds

STEP = {"message": "ok", "emotion": 52, "change": 2, "simulatorChange": 2, "reward": 0.02, "done": False, "endReason": None, "adjustments": [], "flags": [], "hid": "no", "turnIndex": 1, "token": "t2"}
FAST = RetryPolicy(max_attempts=5, max_elapsed=30, backoff=0.01, max_backoff=0.02)


def free_port_url() -> str:
    """A loopback URL nothing listens on."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{probe.getsockname()[1]}"


class Recording:
    """A client whose sleeps are recorded instead of slept."""

    def __init__(self, urls, **options):
        self.delays: list[float] = []
        self.client = AebEnvironmentClient(urls, sleep=self.delays.append, seed=3, **{"retry": FAST, **options})

    def __enter__(self) -> "Recording":
        return self

    def __exit__(self, *exc) -> None:
        self.client.close()


class WhatIsRetried(unittest.TestCase):
    def test_gateway_errors_are_retried_by_status_whatever_the_body_says(self) -> None:
        script = [
            (429, b"Too Many Requests", {}),
            (500, b"<html>Internal Server Error</html>", {}),
            (502, {"error": "bad gateway", "code": "simulator_failed", "retryable": False}, {}),
            (503, {"message": "no healthy upstream"}, {}),
            (200, STEP, {}),
        ]
        with StubServer(script) as stub, Recording(stub.url) as recording:
            self.assertEqual(recording.client.step("t1", [{"role": "user", "content": "hi"}], "hello")["token"], "t2")
            self.assertEqual(len(stub.requests), 5)
            self.assertTrue(all(request[:2] == stub.requests[0][:2] for request in stub.requests), "every retry sends the same request")
            self.assertEqual(len(recording.delays), 4)

    def test_504_is_retried_and_501_is_not(self) -> None:
        with StubServer([(504, {"error": "slow", "code": "step_timeout", "retryable": True}, {}), (501, {"error": "no sessions", "code": "sessions_unavailable", "retryable": False}, {})]) as stub, Recording(stub.url) as recording:
            with self.assertRaises(AebEnvironmentError) as caught:
                recording.client.step("t1", [], "hello")
            self.assertEqual((caught.exception.status, caught.exception.code, caught.exception.retryable, caught.exception.attempts), (501, "sessions_unavailable", False, 2))

    def test_a_client_error_is_raised_at_once_with_the_server_s_reason(self) -> None:
        with StubServer([(409, {"error": "history differs", "code": "history_mismatch", "retryable": False}, {})]) as stub, Recording(stub.url) as recording:
            with self.assertRaises(AebEnvironmentError) as caught:
                recording.client.step("t1", [], "hello")
            self.assertEqual((caught.exception.status, caught.exception.code, caught.exception.retryable), (409, "history_mismatch", False))
            self.assertEqual((len(stub.requests), recording.delays), (1, []))

    def test_a_4xx_the_body_calls_retryable_is_retried(self) -> None:
        with StubServer([(409, {"error": "busy", "code": "session_busy", "retryable": True}, {}), (200, STEP, {})]) as stub, Recording(stub.url) as recording:
            recording.client.step("t1", [], "hello")
            self.assertEqual(len(stub.requests), 2)

    def test_a_2xx_that_is_not_a_json_object_is_retried(self) -> None:
        with StubServer([(200, b"<html>captive portal</html>", {}), (200, [1, 2], {}), (200, STEP, {})]) as stub, Recording(stub.url) as recording:
            self.assertEqual(recording.client.step("t1", [], "hello")["token"], "t2")
            self.assertEqual(len(stub.requests), 3)

    def test_status_classification(self) -> None:
        self.assertEqual([status for status in (400, 401, 404, 408, 409, 413, 429, 500, 501, 502, 503, 504, 599) if is_retryable_status(status, False)], [408, 429, 500, 502, 503, 504, 599])

    def test_a_dropped_connection_and_a_stall_are_retried(self) -> None:
        with StubServer(["drop", ("stall", 3.0), (200, STEP, {})]) as stub, Recording(stub.url, read_timeout=0.5) as recording:
            self.assertEqual(recording.client.step("t1", [], "hello")["token"], "t2")
            self.assertEqual(len(stub.requests), 3)

    def test_an_unreachable_server_fails_after_the_attempt_limit(self) -> None:
        with Recording(free_port_url(), retry=RetryPolicy(max_attempts=3, backoff=0.01)) as recording:
            with self.assertRaises(AebEnvironmentError) as caught:
                recording.client.reset({"scenarioId": "s"})
            self.assertEqual((caught.exception.status, caught.exception.code, caught.exception.attempts), (0, "connection_failed", 3))
            self.assertIn("gave up after 3 attempts", str(caught.exception))
            self.assertEqual(len(recording.delays), 2)

    def test_a_keep_alive_connection_closed_while_idle_is_reopened_without_counting_an_attempt(self) -> None:
        with StubServer([(200, STEP, {"connection": "keep-alive"}), "drop", (200, STEP, {})]) as stub, Recording(stub.url, retry=RetryPolicy(max_attempts=1)) as recording:
            recording.client.step("t1", [], "a")
            # The server drops the reused connection: one immediate resend on a fresh one, no backoff.
            recording.client.step("t1", [], "a")
            self.assertEqual((len(stub.requests), recording.delays), (3, []))


class HowLongItWaits(unittest.TestCase):
    def test_retry_after_in_seconds_is_honoured(self) -> None:
        with StubServer([(429, {"error": "slow down", "code": "rate_limited", "retryable": True}, {"retry-after": "7"}), (200, STEP, {})]) as stub, Recording(stub.url) as recording:
            recording.client.step("t1", [], "hello")
            self.assertEqual(recording.delays, [7.0])

    def test_retry_after_as_an_http_date_is_honoured(self) -> None:
        now = 1_700_000_000.0
        header = email.utils.formatdate(now + 12, usegmt=True)
        with StubServer([(503, b"busy", {"retry-after": header}), (200, STEP, {})]) as stub:
            delays: list[float] = []
            client = AebEnvironmentClient(stub.url, retry=FAST, sleep=delays.append, wall_clock=lambda: now)
            try:
                client.step("t1", [], "hello")
            finally:
                client.close()
            self.assertEqual(delays, [12.0])

    def test_a_retry_after_beyond_the_budget_gives_up_at_once(self) -> None:
        with StubServer([(503, b"maintenance", {"retry-after": "3600"})]) as stub, Recording(stub.url, retry=RetryPolicy(max_attempts=5, max_elapsed=60)) as recording:
            with self.assertRaises(AebEnvironmentError) as caught:
                recording.client.step("t1", [], "hello")
            self.assertEqual(recording.delays, [])
            self.assertIn("asked to wait 3.6e+03 s, past the time budget", str(caught.exception))

    def test_the_time_budget_bounds_the_retries(self) -> None:
        clock = [0.0]

        def sleep(seconds: float) -> None:
            clock[0] += seconds

        failure = (503, {"error": "down", "code": "simulator_unavailable", "retryable": True}, {})
        with StubServer([failure] * 20) as stub:
            client = AebEnvironmentClient(stub.url, retry=RetryPolicy(max_attempts=20, max_elapsed=10, backoff=1, max_backoff=4), sleep=sleep, clock=lambda: clock[0], seed=1)
            try:
                with self.assertRaises(AebEnvironmentError) as caught:
                    client.step("t1", [], "hello")
            finally:
                client.close()
            self.assertLess(clock[0], 10)
            self.assertLess(caught.exception.attempts, 20)
            self.assertIn("the time budget", str(caught.exception))

    def test_backoff_doubles_with_jitter_and_is_capped(self) -> None:
        import random

        policy = RetryPolicy(backoff=1, max_backoff=8)
        rng = random.Random(0)
        delays = [policy.backoff_delay(retry, rng) for retry in range(6)]
        for retry, delay in enumerate(delays):
            base = min(8, 2**retry)
            self.assertGreaterEqual(delay, base / 2)
            self.assertLessEqual(delay, base)

    def test_retry_after_parsing(self) -> None:
        now = 1_700_000_000.0
        self.assertEqual(retry_after_seconds("0", now), 0.0)
        self.assertEqual(retry_after_seconds(" 2.5 ", now), 2.5)
        self.assertEqual(retry_after_seconds(email.utils.formatdate(now - 100, usegmt=True), now), 0.0)
        for unreadable in (None, "", "-3", "soon", "nan", "Wed, 21 Oct 2015 07:28:00"):
            self.assertIsNone(retry_after_seconds(unreadable, now), unreadable)

    def test_a_bad_policy_is_refused_with_the_field_named(self) -> None:
        for bad, field in (({"max_attempts": 0}, "max_attempts"), ({"max_elapsed": 0}, "max_elapsed"), ({"backoff": -1}, "backoff"), ({"max_backoff": float("inf")}, "max_backoff")):
            with self.assertRaisesRegex(ValueError, field):
                RetryPolicy(**bad)


class SeveralServers(unittest.TestCase):
    def test_episodes_are_spread_round_robin_and_stay_on_their_server(self) -> None:
        with StubServer([(200, STEP, {})] * 4) as first, StubServer([(200, STEP, {})] * 4) as second, Recording([first.url, second.url]) as recording:
            routes = [recording.client.pick_route() for _ in range(4)]
            self.assertEqual(routes, [0, 1, 0, 1])
            for route in routes:
                recording.client.step("t", [], "r", route=route)
            recording.client.step("t", [], "r", route=0)
            recording.client.step("t", [], "r", route=0)
            self.assertEqual((len(first.requests), len(second.requests)), (4, 2))

    def test_a_retry_moves_on_to_the_next_server(self) -> None:
        with StubServer([(200, STEP, {})]) as alive, Recording([free_port_url(), alive.url]) as recording:
            self.assertEqual(recording.client.step("t", [], "r", route=0)["token"], "t2")
            self.assertEqual(len(alive.requests), 1)
            self.assertEqual(len(recording.delays), 1)

    def test_a_comma_separated_list_is_several_servers(self) -> None:
        client = AebEnvironmentClient("http://a:1, http://b:2/prefix/")
        self.assertEqual([server.display for server in client.servers], ["http://a:1", "http://b:2/prefix"])


class Secrets(unittest.TestCase):
    def test_the_token_is_sent_as_a_bearer_header_and_appears_in_no_error_or_log(self) -> None:
        secret = "s3cret-token-value"
        stream = io.StringIO()
        handler = logging.StreamHandler(stream)
        logging.getLogger("aeb_verl").addHandler(handler)
        try:
            with StubServer([(503, {"error": "down", "code": "simulator_unavailable", "retryable": True}, {})] * 2) as stub:
                client = AebEnvironmentClient(stub.url, auth_token=secret, retry=RetryPolicy(max_attempts=2, backoff=0), sleep=lambda _: None)
                try:
                    with self.assertRaises(AebEnvironmentError) as caught:
                        client.step("t", [], "r")
                finally:
                    client.close()
                self.assertEqual(stub.requests[0][2].get("authorization"), f"Bearer {secret}")
        finally:
            logging.getLogger("aeb_verl").removeHandler(handler)
        self.assertIn("retrying", stream.getvalue())
        self.assertNotIn(secret, stream.getvalue())
        self.assertNotIn(secret, str(caught.exception))
        self.assertNotIn(secret, repr(client))

    def test_a_url_with_credentials_is_refused_without_echoing_them(self) -> None:
        with self.assertRaises(ValueError) as caught:
            AebEnvironmentClient("http://user:hunter2@aeb-env:8787")
        self.assertNotIn("hunter2", str(caught.exception))

    def test_bad_urls_and_options_are_refused(self) -> None:
        for bad in ("ftp://x", "aeb-env:8787", "", "http://x:99999", "http://x/?a=1"):
            with self.assertRaises(ValueError, msg=bad):
                AebEnvironmentClient(bad)
        with self.assertRaisesRegex(ValueError, "read_timeout"):
            AebEnvironmentClient("http://x", read_timeout=0)
        with self.assertRaisesRegex(ValueError, "line breaks"):
            AebEnvironmentClient("http://x", auth_token="a\r\nX-Injected: 1")


if __name__ == "__main__":
    unittest.main()
