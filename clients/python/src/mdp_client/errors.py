"""The client's exceptions: MdpError for every failure of a call, ParameterError before one is made."""

from __future__ import annotations

import datetime
from typing import Any, Dict, Optional


class MdpError(Exception):
    """A call that failed: the API's error envelope (SPEC 2.6 and 7), or no answer at all (status 0,
    code ``network_error`` or ``timeout``). Branch on ``code``, not on ``message``."""

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
        super().__init__(message)
        #: HTTP status; 0 when no response arrived.
        self.status = status
        #: The SPEC 7 code, or ``network_error`` / ``timeout``.
        self.code = code
        self.message = message
        #: ``error.details`` as sent (``param`` for ``invalid_request``).
        self.details: Dict[str, Any] = details or {}
        #: The platform's id of the request (``Request-Id``): quote it when reporting a problem.
        self.request_id = request_id
        #: Seconds the API asked to wait (``Retry-After``), when it did.
        self.retry_after = retry_after
        #: For ``quota_exhausted``: when the binding window resets (``X-RateLimit-Reset``), UTC.
        self.resets_at = resets_at

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
        return f"MdpError(status={self.status}, code={self.code!r}, message={self.message!r}, request_id={self.request_id!r})"


class ParameterError(ValueError):
    """A parameter outside the bounds the API publishes: raised before any request is made."""

    def __init__(self, param: str, problem: str) -> None:
        super().__init__(f"{param}: {problem}")
        #: The parameter's name, as the API spells it.
        self.param = param
