"""The one way the shared layer defers an import: `name = lazy.module("name")`.

A cold start pays for every module imported before the handler's first line runs. A
module that only some requests need (httpx for the chain and the pin server, boto3's
session machinery, ...) is bound at module level with `lazy.module(...)`: the name is a
real module object (the standard library's `importlib.util.LazyLoader`), and the module
executes on its first attribute access, e.g. the first `httpx.Client(...)`.

The rule: a module-level import of a third-party package that a function's import path
does not need on every request goes through `lazy.module`; everything else is a plain
import at the top of the file. No imports inside functions for speed.

With SnapStart every deferred module is imported before the snapshot (`warm`, a
before-snapshot hook), so a restored environment pays for none of them.
"""

from __future__ import annotations

import importlib.util
import sys
import threading
from types import ModuleType

from partner import snapshot

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
    return mod is not None and not isinstance(mod, importlib.util._LazyModule)


@snapshot.before_snapshot
def warm() -> None:
    """Execute every deferred module now (before the snapshot: restored copies have them)."""
    for name in list(DEFERRED):
        getattr(sys.modules[name], "__name__")
