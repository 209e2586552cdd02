"""The Python client against the real platform loaded with the default data (see __init__.py)."""

from __future__ import annotations

import datetime
import json
import re
import threading
import time
import unittest
import urllib.error
import urllib.request
from typing import Any, Dict, List

from mdp_client import AuthenticationError, Attempt, Client, MdpError, NotFoundError, ParameterError
from mdp_client._generated.operations import OPERATIONS

from .support import base_url, need, report, symbols, tokens

UUID = re.compile(r"^[0-9a-f-]{36}$")


class EveryRoute(unittest.TestCase):
    def test_every_route_answers_through_its_typed_method(self) -> None:
        calls: Dict[str, Any] = json.loads(need("MDP_TEST_CALLS"))
        attempts: List[Attempt] = []
        client = Client(tokens()["routes"], base_url(), on_attempt=attempts.append)
        data: Dict[str, Any] = {}
        for operation_id, call in calls.items():
            method = getattr(client, OPERATIONS[operation_id]["method"])
            result = method(**call["args"])
            self.assertEqual(result.meta["route"], operation_id)
            self.assertRegex(result.request_id or "", UUID, operation_id)
            data[operation_id] = result.data
        # A 502 or 503 on a busy machine is retried (and free): the 200s are what was charged.
        metered = sum(1 for a in attempts if a.status == 200 and OPERATIONS[a.operation_id]["units"] > 0)
        # The free description of the API, served bare (no envelope).
        description = client.get_open_api()
        self.assertEqual(description.data["info"]["version"], "1.0.0")
        covered = set(calls) | {"getOpenApi"}
        self.assertEqual(covered, set(OPERATIONS), "a route of the document was not called")
        self.assertIsNotNone(client.rate_limit)
        report(routes={"data": data, "metered_200s": metered, "attempts": len(attempts)})


class Retries(unittest.TestCase):
    def test_rate_limited_is_waited_out(self) -> None:
        attempts: List[Attempt] = []
        # The plan admits 10 a minute: the 11th call is refused with the seconds until a slot frees,
        # which the client waits (under a minute) and then gets its 200.
        client = Client(tokens()["burst"], base_url(), on_attempt=attempts.append, deadline=120, max_retry_after=61)
        stock = symbols()["stock"]
        ok = 0
        for _ in range(12):
            self.assertEqual(client.get_stock_quote(stock).data["symbol"], stock)
            ok += 1
        refused = [a for a in attempts if a.status == 429]
        self.assertGreaterEqual(len(refused), 1)
        self.assertTrue(all(a.code == "rate_limited" and a.retry_in and 0 < a.retry_in <= 61 for a in refused), refused)
        self.assertEqual(sum(1 for a in attempts if a.status == 200), 12)
        report(burst={"ok": ok, "refused": len(refused), "waits": [a.retry_in for a in refused]})

    def test_quota_exhausted_is_not_retried(self) -> None:
        attempts: List[Attempt] = []
        client = Client(tokens()["quota"], base_url(), on_attempt=attempts.append)
        stock = symbols()["stock"]
        usage = client.get_my_usage().data["day"]
        self.assertEqual((usage["used"], usage["limit"]), (0, 50))
        ok = 0
        errors: List[MdpError] = []
        for _ in range(53):
            try:
                client.get_quotes([stock])
                ok += 1
            except MdpError as err:
                errors.append(err)
        self.assertEqual(ok, 50)
        self.assertEqual(len(errors), 3)
        for err in errors:
            self.assertEqual((err.status, err.code), (429, "quota_exhausted"))
            self.assertIsNotNone(err.resets_at)
            self.assertRegex(err.request_id or "", UUID)
        # Each refusal was final: told to the caller with no wait and no attempt after it.
        refusals = [a for a in attempts if a.status == 429]
        self.assertEqual(len(refusals), 3)
        self.assertTrue(all(a.code == "quota_exhausted" and a.retry_in is None for a in refusals), refusals)
        self.assertEqual(sum(1 for a in attempts if a.status == 200 and a.operation_id == "getQuotes"), 50)
        self.assertEqual(client.rate_limit.remaining, 0)
        report(quota={"ok": ok, "refused": len(errors), "attempts": len(attempts), "refusals": len(refusals)})


