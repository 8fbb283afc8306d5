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
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCAN = ROOT / "tests" / "snapshot_scan.py"


@pytest.fixture(autouse=True)
def fresh_aws_state(monkeypatch: pytest.MonkeyPatch):
    """These tests drive partner.store.aws's process-wide session with placeholder keys; after
    each, the environment is restored first and then the session forgotten, so nothing later in
    this process signs with them (a leaked AKIAINIT once failed a staged upload's S3 policy)."""
    yield
    from partner.store import aws

    monkeypatch.undo()
    aws.reset()


def run_script(script: Path, *args: str, env: dict[str, str] | None = None) -> Any:
    """Run `script` with `args` in a fresh interpreter at the repository's root; the JSON of its last
    line of output (it must exit 0)."""
    environ = {**os.environ, "AWS_DEFAULT_REGION": os.environ.get("AWS_DEFAULT_REGION", "us-east-1"), **(env or {})}
    proc = subprocess.run(
        [sys.executable, str(script), *args], capture_output=True, text=True, timeout=300, env=environ, cwd=ROOT
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def run_scan(*extra: Path, env: dict[str, str] | None = None) -> dict:
    return run_script(SCAN, *[a for p in extra for a in ("--extra", str(p))], env=env)


def run_python(code: str, env: dict[str, str]) -> str:
    """Run `code` in a fresh interpreter with `env`; its stdout (it must exit 0)."""
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def problems(report: dict) -> list[str]:
    """What makes a snapshot unsafe, as readable lines (empty: safe)."""
    out = []
    hooked = set(report["hooked"])
    for f in report["findings"]:
        if f["kind"] == "random module":
            if f["module"] != "partner.core.snapshot":  # the one place that re-seeds it
                out.append(f"{f['module']}.{f['name']}: uses the `random` module; use `secrets`")
        elif f["module"] not in hooked:
            out.append(f"{f['module']}.{f['name']}: {f['kind']} created at init without an after-restore hook")
    for f in report["kept"]:
        out.append(f"{f['module']}.{f['name']}: {f['kind']} still referenced after the restore hooks ran")
    if report["secret"]:
        out.append("partner.store.crypto: the KMS-derived hash secret exists before the snapshot")
    return out


def test_shared_layer_and_functions_are_snapshot_safe() -> None:
    report = run_scan()
    assert problems(report) == []
    # what it did find are the cases the hooks exist for (the warmed boto3 session)
    assert {"partner.store.aws", "partner.store.crypto", "partner.core.transport", "partner.core.tls"} <= set(
        report["hooked"]
    )
    # the clients made before the snapshot stay, holding no credentials and no connection
    assert {f["name"] for f in report["kept_safe"]} == {
        "_session",
        "_clients['dynamodb']",
        "_clients['kms']",
        "_clients['s3']",
        "_clients['lambda']",  # the tracker's (its fan-out)
    }


def test_scan_fails_on_planted_hazards(tmp_path: Path) -> None:
    """The same check fails for a module that creates a generator, a socket, a TLS context
    and an HTTP client at import without a hook, and for a hook that keeps the object."""
    unsafe = tmp_path / "unsafe_mod.py"
    unsafe.write_text(
        textwrap.dedent("""
        import random, socket, ssl
        import httpx
        RNG = random.Random(7)
        SOCK = socket.socket()
        CTX = ssl.create_default_context()
        CLIENTS = {10.0: httpx.Client()}
    """)
    )
    sloppy = tmp_path / "sloppy_mod.py"
    sloppy.write_text(
        textwrap.dedent("""
        import httpx
        from partner.core import snapshot
        CLIENT = httpx.Client()

        @snapshot.after_restore
        def restored():
            pass  # registered, but keeps the client
    """)
    )
    keyed = tmp_path / "keyed_mod.py"  # a boto3 client with credentials of its own, kept across restore
    keyed.write_text(
        textwrap.dedent("""
        import boto3
        from partner.core import snapshot
        DDB = boto3.client("dynamodb", region_name="us-east-1", aws_access_key_id="AKIAINIT",
                           aws_secret_access_key="init-secret")

        @snapshot.after_restore
        def restored():
            DDB.close()  # connections dropped, credentials kept
    """)
    )
    report = run_scan(unsafe, sloppy, keyed)
    found = problems(report)
    for name in (
        "unsafe_mod.random",
        "unsafe_mod.RNG",
        "unsafe_mod.SOCK",
        "unsafe_mod.CTX",
        "unsafe_mod.CLIENTS[10.0]",
    ):
        assert any(line.startswith(name + ":") for line in found), (name, found)
    assert any(line.startswith("sloppy_mod.CLIENT:") and "still referenced" in line for line in found), found
    assert any(line.startswith("keyed_mod.DDB:") and "still referenced" in line for line in found), found


def test_scan_fails_on_credentials_resolved_before_the_snapshot(tmp_path: Path) -> None:
    """The layer's own clients are flagged as soon as their credentials were resolved at init."""
    eager = tmp_path / "eager_mod.py"
    eager.write_text(
        textwrap.dedent("""
        from partner.core import snapshot
        from partner.store import aws

        @snapshot.before_snapshot
        def resolve():  # registered last, so it runs first: before partner.store.aws.warm
            aws.dynamodb()._request_signer._credentials.get_frozen_credentials()
    """)
    )
    report = run_scan(eager, env={"AWS_ACCESS_KEY_ID": "AKIAINIT", "AWS_SECRET_ACCESS_KEY": "init-secret"})
    found = problems(report)
    assert any(
        line.startswith("partner.store.aws._clients['dynamodb']:") and "still referenced" in line for line in found
    ), found


def test_hooks_reach_the_runtime_library(tmp_path: Path) -> None:
    """In Lambda the hooks are registered with snapshot_restore_py (a stand-in here)."""
    fake = tmp_path / "snapshot_restore_py.py"
    fake.write_text(
        "BEFORE, AFTER = [], []\n"
        "def register_before_snapshot(fn, *a, **k): BEFORE.append(fn.__module__ + '.' + fn.__name__)\n"
        "def register_after_restore(fn, *a, **k): AFTER.append(fn.__module__ + '.' + fn.__name__)\n"
    )
    code = (
        "import json, partner.store.aws, partner.store.crypto, partner.chain.rpc, snapshot_restore_py as s;"
        "print(json.dumps([s.BEFORE, s.AFTER]))"
    )
    out = run_python(code, {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT / "shared")])})
    before, after = json.loads(out)
    assert "partner.store.aws.warm" in before and "partner.core.lazy.warm" in before
    assert {
        "partner.core.snapshot._reseed_random",
        "partner.store.aws.restored",
        "partner.store.crypto.reset",
        "partner.core.transport.reset",
        "partner.core.tls.reset",
    } <= set(after)


