"""The one way the shared layer defers an import: `name = lazy.module("name")`.

A cold start pays for every module imported before the handler's first line runs. The
rule for third-party packages:

* every request of the functions importing the module needs it: a plain import at the top
  of the file (boto3, solders, Powertools' logger);
* only some requests need it: bind it at module level with `lazy.module(...)`; the name is
  a real module object (the standard library's `importlib.util.LazyLoader`) that executes on
  its first attribute access (urllib3 in partner.core.transport: only requests that reach the
  chain or the pin server);
* an import inside a function: a third-party package only when it is optional (the X-Ray
  SDK exists only in Lambda); a module of the layer where a top-level import would close an
  import cycle or only one rarely taken path needs it.

With SnapStart every deferred module is imported before the snapshot (`warm`, a
before-snapshot hook), so a restored environment pays for none of them.
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
