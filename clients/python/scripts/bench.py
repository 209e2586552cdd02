"""Calls a second through the Python client against a running gateway: one after another and from a few
threads sharing one client: with connections kept alive (the default), with a new connection a call
(``keep_alive=False``), and through urllib as the client called before 1.1 (a new connection a call,
``Connection: close``). Figures, not assertions.

    MDP_BASE_URL=http://localhost:8080 MDP_TOKEN=mdp_... python3 clients/python/scripts/bench.py

``clients/python/scripts/bench.ts`` starts a platform of its own and runs this against it (``make bench``
runs that). Use a token whose plan has no burst cap (``make token PLAN=load-test``): the free plan's 60
a minute would make every figure a wait.

    BENCH_CALLS    calls in each run (default 400)
    BENCH_THREADS  threads of the threaded runs (default 4)
    BENCH_SYMBOL   the stock quoted (default ARAVALIHOU, the default dataset's largest)
    BENCH_ROUNDS   rounds of every run, taken in turn; the median of each is shown (default 5)

The last line is the figures as JSON, for a program to read.
"""

from __future__ import annotations

import json
import os
import pathlib
import platform
import sys
import threading
import time
import urllib.request
from typing import Dict, List, Optional

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "src"))

from mdp_client import Client, __version__  # noqa: E402 (after the source is on the path)

CALLS = int(os.environ.get("BENCH_CALLS", "400"))
THREADS = int(os.environ.get("BENCH_THREADS", "4"))
SYMBOL = os.environ.get("BENCH_SYMBOL", "ARAVALIHOU")
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "5"))


def urllib_quote() -> None:
    """A quote as the client made it before 1.1: urllib, which sends ``Connection: close``."""
    request = urllib.request.Request(
        f"{os.environ.get('MDP_BASE_URL', 'http://localhost:8080').rstrip('/')}/v1/stocks/{SYMBOL}/quote",
        headers={"Authorization": f"Bearer {os.environ['MDP_TOKEN']}", "Accept": "application/json", "Accept-Encoding": "gzip"},
    )
    with urllib.request.urlopen(request, timeout=30) as answer:
        answer.read()


def run(keep_alive: Optional[bool], threads: int) -> Dict[str, float]:
    """One run: CALLS quotes over ``threads`` threads sharing one client (``keep_alive`` None: urllib as
    before 1.1); its calls a second, the median and p99 of a call, and the TCP connections it opened
    (its first included: the client starts with none)."""
    with Client(max_attempts=1) as warm:
        warm.get_stock_quote(SYMBOL)  # the gateway's caches warm, on a connection of its own
    client = Client(keep_alive=bool(keep_alive), pool_size=max(threads, 1), max_attempts=1)
    call = urllib_quote if keep_alive is None else (lambda: client.get_stock_quote(SYMBOL))
    latencies: List[float] = []
    lock = threading.Lock()
    per_thread = CALLS // threads

    def work() -> None:
        mine = []
        for _ in range(per_thread):
            t0 = time.perf_counter()
            call()
            mine.append(time.perf_counter() - t0)
        with lock:
            latencies.extend(mine)

    workers = [threading.Thread(target=work) for _ in range(threads)]
    started = time.perf_counter()
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    elapsed = time.perf_counter() - started
    opened = client.connections_opened if keep_alive is not None else len(latencies)
    client.close()
    latencies.sort()
    return {
        "calls": len(latencies),
        "seconds": round(elapsed, 3),
        "per_second": round(len(latencies) / elapsed, 1),
        "p50_ms": round(latencies[len(latencies) // 2] * 1000, 2),
        "p99_ms": round(latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))] * 1000, 2),
        "connections": opened,
    }


def main() -> None:
    if not os.environ.get("MDP_TOKEN"):
        sys.exit("bench.py: set MDP_TOKEN (and MDP_BASE_URL), or run clients/python/scripts/bench.ts")
    base = os.environ.get("MDP_BASE_URL", "http://localhost:8080")
    print(f"mdp-client {__version__} on Python {platform.python_version()}, {base}, quote {SYMBOL}, {CALLS} calls a run, median of {ROUNDS} rounds")
    kinds = {True: "kept alive", False: "a connection a call", None: "urllib, as 1.0 did"}
    runs = [(threads, keep_alive) for threads in (1, THREADS) for keep_alive in (True, False, None)]
    name = {r: f"{'sequential' if r[0] == 1 else f'{r[0]} threads'}, {kinds[r[1]]}" for r in runs}
    # Round after round of every run in turn, so that a machine whose load changes meanwhile (other
    # processes on the same cores) weighs on each alike; each run's figure is the median of its rounds.
    rounds: Dict[str, List[Dict[str, float]]] = {name[r]: [] for r in runs}
    for _ in range(ROUNDS):
        for r in runs:
            rounds[name[r]].append(run(r[1], r[0]))
    figures: Dict[str, Dict[str, float]] = {}
    for label, seen in rounds.items():
        middle = sorted(seen, key=lambda f: f["per_second"])[len(seen) // 2]
        figures[label] = {**middle, "p50_ms": sorted(f["p50_ms"] for f in seen)[len(seen) // 2]}
        f = figures[label]
        print(
            f"  {label:<40} {f['per_second']:>8.1f} calls/s   p50 {f['p50_ms']:>6.2f} ms   "
            f"p99 {f['p99_ms']:>6.2f} ms   {int(f['connections']):>4} connections"
        )
    for threads in (1, THREADS):
        label = "sequential" if threads == 1 else f"{threads} threads"
        kept = figures[f"{label}, kept alive"]["per_second"]
        fresh = figures[f"{label}, a connection a call"]["per_second"]
        old = figures[f"{label}, urllib, as 1.0 did"]["per_second"]
        print(f"  {label}: kept alive {kept / fresh:.2f}x the calls a second of a connection a call, {kept / old:.2f}x urllib's")
    print(json.dumps({"python": platform.python_version(), "calls": CALLS, "threads": THREADS, "figures": figures}))


if __name__ == "__main__":
    main()
