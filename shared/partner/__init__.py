"""The Partner API code layer: shared by every function through one Lambda layer.

Init and the garbage collector: importing a function's module creates about 80,000
objects the cyclic collector tracks (boto3 and botocore, solders, this layer) and leaves
a few hundred of them garbage, but at its default thresholds the collector walks them
again and again while they are being created. So the first import of `partner` (every function's first import, before
boto3) raises the youngest generation's threshold for the rest of init, and `init_done()`,
called where a function's handler is built (`observability.instrument_api`, which
`http.entry` calls, and `instrument_scheduled`), moves what init created to the permanent generation
(`gc.freeze`: no later collection walks it again) and restores the thresholds. Nothing is
switched off: collections still run during init, only rarely. With SnapStart the init
garbage is collected before the snapshot (`partner.core.snapshot`). docs/architecture.md "Cold
start" has the figures.
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