# ------------------------------------------------------------------ the hooks, called directly


def test_after_restore_keeps_clients_without_credentials_secret_or_connections(monkeypatch: pytest.MonkeyPatch) -> None:
    from partner.core import snapshot, tls, transport
    from partner.store import aws, crypto

    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIAINIT")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "init-secret")
    aws.reset()  # as after init: no client yet (earlier tests in this worker made some)
    snapshot.run_before_snapshot()
    session, ddb = aws._session, aws._clients["dynamodb"]
    # made before the snapshot (a function's app.py that an earlier test imported adds its own hook and
    # client: the tracker's Lambda client)...
    assert {"dynamodb", "kms", "s3"} <= set(aws._clients)
    assert aws._credentials is not None and not aws._credentials.resolved  # ...holding no credentials
    assert all(c._request_signer._credentials is aws._credentials for c in aws._clients.values())
    aws._credentials.get_frozen_credentials()  # as a request would: resolved credentials, a pool
    ddb._endpoint.http_session._manager.connection_from_url(ddb.meta.endpoint_url)
    assert aws._credentials.resolved and len(ddb._endpoint.http_session._manager.pools) == 1
    plain = transport._pool(3.0, 3.0, False)
    plain.connection_from_url("http://127.0.0.1:1")  # a pool (no connection is opened)
    secure = transport._pool(2.0, 15.0, True)
    ctx = tls.context()
    monkeypatch.setattr(crypto, "_secret", b"k" * 32)

    snapshot.run_after_restore()

    assert crypto._secret is None
    assert aws._session is session and aws.dynamodb() is ddb  # the loaded models stay
    assert not aws._credentials.resolved and len(ddb._endpoint.http_session._manager.pools) == 0
    assert transport._pools == {} and len(plain.pools) == 0 and len(secure.pools) == 0
    assert tls.context() is not ctx
    aws.reset()


