"""Kept-alive HTTP connections to the API (standard library ``http.client`` only).

A call takes an idle connection from the client's pool, or opens one; once its answer is read to the end
the connection goes back for the next call, so a program that makes many calls pays for one TCP (and
TLS) handshake, not one a call. Threads never share a connection: each call holds its own until it is
done, and the pool's lock guards only the list of idle ones. At most ``size`` idle connections are kept;
more calls at once than that open more, and close the extra ones when they are done.

A server closes a connection that has been idle a while (the gateway after 75 s, a proxy sooner). An
idle connection found closed is dropped before it is used; one that the server closed as the request
went out (no byte of an answer came back) is replaced by a new connection and the request sent once
more, at once: that is not a failed attempt (the request never reached the API's handler) and no retry
is spent on it. Redirects are never followed (the token would go wherever they point).

Proxies are taken from the environment as urllib takes them (``http_proxy``, ``https_proxy``,
``no_proxy``).
"""

from __future__ import annotations

import base64
import http.client
import select
import socket
import ssl
import threading
import urllib.request
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Tuple
from urllib.parse import unquote, urlsplit

__all__ = ["Answer", "ConnectionPool"]


@dataclass
class Answer:
    status: int
    #: Header names in lower case.
    headers: Dict[str, str]
    body: bytes = field(repr=False)


# The server closed a kept-alive connection before answering (it had timed it out as the request left).
_CLOSED_UNDER_US = (
    http.client.RemoteDisconnected,
    ConnectionResetError,
    BrokenPipeError,
    ConnectionAbortedError,
    ssl.SSLEOFError,
    ssl.SSLZeroReturnError,
)


class _HTTP(http.client.HTTPConnection):
    on_connect: Optional[Callable[[], None]] = None

    def connect(self) -> None:
        super().connect()
        if self.on_connect is not None:
            self.on_connect()


class _HTTPS(http.client.HTTPSConnection):
    on_connect: Optional[Callable[[], None]] = None

    def connect(self) -> None:
        super().connect()
        if self.on_connect is not None:
            self.on_connect()


def _dropped(conn: http.client.HTTPConnection) -> bool:
    """An idle connection that can no longer be used: no socket, or one that is readable while no request
    is out (the server's FIN, or bytes nobody asked for). urllib3 checks the same way."""
    sock = conn.sock
    if sock is None:
        return True
    try:
        readable, _, _ = select.select([sock], [], [], 0)
    except (OSError, ValueError):
        return True
    return bool(readable)


