"""The client's exceptions: one base class, :class:`MdpError`, and a subclass per kind of failure.

    MdpError                      every failure of a call (``status``, ``code``, ``message``, …)
    ├── AuthenticationError       401: no token, or one the API does not accept; also the 429 the API
    │                             sends an address after too many refused tokens (never waited out)
    ├── RateLimitError            429 rate_limited: the burst cap (waited out up to ``max_retry_after``)
    ├── QuotaError                429 quota_exhausted: the plan's daily or monthly quota (never retried)
    ├── ParameterError            a parameter outside its published bounds (raised before any request,
    │                             status 0), or the API's 400 invalid_request; also a ``ValueError``
    ├── NotFoundError             404: no such symbol, document or route
    ├── ServerError               5xx: the platform failed (retried as SPEC 7 says before it is raised)
    └── NetworkError              no answer at all: ``network_error`` or ``timeout`` (status 0)

Branch on the class or on ``code``, never on ``message`` (human text, which may change).
"""

from __future__ import annotations

import datetime
import re
from typing import Any, Dict, Optional, Type

__all__ = [
    "AuthenticationError",
    "MdpError",
    "NetworkError",
    "NotFoundError",
    "ParameterError",
    "QuotaError",
    "RateLimitError",
    "ServerError",
    "error_class",
    "format_instant",
    "format_seconds",
    "make_error",
    "with_values",
]

IST = datetime.timezone(datetime.timedelta(hours=5, minutes=30), "IST")


def format_seconds(seconds: float) -> str:
    """``42 s``, ``1.5 s``, ``2 min 5 s``."""
    if seconds >= 120:
        minutes, rest = divmod(int(round(seconds)), 60)
        return f"{minutes} min {rest} s" if rest else f"{minutes} min"
    return f"{seconds:.0f} s" if seconds == int(seconds) or seconds >= 10 else f"{seconds:.1f} s"


def format_instant(when: datetime.datetime) -> str:
    """An instant in IST (the API's quotas reset at IST boundaries) and UTC:
    ``2026-11-29 00:00:00 IST (2026-11-28 18:30:00 UTC)``."""
    utc = when.astimezone(datetime.timezone.utc)
    return f"{utc.astimezone(IST):%Y-%m-%d %H:%M:%S} IST ({utc:%Y-%m-%d %H:%M:%S} UTC)"


def with_values(message: str, retry_after: Optional[float], resets_at: Optional[datetime.datetime]) -> str:
    """The API's message with the values of the headers it names: ``wait Retry-After seconds`` becomes
    ``wait 42 s``, ``it resets at X-RateLimit-Reset`` the time it resets. A value the message does not
    mention is added at its end, so that the text alone says how long to wait and until when."""
    out = message
    if retry_after is not None:
        wait = format_seconds(retry_after)
        out = re.sub(r"(the )?Retry-After (seconds|interval)", wait, out)
        out = out.replace("Retry-After", wait)
    if resets_at is not None:
        out = out.replace("X-RateLimit-Reset", format_instant(resets_at))
    extra = []
    if retry_after is not None and format_seconds(retry_after) not in out:
        extra.append(f"retry after {format_seconds(retry_after)}")
    if resets_at is not None and format_instant(resets_at) not in out:
        extra.append(f"resets at {format_instant(resets_at)}")
    return f"{out} ({'; '.join(extra)})" if extra else out


class MdpError(Exception):
    """A call that failed: the API's error envelope (SPEC 2.6 and 7), or no answer at all (status 0,
    code ``network_error`` or ``timeout``). Branch on the subclass or on ``code``, not on ``message``."""

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        details: Optional[Dict[str, Any]] = None,
        request_id: Optional[str] = None,
        retry_after: Optional[float] = None,
        resets_at: Optional[datetime.datetime] = None,
    ) -> None:
        #: The message with the values of the headers it names (the seconds to wait, the reset time).
        text = with_values(message, retry_after, resets_at)
        super().__init__(text)
        #: HTTP status; 0 when no response arrived (and for a parameter refused before sending).
        self.status = status
        #: The SPEC 7 code, or ``network_error`` / ``timeout``.
        self.code = code
        self.message = text
        #: The API's own message, as sent.
        self.server_message = message
        #: ``error.details`` as sent (``param`` for ``invalid_request``).
        self.details: Dict[str, Any] = details or {}
        #: The platform's id of the request (``Request-Id``): quote it when reporting a problem.
        self.request_id = request_id
        #: Seconds the API asked to wait (``Retry-After``), when it did.
        self.retry_after = retry_after
        #: When the window that refused resets (``X-RateLimit-Reset``), UTC: for ``quota_exhausted``, and
        #: for ``rate_limited`` when the API said.
        self.resets_at = resets_at
        #: For a call over several pages (``*_all``, ``*_pages``, ``price_history_frame``) that failed
        #: midway: what was fetched before the failure, oldest first (a DataFrame from the frame
        #: method). None for a single call.
        self.partial: Optional[Any] = None

    @property
    def param(self) -> Optional[str]:
        """The parameter at fault, for ``invalid_request``."""
        value = self.details.get("param")
        return value if isinstance(value, str) else None

    def __str__(self) -> str:
        param = f" ({self.param})" if self.param else ""
        request = f" [request {self.request_id}]" if self.request_id else ""
        status = f"{self.status} " if self.status else ""
        return f"{status}{self.code}{param}: {self.message}{request}"

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(status={self.status}, code={self.code!r}, message={self.message!r}, "
            f"request_id={self.request_id!r})"
        )


