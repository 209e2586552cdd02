"""Keeps a caller under a per-minute burst cap instead of collecting 429s."""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from typing import Callable, Deque

from .errors import format_seconds

log = logging.getLogger("mdp_client")


class Pacer:
    """Each metered call waits until fewer than ``per_minute`` calls were started in the last 60 seconds.
    (The server's cap is the truth; this only avoids asking when the answer would be ``rate_limited``.)
    A wait of ``warn_after`` seconds or more is logged as a WARNING first (logger ``mdp_client``), so a
    program that seems to hang says why. Safe to share between threads."""

    def __init__(
        self,
        per_minute: int,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
        warn_after: float = 5.0,
    ) -> None:
        if per_minute < 1:
            raise ValueError("pace: at least one call a minute")
        self.per_minute = per_minute
        self.warn_after = warn_after
        self._clock = clock
        self._sleep = sleep
        self._started: Deque[float] = deque()
        self._lock = threading.Lock()

    def adjust(self, per_minute: int) -> None:
        """The cap the server reported (``RateLimit-Policy``), if it differs."""
        if per_minute >= 1:
            self.per_minute = per_minute

    def take(self) -> float:
        """Waits for a slot and takes it; returns the seconds waited."""
        waited = 0.0
        while True:
            with self._lock:
                now = self._clock()
                while self._started and self._started[0] <= now - 60.0:
                    self._started.popleft()
                if len(self._started) < self.per_minute:
                    self._started.append(now)
                    return waited
                wait = self._started[0] + 60.0 - now
                per_minute = self.per_minute
            if wait >= self.warn_after:
                log.warning(
                    "pacing to %d calls a minute: waiting %s for a free slot", per_minute, format_seconds(wait)
                )
            self._sleep(wait)
            waited += wait
