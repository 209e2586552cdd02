"""The API client: a typed method per route (generated), kept-alive connections, SPEC 7's retries, a
deadline per call, the rate-limit state of the last response, paging by days and an optional pacer."""

from __future__ import annotations

import datetime
import gzip
import http.client
import json
import logging
import os
import time
from typing import Any, Callable, Dict, Iterator, List, Mapping, Optional, Union

from ._generated.operations import OPERATIONS
from ._generated.routes import Routes
from .call import Attempt, CallOptions, Result
from .connection import TIMEOUTS, Answer, ConnectionPool
from .errors import AuthenticationError, MdpError, NetworkError, format_seconds, make_error
from .frames import Frames
from .pacer import Pacer
from .rate_limit import RateLimit, read_rate_limit
from .retry import Backoff, RetryPolicy, is_retryable
from .validation import calendar_date, prepare, query_string, whole_number

__all__ = ["Client", "Result", "CallOptions", "Attempt", "DEFAULT_BASE_URL"]

DEFAULT_BASE_URL = "http://localhost:8080"
VERSION = "1.1.0"

# Lines about attempts and retries name the route, status and code: never the token or its header.
# A wait of warn_after seconds or more is a WARNING, which Python prints even when the program has not
# set logging up; shorter ones are INFO.
log = logging.getLogger("mdp_client")

# Headers only an authenticated (metered) answer carries: an account's limits.
_ACCOUNT_HEADERS = ("ratelimit-policy", "ratelimit", "x-ratelimit-limit", "x-ratelimit-remaining")


