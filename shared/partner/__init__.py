"""The Partner API code layer: shared by every function through one Lambda layer.

Its first import raises the garbage collector's youngest threshold for the rest of init, and
`init_done()` freezes what init created (docs/architecture.md, "Cold start and SnapStart": "Init and
the garbage collector").
"""

import gc as _gc

_THRESHOLDS = _gc.get_threshold()
_gc.set_threshold(100_000, *_THRESHOLDS[1:])
_init = True


def init_done() -> None:
    """The end of init (idempotent): freeze what init created, restore the collector's thresholds."""
    global _init
    if _init:
        _init = False
        _gc.freeze()
        _gc.set_threshold(*_THRESHOLDS)
