"""SnapStart safety: nothing that must be unique or fresh per execution environment is
created at init in the shared layer (or a function's app.py) without a restore hook.

The scan (tests/snapshot_scan.py) runs in a fresh interpreter: it imports every module of
`partner` and every functions/*/app.py, runs the before-snapshot hooks, lists module-level
generators, sockets, TLS contexts, HTTP and AWS clients, then runs the after-restore hooks
and lists which of them are still referenced. The hooks themselves are called directly
below (snapshot_restore_py exists only in the Lambda runtime).
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCAN = ROOT / "tests" / "snapshot_scan.py"


def run_scan(*extra: Path, env: dict[str, str] | None = None) -> dict:
    args = [a for p in extra for a in ("--extra", str(p))]
    environ = {**os.environ, "AWS_DEFAULT_REGION": os.environ.get("AWS_DEFAULT_REGION", "us-east-1"), **(env or {})}
    proc = subprocess.run([sys.executable, str(SCAN), *args], capture_output=True, text=True, timeout=300,
                          env=environ, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def problems(report: dict) -> list[str]:
    """What makes a snapshot unsafe, as readable lines (empty: safe)."""
    out = []
    hooked = set(report["hooked"])
    for f in report["findings"]:
        if f["kind"] == "random module":
            if f["module"] != "partner.snapshot":  # the one place that re-seeds it
                out.append(f"{f['module']}.{f['name']}: uses the `random` module; use `secrets`")
        elif f["module"] not in hooked:
            out.append(f"{f['module']}.{f['name']}: {f['kind']} created at init without an after-restore hook")
    for f in report["kept"]:
        out.append(f"{f['module']}.{f['name']}: {f['kind']} still referenced after the restore hooks ran")
    if report["secret"]:
        out.append("partner.crypto: the KMS-derived hash secret exists before the snapshot")
    return out


def test_shared_layer_and_functions_are_snapshot_safe() -> None:
    report = run_scan()
    assert problems(report) == []
    # what it did find are the cases the hooks exist for (the warmed boto3 session)
    assert {"partner.aws", "partner.crypto", "partner.transport", "partner.tls"} <= set(report["hooked"])


def test_scan_fails_on_planted_hazards(tmp_path: Path) -> None:
    """The same check fails for a module that creates a generator, a socket, a TLS context
    and an HTTP client at import without a hook, and for a hook that keeps the object."""
    unsafe = tmp_path / "unsafe_mod.py"
    unsafe.write_text(textwrap.dedent("""
        import random, socket, ssl
        import httpx
        RNG = random.Random(7)
        SOCK = socket.socket()
        CTX = ssl.create_default_context()
        CLIENTS = {10.0: httpx.Client()}
    """))
    sloppy = tmp_path / "sloppy_mod.py"
    sloppy.write_text(textwrap.dedent("""
        import httpx
        from partner import snapshot
        CLIENT = httpx.Client()

        @snapshot.after_restore
        def restored():
            pass  # registered, but keeps the client
    """))
    report = run_scan(unsafe, sloppy)
    found = problems(report)
    for name in ("unsafe_mod.random", "unsafe_mod.RNG", "unsafe_mod.SOCK", "unsafe_mod.CTX",
                 "unsafe_mod.CLIENTS[10.0]"):
        assert any(line.startswith(name + ":") for line in found), (name, found)
    assert any(line.startswith("sloppy_mod.CLIENT:") and "still referenced" in line for line in found), found


def test_hooks_reach_the_runtime_library(tmp_path: Path) -> None:
    """In Lambda the hooks are registered with snapshot_restore_py (a stand-in here)."""
    fake = tmp_path / "snapshot_restore_py.py"
    fake.write_text("BEFORE, AFTER = [], []\n"
                    "def register_before_snapshot(fn, *a, **k): BEFORE.append(fn.__module__ + '.' + fn.__name__)\n"
                    "def register_after_restore(fn, *a, **k): AFTER.append(fn.__module__ + '.' + fn.__name__)\n")
    code = ("import json, partner.aws, partner.crypto, partner.chain.rpc, snapshot_restore_py as s;"
            "print(json.dumps([s.BEFORE, s.AFTER]))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT / "shared")])})
    assert proc.returncode == 0, proc.stderr
    before, after = json.loads(proc.stdout)
    assert "partner.aws.warm" in before and "partner.lazy.warm" in before
    assert {"partner.snapshot._reseed_random", "partner.aws.restored", "partner.crypto.reset",
            "partner.transport.reset", "partner.tls.reset"} <= set(after)


# ------------------------------------------------------------------ the hooks, called directly


def test_after_restore_drops_clients_secret_and_connections(monkeypatch: pytest.MonkeyPatch) -> None:
    from partner import aws, crypto, snapshot, tls, transport

    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    aws.reset()  # as after init: no client yet (earlier tests in this worker made some)
    snapshot.run_before_snapshot()
    assert aws._session is not None and aws._clients == {}  # warmed, no client kept
    loader = aws._session._session.get_component("data_loader")
    session = aws._session
    ddb = aws.dynamodb()
    plain = transport._pool(3.0, 3.0, False)
    plain.connection_from_url("http://127.0.0.1:1")  # a pool (no connection is opened)
    secure = transport._pool(2.0, 15.0, True)
    ctx = tls.context()
    monkeypatch.setattr(crypto, "_secret", b"k" * 32)

    snapshot.run_after_restore()

    assert crypto._secret is None
    assert aws._clients == {} and aws._session is not session
    assert aws._session._session.get_component("data_loader") is loader  # the loaded models stay
    assert aws.dynamodb() is not ddb
    assert transport._pools == {} and len(plain.pools) == 0 and len(secure.pools) == 0
    assert tls.context() is not ctx


def test_after_restore_reseeds_random() -> None:
    from partner import snapshot

    random.seed(1234)
    first = [random.random() for _ in range(4)]
    random.seed(1234)
    snapshot.run_after_restore()
    assert [random.random() for _ in range(4)] != first


def test_lazy_module_defers_until_first_use_and_warm_loads_it(tmp_path: Path) -> None:
    (tmp_path / "slowmod.py").write_text("import sys\nsys.modules['__main__'].LOADED = True\nVALUE = 42\n")
    code = ("import sys, __main__; __main__.LOADED = False; sys.path.insert(0, %r)\n"
            "from partner import lazy, snapshot\n"
            "m = lazy.module('slowmod'); a = (__main__.LOADED, lazy.loaded('slowmod'))\n"
            "snapshot.run_before_snapshot(); b = (__main__.LOADED, lazy.loaded('slowmod'), m.VALUE)\n"
            "print(a, b)") % str(tmp_path)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "AWS_DEFAULT_REGION": "us-east-1"})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "(False, False) (True, True, 42)"
