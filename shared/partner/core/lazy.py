"""The one way the shared layer defers an import: `name = lazy.module("name")`, a real module object
(the standard library's `LazyLoader`) that executes on first attribute access. With SnapStart `warm`
executes every deferred module before the snapshot. When to use it: docs/architecture.md, "Cold
start and SnapStart" ("Imports, one rule").
"""

from __future__ import annotations

import importlib.util
import sys
import threading
from types import ModuleType

from partner.core import snapshot

_lock = threading.Lock()
DEFERRED: list[str] = []


def module(name: str) -> ModuleType:
    """`name`, imported on first attribute access (already imported: returned as is)."""
    with _lock:
        found = sys.modules.get(name)
        if found is not None:
            return found
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        loader = importlib.util.LazyLoader(spec.loader)
        spec.loader = loader
        mod = importlib.util.module_from_spec(spec)
        sys.modules[name] = mod
        loader.exec_module(mod)
        DEFERRED.append(name)
        return mod


def loaded(name: str) -> bool:
    """True once `name` has really executed (not just a pending lazy module)."""
    mod = sys.modules.get(name)
    return mod is not None and not isinstance(mod, importlib.util._LazyModule)  # type: ignore[attr-defined]  # typeshed omits this private class


@snapshot.before_snapshot
def warm() -> None:
    """Execute every deferred module now (before the snapshot: restored copies have them)."""
    for name in list(DEFERRED):
        _ = sys.modules[name].__name__  # an attribute read executes the deferred module
