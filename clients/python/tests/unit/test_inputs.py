"""Values as a data program holds them: numpy and pandas scalars, timestamps, Series and arrays are taken
where plain ints, dates and lists are. The package imports neither (test_package checks it), so each is
tried with a small stand-in that has their protocol (``__index__``, a float subclass, a datetime subclass
with ``nanosecond``, ``tolist()``), and with the real thing too when this Python has numpy and pandas
(Debian's python3-pandas, which the platform tests use)."""

from __future__ import annotations

import datetime
import unittest
from typing import Any, List

from mdp_client import Client, ParameterError

from .scripted import Answer, ScriptedServerTest

try:
    import numpy  # type: ignore[import-not-found]
except ImportError:  # the stand-ins alone
    numpy = None
try:
    import pandas  # type: ignore[import-not-found]
except ImportError:
    pandas = None

IST = datetime.timezone(datetime.timedelta(hours=5, minutes=30))


class Int64:
    """numpy.int64's protocol: an integer by ``__index__``, not an int."""

    def __init__(self, value: int) -> None:
        self.value = value

    def __index__(self) -> int:
        return self.value

    def __repr__(self) -> str:
        return f"np.int64({self.value})"


class Float64(float):
    """numpy.float64 is a float subclass (a pandas column with a gap is float64)."""


class bool_:  # noqa: N801 (numpy's name)
    def __init__(self, value: bool) -> None:
        self.value = value

    def __bool__(self) -> bool:
        return self.value


class Timestamp(datetime.datetime):
    """pandas.Timestamp is a datetime with nanoseconds."""

    nanosecond = 0


class datetime64:  # noqa: N801 (numpy's name)
    def __init__(self, text: str) -> None:
        self.text = text

    def __str__(self) -> str:
        return self.text


class Series:
    """pandas.Series / numpy.ndarray: iterable, with ``tolist()``; neither a list nor a Sequence."""

    def __init__(self, values: List[Any]) -> None:
        self.values = values

    def tolist(self) -> List[Any]:
        return list(self.values)

    def __iter__(self):
        return iter(self.values)

    def __len__(self) -> int:
        return len(self.values)


