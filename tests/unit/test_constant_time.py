"""Every comparison of a secret or of a digest of one is constant-time.

By inspection of the code: no `==`/`!=` in the service's code (shared/partner, functions)
has an operand that names a digest, a MAC, a secret, a CSRF token, a PKCE challenge or
verifier, or a signed session digest; `hmac.compare_digest` and `hmac.new` appear only in
`partner.store.crypto`; and `partner.store.crypto.equal` is `hmac.compare_digest`.
"""

from __future__ import annotations

import ast
import hmac
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CODE_DIRS = (ROOT / "shared" / "partner", ROOT / "functions")

# Identifiers and dict keys that hold a secret or a digest of one. `token` alone is not
# here: it names SPL tokens (balances, programs) all over the chain code.
SECRET_NAME = re.compile(
    r"digest|secret|(^|_)mac($|_)|csrf|challenge|verifier|api_?key|password|^sd$|^cc$", re.IGNORECASE
)


def _sources() -> list[Path]:
    return sorted(p for d in CODE_DIRS for p in d.rglob("*.py"))


def _operand_names(node: ast.AST) -> list[str]:
    """Names, attributes and string keys an operand reads (not inside len())."""
    out: list[str] = []

    def visit(n: ast.AST) -> None:
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "len":
            return  # comparing lengths is not comparing contents
        if isinstance(n, ast.Name):
            out.append(n.id)
        elif isinstance(n, ast.Attribute):
            out.append(n.attr)
        elif isinstance(n, ast.Constant) and isinstance(n.value, str):
            out.append(n.value)
        for child in ast.iter_child_nodes(n):
            visit(child)

    visit(node)
    return out


def secret_equality_comparisons(source: str) -> list[tuple[int, str]]:
    """(line, code) of every ==/!= whose operands name a secret or digest."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare) and any(
            isinstance(op, (ast.Eq, ast.NotEq, ast.Is, ast.IsNot)) for op in node.ops
        ):
            if any(isinstance(op, (ast.Is, ast.IsNot)) for op in node.ops) and any(
                isinstance(c, ast.Constant) and c.value is None for c in (node.left, *node.comparators)
            ):
                continue  # `x is None` is a presence check
            names = [n for operand in (node.left, *node.comparators) for n in _operand_names(operand)]
            if any(SECRET_NAME.search(n) for n in names):
                found.append((node.lineno, ast.unparse(node)))
    return found


def test_the_scanner_finds_what_it_must():
    planted = """
def check(item, presented, form, data, session_digest, key):
    a = presented == key.digest
    b = form.get("csrf") != expected
    c = data.get("sd") != session_digest
    d = item["challenge"] == computed
    e = client_secret == stored
    f = len(digest) == 64            # a length, fine
    g = account.owner == TOKEN_PROGRAM_ID   # public data, fine
    h = stored_digest is None        # presence, fine
"""
    lines = [line for line, _ in secret_equality_comparisons(planted)]
    assert lines == [3, 4, 5, 6, 7]


def test_no_equality_operator_on_secrets_or_digests():
    offenders = [
        f"{path.relative_to(ROOT)}:{line}: {code}"
        for path in _sources()
        for line, code in secret_equality_comparisons(path.read_text())
    ]
    assert offenders == [], "use partner.store.crypto.equal:\n" + "\n".join(offenders)


def test_hmac_lives_only_in_partner_crypto():
    """One module computes and compares MACs of the service's secrets; everything else goes through it.
    The one other MAC is AWS's: partner.store.sigv4 signs AWS requests with the AWS secret key's
    derived key, and compares nothing."""
    users = []
    store = ROOT / "shared" / "partner" / "store"
    for path in _sources():
        if path == store / "crypto.py":
            continue
        text = path.read_text()
        if re.search(r"compare_digest", text) or (path != store / "sigv4.py" and re.search(r"\bhmac\b", text)):
            users.append(str(path.relative_to(ROOT)))
    assert users == []


def _crypto_tree() -> ast.Module:
    return ast.parse((ROOT / "shared" / "partner" / "store" / "crypto.py").read_text())


def test_every_mac_check_in_crypto_is_compare_digest():
    """crypto.verify (signed consent requests) compares its MAC with hmac.compare_digest."""
    tree = _crypto_tree()
    verify = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "verify")
    calls = {ast.unparse(n.func) for n in ast.walk(verify) if isinstance(n, ast.Call)}
    assert "hmac.compare_digest" in calls
    assert secret_equality_comparisons(ast.unparse(tree)) == []


def test_equal_is_compare_digest_based(monkeypatch):
    from partner.store import crypto

    equal = next(n for n in _crypto_tree().body if isinstance(n, ast.FunctionDef) and n.name == "equal")
    calls = [ast.unparse(n.func) for n in ast.walk(equal) if isinstance(n, ast.Call)]
    assert "hmac.compare_digest" in calls
    assert not any(isinstance(n, ast.Compare) for n in ast.walk(equal))

    seen = []
    real = hmac.compare_digest

    def spy(a, b):
        seen.append((a, b))
        return real(a, b)

    monkeypatch.setattr(crypto.hmac, "compare_digest", spy)
    assert crypto.equal("abc", "abc") is True
    assert crypto.equal("abc", b"abd") is False
    assert crypto.equal(b"abc", "abcd") is False
    assert crypto.equal("", "") is True
    assert crypto.equal("é", "é".encode()) is True  # non-ASCII text is compared as UTF-8 bytes
    assert seen == [(b"abc", b"abc"), (b"abc", b"abd"), (b"abc", b"abcd"), (b"", b""), ("é".encode(), "é".encode())]


@pytest.mark.parametrize("presented_index", [None, 0, 2])
def test_api_key_check_compares_every_key_without_early_exit(monkeypatch, presented_index):
    """The key loop compares the presented digest with every key of the client."""
    from partner.core.errors import ApiError
    from partner.features.oauth import client_auth
    from partner.store import crypto, ratelimit
    from partner.store.clients import ApiKey

    keys = {f"k{i}": ApiKey(f"k{i}", f"digest-{i}", "active", 0) for i in range(3)}

    class FakeClient:
        client_id = "ab" * 16
        suspended = False

    FakeClient.keys = keys
    presented = f"digest-{presented_index}" if presented_index is not None else "digest-x"
    compared = []

    def equal(a, b):
        compared.append(b)
        return hmac.compare_digest(str(a).encode(), str(b).encode())

    monkeypatch.setattr(client_auth, "get_client", lambda cid: FakeClient())
    monkeypatch.setattr(ratelimit, "check_lockout", lambda cid: None)
    monkeypatch.setattr(ratelimit, "record_failure", lambda cid: None)
    monkeypatch.setattr(crypto, "digest", lambda value, purpose="secret": presented)
    monkeypatch.setattr(crypto, "equal", equal)
    params = {"client_id": FakeClient.client_id, "client_secret": "app_sk_" + "A" * 43}
    if presented_index is None:
        with pytest.raises(ApiError) as info:
            client_auth.authenticate(None, params)
        assert info.value.code == "invalid_client"
    else:
        assert client_auth.authenticate(None, params).key_id == f"k{presented_index}"
    assert compared == ["digest-0", "digest-1", "digest-2"]
