"""Exceptions by kind, all under MdpError (the names that existed keep working), and messages that carry
the values: the time a quota resets and the seconds to wait, not the names of the headers they came in."""

from __future__ import annotations

import datetime
import unittest

import mdp_client
from mdp_client import (
    AuthenticationError,
    Client,
    MdpError,
    NetworkError,
    NotFoundError,
    ParameterError,
    QuotaError,
    RateLimitError,
    ServerError,
)
from mdp_client.errors import format_instant

from .scripted import Answer, METERED, ScriptedServerTest

BURST = {"x-ratelimit-reset": "1900000000", "ratelimit-policy": '"burst";q=60;w=60', "ratelimit": '"burst";r=0;t=90'}
RESET = datetime.datetime.fromtimestamp(1900000000, datetime.timezone.utc)


class ErrorsTest(ScriptedServerTest):
    def failure(self, *script: Answer, **kw) -> MdpError:
        self.server.reset(*script)
        client = Client("mdp_unit", self.server.base_url, sleep=lambda s: None, max_attempts=1, **kw)
        self.addCleanup(client.close)
        with self.assertRaises(MdpError) as ctx:
            client.get_stock_quote("ARAVALIHOU")
        return ctx.exception

    def test_a_class_for_each_kind_of_failure(self) -> None:
        cases = [
            (Answer(401, "authentication_required"), AuthenticationError),
            (Answer(401, "invalid_token"), AuthenticationError),
            (Answer(429, "rate_limited", {"retry-after": "5", **BURST}), RateLimitError),
            (Answer(429, "quota_exhausted", {**METERED, "retry-after": "3600"}), QuotaError),
            (Answer(400, "invalid_request"), ParameterError),
            (Answer(404, "not_found"), NotFoundError),
            (Answer(404, "route_not_found"), NotFoundError),
            (Answer(500, "internal_error"), ServerError),
            (Answer(500, "tool_error"), ServerError),
            (Answer(502, "upstream_unavailable"), ServerError),
            (Answer(503, "service_unavailable", {"retry-after": "1"}), ServerError),
            (Answer(405, "method_not_allowed"), MdpError),
        ]
        for answer, cls in cases:
            with self.subTest(code=answer.code):
                err = self.failure(answer)
                self.assertIs(type(err), cls)
                self.assertIsInstance(err, MdpError)
                self.assertEqual((err.status, err.code), (answer.status, answer.code))
                self.assertEqual(err.request_id, "req-1")

    def test_the_existing_names_keep_working(self) -> None:
        # ParameterError is still a ValueError, raised before any request, and an MdpError besides.
        self.server.reset(Answer(200))
        client = Client("mdp_unit", self.server.base_url)
        self.addCleanup(client.close)
        for catch in (ValueError, ParameterError, MdpError):
            with self.subTest(catch=catch.__name__):
                with self.assertRaises(catch) as ctx:
                    client.get_price_history("ARAVALIHOU", days=0)
                self.assertEqual(str(ctx.exception), "days: must be at least 1 (got 0)")
                self.assertEqual(ctx.exception.param, "days")  # type: ignore[attr-defined]
        self.assertEqual(self.server.requests, [])
        self.assertIs(mdp_client.errors.MdpError, MdpError)
        # The API's own 400 is a ParameterError too, naming the parameter it refused.
        err = self.failure(Answer(400, "invalid_request"))
        self.assertIsInstance(err, ValueError)
        self.assertEqual((err.status, err.param), (400, "days"))
        self.assertEqual(str(err), "400 invalid_request (days): scripted invalid_request [request req-1]")

    def test_a_quota_message_says_when_it_resets(self) -> None:
        err = self.failure(Answer(429, "quota_exhausted", {**METERED, "retry-after": "3600"}, message="plan quota used up; it resets at X-RateLimit-Reset"))
        self.assertIsInstance(err, QuotaError)
        self.assertEqual(err.resets_at, RESET)
        self.assertNotIn("X-RateLimit-Reset", str(err))
        self.assertIn("it resets at 2030-03-17 23:16:40 IST (2030-03-17 17:46:40 UTC)", err.message)
        self.assertEqual(err.server_message, "plan quota used up; it resets at X-RateLimit-Reset")
        self.assertEqual(format_instant(RESET), "2030-03-17 23:16:40 IST (2030-03-17 17:46:40 UTC)")

    def test_a_rate_limit_message_says_how_long_to_wait(self) -> None:
        # Longer than the client waits: raised at once, saying how long the API asked for.
        err = self.failure(
            Answer(429, "rate_limited", {"retry-after": "90", **BURST}, message="burst cap of 60 requests a minute reached; wait Retry-After seconds"),
            max_retry_after=60,
        )
        self.assertIsInstance(err, RateLimitError)
        self.assertEqual(err.retry_after, 90.0)
        self.assertIn("burst cap of 60 requests a minute reached; wait 90 s", str(err))
        self.assertNotIn("Retry-After", str(err))

    def test_a_message_that_names_no_header_gets_the_values_added(self) -> None:
        err = self.failure(Answer(503, "service_unavailable", {"retry-after": "5"}, message="The service is briefly unavailable; retry after the Retry-After interval."))
        self.assertEqual(err.message, "The service is briefly unavailable; retry after 5 s.")
        err = self.failure(Answer(429, "quota_exhausted", {**METERED}, message="plan quota used up"))
        self.assertEqual(err.message, "plan quota used up (resets at 2030-03-17 23:16:40 IST (2030-03-17 17:46:40 UTC))")

    def test_no_answer_is_a_network_error(self) -> None:
        client = Client("mdp_unit", "http://127.0.0.1:9", sleep=lambda s: None, max_attempts=1)
        self.addCleanup(client.close)
        with self.assertRaises(NetworkError) as ctx:
            client.get_stock_quote("ARAVALIHOU")
        self.assertEqual((ctx.exception.status, ctx.exception.code), (0, "network_error"))
        self.assertIn("http://127.0.0.1:9 could not be reached", str(ctx.exception))
        self.assertIn("NetworkError(status=0", repr(ctx.exception))


if __name__ == "__main__":
    unittest.main()
