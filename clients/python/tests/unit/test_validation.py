"""Parameters out of the bounds the OpenAPI document publishes raise ValueError naming the parameter,
before any request: checked against a scripted server that counts what reached it. The bounds are read
from the generated operation table, so every bound of every route is tried."""

from __future__ import annotations

import datetime
import unittest

from mdp_client import Client, ParameterError
from mdp_client._generated.operations import OPERATIONS

from .scripted import Answer, ScriptedServerTest


class ValidationTest(ScriptedServerTest):
    def setUp(self) -> None:
        self.server.reset(Answer(200))
        self.client = Client("mdp_unit", self.server.base_url)
        self.addCleanup(self.client.close)

    def refused(self, param: str, method: str, *args, **kwargs) -> ParameterError:
        with self.assertRaises(ValueError) as ctx:
            getattr(self.client, method)(*args, **kwargs)
        err = ctx.exception
        self.assertIsInstance(err, ParameterError)
        self.assertEqual(err.param, param)
        self.assertTrue(str(err).startswith(f"{param}: "), str(err))
        self.assertEqual(self.server.requests, [], "a request was sent")
        return err

    def base_args(self, op):
        """Valid values of a route's required parameters."""
        args = {}
        for p in op["params"]:
            if p["required"]:
                s = p["schema"]
                if s.get("enum"):
                    args[p["name"]] = s["enum"][0]
                elif s.get("type") == "integer":
                    args[p["name"]] = s.get("minimum", 1)
                elif s.get("type") == "array":
                    args[p["name"]] = ["ARAVALIHOU"]
                else:
                    args[p["name"]] = "ARAVALIHOU"
        return args

    def test_every_integer_bound_of_every_route(self) -> None:
        checked = 0
        for op_id, op in OPERATIONS.items():
            for p in op["params"]:
                s = p["schema"]
                if s.get("type") != "integer":
                    continue
                with self.subTest(route=op_id, param=p["name"]):
                    args = self.base_args(op)
                    if "minimum" in s:
                        self.refused(p["name"], "call", op_id, {**args, p["name"]: s["minimum"] - 1})
                    if "maximum" in s:
                        self.refused(p["name"], "call", op_id, {**args, p["name"]: s["maximum"] + 1})
                        self.assertIn(f"{p['name']}={s['maximum']}", self.client.url(op_id, {**args, p["name"]: s["maximum"]}))
                    self.refused(p["name"], "call", op_id, {**args, p["name"]: True})
                    self.refused(p["name"], "call", op_id, {**args, p["name"]: "5"})
                    checked += 1
        self.assertGreaterEqual(checked, 10)

    def test_the_typed_methods(self) -> None:
        err = self.refused("days", "get_price_history", "ARAVALIHOU", days=2001)
        self.assertIn("at most 2000", str(err))
        self.refused("days", "get_price_history", "ARAVALIHOU", days=0)
        self.refused("interval", "get_price_history", "ARAVALIHOU", interval="monthly")
        self.refused("end_date", "get_price_history", "ARAVALIHOU", end_date="2023-02-29")
        self.refused("end_date", "get_price_history", "ARAVALIHOU", end_date="20230101")
        self.refused("end_date", "get_price_history", "ARAVALIHOU", end_date=datetime.datetime(2023, 1, 1, 15, 30))
        self.refused("symbol", "get_stock_quote", "A" * 65)
        self.refused("symbol", "get_stock_quote", "ARA/VALI")
        self.refused("symbol", "get_stock_quote", "ARAVALIHOU\n")
        self.refused("symbol", "get_stock_quote", "")
        self.refused("symbols", "get_quotes", [f"S{i}" for i in range(21)])
        self.refused("symbols", "get_quotes", ["ARAVALIHOU", "ARAVALIHOU"])
        self.refused("symbols", "get_quotes", ["ARAVALIHOU,ANUPAMIRO"])
        self.refused("symbols", "get_quotes", [])
        self.refused("include", "get_stock_profile", "ARAVALIHOU", include=["technicals", "gossip"])
        self.refused("symbol", "get_option_chain", "TCS")
        self.refused("strikes", "get_option_chain", "NIFTY", strikes=26)
        self.refused("max_chars", "read_document", "ARAVALIHOU", 1, max_chars=1999)
        self.refused("pages", "read_document", "ARAVALIHOU", 1, pages="0-3")
        self.refused("doc_id", "read_document", "ARAVALIHOU", 0)
        self.refused("q", "search_stocks", "x" * 101)
        self.refused("category", "get_market_news", category="1abc")

    def test_required_and_unknown_parameters(self) -> None:
        self.refused("q", "call", "searchStocks", {})
        self.refused("colour", "call", "getStockQuote", {"symbol": "ARAVALIHOU", "colour": "red"})
        with self.assertRaises(TypeError):
            self.client.get_stock_quote("ARAVALIHOU", colour="red")  # type: ignore[call-arg]

    def test_valid_values_travel_as_the_api_reads_them(self) -> None:
        url = self.client.url
        self.assertTrue(url("getQuotes", {"symbols": ["ARAVALIHOU", "ANUPAMIRO"]}).endswith("/v1/quotes?symbols=ARAVALIHOU,ANUPAMIRO"))
        self.assertTrue(url("getStockQuote", {"symbol": "M&M"}).endswith("/v1/stocks/M%26M/quote"))
        self.assertTrue(url("getPriceHistory", {"symbol": "TCS", "end_date": datetime.date(2024, 2, 29)}).endswith("end_date=2024-02-29"))
        self.assertTrue(url("getIndexHistory", {"name": "Nifty 50"}).endswith("/v1/indices/Nifty%2050/history"))
        self.assertTrue(url("getStockQuote", {"symbol": "ARAVALIHOU"}).startswith(self.server.base_url))
        self.assertEqual(self.server.requests, [])
        self.client.get_quotes(["ARAVALIHOU"])
        self.assertEqual(self.server.requests[0]["path"], "/v1/quotes?symbols=ARAVALIHOU")


if __name__ == "__main__":
    unittest.main()
