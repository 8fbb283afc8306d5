"""Schemathesis against docs/openapi.json through the devstack gateway.

For every operation of the document, generated requests (valid and schema-violating),
sent with a real access token carrying every scope (and real client credentials on
/oauth/token and /oauth/revoke), must never produce:

* a 5xx other than the documented transient codes: 502 `rpc_unavailable`,
  `wallet_sign_failed`, `pinning_unavailable`, or 500 `internal` with `retryable` true
  that did not come from an unhandled exception (answered with the catalogue's own message);
* an error body without the Error shape: `error` a string always, `message` a string
  when present. The one documented exception is the per-endpoint bucket's 429, whose
  body carries no `error` (spec, Limits) but `message` and `retryAfterSeconds`.

Examples are bounded so the module runs in well under two minutes; each operation gets
its own client and token (fresh per-endpoint buckets) and its own loopback address
(fresh per-IP OAuth buckets).
"""

from __future__ import annotations

import base64
import random
from pathlib import Path

import httpx
import pytest
import requests
import schemathesis
from hypothesis import HealthCheck, settings
from requests.adapters import HTTPAdapter

from partner.core.errors import CATALOGUE

ROOT = Path(__file__).resolve().parents[2]
OPENAPI = ROOT / "docs" / "openapi.json"
MAX_EXAMPLES = 10
TRANSIENT_502 = {"rpc_unavailable", "wallet_sign_failed", "pinning_unavailable"}

if not OPENAPI.exists():  # pragma: no cover - the document is generated into the repository
    pytest.skip("docs/openapi.json is not there", allow_module_level=True)

schema = schemathesis.openapi.from_path(str(OPENAPI))
schema.config.generation.update(
    modes=[schemathesis.GenerationMode.POSITIVE, schemathesis.GenerationMode.NEGATIVE],
    max_examples=MAX_EXAMPLES,
    no_shrink=True,
    deterministic=True,
    database="none",
)
schema.config.phases.update(phases=["examples", "fuzzing"])


def _loopback() -> str:
    return f"127.{random.randint(64, 250)}.{random.randint(1, 250)}.{random.randint(2, 250)}"


class _SourceAddressAdapter(HTTPAdapter):
    def __init__(self, address: str) -> None:
        self._address = address
        super().__init__()

    def init_poolmanager(self, *args, **kwargs):
        kwargs["source_address"] = (self._address, 0)
        return super().init_poolmanager(*args, **kwargs)


@pytest.fixture
def caller(devstack):
    """A fresh client and user connected with every scope, and a session on a fresh address."""
    from tests.e2e.test_abuse import connect

    address = _loopback()
    with httpx.Client(
        base_url=devstack.url, timeout=60, follow_redirects=False, transport=httpx.HTTPTransport(local_address=address)
    ) as http:
        party = connect(http, name="Schemathesis App")
    session = requests.Session()
    adapter = _SourceAddressAdapter(_loopback())
    session.mount("http://", adapter)
    yield party, session
    session.close()


def headers_for(case, party) -> dict[str, str]:
    headers = {"Accept": "application/json"}
    if case.path.startswith("/partner/v1/"):
        headers["Authorization"] = f"Bearer {party.access}"
    elif case.path in ("/oauth/token", "/oauth/revoke") and "authorization" not in {
        k.lower() for k in (case.headers or {})
    }:
        headers["Authorization"] = "Basic " + base64.b64encode(":".join(party.basic).encode()).decode()
    return headers


def _header(response, name: str) -> str:
    for key, value in response.headers.items():
        if key.lower() == name:
            return value[0] if isinstance(value, list) else value
    return ""


def documented_types(case, status: int) -> set[str]:
    """The content types docs/openapi.json gives for this operation's `status` answer."""
    import json

    document = json.loads(OPENAPI.read_text())
    answer = document["paths"][case.path][case.method.lower()]["responses"].get(str(status)) or {}
    return set(answer.get("content") or {})


