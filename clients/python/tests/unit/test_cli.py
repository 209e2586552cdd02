"""The command line's output formats are the `mdp` command's: JavaScript's number and JSON spellings,
RFC 4180 CSV with null as an empty cell, every field of a daily bar as a column."""

from __future__ import annotations

import datetime
import json
import unittest

from mdp_client._generated.models import SCHEMA_FIELDS
from mdp_client.cli import PRICE_CSV_COLUMNS, USAGE, csv_lines, js_number, main, to_json

from .scripted import Answer, PriceHistory, ScriptedServerTest


class CliTest(unittest.TestCase):
    def test_numbers_as_javascript_writes_them(self) -> None:
        cases = {
            100.0: "100", 2.5: "2.5", -0.5: "-0.5", 1e-7: "1e-7", 1.5e-7: "1.5e-7", 0.000001: "0.000001",
            1e21: "1e+21", 1e20: "100000000000000000000", 123456789.125: "123456789.125", 0.1 + 0.2: "0.30000000000000004",
            7: "7", -3: "-3", 0.0: "0", 1234.5678: "1234.5678",
        }
        for value, text in cases.items():
            with self.subTest(value=value):
                self.assertEqual(js_number(value), text)

    def test_json_as_json_stringify_with_two_spaces(self) -> None:
        value = {"symbol": "ARAVALIHOU", "name": "Aravali — “Housing”", "ltp": 2450.0, "pe": None, "ok": True, "tags": [], "m": {}, "l": [1, {"a": "x\ny"}]}
        text = to_json(value)
        self.assertEqual(json.loads(text), {**value, "ltp": 2450})
        self.assertIn('  "ltp": 2450,\n', text)
        self.assertIn('"name": "Aravali — “Housing”"', text)
        self.assertIn('"tags": [],', text)
        self.assertTrue(text.startswith('{\n  "symbol"'))

    def test_csv_of_every_field_of_a_daily_bar(self) -> None:
        self.assertEqual(PRICE_CSV_COLUMNS, SCHEMA_FIELDS["PriceBar"])
        self.assertIn("delivery_pct", PRICE_CSV_COLUMNS)
        lines = csv_lines(["date", "close", "delivery_pct", "note"], [
            {"date": "2026-11-25", "close": 101.0, "delivery_pct": None, "note": 'a "b", c'},
        ])
        self.assertEqual(lines, ["date,close,delivery_pct,note", '2026-11-25,101,,"a ""b"", c"'])

    def test_usage_errors_exit_2_before_any_request(self) -> None:
        for argv, env, words in [
            (["quote"], {"MDP_TOKEN": "t"}, "quote needs a symbol"),
            (["usage"], {}, "MDP_TOKEN"),
            ([], {"MDP_TOKEN": "t"}, "no command given"),
            (["price", "ARAVALIHOU", "--days", "0"], {"MDP_TOKEN": "t"}, "--days must be"),
            (["fly"], {"MDP_TOKEN": "t"}, 'unknown command "fly"'),
            (["search"], {"MDP_TOKEN": "t"}, "search needs a query"),
            (["search", "aravali", "--limit", "0"], {"MDP_TOKEN": "t"}, "--limit must be"),
            (["search", "aravali", "--limit", "51"], {"MDP_TOKEN": "t"}, "limit: must be at most 50"),
            (["quote", "ARAVALIHOU", "--limit", "5"], {"MDP_TOKEN": "t"}, "--limit is an option of search"),
        ]:
            with self.subTest(argv=argv):
                out, err = [], []
                # An address nothing answers: a request would be a network error (exit 1), not 2.
                code = main(argv, {**env, "MDP_BASE_URL": "http://127.0.0.1:9"}, out.append, err.append)
                self.assertEqual(code, 2)
                self.assertIn(words, err[0])
                self.assertEqual(out, [])


class CliAgainstAServerTest(ScriptedServerTest):
    def run_cli(self, *argv: str):
        out, err = [], []
        code = main(list(argv), {"MDP_TOKEN": "t", "MDP_BASE_URL": self.server.base_url}, out.append, err.append)
        return code, out, err

    def test_search(self) -> None:
        found = [{"symbol": "ARAVALIHOU", "name": "Aravali Housing Limited"}]
        self.server.reset(Answer(200, body={"data": found, "meta": {"as_of": "x", "route": "searchStocks"}}))
        code, out, err = self.run_cli("search", "aravali", "--limit", "5")
        self.assertEqual((code, err), (0, []))
        self.assertEqual(json.loads(out[0]), found)
        self.assertEqual(self.server.paths(), ["/v1/stocks?q=aravali&limit=5"])
        self.run_cli("search", "M&M")
        self.assertEqual(self.server.paths()[-1], "/v1/stocks?q=M%26M")
        self.assertIn("search <query> [--limit N]", USAGE)

    def test_price_over_more_days_than_a_page(self) -> None:
        history = PriceHistory(datetime.date(2011, 1, 3), datetime.date(2026, 11, 27))
        self.server.reset()
        self.server.respond = history
        code, out, err = self.run_cli("price", "ARAVALIHOU", "--days", "4500", "--csv")
        self.assertEqual((code, err), (0, []))
        start = datetime.date(2026, 11, 27) - datetime.timedelta(days=4499)
        self.assertEqual(len(out) - 1, len(history.bars(start, datetime.date(2026, 11, 27))))
        self.assertEqual(out[1].split(",")[0], min(b["date"] for b in history.bars(start, datetime.date(2026, 11, 27))))
        self.assertEqual(len(self.server.requests), 3)

    def test_exit_1_for_what_the_api_refused(self) -> None:
        for answer, words in [
            (Answer(400, "invalid_request"), "mdp: invalid_request (days): scripted invalid_request [request req-1]"),
            (Answer(404, "not_found"), "mdp: not_found: scripted not_found [request req-1]"),
            (Answer(429, "quota_exhausted", {"x-ratelimit-reset": "1900000000", "x-ratelimit-limit": "50"}, message="plan quota used up; it resets at X-RateLimit-Reset"),
             "mdp: quota_exhausted: plan quota used up; it resets at 2030-03-17 23:16:40 IST (2030-03-17 17:46:40 UTC) [request req-1]"),
        ]:
            with self.subTest(code=answer.code):
                self.server.reset(answer)
                code, out, err = self.run_cli("quote", "ARAVALIHOU")
                self.assertEqual((code, out, err), (1, [], [words]))