class Client(Routes, Frames):
    """The market-data API.

    ``Client()`` reads the token from ``MDP_TOKEN`` and the address from ``MDP_BASE_URL`` (default
    ``http://localhost:8080``); both may be given instead. Every route is a method named by its operation
    id in snake_case (``get_stock_quote``, ``get_price_history``, the free ``get_my_usage``), returning a
    :class:`Result` or raising an :class:`MdpError` of the failure's kind (``AuthenticationError``,
    ``QuotaError``, ``RateLimitError``, ``NotFoundError``, ``ServerError``, ``NetworkError``); a parameter
    out of its published bounds raises :class:`ParameterError` (a ``ValueError``) before any request.

    Connections are kept alive: calls reuse up to ``pool_size`` idle connections (threads may share the
    client; each call holds its own connection), and a connection the server closed while idle is
    replaced without costing an attempt. ``keep_alive=False`` opens a connection a call. ``close()``, or
    leaving a ``with Client() as client:`` block, closes them.

    Retries follow SPEC 7: ``rate_limited`` and ``service_unavailable`` wait ``Retry-After`` (at most
    ``max_retry_after`` seconds; a longer wait is raised at once), other 5xx and unreachable hosts back
    off exponentially with jitter, a ``tool_error`` is tried once more, ``quota_exhausted`` and every
    4xx never; no attempt starts or wait begins past ``deadline`` seconds from the call's start. The
    ``429`` the API sends an address after too many refused tokens is an ``AuthenticationError`` at once,
    never waited out. A wait of ``warn_after`` seconds or more (5) is logged as a WARNING first (logger
    ``mdp_client``), with how long and why.

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
        keep_alive: bool = True,
        pool_size: int = 4,
        warn_after: float = 5.0,
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
        self.warn_after = warn_after
        self.retry = RetryPolicy(
            max_attempts=max(1, max_attempts),
            deadline=deadline,
            max_retry_after=max_retry_after,
            initial_backoff=initial_backoff,
            max_backoff=max_backoff,
        )
        self._pace_from_server = pace is True
        self.pacer: Optional[Pacer] = (
            None
            if pace is False
            else Pacer(60 if pace is True else int(pace), clock=clock, sleep=sleep, warn_after=warn_after)
        )
        self._on_attempt = on_attempt
        self._sleep = sleep
        self._clock = clock
        self._pool = ConnectionPool(base, size=pool_size, keep_alive=keep_alive)
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

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def close(self) -> None:
        """Closes the client's connections. A call after it raises RuntimeError."""
        self._pool.close()

    @property
    def connections_opened(self) -> int:
        """TCP connections this client has opened: one for many calls while the server keeps it alive."""
        return self._pool.opened

    def url(self, operation_id: str, params: Mapping[str, Any]) -> str:
        """The URL of a call (its parameters checked), without sending it."""
        return self.base_url + self._path(operation_id, params)

    def _path(self, operation_id: str, params: Mapping[str, Any]) -> str:
        path, query = prepare(OPERATIONS[operation_id], params)
        qs = query_string(query)
        return f"{path}{'?' + qs if qs else ''}"

    def call(self, operation_id: str, params: Optional[Mapping[str, Any]] = None, options: Optional[CallOptions] = None) -> Result[Any]:
        """Calls a route by operation id (what every route method does)."""
        return self._call(operation_id, dict(params or {}), options)

    def _call(self, operation_id: str, params: Dict[str, Any], options: Optional[CallOptions]) -> Result[Any]:
        op = OPERATIONS[operation_id]
        target = self._path(operation_id, params)
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
                result = self._attempt(op, target, timeout)
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
                if delay >= self.warn_after:
                    why = "as the API asked (Retry-After)" if err.retry_after is not None else "to back off"
                    log.warning(
                        "%s attempt %d: %s %s: %s; waiting %s %s before attempt %d of %d",
                        operation_id, attempt, err.status or "no answer", err.code, err.message,
                        format_seconds(delay), why, attempt + 1, max_attempts,
                    )
                else:
                    log.info(
                        "%s attempt %d: %s %s; trying again in %.2f s",
                        operation_id, attempt, err.status or "no answer", err.code, delay,
                    )
                self._sleep(delay)

    def _tell(self, attempt: Attempt) -> None:
        if self._on_attempt is not None:
            self._on_attempt(attempt)

    def _send(self, target: str, timeout: float) -> Answer:
        try:
            return self._pool.get(target, self.__headers, timeout)
        except TIMEOUTS as cause:
            raise NetworkError(0, "timeout", f"no answer within {format_seconds(timeout)}") from cause
        except (OSError, http.client.HTTPException) as cause:
            raise NetworkError(0, "network_error", f"the API at {self.base_url} could not be reached: {cause}") from cause

    def _attempt(self, op: Mapping[str, Any], target: str, timeout: float) -> Result[Any]:
        answer = self._send(target, timeout)
        headers = answer.headers
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
        message = error.get("message") or f"HTTP {answer.status}"
        retry_after_text = headers.get("retry-after")
        retry_after = float(retry_after_text) if retry_after_text is not None and retry_after_text.isdigit() else None
        resets_at = rate_limit.reset if code == "quota_exhausted" and rate_limit is not None else None
        kind = None
        if answer.status == 429 and code == "rate_limited" and not any(h in headers for h in _ACCOUNT_HEADERS):
            # Refused before any token was looked at: the address sent too many refused tokens. (A metered
            # 429 is an account's, with its RateLimit-Policy; this one has only Retry-After and its end.)
            # Waiting would only delay the 401 a refused token gets.
            kind = AuthenticationError
            resets_at = rate_limit.reset if rate_limit is not None else None
            message = f"{message} (too many refused tokens from this address); check the token: this client does not wait it out"
        raise make_error(
            answer.status,
            code,
            message,
            error.get("details") if isinstance(error.get("details"), dict) else {},
            request_id,
            retry_after,
            resets_at,
            kind,
        )

    # Paging. A route with a date cursor and a `days` window (price history) is paged by what the caller
    # means: the last `days` calendar days up to `end_date` (any number; a page holds at most the route's
    # bound), asking each next page only for the days still missing, so no page is asked for that those
    # days do not need; `days` omitted is the whole history, in the largest pages. Other cursors are
    # followed until `has_more` is false.

    def _plan(self, operation_id: str, params: Dict[str, Any]) -> "_Walk":
        op = OPERATIONS[operation_id]
        params = {k: v for k, v in params.items() if v is not None}
        span = next((p for p in op["params"] if p["name"] == "days" and p["schema"].get("type") == "integer"), None)
        walk = _Walk(op["cursor"], params)
        if span is not None:
            walk.most = int(span["schema"]["maximum"])
            if "days" in params:
                walk.days = whole_number("days", params["days"])
                if walk.days < 1:
                    prepare(op, {**params, "days": walk.days})  # the route's own refusal, naming days
            params["days"] = min(walk.days, walk.most) if walk.days is not None else walk.most
            if params.get("end_date") is not None:
                params["end_date"] = calendar_date("end_date", params["end_date"])
        # Checked now, not at the first next(): a bad value is the caller's mistake at the call.
        self._path(operation_id, params)
        return walk

    def _pages(self, operation_id: str, params: Dict[str, Any], options: Optional[CallOptions]) -> Iterator[Result[Any]]:
        return self._walk(operation_id, self._plan(operation_id, params), options)

    def _all(self, operation_id: str, params: Dict[str, Any], options: Optional[CallOptions]) -> List[Any]:
        walk = self._plan(operation_id, params)
        for _ in self._walk(operation_id, walk, options):
            pass
        return walk.items()

    def _walk(self, operation_id: str, walk: "_Walk", options: Optional[CallOptions]) -> Iterator[Result[Any]]:
        params = walk.params
        try:
            while True:
                page = self._call(operation_id, params, options)
                walk.pages.append(page.data if isinstance(page.data, list) else [page.data])
                if walk.days is not None and walk.start is None:
                    walk.start = _first_day(page.meta, params, walk.days)
                yield page
                following = page.meta.get("next_cursor")
                if not page.meta.get("has_more") or not isinstance(following, str):
                    return
                if walk.start is not None and walk.most is not None:
                    # The next page ends at the cursor (the last bar day before this page) and reaches back
                    # to the first day wanted; when that is before the first day wanted, no more is asked.
                    left = (datetime.date.fromisoformat(following) - walk.start).days + 1
                    if left < 1:
                        return
                    params["days"] = min(left, walk.most)
                params[walk.cursor] = following
        except MdpError as err:
            err.partial = walk.items()
            raise


