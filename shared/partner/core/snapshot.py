"""Lambda SnapStart: what runs before the snapshot and what runs after each restore.

A module whose per-process state must be unique or fresh per environment registers a hook here, next
to that state: `after_restore(fn)` runs in each restored environment before its first request (in
registration order), `before_snapshot(fn)` once before the snapshot (in reverse order). Outside Lambda
the hooks stay in a local registry that tests run. docs/architecture.md, "Cold start and SnapStart".
"""

from __future__ import annotations

import gc
import random
from collections.abc import Callable
from typing import Any

Hook = Callable[[], Any]

BEFORE: list[Hook] = []
AFTER: list[Hook] = []

try:  # the Lambda Python runtime (3.12+) ships it; nowhere else
    from snapshot_restore_py import register_after_restore as _runtime_after
    from snapshot_restore_py import register_before_snapshot as _runtime_before
except ImportError:  # pragma: no cover - depends on the runtime
    _runtime_after = _runtime_before = None


def before_snapshot(fn: Hook) -> Hook:
    """Register `fn` to run once before the snapshot is taken (decorator)."""
    BEFORE.append(fn)
    if _runtime_before is not None:
        _runtime_before(fn)
    return fn


def after_restore(fn: Hook) -> Hook:
    """Register `fn` to run in every restored environment before its first request (decorator)."""
    AFTER.append(fn)
    if _runtime_after is not None:
        _runtime_after(fn)
    return fn


def run_before_snapshot() -> None:
    """What the runtime does before the snapshot (reverse order of registration)."""
    for fn in reversed(BEFORE):
        fn()


def run_after_restore() -> None:
    """What the runtime does after a restore (order of registration)."""
    for fn in AFTER:
        fn()


def hooked_modules() -> set[str]:
    """Modules that registered an after-restore hook (the snapshot-safety test reads it)."""
    return {fn.__module__ for fn in AFTER}


@after_restore
def _reseed_random() -> None:
    # the global generator was seeded once at init; every restored copy would draw the same
    # sequence (botocore's retry jitter uses it)
    random.seed()


@before_snapshot
def _collect_init_garbage() -> None:
    # registered first, so it runs last: init froze everything it created (partner.init_done,
    # without a collection, to keep cold starts short); before the snapshot a full collection
    # costs no request anything, and the restored copies start without init's garbage
    gc.unfreeze()
    gc.collect()
    gc.freeze()
