"""The one way the shared layer runs a request's independent calls at once: `parallel.submit`.

A trade waits on the network most of its time, and several of its calls do not depend on each
other (the endpoint bucket and the tier budget; the chain read, KMS Decrypt and the volume
reservation). `submit(fn, *args)` starts `fn` on a small pool and returns its `Future`; the
caller goes on with its own call and then takes the result (`future.result()` raises what `fn`
raised). Callers submit only leaf calls (one AWS or RPC call and its parsing), never work that
itself waits on the pool, so a busy pool only queues, and never deadlocks.

The task runs with the request's state: a copy of the caller's context variables (Powertools'
per-invocation logger keys, the request id, the idempotency claim, the repeated headers) and
the invocation's metrics (`observability.carry`, a thread-local), so its log lines and counts
are the request's. boto3 clients are thread-safe (the layer keeps one per service); nothing
here uses a resource or a session from two threads.

The pool is made at import (before a SnapStart snapshot) with at most `WORKERS` threads, started
on first use. After a restore (and in a forked child) any threads of the snapshotted pool are
not running: the pool is replaced by a fresh one (`_restored`).
"""

from __future__ import annotations

import contextvars
import os
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar

from partner.core import observability, snapshot

# a trade runs at most three calls besides its own thread's at once; the devstack serves many
# requests in one process, which then queue here (Lambda serves one at a time)
WORKERS = 8

R = TypeVar("R")


def _new_pool() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(max_workers=WORKERS, thread_name_prefix="partner-io")


_lock = threading.Lock()
_pool = _new_pool()


def submit(fn: Callable[..., R], /, *args: Any, **kwargs: Any) -> Future[R]:
    """Run `fn(*args, **kwargs)` on the pool, in the caller's context (module docstring)."""
    context = contextvars.copy_context()
    carry = observability.carry()

    def run() -> R:
        return carry(lambda: context.run(fn, *args, **kwargs))

    with _lock:
        return _pool.submit(run)


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
