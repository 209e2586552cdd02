"""The rate-limit state a response reported (SPEC 8 headers and the IETF draft fields beside them)."""

from __future__ import annotations

import datetime
import re
from dataclasses import dataclass
from typing import Mapping, Optional


@dataclass(frozen=True)
class RateLimit:
    #: Cap of the binding window; None on unlimited plans (``X-RateLimit-Limit``).
    limit: Optional[int]
    #: Requests left in the binding window after this one; None on unlimited plans.
    remaining: Optional[int]
    #: When the binding window resets, UTC (``X-RateLimit-Reset``).
    reset: Optional[datetime.datetime]
    #: ``RateLimit-Policy`` as sent, e.g. ``"daily";q=50;w=86400, "burst";q=60;w=60``.
    policy: Optional[str]
    #: ``RateLimit`` as sent, e.g. ``"daily";r=48;t=23400``.
    current: Optional[str]
    #: The burst cap per minute from the policy, when the plan has one.
    burst_per_minute: Optional[int]


def _int(value: Optional[str]) -> Optional[int]:
    return int(value) if value is not None and re.fullmatch(r"[0-9]+", value) else None


_BURST = re.compile(r'"burst";q=([0-9]+);w=60\b')


def read_rate_limit(headers: Mapping[str, str]) -> Optional[RateLimit]:
    """The state of a response's headers (looked up case-insensitively), or None when it carried none."""
    lower = {k.lower(): v for k, v in headers.items()}
    reset = _int(lower.get("x-ratelimit-reset"))
    policy = lower.get("ratelimit-policy")
    if reset is None and policy is None:
        return None
    burst = _BURST.search(policy) if policy else None
    return RateLimit(
        limit=_int(lower.get("x-ratelimit-limit")),
        remaining=_int(lower.get("x-ratelimit-remaining")),
        reset=None if reset is None else datetime.datetime.fromtimestamp(reset, datetime.timezone.utc),
        policy=policy,
        current=lower.get("ratelimit"),
        burst_per_minute=int(burst.group(1)) if burst else None,
    )