class _Walk:
    """What a walk over pages has fetched, and the days it covers."""

    def __init__(self, cursor: str, params: Dict[str, Any]) -> None:
        #: The route's cursor parameter, and the parameters of the next page.
        self.cursor = cursor
        self.params = params
        #: Calendar days wanted (None: every page).
        self.days: Optional[int] = None
        #: The route's most days a page.
        self.most: Optional[int] = None
        #: The first day wanted, once the first page said where the window ends.
        self.start: Optional[datetime.date] = None
        #: Each page's items, newest page first.
        self.pages: List[List[Any]] = []

    def items(self) -> List[Any]:
        """Every item fetched, oldest first, none before the first day wanted."""
        out = [item for page in reversed(self.pages) for item in page]
        if self.start is None:
            return out
        first = self.start.isoformat()
        return [item for item in out if not isinstance(item, dict) or str(item.get("date", first)) >= first]


def _first_day(meta: Mapping[str, Any], params: Mapping[str, Any], days: int) -> datetime.date:
    """The first calendar day of the last ``days`` days: counted back from the end of the first page's
    window (today in IST, or ``end_date``), from the week's Monday for weekly bars, as the API windows a
    single page."""
    window = meta.get("window") if isinstance(meta.get("window"), dict) else {}
    end = window.get("to") or params.get("end_date")
    if isinstance(end, str):
        last = datetime.date.fromisoformat(end)
    elif isinstance(end, datetime.date):
        last = end
    else:
        last = (datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(hours=5, minutes=30)).date()
    start = last - datetime.timedelta(days=days - 1)
    interval = window.get("interval") or params.get("interval")
    if interval == "weekly":
        start -= datetime.timedelta(days=start.weekday())
    return start
