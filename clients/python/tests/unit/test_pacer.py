from __future__ import annotations

import unittest

from mdp_client import Pacer


class PacerTest(unittest.TestCase):
    def test_keeps_under_the_cap_in_any_rolling_minute(self) -> None:
        now = [0.0]

        def sleep(s: float) -> None:
            now[0] += s

        pacer = Pacer(3, clock=lambda: now[0], sleep=sleep)
        starts = []
        for _ in range(7):
            pacer.take()
            starts.append(now[0])
            now[0] += 1
        self.assertEqual(starts, [0, 1, 2, 60, 61, 62, 120])
        for i, t in enumerate(starts):
            self.assertLessEqual(sum(1 for u in starts if t - 60 < u <= t), 3, i)

    def test_adjusts_to_the_cap_the_server_reports(self) -> None:
        now = [0.0]
        pacer = Pacer(60, clock=lambda: now[0], sleep=lambda s: now.__setitem__(0, now[0] + s))
        pacer.adjust(2)
        for _ in range(3):
            pacer.take()
        self.assertEqual(now[0], 60)