class InputsTest(ScriptedServerTest):
    def setUp(self) -> None:
        self.server.reset(Answer(200))
        self.client = Client("mdp_unit", self.server.base_url)
        self.addCleanup(self.client.close)

    def url(self, operation_id: str, **params: Any) -> str:
        return self.client.url(operation_id, params)[len(self.server.base_url):]

    def test_whole_numbers(self) -> None:
        values: List[Any] = [Int64(200), Float64(200.0), 200.0]
        if numpy is not None:
            values += [numpy.int64(200), numpy.int32(200), numpy.uint16(200), numpy.float64(200.0)]
        for value in values:
            with self.subTest(value=repr(value)):
                self.assertEqual(self.url("getPriceHistory", symbol="ARAVALIHOU", days=value), "/v1/stocks/ARAVALIHOU/price?days=200")
        refused: List[Any] = [Float64(200.5), bool_(True), True, "200"]
        if numpy is not None:
            refused += [numpy.float64(200.5), numpy.bool_(True), numpy.float64("nan")]
        for value in refused:
            with self.subTest(refused=repr(value)):
                with self.assertRaises(ParameterError) as ctx:
                    self.client.get_price_history("ARAVALIHOU", days=value)
                self.assertEqual(ctx.exception.param, "days")
        # The message names the number, not its type's repr.
        with self.assertRaisesRegex(ParameterError, r"days: must be at most 2000 \(got 5000\)"):
            self.client.get_price_history("ARAVALIHOU", days=Int64(5000))
        self.assertEqual(self.server.requests, [])

    def test_dates_and_timestamps(self) -> None:
        values: List[Any] = [
            datetime.date(2024, 1, 5),
            datetime.datetime(2024, 1, 5),
            Timestamp(2024, 1, 5),
            Timestamp(2024, 1, 5, tzinfo=IST),  # a price frame's index: midnight IST of the session
            datetime64("2024-01-05"),
            datetime64("2024-01-05T00:00:00.000000000"),
            "2024-01-05",
        ]
        if pandas is not None:
            values += [pandas.Timestamp("2024-01-05"), pandas.Timestamp("2024-01-05", tz="Asia/Kolkata"), numpy.datetime64("2024-01-05"), numpy.datetime64("2024-01-05T00:00:00", "ns")]
        for value in values:
            with self.subTest(value=repr(value)):
                self.assertEqual(self.url("getPriceHistory", symbol="ARAVALIHOU", end_date=value), "/v1/stocks/ARAVALIHOU/price?end_date=2024-01-05")
        refused: List[Any] = [datetime.datetime(2024, 1, 5, 15, 30), datetime64("2024-01-05T09:15:00"), datetime64("NaT"), "2024-1-5"]
        if pandas is not None:
            refused += [pandas.Timestamp("2024-01-05 09:15"), pandas.NaT, pandas.Timestamp("2024-01-05") + pandas.Timedelta(1, "ns")]
        for value in refused:
            with self.subTest(refused=repr(value)):
                with self.assertRaises(ParameterError) as ctx:
                    self.client.get_price_history("ARAVALIHOU", end_date=value)
                self.assertEqual(ctx.exception.param, "end_date")
        self.assertIn("time of day", str(self.refusal(end_date=datetime.datetime(2024, 1, 5, 15, 30))))

    def refusal(self, **params: Any) -> ParameterError:
        with self.assertRaises(ParameterError) as ctx:
            self.client.get_price_history("ARAVALIHOU", **params)
        return ctx.exception

    def test_lists_of_symbols(self) -> None:
        symbols = ["ARAVALIHOU", "ANUPAMIRO", "EVERESTDYE"]
        values: List[Any] = [symbols, tuple(symbols), Series(symbols), (s for s in symbols)]
        if pandas is not None:
            values += [pandas.Series(symbols), numpy.array(symbols), pandas.Index(symbols), pandas.Series(symbols, dtype="string")]
        for value in values:
            with self.subTest(value=type(value).__name__):
                self.assertEqual(self.url("getQuotes", symbols=value), "/v1/quotes?symbols=ARAVALIHOU,ANUPAMIRO,EVERESTDYE")
        self.assertEqual(self.url("getQuotes", symbols="ARAVALIHOU"), "/v1/quotes?symbols=ARAVALIHOU")
        if numpy is not None:
            self.assertEqual(self.url("getStockQuote", symbol=numpy.array(["ARAVALIHOU"])[0]), "/v1/stocks/ARAVALIHOU/quote")
        for value in [Series(["ARAVALIHOU", "ARAVALIHOU"]), {"ARAVALIHOU": 1}, Series([Int64(1)]), 5]:
            with self.subTest(refused=repr(value)):
                with self.assertRaises(ParameterError) as ctx:
                    self.client.get_quotes(value)
                self.assertEqual(ctx.exception.param, "symbols")
        # Sent as it travels: one comma-separated value.
        self.client.get_quotes(Series(symbols))
        self.assertEqual(self.server.paths(), ["/v1/quotes?symbols=ARAVALIHOU,ANUPAMIRO,EVERESTDYE"])

    def test_symbols_with_an_ampersand_are_encoded_once(self) -> None:
        # The API reads M%26M in the path as M&M; the client encodes `&` itself, and takes a symbol
        # encoded by hand (as the docstrings once advised) as the symbol it stands for.
        for value in ["M&M", "M%26M", "m%26m".upper()]:
            with self.subTest(value=value):
                self.assertEqual(self.url("getStockQuote", symbol=value), "/v1/stocks/M%26M/quote")
        self.assertEqual(self.url("searchStocks", q="M&M"), "/v1/stocks?q=M%26M")
        self.assertEqual(self.url("getQuotes", symbols=["M&M", "ARAVALIHOU"]), "/v1/quotes?symbols=M%26M,ARAVALIHOU")
        self.client.get_stock_quote("M&M")
        self.assertEqual(self.server.paths(), ["/v1/stocks/M%26M/quote"])
        with self.assertRaises(ParameterError):
            self.client.get_stock_quote("M%2FM")  # `/` is no symbol's, encoded or not


if __name__ == "__main__":
    unittest.main()