def _answer_locally(request, **_):
    """A before-send handler: botocore takes its answer as the response and sends nothing."""
    from botocore.awsrequest import AWSResponse

    _answer_locally.signed.append(request.headers["Authorization"].decode())
    response = AWSResponse(request.url, 200, {}, None)
    response._content = b"{}"
    return response


_answer_locally.signed = []


def test_restored_copy_signs_with_the_credentials_of_its_own_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Credentials are resolved on the first request after a restore, from that environment."""
    from partner.core import snapshot
    from partner.store import aws

    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIAINIT")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "init-secret")
    aws.reset()
    snapshot.run_before_snapshot()
    ddb = aws.dynamodb()
    ddb.meta.events.register("before-send.dynamodb", _answer_locally)
    _answer_locally.signed.clear()
    ddb.get_item(TableName="t", Key={"k": {"S": "v"}})  # served at init (not in production: a dry run)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIARESTORED")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "restored-secret")

    snapshot.run_after_restore()
    ddb.get_item(TableName="t", Key={"k": {"S": "v"}})

    assert [sig.split("Credential=")[1].split("/")[0] for sig in _answer_locally.signed] == ["AKIAINIT", "AKIARESTORED"]
    ddb.meta.events.unregister("before-send.dynamodb", _answer_locally)
    aws.reset()


def test_after_restore_reseeds_random() -> None:
    from partner.core import snapshot

    random.seed(1234)
    first = [random.random() for _ in range(4)]
    random.seed(1234)
    snapshot.run_after_restore()
    assert [random.random() for _ in range(4)] != first


def test_lazy_module_defers_until_first_use_and_warm_loads_it(tmp_path: Path) -> None:
    (tmp_path / "slowmod.py").write_text("import sys\nsys.modules['__main__'].LOADED = True\nVALUE = 42\n")
    code = (
        f"import sys, __main__; __main__.LOADED = False; sys.path.insert(0, {str(tmp_path)!r})\n"
        "from partner.core import lazy, snapshot\n"
        "m = lazy.module('slowmod'); a = (__main__.LOADED, lazy.loaded('slowmod'))\n"
        "snapshot.run_before_snapshot(); b = (__main__.LOADED, lazy.loaded('slowmod'), m.VALUE)\n"
        "print(a, b)"
    )
    out = run_python(code, {**os.environ, "AWS_DEFAULT_REGION": "us-east-1"})
    assert out.strip() == "(False, False) (True, True, 42)"


def _loaded(function: str, module: str) -> list[str]:
    """Whether `module` has executed once `function`'s app is imported, and once the before-snapshot hooks
    have run (a fresh interpreter)."""
    code = (
        "import importlib.util, sys\n"
        f"sys.path.insert(0, {str(ROOT / 'functions' / function)!r})\n"
        f"spec = importlib.util.spec_from_file_location('app', {str(ROOT / 'functions' / function / 'app.py')!r})\n"
        "spec.loader.exec_module(importlib.util.module_from_spec(spec))\n"
        "from partner.core import lazy, snapshot\n"
        f"a = lazy.loaded({module!r})\n"
        f"snapshot.run_before_snapshot(); print(a, lazy.loaded({module!r}))"
    )
    return run_python(code, {**os.environ, "AWS_DEFAULT_REGION": "us-east-1"}).split()


@pytest.mark.parametrize(("function", "module"), [("platform_user_wallet", "partner.store.wallets")])
def test_a_module_some_requests_need_is_deferred_at_init_and_loaded_before_the_snapshot(
    function: str, module: str
) -> None:
    """A module only some requests of a function need (provisioning a wallet needs the sealed-wallet code
    and solders, 34 ms to import here) is not imported when the function is (its cold start without
    SnapStart), and is executed by the before-snapshot hooks: a restored copy's first such request
    imports nothing."""
    assert _loaded(function, module) == ["False", "True"]


@pytest.mark.parametrize(
    ("function", "module"),
    [
        ("account_signin", "partner.core.transport"),  # the code exchange and the provider's documents
        ("account_signin", "partner.core.tls"),  # the provider's keys
        ("oauth_authorize", "partner.features.oauth.signin"),  # a visitor without a session: to sign-in
        ("account_apps", "partner.features.oauth.signin"),
        ("migrator", "partner.store.wallets"),  # the crank wallet's signer
    ],
)
def test_the_modules_a_request_path_imports_are_loaded_before_the_snapshot(function: str, module: str) -> None:
    """No request path of a function leaves a module of the layer to import after a restore."""
    assert _loaded(function, module)[1] == "True"


def warm_calls(run: Callable[[], None] | None = None) -> list[tuple[str, dict]]:
    """`run` (default aws.warm) from a fresh state: the operation name and parsed answer of each call it
    makes, in order."""
    from partner.store import aws

    calls: list[tuple[str, dict]] = []

    def after_call(model, **kwargs):
        calls.append((model.name, kwargs["parsed"]))

    aws.reset()
    aws.add_hook("after-call", after_call)
    try:
        (run or aws.warm)()
    finally:
        aws.remove_hook("after-call", after_call)
    return calls


@pytest.fixture
def offline(monkeypatch: pytest.MonkeyPatch) -> None:
    """Placeholder init credentials, and any connection refused: a dry run must make none."""
    import socket

    def refuse(*_a, **_k):
        raise AssertionError("the dry run opened a connection")

    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIAINIT")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "init-secret")
    monkeypatch.setattr(socket.socket, "connect", refuse)


def test_warm_makes_each_layer_call_without_network_or_credentials(offline: None) -> None:
    """The dry run before the snapshot: every call in DRY_CALLS goes through botocore (serialize,
    sign with placeholder keys, parse) and none reaches a socket or resolves credentials."""
    from partner.store import aws

    seen = [name for name, _ in warm_calls()]
    assert len(seen) == sum(len(calls) for calls in aws.DRY_CALLS.values())
    assert {"GetItem", "GenerateMac", "PutObject"} <= set(seen)
    assert not aws._credentials.resolved
    assert all(len(c._endpoint.http_session._manager.pools) == 0 for c in aws._clients.values())
    aws.reset()


def test_warm_builds_the_credential_chain_and_a_restored_copy_only_loads_from_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The provider chain (its providers and fetchers) is built before the snapshot, nothing loaded from
    it; after the restore the same chain loads the credentials of the restored environment."""
    from partner.core import snapshot
    from partner.store import aws

    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIAINIT")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "init-secret")
    aws.reset()
    snapshot.run_before_snapshot()
    creds = aws._credentials
    assert creds is not None and creds._resolver is not None and not creds.resolved
    chain = creds._resolver
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIARESTORED")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "restored-secret")

    snapshot.run_after_restore()

    assert creds._resolver is chain and not creds.resolved
    assert creds.get_frozen_credentials().access_key == "AKIARESTORED"
    aws.reset()


