"""Wall-clock time in one place, so tests can move it."""

from __future__ import annotations

import time


def now() -> float:
    return time.time()


def now_int() -> int:
    return int(now())
