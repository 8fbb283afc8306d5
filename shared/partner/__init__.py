"""The Partner API code layer: shared by every function through one Lambda layer.

In a Lambda environment's init (`AWS_LAMBDA_INITIALIZATION_TYPE` is set), its first import raises the
garbage collector's youngest threshold for the rest of init, and `init_done()` freezes what init
created (docs/architecture.md, "Cold start and SnapStart": "Init and the garbage collector"). Any other
process importing it (a test, the devstack's gateway) keeps the collector as it was.
"""

import gc as _gc
import os as _os

_THRESHOLDS = _gc.get_threshold()
_init = bool(_os.environ.get("AWS_LAMBDA_INITIALIZATION_TYPE"))
if _init:
    _gc.set_threshold(100_000, *_THRESHOLDS[1:])


def init_done() -> None:
    """The end of init (idempotent; nothing outside a Lambda init): freeze what init created, restore
    the collector's thresholds."""
    global _init
    if _init:
        _init = False
        _gc.freeze()
        _gc.set_threshold(*_THRESHOLDS)
