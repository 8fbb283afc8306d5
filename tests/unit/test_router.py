"""partner.router: the same answers as Powertools' APIGatewayRestResolver (which the functions
used before), per-thread request state, and no Powertools event_handler or asyncio import."""

from __future__ import annotations

import json
import subprocess
import sys
import threading

import pytest
from aws_lambda_powertools.event_handler import APIGatewayRestResolver
from aws_lambda_powertools.event_handler import Response as PtResponse

from devstack.events import api_event
from partner.router import App, Response


class Boom(Exception):
    pass


class SubBoom(Boom):
    pass


def build(app, response_cls):
    @app.get("/partner/v1/governance/<mint>")
    def read(mint: str):
        ev = app.current_event
        body = {"mint": mint, "auth": ev.headers.get("Authorization"), "keys": sorted(ev.headers),
                "limit": ev.get_query_string_value("limit"), "multi": ev.multi_value_query_string_parameters,
                "path": ev.path, "body": ev.decoded_body}
        return response_cls(status_code=200, content_type="application/json", body=json.dumps(body),
                            headers={"X-One": "1", "X-Many": ["a", "b"]})

    @app.post("/oauth/authorize/")
    def decide():
        if app.current_event.decoded_body == "boom":
            raise SubBoom("x")
        if app.current_event.decoded_body == "other":
            raise KeyError("k")
        return response_cls(status_code=302, headers={"Location": "https://x/cb?code=1", "Cache-Control": "no-store"})

    @app.exception_handler(Boom)
    def boom(exc):
        return response_cls(status_code=418, content_type="application/json", body='{"e":"boom"}')

    @app.exception_handler(Exception)
    def anything(exc):
        return response_cls(status_code=500, content_type="text/plain", body=type(exc).__name__)

    @app.not_found
    def missing(exc):
        return response_cls(status_code=404, content_type="application/json", body='{"error":"not_found"}')

    return app


EVENTS = [
    api_event("GET", "/partner/v1/governance/So11111111111111111111111111111111111111112",
              headers={"Authorization": "Bearer x", "X-Mixed-Case": "v"}, query={"limit": "5"}),
    api_event("GET", "/partner/v1/governance/a%20b~c:d@e/", query={"limit": ["1", "2"]}),
    api_event("GET", "/partner/v1/governance/a/b"),
    api_event("GET", "/partner/v1/governance/"),
    api_event("POST", "/partner/v1/governance/abc"),
    api_event("POST", "/oauth/authorize", body="ok"),
    api_event("POST", "/oauth/authorize//", body="ok"),
    api_event("POST", "/oauth/authorize", body="boom"),
    api_event("POST", "/oauth/authorize", body="other"),
    api_event("GET", "/oauth/authorize"),
    api_event("HEAD", "/partner/v1/governance/abc"),
    {**api_event("GET", "/partner/v1/governance/abc", body="aGVsbG8="), "isBase64Encoded": True},
]


@pytest.mark.parametrize("event", EVENTS, ids=[f"{e['httpMethod']} {e['path']}" for e in EVENTS])
def test_same_answer_as_powertools(event):
    ours = build(App(), Response).resolve(event, None)
    theirs = build(APIGatewayRestResolver(), PtResponse).resolve(event, None)
    theirs["multiValueHeaders"] = dict(theirs["multiValueHeaders"])
    assert ours == theirs


def test_bytes_body_is_base64():
    app = App()

    @app.get("/b")
    def b():
        return Response(200, "application/octet-stream", b"\x00\x01")

    out = app.resolve(api_event("GET", "/b"))
    assert out["isBase64Encoded"] is True and out["body"] == "AAE="


def test_current_event_is_per_thread():
    app = App()
    seen: dict[str, str] = {}
    inside = threading.Barrier(2)

    @app.get("/who/<name>")
    def who(name: str):
        inside.wait(timeout=10)  # both requests are in flight at once
        seen[name] = app.current_event.path
        return Response(200, "text/plain", name)

    threads = [threading.Thread(target=app.resolve, args=(api_event("GET", f"/who/{n}"),)) for n in ("a", "b")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert seen == {"a": "/who/a", "b": "/who/b"}


def test_functions_import_neither_powertools_event_handler_nor_asyncio():
    """No function's import pulls in Powertools' event handler (its package loads every resolver
    and asyncio), pydantic or httpx: docs/architecture.md, "Cold start". (Powertools' Logger and
    Metrics are imported: partner.observability.)"""
    root = __import__("pathlib").Path(__file__).resolve().parents[2]
    code = ("import importlib.util, json, sys\n"
            "out = {}\n"
            "for path in sorted(__import__('pathlib').Path('functions').glob('*/app.py')):\n"
            "    before = set(sys.modules)\n"
            "    spec = importlib.util.spec_from_file_location('fn_' + path.parent.name, path)\n"
            "    spec.loader.exec_module(importlib.util.module_from_spec(spec))\n"
            "    out[path.parent.name] = sorted(m for m in sys.modules if m.startswith(("
            "'aws_lambda_powertools.event_handler', 'asyncio', 'pydantic', 'httpx')))\n"
            "print(json.dumps(out))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, cwd=str(root))
    assert out.returncode == 0, out.stderr
    found = json.loads(out.stdout)
    assert len(found) >= 22 and "trades_quote" in found
    assert {name: mods for name, mods in found.items() if mods} == {}
