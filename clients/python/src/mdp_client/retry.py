"""SPEC 7's retry rules: which failures are tried again, and how long to wait before each."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Callable, Optional

from .errors import AuthenticationError, MdpError

#: Tried again (SPEC 7 rule 2), and a request that got no answer at all. ``tool_error`` once.
RETRYABLE = frozenset(
    {"rate_limited", "internal_error", "upstream_unavailable", "service_unavailable", "network_error"}
)


@dataclass(frozen=True)
class RetryPolicy:
    #: Attempts in all, the first included (1 turns retries off).
    max_attempts: int = 4
    #: Seconds from the start of a call after which no attempt starts and no wait is begun: the call's
    #: total deadline, waits included.
    deadline: float = 90.0
    #: The longest ``Retry-After`` the client waits out; a longer one is raised to the caller at once.
    max_retry_after: float = 60.0
    #: First backoff when the API gave no ``Retry-After`` (and after a connection error), doubling.
    initial_backoff: float = 0.25
    #: Longest backoff.
    max_backoff: float = 8.0


def is_retryable(err: MdpError, tool_errors_so_far: int) -> bool:
    """Never ``quota_exhausted`` (it does not clear by waiting briefly), 400, 401, 404, 405, a timeout,
    or the ``429`` the API sends an address after too many refused tokens (an AuthenticationError: the
    token is what is wrong, and waiting only delays saying so)."""
    if isinstance(err, AuthenticationError):
        return False
    if err.code == "tool_error":
        return tool_errors_so_far == 0
    return err.code in RETRYABLE


class Backoff:
    """The waits between attempts: ``Retry-After`` when the API sent it, else exponential backoff with
    equal jitter (half the step fixed, half random), so that clients refused together do not return
    together."""

    def __init__(self, policy: RetryPolicy, rand: Callable[[], float] = random.random) -> None:
        self._policy = policy
        self._rand = rand
        self._step = 0

    def next_delay(self, err: MdpError) -> Optional[float]:
        """Seconds to wait before the next attempt, or None when the wait the API asks for is longer
        than the client allows."""
        if err.retry_after is not None:
            return err.retry_after if err.retry_after <= self._policy.max_retry_after else None
        base = min(self._policy.max_backoff, self._policy.initial_backoff * (2 ** self._step))
        self._step += 1
        return base / 2 + self._rand() * base / 2