class Paging(unittest.TestCase):
    def test_the_whole_history_and_the_last_days_each_bar_once(self) -> None:
        attempts: List[Attempt] = []
        client = Client(tokens()["platform"], base_url(), on_attempt=attempts.append)
        stock = symbols()["stock"]
        # No days: every page back to the first bar, in pages of 2,000 days.
        pages = list(client.get_price_history_pages(stock))
        bars = client.get_price_history_all(stock)
        dates = [b["date"] for b in bars]
        self.assertEqual(len(set(dates)), len(dates), "a bar came twice")
        self.assertEqual(sorted(dates), dates)
        span = (datetime.date.fromisoformat(dates[-1]) - datetime.date.fromisoformat(dates[0])).days
        self.assertGreater(span, 2000)
        self.assertFalse(pages[-1].meta["has_more"])
        self.assertEqual(sum(len(p.data) for p in pages), len(bars))
        # The last 2,100 days: two requests (2,000 days, then what is still missing), none more.
        before = len(attempts)
        last = client.get_price_history_all(stock, days=2100)
        requests = len(attempts) - before
        self.assertEqual(requests, 2)
        self.assertEqual([b["date"] for b in last], [d for d in dates if d >= last[0]["date"]])
        # Thirty days: one request, the free plan's first unit and no more (issue 51 saw 51).
        before = len(attempts)
        month = client.get_price_history_all(stock, days=30)
        self.assertEqual(len(attempts) - before, 1)
        self.assertEqual([b["date"] for b in month], [b["date"] for b in client.get_price_history(stock, days=30).data])
        report(paging={
            "dates": dates,
            "pages": len(pages),
            "window_to": pages[0].meta["window"]["to"],
            "last_2100": [b["date"] for b in last],
            "last_2100_requests": requests,
        })


