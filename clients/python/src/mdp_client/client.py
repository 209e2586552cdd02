"""The API client: a typed method per route (generated), SPEC 7's retries, a deadline per call, the
rate-limit state of the last response, cursor paging and an optional pacer."""

from __future__ import annotations

import gzip
import http.client
import json
import logging
import os
import socket
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Generic, Iterator, Mapping, Optional, TypeVar, Union

from ._generated.operations import OPERATIONS
from ._generated.routes import Routes
from .errors import MdpError
from .frames import Frames
from .pacer import Pacer
from .rate_limit import RateLimit, read_rate_limit
from .retry import Backoff, RetryPolicy, is_retryable
from .validation import prepare, query_string

__all__ = ["Client", "Result", "CallOptions", "Attempt", "DEFAULT_BASE_URL"]

DEFAULT_BASE_URL = "http://localhost:8080"
VERSION = "1.0.0"

# Lines about attempts and retries name the route, status and code: never the token or its header.
log = logging.getLogger("mdp_client")

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


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    # The API never redirects; following one would send the token to wherever it points.
    def redirect_request(self, req, fp, code, msg, headers, newurl):  # type: ignore[no-untyped-def]
        return None


@dataclass
class _Answer:
    status: int
    headers: Dict[str, str]
    body: bytes = field(repr=False)