def test_warm_answers_each_dry_call_with_the_shapes_of_a_real_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    """The dry run's answers carry what real ones do (an item of every attribute type, a MAC, a
    plaintext), so their parsing before the snapshot leaves botocore's output shapes resolved."""
    from partner.store import aws

    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    parsed = dict(warm_calls())
    types = {"S", "N", "B", "SS", "NS", "BS", "M", "L", "BOOL", "NULL"}
    assert {t for value in parsed["GetItem"]["Item"].values() for t in value} == types
    assert parsed["BatchGetItem"]["Responses"]["snapshot"][0]["pk"] == {"S": "snapshot"}
    assert parsed["Query"]["Items"] and parsed["UpdateItem"]["Attributes"]
    assert parsed["GenerateMac"]["Mac"] == b"snapshot" and parsed["Decrypt"]["Plaintext"] == b"snapshot"
    assert "TransactWriteItems" in parsed
    aws.reset()


def test_warm_loads_the_idna_codec_a_first_connection_uses() -> None:
    """urllib3 encodes the host name of every new connection with the IDNA codec; its first use imports
    encodings.idna (and stringprep, unicodedata). The before-snapshot hooks load it."""
    code = (
        "import sys\n"
        "from partner.store import aws\n"
        "from partner.core import snapshot\n"
        "before = 'encodings.idna' in sys.modules\n"
        "snapshot.run_before_snapshot()\n"
        "print(before, 'encodings.idna' in sys.modules)"
    )
    assert run_python(code, {**os.environ, "AWS_DEFAULT_REGION": "us-east-1"}).strip() == "False True"


