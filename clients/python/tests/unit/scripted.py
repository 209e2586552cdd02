"""A real HTTP server on loopback that answers from a script (the TypeScript client's retry tests do the
same): what the client sent, how often, over how many TCP connections, and what the caller finally sees.
No real service behind it. It speaks HTTP/1.1 and keeps connections alive, as the gateway does, and can
close them as a server does one that sat idle."""

from __future__ import annotations

import datetime
import gzip
import json
import socket
import threading
import time
import unittest
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Dict, List, Optional, Set
from urllib.parse import parse_qs, urlsplit

QUOTE = {"data": {"symbol": "ARAVALIHOU"}, "meta": {"as_of": "2026-11-25T00:00:00Z", "route": "getStockQuote"}}

#: The headers of a metered answer on the free plan: what makes a 429 an account's (not the auth throttle's).
METERED = {
    "x-ratelimit-limit": "50",
    "x-ratelimit-remaining": "0",
    "x-ratelimit-reset": "1900000000",
    "ratelimit-policy": '"daily";q=50;w=86400, "burst";q=60;w=60',
}


class Answer:
    def __init__(
        self,
        status: int = 200,
        code: Optional[str] = None,
        headers: Optional[Dict[str, str]] = None,
        body: Any = None,
        gzip_body: bool = False,
        message: Optional[str] = None,
    ) -> None:
        self.status = status
        self.code = code
        self.headers = headers or {}
        self.body = body
        self.gzip_body = gzip_body
        self.message = message