class ConnectionPool:
    """The connections of one client to one API address (``base_url``)."""

    def __init__(
        self,
        base_url: str,
        *,
        size: int = 4,
        keep_alive: bool = True,
        ssl_context: Optional[ssl.SSLContext] = None,
    ) -> None:
        parts = urlsplit(base_url)
        self.scheme = parts.scheme
        self.host = parts.hostname or "localhost"
        self.port = parts.port or (443 if self.scheme == "https" else 80)
        #: The base URL's own path (an API behind a prefix), before every request's path.
        self.prefix = parts.path.rstrip("/")
        self.size = max(0, size)
        self.keep_alive = keep_alive
        self._ssl = ssl_context
        self._idle: List[http.client.HTTPConnection] = []
        self._lock = threading.Lock()
        self._opened = 0
        self._closed = False
        self._proxy = self._proxy_for(parts.scheme, self.host)

    @staticmethod
    def _proxy_for(scheme: str, host: str) -> Optional[Tuple[str, int, Optional[str]]]:
        """(host, port, Proxy-Authorization) of the proxy urllib would use for this address, if any."""
        proxy = urllib.request.getproxies().get(scheme)
        if not proxy or urllib.request.proxy_bypass(host):
            return None
        parts = urlsplit(proxy if "://" in proxy else f"http://{proxy}")
        auth = None
        if parts.username is not None:
            pair = f"{unquote(parts.username)}:{unquote(parts.password or '')}".encode()
            auth = "Basic " + base64.b64encode(pair).decode()
        return parts.hostname or "", parts.port or 80, auth

    @property
    def opened(self) -> int:
        """TCP connections opened so far (one for many calls while they are kept alive)."""
        return self._opened

    @property
    def idle(self) -> int:
        """Connections waiting for the next call."""
        return len(self._idle)

    def _count(self) -> None:
        with self._lock:
            self._opened += 1

    def _new(self, timeout: float) -> http.client.HTTPConnection:
        conn: http.client.HTTPConnection
        if self._proxy is None:
            host, port = self.host, self.port
        else:
            host, port = self._proxy[0], self._proxy[1]
        if self.scheme == "https":
            conn = _HTTPS(host, port, timeout=timeout, context=self._ssl or ssl.create_default_context())
            if self._proxy is not None:
                auth = self._proxy[2]
                conn.set_tunnel(self.host, self.port, headers={"Proxy-Authorization": auth} if auth else None)
        else:
            # Plain HTTP through a proxy: a connection to the proxy, asked for the absolute URL (target()).
            conn = _HTTP(host, port, timeout=timeout)
        conn.on_connect = self._count  # type: ignore[attr-defined]
        return conn

    def _take(self) -> Optional[http.client.HTTPConnection]:
        while True:
            with self._lock:
                if self._closed:
                    raise RuntimeError("this Client is closed: make a new one")
                if not self.keep_alive or not self._idle:
                    return None
                conn = self._idle.pop()
            if not _dropped(conn):
                return conn
            conn.close()

    def _give_back(self, conn: http.client.HTTPConnection) -> None:
        with self._lock:
            if not self._closed and self.keep_alive and conn.sock is not None and len(self._idle) < self.size:
                self._idle.append(conn)
                return
        conn.close()

    def target(self, path_and_query: str) -> str:
        """What the request line names: the path, or the absolute URL through a plain-HTTP proxy."""
        path = self.prefix + path_and_query
        if self._proxy is not None and self.scheme == "http":
            default = self.port == 80
            return f"http://{self.host}{'' if default else f':{self.port}'}{path}"
        return path

    def get(self, path_and_query: str, headers: Dict[str, str], timeout: float) -> Answer:
        """Sends ``GET`` and reads the whole answer. Raises OSError / http.client.HTTPException when no
        answer came (timeouts as ``socket.timeout``)."""
        headers = dict(headers)
        if not self.keep_alive:
            headers["Connection"] = "close"
        elif self._proxy is not None and self.scheme == "http" and self._proxy[2]:
            headers["Proxy-Authorization"] = self._proxy[2]
        target = self.target(path_and_query)
        conn = self._take()
        reused = conn is not None
        while True:
            if conn is None:
                conn = self._new(timeout)
            try:
                answer = self._exchange(conn, target, headers, timeout)
            except _CLOSED_UNDER_US:
                conn.close()
                if not reused:
                    raise
                # Closed by the server as it sat idle: once more on a new connection, not an attempt.
                conn, reused = None, False
                continue
            except BaseException:
                conn.close()
                raise
            if answer.headers.get("connection", "").strip().lower() == "close":
                conn.close()
            self._give_back(conn)
            return answer

    @staticmethod
    def _exchange(conn: http.client.HTTPConnection, target: str, headers: Dict[str, str], timeout: float) -> Answer:
        conn.timeout = timeout
        if conn.sock is not None:
            conn.sock.settimeout(timeout)
        conn.request("GET", target, headers=headers)
        res = conn.getresponse()
        body = res.read()
        # A response that closes its connection hands the socket to itself (http.client): then conn.sock
        # is None and the connection is not kept.
        return Answer(res.status, {k.lower(): v for k, v in res.getheaders()}, body)

    def close(self) -> None:
        """Closes the idle connections; one in use is closed when its call ends. Calls after it raise."""
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, []
        for conn in idle:
            conn.close()

    @property
    def closed(self) -> bool:
        return self._closed


# socket.timeout is TimeoutError from Python 3.10; on 3.9 it is its own OSError.
TIMEOUTS = (socket.timeout, TimeoutError)
