"""Kept-alive connections, counted where they arrive: the scripted server numbers every TCP connection it
accepts and records which one each request came on."""

from __future__ import annotations

import os
import threading
import unittest
from typing import List
from unittest import mock

from mdp_client import Attempt, Client, MdpError, NetworkError

from .scripted import Answer, ScriptedServerTest

TOKEN = "mdp_unit_connection_token"


class ConnectionTest(ScriptedServerTest):
    def setUp(self) -> None:
        self.server.close_idle()  # nothing left open by the test before
        self.server.reset(Answer(200))
        self.start = self.server.connections
        self.slept: List[float] = []
        self.attempts: List[Attempt] = []

    def client(self, **kw) -> Client:
        kw.setdefault("initial_backoff", 0.01)
        client = Client(TOKEN, self.server.base_url, sleep=self.slept.append, on_attempt=self.attempts.append, **kw)
        self.addCleanup(client.close)
        return client

    def accepted(self) -> int:
        """TCP connections the server accepted during this test."""
        return self.server.connections - self.start

    def test_many_calls_go_over_one_connection(self) -> None:
        client = self.client()
        for _ in range(25):
            self.assertEqual(client.get_stock_quote("ARAVALIHOU").data["symbol"], "ARAVALIHOU")
        self.assertEqual(len(self.server.requests), 25)
        self.assertEqual(self.accepted(), 1)
        self.assertEqual({r["connection"] for r in self.server.requests}, {self.start + 1})
        self.assertEqual(client.connections_opened, 1)
        self.assertNotEqual(self.server.requests[0]["headers"].get("Connection"), "close")

    def test_keep_alive_off_opens_a_connection_a_call(self) -> None:
        client = self.client(keep_alive=False)
        for _ in range(5):
            client.get_stock_quote("ARAVALIHOU")
        self.assertEqual(self.accepted(), 5)
        self.assertEqual(client.connections_opened, 5)
        self.assertTrue(all(r["headers"].get("Connection") == "close" for r in self.server.requests))

    def test_a_connection_the_server_closed_while_idle_is_replaced_without_an_attempt(self) -> None:
        client = self.client()
        client.get_stock_quote("ARAVALIHOU")
        self.server.close_idle()  # as the gateway does after its keep-alive timeout
        self.assertEqual(client.get_stock_quote("ARAVALIHOU").data["symbol"], "ARAVALIHOU")
        self.assertEqual(self.accepted(), 2)
        self.assertEqual(len(self.server.requests), 2)
        self.assertEqual([(a.attempt, a.status) for a in self.attempts], [(1, 200), (1, 200)])
        self.assertEqual(self.slept, [])

    def test_a_connection_closed_as_the_request_arrives_is_replaced_without_an_attempt(self) -> None:
        client = self.client()
        client.get_stock_quote("ARAVALIHOU")
        # The server reads the next request and closes the connection with no answer: what a client sees
        # when an idle timeout and its request cross on the wire.
        self.server.drop_next = 1
        self.assertEqual(client.get_stock_quote("ARAVALIHOU").data["symbol"], "ARAVALIHOU")
        self.assertEqual(self.accepted(), 2)
        self.assertEqual([r.get("dropped", False) for r in self.server.requests], [False, True, False])
        self.assertEqual([(a.attempt, a.status) for a in self.attempts], [(1, 200), (1, 200)])
        self.assertEqual(self.slept, [])

    def test_a_new_connection_closed_with_no_answer_is_a_failed_attempt(self) -> None:
        # Not a kept-alive connection gone stale: a server that drops requests, so SPEC 7's backoff applies.
        self.server.drop_next = 1
        client = self.client()
        client.get_stock_quote("ARAVALIHOU")
        self.assertEqual([(a.attempt, a.status, a.code) for a in self.attempts], [(1, 0, "network_error"), (2, 200, None)])
        self.assertEqual(len(self.slept), 1)

    def test_threads_share_a_client_each_call_on_its_own_connection(self) -> None:
        self.server.delay = 0.02  # calls overlap
        client = self.client(pool_size=4)
        errors: List[BaseException] = []

        def work() -> None:
            try:
                for _ in range(10):
                    self.assertEqual(client.get_stock_quote("ARAVALIHOU").data["symbol"], "ARAVALIHOU")
            except BaseException as err:  # noqa: BLE001 (reported below)
                errors.append(err)

        threads = [threading.Thread(target=work) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(errors, [])
        self.assertEqual(len(self.server.requests), 40)
        # Never more connections than calls at once, each used again and again.
        self.assertLessEqual(self.accepted(), 4)
        self.assertGreaterEqual(self.accepted(), 2)
        self.assertEqual(client.connections_opened, self.accepted())
        per_connection = [sum(1 for r in self.server.requests if r["connection"] == c) for c in {r["connection"] for r in self.server.requests}]
        self.assertTrue(all(n >= 5 for n in per_connection), per_connection)

    def test_close_and_the_with_block_close_the_connections(self) -> None:
        with Client(TOKEN, self.server.base_url) as client:
            client.get_stock_quote("ARAVALIHOU")
            self.assertEqual(len(self.server._open), 1)
        self.server.close_idle()  # waits for the server to see the close; closes nothing itself now
        self.assertEqual(len(self.server._open), 0)
        with self.assertRaisesRegex(RuntimeError, "closed"):
            client.get_stock_quote("ARAVALIHOU")
        other = Client(TOKEN, self.server.base_url)
        other.get_stock_quote("ARAVALIHOU")
        other.close()
        other.close()  # twice is harmless
        self.assertEqual(len(self.server.requests), 2)

    def test_a_timeout_is_a_network_error(self) -> None:
        self.server.delay = 0.5
        client = self.client(timeout=0.1, max_attempts=1)
        with self.assertRaises(NetworkError) as ctx:
            client.get_stock_quote("ARAVALIHOU")
        self.assertEqual((ctx.exception.status, ctx.exception.code), (0, "timeout"))
        self.assertIn("0.1 s", str(ctx.exception))
        self.assertIsInstance(ctx.exception, MdpError)

    def test_the_environment_proxy_is_used_as_urllib_would(self) -> None:
        # The scripted server stands for the proxy: it is asked for the absolute URL of the API.
        env = {"http_proxy": self.server.base_url, "HTTP_PROXY": self.server.base_url, "no_proxy": "", "NO_PROXY": ""}
        with mock.patch.dict(os.environ, env):
            client = Client(TOKEN, "http://api.example.invalid:8080", sleep=self.slept.append)
        self.addCleanup(client.close)
        client.get_stock_quote("ARAVALIHOU")
        client.get_stock_quote("ARAVALIHOU")
        self.assertEqual(self.server.paths(), ["http://api.example.invalid:8080/v1/stocks/ARAVALIHOU/quote"] * 2)
        self.assertEqual(self.accepted(), 1)


if __name__ == "__main__":
    unittest.main()
