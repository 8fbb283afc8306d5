"""Wall-clock time in one place, so tests can move it."""

from __future__ import annotations

import time
from collections.abc import Callable

_source: Callable[[], float] = time.time


def use(source: Callable[[], float]) -> None:
    """Answer `now()` from `source` (partner.chain.ports installs the port's clock)."""
    global _source
    _source = source


def now() -> float:
    return _source()


def now_int() -> int:
    return int(now())
