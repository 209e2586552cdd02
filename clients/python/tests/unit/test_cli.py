"""The command line's output formats are the `mdp` command's: JavaScript's number and JSON spellings,
RFC 4180 CSV with null as an empty cell, every field of a daily bar as a column."""

from __future__ import annotations

import json
import unittest

from mdp_client._generated.models import SCHEMA_FIELDS
from mdp_client.cli import PRICE_CSV_COLUMNS, csv_lines, js_number, main, to_json


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
        ]:
            with self.subTest(argv=argv):
                out, err = [], []
                # An address nothing answers: a request would be a network error (exit 1), not 2.
                code = main(argv, {**env, "MDP_BASE_URL": "http://127.0.0.1:9"}, out.append, err.append)
                self.assertEqual(code, 2)
                self.assertIn(words, err[0])
                self.assertEqual(out, [])
