"""A real HTTP server on loopback that answers from a script (the TypeScript client's retry tests do the
same): what the client sent, how often, and what the caller finally sees. No real service behind it."""

from __future__ import annotations

import gzip
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Dict, List, Optional

QUOTE = {"data": {"symbol": "ARAVALIHOU"}, "meta": {"as_of": "2026-11-25T00:00:00Z", "route": "getStockQuote"}}


class Answer:
    def __init__(
        self,
        status: int = 200,
        code: Optional[str] = None,
        headers: Optional[Dict[str, str]] = None,
        body: Any = None,
        gzip_body: bool = False,
    ) -> None:
        self.status = status
        self.code = code
        self.headers = headers or {}
        self.body = body
        self.gzip_body = gzip_body


class ScriptedServer:
    def __init__(self) -> None:
        self.script: List[Answer] = []
        self.requests: List[Dict[str, Any]] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (http.server's name)
                outer.requests.append({"path": self.path, "headers": dict(self.headers.items())})
                n = len(outer.requests)
                answer = outer.script[min(n - 1, len(outer.script) - 1)]
                if answer.body is not None:
                    body = answer.body
                elif answer.status == 200:
                    body = QUOTE
                else:
                    body = {"error": {"code": answer.code, "message": f"scripted {answer.code}", "details": {"param": "days"} if answer.code == "invalid_request" else {}}}
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
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def reset(self, *script: Answer) -> None:
        self.script = list(script)
        self.requests = []

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