def check_response(case, response) -> None:
    status = response.status_code
    where = f"{case.method} {case.formatted_path} -> {status}: {response.text[:300]}"
    if status < 400:
        return
    ctype = _header(response, "content-type")
    if ctype.startswith("text/html") and "text/html" in documented_types(case, status):
        # a browser route whose refusals the document gives as an HTML page (the sign-in callback:
        # the provider redirects the browser there, whatever it accepts)
        assert response.text.lstrip().lower().startswith("<!doctype html>"), where
        return
    assert ctype.startswith("application/json"), where
    body = response.json()
    assert isinstance(body, dict), where
    if status == 429 and "error" not in body:
        # the per-endpoint bucket (spec: no `error` code), still a well-formed answer
        assert isinstance(body.get("message"), str) and isinstance(body.get("retryAfterSeconds"), int), where
        assert _header(response, "retry-after"), where
        return
    assert isinstance(body.get("error"), str) and body["error"], where
    if "message" in body:
        assert isinstance(body["message"], str), where
    # an exception no code path expected: the resolvers log it and answer the catalogue's own message
    assert (body["error"], body.get("message")) != ("internal", CATALOGUE["internal"][1]), f"unhandled: {where}"
    if status >= 500:
        if status == 502:
            assert body["error"] in TRANSIENT_502, where
        else:
            assert status == 500 and body["error"] == "internal" and body.get("retryable") is True, where


@schema.parametrize()
@settings(
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.filter_too_much],
    deadline=None,
)
def test_generated_requests_get_no_undocumented_5xx_and_well_formed_errors(case, devstack, caller):
    party, session = caller  # one client, token and address per operation (fixtures are per test item)
    response = case.call(
        base_url=devstack.url, session=session, headers=headers_for(case, party), timeout=30, allow_redirects=False
    )
    check_response(case, response)


# ------------------------------------------------------------------ the edges (issue 17 item 15)
# For every operation of the document, besides the generated requests: a body that is not text,
# deep nesting, a trailing newline on each integer string and the u64 extremes of each, sent
# through the gateway. The check is stricter than above: never a 5xx at all.


def _edge_bodies(path: str) -> list[tuple[str, bytes | str, str]]:
    """(what, body, content type) for one path: the same route bodies the in-process fuzz test uses."""
    from tests.integration.test_fuzz_edges import ROUTES, U64_EXTREMES, encode

    out: list[tuple[str, bytes | str, str]] = [
        ("binary", b"\xff\xfe\x80\x00{\xc3\x28", "application/octet-stream"),
        ("binary-json", b"\xff\xfe\x80\x00{\xc3\x28", "application/json"),
        ("nesting-20000", "[" * 20_000 + "]" * 20_000, "application/json"),
        ("nesting-unclosed", '{"a":' * 12_000, "application/json"),
    ]
    found = [(fn, spec) for fn, spec in ROUTES.items() if spec[1] == path and spec[3]]
    for function, (_, _, _, fields) in found:
        for name, value in fields.items():
            if isinstance(value, str) and value.isdigit():
                for what, new in [("newline", value + "\n"), *((f"u64-{v}", v) for v in U64_EXTREMES)]:
                    body, ctype = encode(function, {**fields, name: new})
                    out.append((f"{name}-{what}", body, ctype))
    return out


_OPERATIONS = [result.ok() for result in schema.get_all_operations()]


def _send_edges(operation, devstack, caller) -> None:
    party, session = caller
    case = operation.Case()
    headers = headers_for(case, party)
    for what, body, ctype in _edge_bodies(operation.path):
        response = session.request(
            operation.method.upper(),
            devstack.url + operation.path,
            data=body,
            headers={**headers, "Content-Type": ctype},
            timeout=30,
            allow_redirects=False,
        )
        assert response.status_code < 500, (what, response.status_code, response.text[:300])
        check_response(case, response)


@pytest.mark.parametrize(
    "operation",
    [op for op in _OPERATIONS if op.method.upper() == "POST"],
    ids=lambda op: f"{op.method.upper()} {op.path}",
)
def test_edge_bodies_never_5xx(operation, devstack, caller):
    _send_edges(operation, devstack, caller)