class ScriptedServer:
    def __init__(self) -> None:
        self.script: List[Answer] = []
        #: Each request: its path, headers and the number of the TCP connection it came on (1, 2, …).
        self.requests: List[Dict[str, Any]] = []
        #: TCP connections accepted so far.
        self.connections = 0
        #: When set, answers every request instead of the script: path -> Answer.
        self.respond: Optional[Callable[[str], Answer]] = None
        #: The next this many requests are read and their connection closed with no answer (as a server
        #: closes an idle connection the moment a request arrives on it).
        self.drop_next = 0
        #: Seconds to wait before answering (a slow server, for concurrency).
        self.delay = 0.0
        self._open: Set[socket.socket] = set()
        self._lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def setup(self) -> None:
                super().setup()
                with outer._lock:
                    outer.connections += 1
                    self.number = outer.connections
                    outer._open.add(self.connection)

            def finish(self) -> None:
                try:
                    super().finish()
                finally:
                    with outer._lock:
                        outer._open.discard(self.connection)

            def do_GET(self) -> None:  # noqa: N802 (http.server's name)
                with outer._lock:
                    if outer.drop_next > 0:
                        outer.drop_next -= 1
                        outer.requests.append({"path": self.path, "headers": dict(self.headers.items()), "connection": self.number, "dropped": True})
                        self.close_connection = True
                        return
                    outer.requests.append({"path": self.path, "headers": dict(self.headers.items()), "connection": self.number})
                    n = len(outer.requests)
                if outer.delay:
                    time.sleep(outer.delay)
                if outer.respond is not None:
                    answer = outer.respond(self.path)
                else:
                    answer = outer.script[min(n - 1, len(outer.script) - 1)]
                if answer.body is not None:
                    body = answer.body
                elif answer.status == 200:
                    body = QUOTE
                else:
                    details = {"param": "days"} if answer.code == "invalid_request" else {}
                    body = {"error": {"code": answer.code, "message": answer.message or f"scripted {answer.code}", "details": details}}
                raw = json.dumps(body).encode()
                if answer.gzip_body:
                    raw = gzip.compress(raw)
                self.send_response(answer.status)
                self.send_header("content-type", "application/json")
                self.send_header("request-id", f"req-{n}")
                if answer.gzip_body:
                    self.send_header("content-encoding", "gzip")
                for k, v in answer.headers.items():
                    self.send_header(k, v)
                self.send_header("content-length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        # A client that gave up (a timeout test) leaves the handler writing to a closed socket: not news.
        self.server.handle_error = lambda request, client_address: None  # type: ignore[method-assign]
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()

    def reset(self, *script: Answer) -> None:
        self.script = list(script)
        self.requests = []
        self.respond = None
        self.drop_next = 0
        self.delay = 0.0

    def paths(self) -> List[str]:
        return [r["path"] for r in self.requests]

    def query(self, i: int) -> Dict[str, str]:
        """The query of the i-th request, one value a name."""
        return {k: v[0] for k, v in parse_qs(urlsplit(self.requests[i]["path"]).query).items()}

    def close_idle(self) -> None:
        """Closes every connection open now, as a server closes those that sat idle past its keep-alive
        timeout, and waits until each handler has seen it."""
        with self._lock:
            sockets = list(self._open)
        for sock in sockets:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        until = time.monotonic() + 5
        while self._open and time.monotonic() < until:
            time.sleep(0.01)

    def close(self) -> None:
        self.server.shutdown()
        self.close_idle()
        self.server.server_close()


class ScriptedServerTest(unittest.TestCase):
    """A test class with one scripted server for all its tests (`self.server`), closed after them."""

    server: ScriptedServer

    @classmethod
    def setUpClass(cls) -> None:
        cls.server = ScriptedServer()

    @classmethod
    def tearDownClass(cls) -> None:
        cls.server.close()


class PriceHistory:
    """The price route as the API pages it (services/equities-data's pageWindow): a page ends at
    ``end_date`` (default today) and spans ``days`` calendar days back, a weekly page from that week's
    Monday; ``next_cursor`` is the last bar day before the page. A bar every weekday from ``first`` to
    ``today``. After ``quota`` answers of 200 it refuses with ``429 quota_exhausted``, as the free plan
    does when its 50 a day are spent."""

    def __init__(self, first: "datetime.date", today: "datetime.date", quota: Optional[int] = None) -> None:
        self.today = today
        self.days = [first + datetime.timedelta(days=i) for i in range((today - first).days + 1)]
        self.days = [d for d in self.days if d.weekday() < 5]
        self.quota = quota
        self.served = 0

    def bars(self, start: "datetime.date", end: "datetime.date", weekly: bool = False) -> List[Dict[str, Any]]:
        """What a page of [start, end] holds: a bar a day, or a bar a week dated its Monday."""
        days = [d for d in self.days if start <= d <= end]
        if not weekly:
            return [{"date": d.isoformat(), "close": 100.0 + i} for i, d in enumerate(days)]
        mondays = sorted({d - datetime.timedelta(days=d.weekday()) for d in days})
        return [{"date": m.isoformat(), "close": 100.0} for m in mondays]

    def __call__(self, path: str) -> Answer:
        if self.quota is not None and self.served >= self.quota:
            return Answer(429, "quota_exhausted", {**METERED, "retry-after": "3600"}, message="plan quota used up; it resets at X-RateLimit-Reset")
        self.served += 1
        q = {k: v[0] for k, v in parse_qs(urlsplit(path).query).items()}
        days = int(q.get("days", "365"))
        weekly = q.get("interval") == "weekly"
        end = datetime.date.fromisoformat(q["end_date"]) if "end_date" in q else self.today
        start = end - datetime.timedelta(days=days - 1)
        if weekly:
            start -= datetime.timedelta(days=start.weekday())
        before = [d for d in self.days if d < start]
        meta = {
            "as_of": "2026-11-27T10:00:00Z",
            "route": "getPriceHistory",
            "window": {"from": start.isoformat(), "to": end.isoformat(), "days": days, "interval": "weekly" if weekly else "daily"},
            "next_cursor": before[-1].isoformat() if before else None,
            "has_more": bool(before),
        }
        return Answer(200, headers={**METERED, "x-ratelimit-remaining": "40"}, body={"data": self.bars(start, end, weekly), "meta": meta})
