"""Paging takes the days the caller asks for: the last N calendar days over as many pages as they need and
no more, each bar once; a quota refusal midway hands back the bars already fetched. Against a scripted
price route that pages as the API does (scripted.PriceHistory)."""

from __future__ import annotations

import datetime
import math
import unittest

from mdp_client import Client, ParameterError, QuotaError

from .scripted import PriceHistory, ScriptedServerTest

TODAY = datetime.date(2026, 11, 27)  # a Friday
FIRST = datetime.date(2011, 1, 3)  # 5,808 calendar days of history
DAY = datetime.timedelta(days=1)


class PagingTest(ScriptedServerTest):
    def setUp(self) -> None:
        self.history = PriceHistory(FIRST, TODAY)
        self.server.reset()
        self.server.respond = self.history
        self.client = Client("mdp_unit", self.server.base_url, sleep=lambda s: None)
        self.addCleanup(self.client.close)

    def dates(self, bars) -> list:
        return [b["date"] for b in bars]

    def expected(self, days: int, end: datetime.date = TODAY) -> list:
        return self.dates(self.history.bars(end - (days - 1) * DAY, end))

    def test_thirty_days_is_one_request(self) -> None:
        bars = self.client.get_price_history_all("RELIANCE", days=30)
        self.assertEqual(self.server.paths(), ["/v1/stocks/RELIANCE/price?days=30"])
        self.assertEqual(self.dates(bars), self.expected(30))
        self.assertEqual(len(bars), 22)  # the weekdays of 29 October to 27 November

    def test_more_days_than_a_page_takes_only_the_pages_they_need(self) -> None:
        for days in (2000, 2001, 4000, 5000):
            with self.subTest(days=days):
                self.server.requests = []
                bars = self.client.get_price_history_all("RELIANCE", days=days)
                self.assertEqual(self.dates(bars), self.expected(days))
                self.assertEqual(len(set(self.dates(bars))), len(bars), "a bar came twice")
                self.assertLessEqual(len(self.server.requests), math.ceil(days / 2000))
                # Each page after the first asks only for the days still missing, back to the first wanted.
                first_wanted = TODAY - (days - 1) * DAY
                for i in range(1, len(self.server.requests)):
                    q = self.server.query(i)
                    end = datetime.date.fromisoformat(q["end_date"])
                    self.assertEqual(end - (int(q["days"]) - 1) * DAY, max(first_wanted, end - 1999 * DAY))

    def test_no_days_is_the_whole_history_in_the_largest_pages(self) -> None:
        bars = self.client.get_price_history_all("RELIANCE")
        self.assertEqual(self.dates(bars), [d.isoformat() for d in self.history.days])
        self.assertEqual(len(self.server.requests), math.ceil(((TODAY - FIRST).days + 1) / 2000))
        self.assertTrue(all(self.server.query(i)["days"] == "2000" for i in range(len(self.server.requests))))

    def test_the_last_days_up_to_an_end_date(self) -> None:
        end = datetime.date(2020, 3, 31)
        bars = self.client.get_price_history_all("RELIANCE", days=2500, end_date=end)
        self.assertEqual(self.dates(bars), self.expected(2500, end))
        self.assertEqual(self.server.query(0), {"days": "2000", "end_date": "2020-03-31"})
        self.assertEqual(len(self.server.requests), 2)

    def test_weekly_bars_over_pages_are_those_of_one_long_window(self) -> None:
        bars = self.client.get_price_history_all("RELIANCE", days=3000, interval="weekly")
        start = TODAY - 2999 * DAY
        start -= start.weekday() * DAY
        self.assertEqual(self.dates(bars), self.dates(self.history.bars(start, TODAY, weekly=True)))
        self.assertEqual(len(set(self.dates(bars))), len(bars))
        self.assertEqual(len(self.server.requests), 2)

    def test_pages_newest_first_and_only_those_needed(self) -> None:
        pages = list(self.client.get_price_history_pages("RELIANCE", days=4100))
        self.assertEqual(len(pages), 3)
        self.assertGreater(pages[0].data[0]["date"], pages[1].data[-1]["date"])
        self.assertEqual(sum(len(p.data) for p in pages), len(self.expected(4100)))

    def test_a_quota_refusal_midway_carries_the_bars_already_fetched(self) -> None:
        self.history.quota = 2  # two pages, then the plan's quota is spent
        with self.assertRaises(QuotaError) as ctx:
            self.client.get_price_history_all("RELIANCE", days=5000)
        err = ctx.exception
        self.assertEqual((err.status, err.code), (429, "quota_exhausted"))
        self.assertEqual(len(self.server.requests), 3)  # the third was refused, and nothing after it
        # The bars of the two pages served, oldest first: back to the first day the second one asked for.
        q = self.server.query(1)
        start = datetime.date.fromisoformat(q["end_date"]) - (int(q["days"]) - 1) * DAY
        self.assertEqual(self.dates(err.partial), self.dates(self.history.bars(start, TODAY)))
        self.assertGreater(len(err.partial), 2800)
        self.assertIn("2030-03-17 23:16:40 IST", str(err))  # X-RateLimit-Reset 1900000000, as a time
        # The pages iterator tells the same to whoever walks it by hand.
        self.history.served = 0
        self.server.requests = []
        seen = []
        with self.assertRaises(QuotaError) as ctx:
            for page in self.client.get_price_history_pages("RELIANCE", days=5000):
                seen.append(page)
        self.assertEqual(len(seen), 2)
        self.assertEqual(len(ctx.exception.partial), sum(len(p.data) for p in seen))

    def test_a_single_page_refuses_more_than_its_bound_and_says_what_to_call(self) -> None:
        with self.assertRaises(ParameterError) as ctx:
            self.client.get_price_history("RELIANCE", days=5000)
        self.assertIn("get_price_history_all", str(ctx.exception))
        with self.assertRaises(ParameterError):
            self.client.get_price_history_all("RELIANCE", days=0)
        with self.assertRaises(ParameterError):
            self.client.get_price_history_pages("RELIANCE", days=2.5)
        self.assertEqual(self.server.requests, [])


if __name__ == "__main__":
    unittest.main()
