"""What one call of the API takes (``CallOptions``) and gives (``Result``), and what each of its
attempts reports (``Attempt``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, Generic, Optional, TypeVar

from .rate_limit import RateLimit

T = TypeVar("T")


@dataclass(frozen=True)
class Result(Generic[T]):
    """A 200: the document's ``data`` and ``meta``, the rate-limit state of this response and its
    ``Request-Id``."""

    data: T
    meta: Dict[str, Any]
    rate_limit: Optional[RateLimit]
    request_id: Optional[str]


@dataclass(frozen=True)
class CallOptions:
    """Per-call overrides of the client's settings."""

    #: Seconds one attempt may take.
    timeout: Optional[float] = None
    #: Seconds the whole call may take, waits between attempts included.
    deadline: Optional[float] = None
    #: Attempts in all (1: no retry).
    max_attempts: Optional[int] = None


@dataclass(frozen=True)
class Attempt:
    """What ``on_attempt`` is told of every attempt: for logs, metrics and tests."""

    operation_id: str
    attempt: int
    status: int
    code: Optional[str] = None
    #: Seconds the client will wait before the next attempt (None: no next attempt).
    retry_in: Optional[float] = None