class Client(Routes, Frames):
    """The market-data API.

    ``Client()`` reads the token from ``MDP_TOKEN`` and the address from ``MDP_BASE_URL`` (default
    ``http://localhost:8080``); both may be given instead. Every route is a method named by its operation
    id in snake_case (``get_stock_quote``, ``get_price_history``, the free ``get_my_usage``), returning a
    :class:`Result` or raising :class:`MdpError`; a parameter out of its published bounds raises
    ``ValueError`` (:class:`ParameterError`) before any request.

    Retries follow SPEC 7: ``rate_limited`` and ``service_unavailable`` wait ``Retry-After`` (at most
    ``max_retry_after`` seconds; a longer wait is raised at once), other 5xx and unreachable hosts back
    off exponentially with jitter, a ``tool_error`` is tried once more, ``quota_exhausted`` and every
    4xx never; no attempt starts or wait begins past ``deadline`` seconds from the call's start.

    ``pace=True`` keeps this client under the burst cap the API reports (60 a minute until it has said),
    or ``pace=n`` under n metered calls a minute, waiting instead of collecting 429s.
    """

    def __init__(
        self,
        token: Optional[str] = None,
        base_url: Optional[str] = None,
        *,
        timeout: float = 30.0,
        deadline: float = 90.0,
        max_attempts: int = 4,
        max_retry_after: float = 60.0,
        initial_backoff: float = 0.25,
        max_backoff: float = 8.0,
        pace: Union[bool, int] = False,
        on_attempt: Optional[Callable[[Attempt], None]] = None,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        token = token if token is not None else os.environ.get("MDP_TOKEN")
        if not token:
            raise ValueError("an API token is required: pass token=... or set MDP_TOKEN")
        base = (base_url or os.environ.get("MDP_BASE_URL") or DEFAULT_BASE_URL).rstrip("/")
        if not base.startswith(("http://", "https://")):
            raise ValueError(f"base_url must be an http:// or https:// address (got {base!r})")
        self.base_url = base
        #: The rate-limit state of the last metered response (None until one arrived).
        self.rate_limit: Optional[RateLimit] = None
        self.timeout = timeout
        self.retry = RetryPolicy(
            max_attempts=max(1, max_attempts),
            deadline=deadline,
            max_retry_after=max_retry_after,
            initial_backoff=initial_backoff,
            max_backoff=max_backoff,
        )
        self._pace_from_server = pace is True
        self.pacer: Optional[Pacer] = (
            None if pace is False else Pacer(60 if pace is True else int(pace), clock=clock, sleep=sleep)
        )
        self._on_attempt = on_attempt
        self._sleep = sleep
        self._clock = clock
        self._opener = urllib.request.build_opener(_NoRedirect())
        # Kept out of every attribute repr() shows and out of every URL.
        self.__headers = {
            "Authorization": f"Bearer {token}",
            "Accept": "application/json",
            # Answers over 1 KB come compressed when asked; brotli would need a package, gzip is stdlib.
            "Accept-Encoding": "gzip",
            "User-Agent": f"mdp-client-python/{VERSION}",
        }

    def __repr__(self) -> str:
        return f"Client(base_url={self.base_url!r})"

    def url(self, operation_id: str, params: Mapping[str, Any]) -> str:
        """The URL of a call (its parameters checked), without sending it."""
        path, query = prepare(OPERATIONS[operation_id], params)
        qs = query_string(query)
        return f"{self.base_url}{path}{'?' + qs if qs else ''}"

    def call(self, operation_id: str, params: Optional[Mapping[str, Any]] = None, options: Optional[CallOptions] = None) -> Result[Any]:
        """Calls a route by operation id (what every route method does)."""
        return self._call(operation_id, dict(params or {}), options)

    def _call(self, operation_id: str, params: Dict[str, Any], options: Optional[CallOptions]) -> Result[Any]:
        op = OPERATIONS[operation_id]
        url = self.url(operation_id, params)
        options = options or CallOptions()
        deadline = options.deadline if options.deadline is not None else self.retry.deadline
        max_attempts = options.max_attempts if options.max_attempts is not None else self.retry.max_attempts
        backoff = Backoff(self.retry)
        started = self._clock()
        tool_errors = 0
        attempt = 0
        while True:
            attempt += 1
            if self.pacer is not None and op["units"] > 0:
                self.pacer.take()
            remaining = deadline - (self._clock() - started)
            timeout = min(options.timeout or self.timeout, max(remaining, 0.001))
            try:
                result = self._attempt(operation_id, op, url, timeout)
                self._tell(Attempt(operation_id, attempt, 200))
                return result
            except MdpError as err:
                delay = backoff.next_delay(err) if is_retryable(err, tool_errors) else None
                if err.code == "tool_error":
                    tool_errors += 1
                elapsed = self._clock() - started
                if delay is not None and (attempt >= max_attempts or elapsed + delay > deadline):
                    delay = None
                self._tell(Attempt(operation_id, attempt, err.status, err.code, delay))
                if delay is None:
                    raise
                log.info(
                    "%s attempt %d: %s %s; trying again in %.2f s",
                    operation_id, attempt, err.status or "no answer", err.code, delay,
                )
                self._sleep(delay)

    def _tell(self, attempt: Attempt) -> None:
        if self._on_attempt is not None:
            self._on_attempt(attempt)

    def _send(self, url: str, timeout: float) -> _Answer:
        request = urllib.request.Request(url, headers=self.__headers, method="GET")
        try:
            with self._opener.open(request, timeout=timeout) as res:
                return _Answer(res.status, dict(res.headers.items()), res.read())
        except urllib.error.HTTPError as res:
            with res:
                return _Answer(res.code, dict(res.headers.items()), res.read())

    def _attempt(self, operation_id: str, op: Mapping[str, Any], url: str, timeout: float) -> Result[Any]:
        try:
            answer = self._send(url, timeout)
        except (socket.timeout, TimeoutError) as cause:
            raise MdpError(0, "timeout", f"no answer within {timeout:.3g} s") from cause
        except urllib.error.URLError as cause:
            if isinstance(cause.reason, (socket.timeout, TimeoutError)):
                raise MdpError(0, "timeout", f"no answer within {timeout:.3g} s") from cause
            raise MdpError(0, "network_error", f"the API could not be reached: {cause.reason}") from cause
        except (ConnectionError, http.client.HTTPException, OSError) as cause:
            raise MdpError(0, "network_error", f"the API could not be reached: {cause}") from cause
        headers = {k.lower(): v for k, v in answer.headers.items()}
        request_id = headers.get("request-id")
        rate_limit = read_rate_limit(headers)
        if rate_limit is not None:
            self.rate_limit = rate_limit
            if self._pace_from_server and self.pacer is not None and rate_limit.burst_per_minute:
                self.pacer.adjust(rate_limit.burst_per_minute)
        body_bytes = answer.body
        if headers.get("content-encoding", "").strip().lower() == "gzip":
            body_bytes = gzip.decompress(body_bytes)
        try:
            body = json.loads(body_bytes.decode("utf-8")) if body_bytes else {}
        except ValueError:
            body = {}
        if answer.status == 200 and isinstance(body, dict):
            if not op["envelope"]:
                return Result(body, {}, rate_limit, request_id)
            if "meta" in body:
                return Result(body.get("data"), body["meta"], rate_limit, request_id)
        error = body.get("error") if isinstance(body, dict) else None
        error = error if isinstance(error, dict) else {}
        code = error.get("code") or ("internal_error" if answer.status >= 500 else "invalid_request")
        retry_after = headers.get("retry-after")
        raise MdpError(
            answer.status,
            code,
            error.get("message") or f"HTTP {answer.status}",
            error.get("details") if isinstance(error.get("details"), dict) else {},
            request_id,
            float(retry_after) if retry_after is not None and retry_after.isdigit() else None,
            rate_limit.reset if code == "quota_exhausted" and rate_limit is not None else None,
        )

    def _pages(self, operation_id: str, params: Dict[str, Any], options: Optional[CallOptions]) -> Iterator[Result[Any]]:
        cursor = OPERATIONS[operation_id]["cursor"]
        params = dict(params)
        # Checked now, not at the first next(): a bad bound is the caller's mistake at the call.
        self.url(operation_id, params)
        return self._walk(operation_id, cursor, params, options)

    def _walk(self, operation_id: str, cursor: str, params: Dict[str, Any], options: Optional[CallOptions]) -> Iterator[Result[Any]]:
        while True:
            page = self._call(operation_id, params, options)
            yield page
            following = page.meta.get("next_cursor")
            if not page.meta.get("has_more") or not isinstance(following, str):
                return
            params[cursor] = following