class AuthenticationError(MdpError):
    """401 ``authentication_required`` or ``invalid_token``: check the token (``MDP_TOKEN``). Also the
    ``429 rate_limited`` the API answers an address after too many refused tokens, raised at once rather
    than waited out (its ``retry_after`` says when the address is heard again)."""


class RateLimitError(MdpError):
    """429 ``rate_limited``: the plan's burst cap. The client waits it out (up to ``max_retry_after``)
    before raising it; ``retry_after`` is the wait the API asked for."""


class QuotaError(MdpError):
    """429 ``quota_exhausted``: the plan's daily or monthly quota is used up. Never retried; ``resets_at``
    is when it resets."""


class NotFoundError(MdpError):
    """404 ``not_found`` or ``route_not_found``."""


class ServerError(MdpError):
    """5xx: ``internal_error``, ``tool_error``, ``upstream_unavailable``, ``service_unavailable``,
    raised once the retries SPEC 7 allows are spent."""


class NetworkError(MdpError):
    """No answer: ``network_error`` (the API could not be reached) or ``timeout`` (status 0)."""


class ParameterError(MdpError, ValueError):
    """A parameter the API does not accept. Raised before any request when it is outside the bounds the
    OpenAPI document publishes (``status`` 0; ``str()`` is ``"<param>: <problem>"``), or for the API's own
    ``400 invalid_request``. A ``ValueError`` too, so ``except ValueError`` keeps working."""

    def __init__(
        self,
        param: Optional[str],
        problem: str,
        *,
        status: int = 0,
        request_id: Optional[str] = None,
        details: Optional[Dict[str, Any]] = None,
    ) -> None:
        details = dict(details or {})
        if param is not None:
            details.setdefault("param", param)
        message = f"{param}: {problem}" if status == 0 and param else problem
        super().__init__(status, "invalid_request", message, details, request_id)
        #: What is wrong with it, without the parameter's name.
        self.problem = problem

    def __str__(self) -> str:
        return self.message if self.status == 0 else super().__str__()


_BY_CODE: Dict[str, Type[MdpError]] = {
    "authentication_required": AuthenticationError,
    "invalid_token": AuthenticationError,
    "rate_limited": RateLimitError,
    "quota_exhausted": QuotaError,
    "not_found": NotFoundError,
    "route_not_found": NotFoundError,
    "network_error": NetworkError,
    "timeout": NetworkError,
}


def error_class(status: int, code: str) -> Type[MdpError]:
    """The exception class of an answer's status and code (ParameterError aside: see ``make_error``)."""
    if code in _BY_CODE:
        return _BY_CODE[code]
    if status == 401:
        return AuthenticationError
    if status == 404:
        return NotFoundError
    if status >= 500:
        return ServerError
    if status == 0:
        return NetworkError
    return MdpError


def make_error(
    status: int,
    code: str,
    message: str,
    details: Optional[Dict[str, Any]] = None,
    request_id: Optional[str] = None,
    retry_after: Optional[float] = None,
    resets_at: Optional[datetime.datetime] = None,
    kind: Optional[Type[MdpError]] = None,
) -> MdpError:
    """The exception of the kind an answer is (``kind`` overrides)."""
    if kind is None and (code == "invalid_request" or status == 400):
        param = (details or {}).get("param")
        return ParameterError(param if isinstance(param, str) else None, message, status=status, request_id=request_id, details=details)
    cls = kind or error_class(status, code)
    return cls(status, code, message, details, request_id, retry_after, resets_at)

