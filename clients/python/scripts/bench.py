"""Calls a second through the Python client against a running gateway: one after another and from a few
threads sharing one client, with connections kept alive (the default) and with a new connection a call
(``keep_alive=False``, what the client did through urllib before 1.1). Figures, not assertions.

    MDP_BASE_URL=http://localhost:8080 MDP_TOKEN=mdp_... python3 clients/python/scripts/bench.py

``clients/python/scripts/bench.ts`` starts a platform of its own and runs this against it (``make bench``
runs that). Use a token whose plan has no burst cap (``make token PLAN=load-test``): the free plan's 60
a minute would make every figure a wait.

    BENCH_CALLS    calls in each run (default 400)
    BENCH_THREADS  threads of the threaded runs (default 4)
    BENCH_SYMBOL   the stock quoted (default ARAVALIHOU, the default dataset's largest)
    BENCH_ROUNDS   rounds of every run, the best of each kept (default 3)

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
from typing import Dict, List

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "src"))

from mdp_client import Client, __version__  # noqa: E402 (after the source is on the path)

CALLS = int(os.environ.get("BENCH_CALLS", "400"))
THREADS = int(os.environ.get("BENCH_THREADS", "4"))
SYMBOL = os.environ.get("BENCH_SYMBOL", "ARAVALIHOU")
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "3"))


def run(keep_alive: bool, threads: int) -> Dict[str, float]:
    """One run: CALLS quotes over ``threads`` threads sharing one client; its calls a second, the median
    and p99 of a call, and the TCP connections it opened."""
    client = Client(keep_alive=keep_alive, pool_size=max(threads, 1), max_attempts=1)
    client.get_stock_quote(SYMBOL)  # its first connection, and the gateway's caches warm
    opened_before = client.connections_opened
    latencies: List[float] = []
    lock = threading.Lock()
    per_thread = CALLS // threads

    def work() -> None:
        mine = []
        for _ in range(per_thread):
            t0 = time.perf_counter()
            client.get_stock_quote(SYMBOL)
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
    opened = client.connections_opened - opened_before
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
    print(f"mdp-client {__version__} on Python {platform.python_version()}, {base}, quote {SYMBOL}, {CALLS} calls a run, best of {ROUNDS}")
    figures: Dict[str, Dict[str, float]] = {}
    for threads in (1, THREADS):
        for keep_alive in (True, False):
            name = f"{'sequential' if threads == 1 else f'{threads} threads'}, {'kept alive' if keep_alive else 'a connection a call'}"
            best = max((run(keep_alive, threads) for _ in range(ROUNDS)), key=lambda f: f["per_second"])
            figures[name] = best
            print(
                f"  {name:<40} {best['per_second']:>8.1f} calls/s   p50 {best['p50_ms']:>6.2f} ms   "
                f"p99 {best['p99_ms']:>6.2f} ms   {int(best['connections']):>4} connections"
            )
    for threads in (1, THREADS):
        label = "sequential" if threads == 1 else f"{threads} threads"
        kept = figures[f"{label}, kept alive"]["per_second"]
        fresh = figures[f"{label}, a connection a call"]["per_second"]
        print(f"  {label}: keep-alive {kept / fresh:.2f}x the calls a second of a connection a call")
    print(json.dumps({"python": platform.python_version(), "calls": CALLS, "threads": THREADS, "figures": figures}))


if __name__ == "__main__":
    main()
