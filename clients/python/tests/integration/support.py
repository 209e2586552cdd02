from __future__ import annotations

import json
import os
from typing import Any, Dict


def need(name: str) -> str:
    value = os.environ.get(name)
    if not value:
        raise RuntimeError(f"{name} is not set: these tests are run by test/platform/python-client.int.test.ts")
    return value


def tokens() -> Dict[str, str]:
    return json.loads(need("MDP_TEST_TOKENS"))


def symbols() -> Dict[str, str]:
    return json.loads(need("MDP_TEST_SYMBOLS"))


def base_url() -> str:
    return need("MDP_BASE_URL")


def report(**values: Any) -> None:
    """Adds to the report the vitest side reads."""
    path = need("MDP_TEST_REPORT")
    try:
        with open(path, encoding="utf-8") as f:
            current = json.load(f)
    except FileNotFoundError:
        current = {}
    current.update(values)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(current, f)
