"""A wait of more than a few seconds says so, with how long and why, where a user sees it without having
set logging up; the 429 the API sends an address after too many refused tokens is not waited out."""

from __future__ import annotations

import logging
import os
import pathlib
import subprocess
import sys
import unittest
from typing import List

import mdp_client
from mdp_client import AuthenticationError, Client, MdpError, Pacer, RateLimitError

from .scripted import Answer, ScriptedServerTest

TOKEN = "mdp_unit_waits_token"
BURST = {"x-ratelimit-reset": "1900000000", "ratelimit-policy": '"burst";q=60;w=60', "ratelimit": '"burst";r=0;t=42'}
BURST_MESSAGE = "burst cap of 60 requests a minute reached; wait Retry-After seconds"
# What the gateway's failed-authentication throttle answers (services/gateway/src/authenticator.ts).
THROTTLED = Answer(
    429,
    "rate_limited",
    {"retry-after": "60", "x-ratelimit-reset": "1900000000"},
    message="too many failed authentications from this address; retry later",
)


class WaitsTest(ScriptedServerTest):
    def client(self, **kw) -> Client:
        self.slept: List[float] = []
        client = Client(TOKEN, self.server.base_url, sleep=self.slept.append, **kw)
        self.addCleanup(client.close)
        return client

    def test_a_long_retry_after_is_a_warning_with_the_wait_and_why(self) -> None:
        self.server.reset(Answer(429, "rate_limited", {"retry-after": "42", **BURST}, message=BURST_MESSAGE), Answer(200))
        with self.assertLogs("mdp_client", logging.WARNING) as logs:
            self.client().get_stock_quote("ARAVALIHOU")
        self.assertEqual(self.slept, [42.0])
        [line] = logs.output
        self.assertIn("WARNING", line)
        self.assertIn("getStockQuote attempt 1: 429 rate_limited", line)
        self.assertIn("waiting 42 s as the API asked (Retry-After)", line)
        self.assertIn("burst cap of 60 requests a minute reached; wait 42 s", line)

    def test_a_long_backoff_is_a_warning_too(self) -> None:
        self.server.reset(Answer(502, "upstream_unavailable"), Answer(200))
        with self.assertLogs("mdp_client", logging.WARNING) as logs:
            self.client(initial_backoff=12, max_backoff=12, deadline=100).get_stock_quote("ARAVALIHOU")
        self.assertEqual(len(self.slept), 1)
        self.assertRegex(logs.output[0], r"502 upstream_unavailable: .*; waiting [0-9.]+ s to back off before attempt 2 of 4")

    def test_a_short_wait_is_only_info(self) -> None:
        self.server.reset(Answer(503, "service_unavailable", {"retry-after": "2"}), Answer(200))
        with self.assertLogs("mdp_client", logging.INFO) as logs:
            self.client().get_stock_quote("ARAVALIHOU")
        self.assertEqual([r.levelno for r in logs.records], [logging.INFO])
        self.assertEqual(self.slept, [2.0])

    def test_the_pacer_says_when_it_waits(self) -> None:
        now = [0.0]
        pacer = Pacer(2, clock=lambda: now[0], sleep=lambda s: now.__setitem__(0, now[0] + s))
        pacer.take()
        pacer.take()
        with self.assertLogs("mdp_client", logging.WARNING) as logs:
            pacer.take()
        self.assertIn("pacing to 2 calls a minute: waiting 60 s for a free slot", logs.output[0])

    def test_the_warning_shows_when_the_program_set_no_logging_up(self) -> None:
        # A fresh interpreter with no logging configuration: the line reaches stderr by itself.
        self.server.reset(Answer(429, "rate_limited", {"retry-after": "30", **BURST}, message=BURST_MESSAGE), Answer(200))
        program = (
            "import sys; from mdp_client import Client\n"
            f"c = Client('t', {self.server.base_url!r}, sleep=lambda s: None)\n"
            "print(c.get_stock_quote('ARAVALIHOU').data['symbol'])\n"
        )
        src = str(pathlib.Path(mdp_client.__file__).resolve().parent.parent)
        run = subprocess.run(
            [sys.executable, "-c", program],
            capture_output=True, text=True, timeout=60,
            env={**os.environ, "PYTHONPATH": src, "PYTHONDONTWRITEBYTECODE": "1"},
        )
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual(run.stdout, "ARAVALIHOU\n")
        self.assertIn("waiting 30 s as the API asked (Retry-After)", run.stderr)

    def test_the_auth_throttle_is_raised_at_once_as_an_authentication_error(self) -> None:
        self.server.reset(THROTTLED, Answer(401, "invalid_token"))
        client = self.client(max_retry_after=120)
        with self.assertRaises(AuthenticationError) as ctx:
            client.get_stock_quote("ARAVALIHOU")
        err = ctx.exception
        self.assertEqual(self.slept, [])
        self.assertEqual(len(self.server.requests), 1)
        self.assertEqual((err.status, err.code, err.retry_after), (429, "rate_limited", 60.0))
        self.assertNotIsInstance(err, RateLimitError)  # nothing that waits out rate limits catches it
        self.assertIn("retry after 60 s", str(err))
        self.assertIn("check the token", str(err))

    def test_a_refused_token_is_an_authentication_error(self) -> None:
        self.server.reset(Answer(401, "invalid_token"))
        with self.assertRaises(AuthenticationError) as ctx:
            self.client().get_stock_quote("ARAVALIHOU")
        self.assertEqual((ctx.exception.status, ctx.exception.code), (401, "invalid_token"))
        self.assertEqual(self.slept, [])

    def test_the_burst_cap_is_still_waited_out(self) -> None:
        self.server.reset(Answer(429, "rate_limited", {"retry-after": "3", **BURST}), Answer(200))
        self.client().get_stock_quote("ARAVALIHOU")
        self.assertEqual(self.slept, [3.0])
        self.server.reset(Answer(429, "rate_limited", {"retry-after": "3", **BURST}))
        with self.assertRaises(RateLimitError) as ctx:
            self.client(max_attempts=2).get_stock_quote("ARAVALIHOU")
        self.assertIsInstance(ctx.exception, MdpError)


if __name__ == "__main__":
    unittest.main()
