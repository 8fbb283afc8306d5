"""Finds what a SnapStart snapshot would freeze into every restored environment.

Run in a fresh interpreter (tests/unit/test_snapshot_safety.py does):

    python tests/snapshot_scan.py [--extra FILE.py ...]

Imports every module of the shared layer (package `partner`) and every function's app.py,
as Lambda's init would, then runs the before-snapshot hooks, and lists each module global
(and each value one level inside a dict, list, tuple or set global) that must be unique or
fresh per execution environment:

* random.Random instances (a seeded generator; SystemRandom is fine) and the `random`
  module itself used as a module global (service code draws from `secrets`);
* sockets, SSL contexts and sockets, HTTP clients and connection pools (httpx, urllib3,
  http.client);
* boto3 / botocore sessions and clients (pooled connections, cached credentials).

`--extra` files are imported too, as modules named after the file (the test plants one to
show the scan catches a hazard).

Then it runs the after-restore hooks and lists which of those objects are still referenced.
A boto3/botocore session or client may stay (its loaded service models are what the
snapshot is for) only when it holds no credentials and no open connection after the hooks:
its credentials are `partner.store.aws.DeferredCredentials` with nothing resolved (before the
snapshot too) and its connection pools are empty.
Prints one JSON object: findings (module, name, kind), hooked (modules with an
after-restore hook), kept (findings still referenced after the restore hooks, the safe AWS
objects left out), kept_safe (those AWS objects), secret (whether the KMS-derived hash
secret exists before the snapshot).
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import pkgutil
import random
import socket
import ssl
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

HTTP_CLASSES = {
    ("httpx", "Client"),
    ("httpx", "AsyncClient"),
    ("httpx", "HTTPTransport"),
    ("urllib3", "PoolManager"),
    ("urllib3", "HTTPConnectionPool"),
    ("urllib3", "HTTPSConnectionPool"),
    ("http.client", "HTTPConnection"),
    ("http.client", "HTTPSConnection"),
}
AWS_CLASSES = {("boto3.session", "Session"), ("botocore.session", "Session"), ("botocore.client", "BaseClient")}


def kind(value: Any) -> str | None:
    if isinstance(value, ModuleType):
        return "random module" if value is random else None
    if isinstance(value, random.Random) and not isinstance(value, random.SystemRandom):
        return "random.Random"
    if isinstance(value, socket.socket | ssl.SSLSocket):
        return "socket"
    if isinstance(value, ssl.SSLContext):
        return "ssl.SSLContext"
    for cls in type(value).__mro__:
        top = cls.__module__.split(".")[0]
        if (top, cls.__name__) in HTTP_CLASSES or (cls.__module__, cls.__name__) in HTTP_CLASSES:
            return f"http client ({cls.__module__}.{cls.__name__})"
        if (cls.__module__, cls.__name__) in AWS_CLASSES:
            return f"aws ({cls.__module__}.{cls.__name__})"
    return None


def _values(value: Any) -> list[tuple[str, Any]]:
    if isinstance(value, dict):
        return [(f"[{k!r}]", v) for k, v in list(value.items())]
    if isinstance(value, list | tuple | set | frozenset):
        return [(f"[{i}]", v) for i, v in enumerate(value)]
    return []


def scan(prefixes: tuple[str, ...]) -> list[dict[str, Any]]:
    found = []
    for mod_name, mod in list(sys.modules.items()):
        if not isinstance(mod, ModuleType) or not mod_name.startswith(prefixes):
            continue
        for name, value in list(vars(mod).items()):
            if name.startswith("__"):
                continue
            for label, item in [(name, value), *((name + sub, v) for sub, v in _values(value))]:
                k = kind(item)
                if k is not None:
                    found.append({"module": mod_name, "name": label, "kind": k, "id": id(item)})
    return found


def import_all(extra: list[Path]) -> list[str]:
    """Every module of `partner` and every functions/<name>/app.py (as fn_<name>)."""
    import partner

    names = ["partner"]
    for info in pkgutil.walk_packages(partner.__path__, "partner."):
        importlib.import_module(info.name)
        names.append(info.name)
    for path in [*sorted((ROOT / "functions").glob("*/app.py")), *extra]:
        name = f"fn_{path.parent.name}" if path.name == "app.py" else path.stem
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        names.append(name)
    return names


def _credentials_of(value: Any) -> Any:
    if hasattr(value, "_request_signer"):  # a botocore client
        return value._request_signer._credentials
    core = getattr(value, "_session", value)  # a boto3 session wraps a botocore one
    return getattr(core, "_credentials", None)


def aws_holds_nothing(value: Any) -> bool:
    """A session or client whose credentials are deferred and unresolved, with no pooled connection."""
    from partner.store.aws import DeferredCredentials

    creds = _credentials_of(value)
    if creds is not None and not (isinstance(creds, DeferredCredentials) and not creds.resolved):
        return False
    endpoint = getattr(value, "_endpoint", None)
    if endpoint is not None:
        http = endpoint.http_session
        managers = [http._manager, *http._proxy_managers.values()]
        if any(len(m.pools) for m in managers):
            return False
    return True


def main(argv: list[str]) -> None:
    extra = [Path(a) for a in argv if a != "--extra"]
    prefixes = ("partner", "fn_", *(p.stem for p in extra))
    import_all(extra)
    from partner.core import snapshot
    from partner.store import crypto

    snapshot.run_before_snapshot()
    findings = scan(prefixes)
    objects = {f["id"]: f for f in findings}
    values = {
        id(v): v
        for m in list(sys.modules.values())
        if isinstance(m, ModuleType)
        for name, value in list(vars(m).items())
        for v in [value, *(x for _, x in _values(value))]
        if id(v) in objects
    }
    unsafe_before = {i for i, v in values.items() if objects[i]["kind"].startswith("aws") and not aws_holds_nothing(v)}
    secret = crypto._secret is not None
    snapshot.run_after_restore()
    after = {f["id"] for f in scan(prefixes)}
    kept, kept_safe = [], []
    for f in findings:
        if f["id"] not in after or f["kind"] == "random module":
            continue
        safe = f["kind"].startswith("aws") and f["id"] not in unsafe_before and aws_holds_nothing(values[f["id"]])
        (kept_safe if safe else kept).append(f)
    print(
        json.dumps(
            {
                "findings": findings,
                "hooked": sorted(snapshot.hooked_modules()),
                "kept": kept,
                "kept_safe": kept_safe,
                "secret": secret,
            }
        )
    )


if __name__ == "__main__":
    main(sys.argv[1:])