class KeepAlive(unittest.TestCase):
    def test_calls_go_over_kept_alive_connections_to_the_gateway(self) -> None:
        stock = symbols()["stock"]
        token = tokens()["platform"]
        figures: Dict[str, Any] = {}
        for keep_alive in (True, False):
            with Client(token, base_url(), keep_alive=keep_alive) as client:
                client.get_stock_quote(stock)
                started = time.perf_counter()
                for _ in range(40):
                    self.assertEqual(client.get_stock_quote(stock).data["symbol"], stock)
                figures["kept" if keep_alive else "fresh"] = {
                    "seconds": time.perf_counter() - started,
                    "connections": client.connections_opened,
                }
        self.assertEqual(figures["kept"]["connections"], 1, "41 calls should have gone over one connection")
        self.assertEqual(figures["fresh"]["connections"], 41)
        # Four threads sharing one client: never more connections than calls at once.
        errors: List[BaseException] = []
        with Client(token, base_url(), pool_size=4) as shared:

            def work() -> None:
                try:
                    for _ in range(10):
                        shared.get_stock_quote(stock)
                except BaseException as err:  # noqa: BLE001 (reported below)
                    errors.append(err)

            threads = [threading.Thread(target=work) for _ in range(4)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            figures["threads"] = {"connections": shared.connections_opened}
        self.assertEqual(errors, [])
        self.assertLessEqual(figures["threads"]["connections"], 4)
        report(keep_alive=figures)

    def test_a_symbol_with_an_ampersand_reaches_the_route(self) -> None:
        # The gateway reads M%26M as M&M: the default data has no such stock, so a 404 (not a 400, and
        # not a ParameterError for the hand-encoded spelling).
        with Client(tokens()["platform"], base_url()) as client:
            for symbol in ("M&M", "M%26M"):
                with self.assertRaises(NotFoundError) as ctx:
                    client.get_stock_quote(symbol)
                self.assertEqual((ctx.exception.status, ctx.exception.code), (404, "not_found"))
        report(ampersand={"status": 404})


class AuthThrottle(unittest.TestCase):
    def test_the_throttle_is_not_waited_out(self) -> None:
        # Run through a proxy (MDP_TEST_PROXY: http_proxy) that names a client address the gateway has
        # already refused 30 tokens from: its 429 is raised at once as an AuthenticationError.
        need("http_proxy")
        client = Client("mdp_not_a_token_of_this_platform", base_url(), max_retry_after=120)
        self.addCleanup(client.close)
        started = time.monotonic()
        with self.assertRaises(AuthenticationError) as ctx:
            client.get_stock_quote(symbols()["stock"])
        elapsed = time.monotonic() - started
        err = ctx.exception
        self.assertEqual((err.status, err.code), (429, "rate_limited"))
        self.assertIsNotNone(err.retry_after)
        self.assertLess(elapsed, 5)
        self.assertIn(f"retry after {int(err.retry_after)} s", str(err))
        report(throttle={"elapsed": elapsed, "retry_after": err.retry_after, "message": str(err)})


class Bounds(unittest.TestCase):
    def test_bad_bounds_raise_before_any_request_and_the_api_refuses_the_same(self) -> None:
        attempts: List[Attempt] = []
        token = tokens()["platform"]
        client = Client(token, base_url(), on_attempt=attempts.append)
        stock = symbols()["stock"]
        cases = [
            ("getPriceHistory", {"symbol": stock, "days": 2001}, "days", "days=2001"),
            ("getPriceHistory", {"symbol": stock, "days": 0}, "days", "days=0"),
            ("getPriceHistory", {"symbol": stock, "end_date": "2023-02-29"}, "end_date", "end_date=2023-02-29"),
            ("getQuotes", {"symbols": [f"S{i}" for i in range(21)]}, "symbols", "symbols=" + ",".join(f"S{i}" for i in range(21))),
            ("getOptionChain", {"symbol": "NIFTY", "strikes": 26}, "strikes", "strikes=26"),
            ("getFinancials", {"symbol": stock, "periods": 41}, "periods", "periods=41"),
            ("searchStocks", {"q": stock, "limit": 51}, "limit", f"q={stock}&limit=51"),
            ("listIndices", {"granularity": "day"}, "granularity", "granularity=day"),
        ]
        seen = []
        for operation_id, params, param, query in cases:
            with self.assertRaises(ValueError) as ctx:
                getattr(client, OPERATIONS[operation_id]["method"])(**params)
            self.assertIsInstance(ctx.exception, ParameterError)
            self.assertEqual(ctx.exception.param, param)
            # What the server says to the same values, sent by hand.
            path = OPERATIONS[operation_id]["path"].replace("{symbol}", params.get("symbol", ""))
            req = urllib.request.Request(f"{base_url()}{path}?{query}", headers={"Authorization": f"Bearer {token}"})
            with self.assertRaises(urllib.error.HTTPError) as http:
                urllib.request.urlopen(req, timeout=30)
            body = json.loads(http.exception.read())
            self.assertEqual((http.exception.code, body["error"]["code"]), (400, "invalid_request"))
            self.assertEqual(body["error"]["details"]["param"], param)
            seen.append(param)
        self.assertEqual(attempts, [], "the client sent a request")
        report(bounds={"params": seen})


class Frames(unittest.TestCase):
    def test_dataframes_keep_the_columns_types(self) -> None:
        import pandas as pd  # the vitest side checked it is installed, and says how to install it

        client = Client(tokens()["platform"], base_url())
        stock = symbols()["stock"]
        prices = client.price_history_frame(stock, days=30)
        rest = client.get_price_history(stock, days=30).data
        self.assertEqual(len(prices), len(rest))
        self.assertEqual(str(prices.index.dtype), "datetime64[ns, Asia/Kolkata]")
        self.assertEqual(prices.index[0].date().isoformat(), rest[0]["date"])
        self.assertEqual(prices.index[0].hour, 0)
        self.assertAlmostEqual(float(prices["close"].iloc[-1]), rest[-1]["close"])
        self.assertEqual(int(prices["volume"].iloc[-1]), rest[-1]["volume"])
        weekly = client.price_history_frame(stock, days=120, interval="weekly")
        every = client.price_history_frame(stock, days=1000, all_pages=True)
        self.assertTrue(every.index.is_monotonic_increasing and every.index.is_unique)
        index = client.index_history_frame("NIFTY 50", interval="1y")
        index_weekly = client.index_history_frame("NIFTY 50", interval="2y")
        chain = client.option_chain_frame("NIFTY", strikes=5)
        financials = client.financials_frame(stock, section="quarterly", periods=4)
        every_section = client.financials_frame(stock)
        self.assertEqual(chain.attrs["symbol"], "NIFTY")
        self.assertEqual(str(chain.attrs["snapshot_ts"].tz), "Asia/Kolkata")
        self.assertEqual(financials.shape[1], 4)
        self.assertEqual(every_section.index.names, ["section", "row"])
        self.assertIsInstance(chain, pd.DataFrame)

        def types(frame: Any) -> Dict[str, str]:
            out = {str(k): str(v) for k, v in frame.dtypes.items()}
            if frame.index.name:
                out[f"index:{frame.index.name}"] = str(frame.index.dtype)
            return out

        report(frames={
            "prices": types(prices),
            "weekly": types(weekly),
            "index": types(index),
            "index_weekly": types(index_weekly),
            "chain": types(chain),
            "financials": sorted({str(t) for t in financials.dtypes}),
            "financials_columns": [str(c) for c in financials.columns],
            "every_section": sorted({str(t) for t in every_section.dtypes}),
            "chain_rows": len(chain),
            "chain_expiry": chain.attrs["expiry"].isoformat(),
            "price_rows": len(prices),
            "pandas": pd.__version__,
        })


if __name__ == "__main__":
    unittest.main()
