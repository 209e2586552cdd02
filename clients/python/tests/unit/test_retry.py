"""SPEC 7's retry rules against a scripted server: what was retried, how often, what the caller sees,
and the waits the client would have slept (recorded, not slept)."""

from __future__ import annotations

import io
import logging
import socket
import unittest
from typing import List

from mdp_client import Attempt, CallOptions, Client, MdpError

from .scripted import Answer, ScriptedServerTest

TOKEN = "mdp_unit_secret_token_value"
#: What a burst-cap 429 carries besides Retry-After: the account's policy, the burst window binding.
BURST = {"x-ratelimit-reset": "1900000000", "ratelimit-policy": '"daily";q=50;w=86400, "burst";q=60;w=60', "ratelimit": '"burst";r=0;t=7'}


class RetryTest(ScriptedServerTest):
    def client(self, **kw) -> Client:
        self.slept: List[float] = []
        self.attempts: List[Attempt] = []
        kw.setdefault("initial_backoff", 0.01)
        kw.setdefault("max_backoff", 0.08)
        client = Client(TOKEN, self.server.base_url, sleep=self.slept.append, on_attempt=self.attempts.append, **kw)
        self.addCleanup(client.close)
        return client

    def failure(self, client: Client) -> MdpError:
        with self.assertRaises(MdpError) as ctx:
            client.get_stock_quote("ARAVALIHOU")
        return ctx.exception

    def test_rate_limited_waits_retry_after_then_succeeds(self) -> None:
        self.server.reset(Answer(429, "rate_limited", {"retry-after": "7", **BURST}), Answer(200))
        result = self.client().get_stock_quote("ARAVALIHOU")
        self.assertEqual(result.data, {"symbol": "ARAVALIHOU"})
        self.assertEqual(result.request_id, "req-2")
        self.assertEqual(self.slept, [7.0])
        self.assertEqual(len(self.server.requests), 2)

    def test_a_retry_after_longer_than_allowed_is_raised_at_once(self) -> None:
        self.server.reset(Answer(429, "rate_limited", {"retry-after": "90", **BURST}), Answer(200))
        err = self.failure(self.client(max_retry_after=60))
        self.assertEqual((err.status, err.code, err.retry_after), (429, "rate_limited", 90.0))
        self.assertEqual(self.slept, [])
        self.assertEqual(len(self.server.requests), 1)

    def test_quota_exhausted_is_never_retried(self) -> None:
        self.server.reset(
            Answer(429, "quota_exhausted", {"retry-after": "3600", "x-ratelimit-reset": "1900000000", "x-ratelimit-remaining": "0", "x-ratelimit-limit": "50"}),
            Answer(200),
        )
        client = self.client()
        err = self.failure(client)
        self.assertEqual((err.status, err.code), (429, "quota_exhausted"))
        self.assertEqual(err.resets_at.timestamp(), 1900000000)
        self.assertEqual(len(self.server.requests), 1)
        self.assertEqual(self.slept, [])
        self.assertEqual((client.rate_limit.limit, client.rate_limit.remaining), (50, 0))

    def test_503_honours_retry_after(self) -> None:
        self.server.reset(Answer(503, "service_unavailable", {"retry-after": "5"}), Answer(200))
        self.client().get_stock_quote("ARAVALIHOU")
        self.assertEqual(self.slept, [5.0])

    def test_5xx_without_retry_after_back_off_exponentially_with_jitter(self) -> None:
        self.server.reset(*[Answer(502, "upstream_unavailable")] * 3, Answer(200))
        self.client(initial_backoff=1.0, max_backoff=8.0, deadline=100).get_stock_quote("ARAVALIHOU")
        self.assertEqual(len(self.slept), 3)
        for wait, step in zip(self.slept, [1.0, 2.0, 4.0]):
            self.assertGreaterEqual(wait, step / 2)
            self.assertLessEqual(wait, step)

    def test_every_attempt_fails_until_max_attempts(self) -> None:
        self.server.reset(Answer(500, "internal_error"))
        err = self.failure(self.client(max_attempts=3))
        self.assertEqual(err.code, "internal_error")
        self.assertEqual(len(self.server.requests), 3)
        self.assertEqual([a.status for a in self.attempts], [500, 500, 500])
        self.assertIsNone(self.attempts[-1].retry_in)

    def test_tool_error_is_tried_once_more(self) -> None:
        self.server.reset(Answer(500, "tool_error"))
        err = self.failure(self.client())
        self.assertEqual(err.code, "tool_error")
        self.assertEqual(len(self.server.requests), 2)

    def test_4xx_are_never_retried_and_carry_the_envelope(self) -> None:
        for status, code in [(400, "invalid_request"), (401, "invalid_token"), (404, "not_found"), (405, "method_not_allowed")]:
            with self.subTest(code=code):
                self.server.reset(Answer(status, code), Answer(200))
                err = self.failure(self.client())
                self.assertEqual((err.status, err.code, err.message), (status, code, f"scripted {code}"))
                self.assertEqual(err.request_id, "req-1")
                self.assertEqual(len(self.server.requests), 1)
        self.assertEqual(err.details, {})
        self.server.reset(Answer(400, "invalid_request"))
        err = self.failure(self.client())
        self.assertEqual((err.param, err.details), ("days", {"param": "days"}))
        self.assertIn("invalid_request (days): scripted invalid_request [request req-1]", str(err))

    def test_the_total_deadline_stops_waiting(self) -> None:
        now = [0.0]
        self.server.reset(Answer(503, "service_unavailable", {"retry-after": "5"}))

        def sleep(seconds: float) -> None:
            self.slept.append(seconds)
            now[0] += seconds

        client = Client(TOKEN, self.server.base_url, sleep=sleep, clock=lambda: now[0], deadline=12)
        self.slept = []
        with self.assertRaises(MdpError):
            client.get_stock_quote("ARAVALIHOU")
        # 0 s, 5 s, 10 s; a third wait would end at 15 s, past the 12 s deadline.
        self.assertEqual(self.slept, [5.0, 5.0])
        self.assertEqual(len(self.server.requests), 3)
        self.server.reset(Answer(503, "service_unavailable", {"retry-after": "5"}))
        self.slept = []
        now[0] = 0
        with self.assertRaises(MdpError):
            client.get_stock_quote("ARAVALIHOU", options=CallOptions(deadline=4))
        self.assertEqual(self.slept, [])

    def test_connection_errors_back_off_with_jitter(self) -> None:
        closed = socket.socket()
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
        closed.close()  # nothing listens there now: connection refused
        slept: List[float] = []
        client = Client(TOKEN, f"http://127.0.0.1:{port}", sleep=slept.append, initial_backoff=0.5, max_backoff=8, deadline=100)
        with self.assertRaises(MdpError) as ctx:
            client.get_stock_quote("ARAVALIHOU")
        self.assertEqual((ctx.exception.status, ctx.exception.code), (0, "network_error"))
        self.assertEqual(len(slept), 3)
        for wait, step in zip(slept, [0.5, 1.0, 2.0]):
            self.assertTrue(step / 2 <= wait <= step, (wait, step))

    def test_rate_limit_headers_of_the_last_response(self) -> None:
        self.server.reset(
            Answer(200, headers={
                "x-ratelimit-limit": "50",
                "x-ratelimit-remaining": "48",
                "x-ratelimit-reset": "1900000000",
                "ratelimit-policy": '"daily";q=50;w=86400, "burst";q=60;w=60',
                "ratelimit": '"daily";r=48;t=23400',
            })
        )
        client = self.client()
        self.assertIsNone(client.rate_limit)
        result = client.get_stock_quote("ARAVALIHOU")
        rl = client.rate_limit
        self.assertEqual((rl.limit, rl.remaining, rl.burst_per_minute), (50, 48, 60))
        self.assertEqual(rl.reset.timestamp(), 1900000000)
        self.assertEqual(rl.current, '"daily";r=48;t=23400')
        self.assertEqual(result.rate_limit, rl)

    def test_the_token_is_sent_as_a_header_only_and_never_logged(self) -> None:
        self.server.reset(Answer(503, "service_unavailable", {"retry-after": "1"}), Answer(200))
        stream = io.StringIO()
        handler = logging.StreamHandler(stream)
        logger = logging.getLogger("mdp_client")
        logger.addHandler(handler)
        logger.setLevel(logging.DEBUG)
        try:
            client = self.client()
            client.get_stock_quote("ARAVALIHOU")
        finally:
            logger.removeHandler(handler)
        request = self.server.requests[0]
        self.assertEqual(request["headers"]["Authorization"], f"Bearer {TOKEN}")
        self.assertNotIn(TOKEN, request["path"])
        self.assertIn("getStockQuote attempt 1: 503 service_unavailable", stream.getvalue())
        self.assertNotIn(TOKEN, stream.getvalue())
        self.assertNotIn(TOKEN, repr(client))
        self.assertNotIn(TOKEN, str(vars(client).get("base_url")))

    def test_the_token_comes_from_mdp_token(self) -> None:
        import os

        self.server.reset(Answer(200))
        old = os.environ.get("MDP_TOKEN")
        os.environ["MDP_TOKEN"] = "mdp_from_env"
        try:
            Client(base_url=self.server.base_url).get_stock_quote("ARAVALIHOU")
        finally:
            if old is None:
                del os.environ["MDP_TOKEN"]
            else:
                os.environ["MDP_TOKEN"] = old
        self.assertEqual(self.server.requests[0]["headers"]["Authorization"], "Bearer mdp_from_env")
        saved = os.environ.pop("MDP_TOKEN", None)
        try:
            with self.assertRaisesRegex(ValueError, "MDP_TOKEN"):
                Client(base_url=self.server.base_url)
        finally:
            if saved is not None:
                os.environ["MDP_TOKEN"] = saved

    def test_gzip_answers_are_decoded(self) -> None:
        self.server.reset(Answer(200, gzip_body=True))
        client = self.client()
        self.assertEqual(client.get_stock_quote("ARAVALIHOU").data["symbol"], "ARAVALIHOU")
        self.assertEqual(self.server.requests[0]["headers"]["Accept-Encoding"], "gzip")

    def test_a_redirect_is_not_followed_with_the_token(self) -> None:
        self.server.reset(Answer(302, headers={"location": "http://example.invalid/steal"}, body={}))
        err = self.failure(self.client())
        self.assertEqual(err.status, 302)
        self.assertEqual(len(self.server.requests), 1)

    def test_cursor_pages_are_followed_until_has_more_is_false(self) -> None:
        def page(bars, cursor):
            return Answer(body={"data": bars, "meta": {"as_of": "x", "route": "getPriceHistory", "has_more": cursor is not None, "next_cursor": cursor}})

        self.server.reset(page([{"date": "2026-11-02"}], "2026-10-31"), page([{"date": "2026-10-30"}], "2026-09-30"), page([{"date": "2026-09-01"}], None))
        client = self.client()
        # No days: the whole history, in the largest pages the route allows.
        bars = client.get_price_history_all("ARAVALIHOU")
        self.assertEqual([b["date"] for b in bars], ["2026-09-01", "2026-10-30", "2026-11-02"])
        self.assertEqual(self.server.paths(), [
            "/v1/stocks/ARAVALIHOU/price?days=2000",
            "/v1/stocks/ARAVALIHOU/price?days=2000&end_date=2026-10-31",
            "/v1/stocks/ARAVALIHOU/price?days=2000&end_date=2026-09-30",
        ])


if __name__ == "__main__":
    unittest.main()