def test_the_trackers_lambda_client_is_made_before_the_snapshot(offline: None) -> None:
    """The tracker hands partitions out with Lambda's Invoke: its client (service model, endpoint rules,
    serializer and parser) is made before the snapshot by a dry run, without a connection or credentials,
    so the first scheduled run after a restore does not build it (it did, on its critical path)."""
    from partner.core import snapshot
    from partner.jobs import tracker  # noqa: F401  # registers its hook
    from partner.store import aws

    try:
        seen = [name for name, _ in warm_calls(snapshot.run_before_snapshot)]
        assert "Invoke" in seen
        assert "lambda" in aws._clients and not aws._credentials.resolved
    finally:
        aws.reset()


def test_a_restored_copys_first_call_finds_its_event_handlers_already_looked_up(
    offline: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The dry run leaves each client's event-handler lookups resolved for the restored copy's first real
    call: botocore drops all of a client's resolved lookups whenever a handler is registered on it or
    removed, so the dry run's local answer stays registered and answers only inside a dry run."""
    import botocore.hooks
    from botocore.awsrequest import AWSResponse

    from partner.core import snapshot
    from partner.store import aws

    aws.reset()
    snapshot.run_before_snapshot()
    snapshot.run_after_restore()
    ddb = aws.dynamodb()

    def answer(request):  # the service's answer, without a connection
        response = AWSResponse(request.url, 200, {}, None)
        response._content = b'{"Item": {"pk": {"S": "v"}}}'
        return response

    monkeypatch.setattr(ddb._endpoint.http_session, "send", answer)
    looked_up: list[str] = []
    search = botocore.hooks._PrefixTrie.prefix_search

    def counted(trie, key):
        looked_up.append(key)
        return search(trie, key)

    monkeypatch.setattr(botocore.hooks._PrefixTrie, "prefix_search", counted)
    assert ddb.get_item(TableName="t", Key={"pk": {"S": "v"}})["Item"] == {"pk": {"S": "v"}}
    assert looked_up == []
    aws.reset()


FUNCTIONS = sorted(p.name for p in (ROOT / "functions").iterdir() if (p / "app.py").exists())
# Imports inside functions that a restored copy may still run, and why that is right:
# the X-Ray SDK exists only in the Lambda layer and only with tracing on, and then
# observability._warm_tracer imports it before the snapshot (these scans run with tracing off).
RUN_AFTER_RESTORE = {
    "partner.core.observability._warm_tracer -> aws_xray_sdk.ext.httplib",
    "partner.core.observability.tracer -> aws_xray_sdk.ext.httplib",
}


@pytest.mark.parametrize("function", FUNCTIONS)
def test_no_import_inside_a_function_is_left_for_after_the_restore(function: str) -> None:
    """Every import inside a function of the layer's loaded modules names a module already executed once
    the function is imported and its before-snapshot hooks have run (tests/restored_imports.py): a
    restored copy's first request on any path imports nothing. Where only some requests need a module,
    `lazy.module` defers it at init and the hooks execute it."""
    left = set(run_script(ROOT / "tests" / "restored_imports.py", function))
    assert left - RUN_AFTER_RESTORE == set()
