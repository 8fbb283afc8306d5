"""The one way the shared layer runs a request's independent calls at once: `parallel.submit(fn, *args)`
starts `fn` on a small pool, with the request's context, and returns its `Future` (its counts are the
request's: `partner.core.observability` counts per process).
Callers submit only leaf calls (one AWS or RPC call and its parsing), so a busy pool only queues,
never deadlocks.
"""

from __future__ import annotations

import contextvars
import os
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar

from partner.core import snapshot

# a trade runs at most three calls besides its own thread's at once
WORKERS = 8

R = TypeVar("R")
T = TypeVar("T")


def _new_pool() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(max_workers=WORKERS, thread_name_prefix="partner-io")


_lock = threading.Lock()
_pool = _new_pool()


def submit(fn: Callable[..., R], /, *args: Any, **kwargs: Any) -> Future[R]:
    """Run `fn(*args, **kwargs)` on the pool, in the caller's context (module docstring)."""
    context = contextvars.copy_context()
    with _lock:
        return _pool.submit(context.run, fn, *args, **kwargs)


def map_at_most(fn: Callable[[T], R], items: list[T], workers: int) -> list[R]:
    """`fn` over `items`, at most `workers` at once on a pool of their own (a batch job's fan-out, such
    as the tracker's: unlike `submit`'s leaf calls, it may fill every worker), in the caller's context;
    the results in order."""
    if len(items) <= 1:
        return [fn(item) for item in items]
    context = contextvars.copy_context()

    def one(item: T) -> R:
        return context.copy().run(fn, item)

    with ThreadPoolExecutor(max_workers=max(1, min(workers, len(items))), thread_name_prefix="partner-map") as pool:
        return list(pool.map(one, items))


@snapshot.after_restore
def _restored() -> None:
    """A fresh pool: the snapshotted one's threads (if any had started) are not running here."""
    global _pool
    with _lock:
        _pool = _new_pool()


def _forked() -> None:
    """In a forked child only the forking thread exists: a fresh lock and pool (no task is running)."""
    global _lock, _pool
    _lock = threading.Lock()
    _pool = _new_pool()


os.register_at_fork(after_in_child=_forked)
