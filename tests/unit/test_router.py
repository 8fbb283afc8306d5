"""The functions' resolver: Powertools' APIGatewayRestResolver as `http.make_app` sets it up (errors as the
spec's Error object, 404 not_found), per-thread request state under the devstack's threads, and what a
function imports."""

from __future__ import annotations

import json
import subprocess
import sys

from aws_lambda_powertools.event_handler import Response

from devstack.events import ApiRequest, api_event
from partner.core.errors import ApiError
from partner.edge import http


def test_errors_and_unknown_routes_are_the_error_object():
    app = http.make_app()

    @app.get("/partner/v1/governance/<mint>")
    def read(mint: str):
        if mint == "boom":
            raise KeyError("k")
        raise ApiError("governance_not_found")

    out = app.resolve(api_event(ApiRequest("GET", "/partner/v1/governance/abc/")), None)
    assert (out["statusCode"], json.loads(out["body"])["error"]) == (404, "governance_not_found")
    out = app.resolve(api_event(ApiRequest("GET", "/partner/v1/nothing")), None)
    assert (out["statusCode"], json.loads(out["body"])["error"]) == (404, "not_found")
    out = app.resolve(api_event(ApiRequest("POST", "/partner/v1/governance/abc")), None)
    assert (out["statusCode"], json.loads(out["body"])["error"]) == (404, "not_found")
    out = app.resolve(api_event(ApiRequest("GET", "/partner/v1/governance/boom")), None)
    assert (out["statusCode"], json.loads(out["body"])["error"]) == (500, "internal")
    assert out["multiValueHeaders"]["Content-Type"] == ["application/json"]


def test_bytes_body_is_base64():
    app = http.make_app()

    @app.get("/b")
    def b():
        return Response(200, "application/octet-stream", b"\x00\x01")

    out = app.resolve(api_event(ApiRequest("GET", "/b")), None)
    assert out["isBase64Encoded"] is True and out["body"] == "AAE="


def test_api_functions_use_powertools_and_pydantic_and_not_httpx():
    """Every API function answers through Powertools' event handler (`APIGatewayRestResolver`, or
    `http.Resolver`, its subclass routing on API Gateway's resource) with pydantic validation
    (docs/architecture.md, "Dependencies"); none imports httpx (partner.core.transport)."""
    root = __import__("pathlib").Path(__file__).resolve().parents[2]
    code = (
        "import importlib.util, json, sys\n"
        "out = {}\n"
        "for path in sorted(__import__('pathlib').Path('functions').glob('*/app.py')):\n"
        "    before = set(sys.modules)\n"
        "    spec = importlib.util.spec_from_file_location('fn_' + path.parent.name, path)\n"
        "    module = importlib.util.module_from_spec(spec)\n"
        "    spec.loader.exec_module(module)\n"
        "    kinds = [c.__name__ for c in type(getattr(module, 'app', None)).__mro__]\n"
        "    out[path.parent.name] = ['APIGatewayRestResolver' if 'APIGatewayRestResolver' in kinds else kinds[0], "
        "sorted({m.split('.')[0] for m in sys.modules if m.startswith(('pydantic.', 'httpx'))})]\n"
        "print(json.dumps(out))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, cwd=str(root))
    assert out.returncode == 0, out.stderr
    found = json.loads(out.stdout)
    assert len(found) >= 22 and "trades_quote" in found
    scheduled = {"migrator", "tracker", "webhook_delivery"}
    assert {name: kind for name, (kind, _) in found.items() if name not in scheduled} == {
        name: "APIGatewayRestResolver" for name in found if name not in scheduled
    }
    assert {name: mods for name, (_, mods) in found.items() if name not in scheduled and mods != ["pydantic"]} == {}


def test_every_route_shows_its_scope_and_body_as_the_document_gives_them():
    """Each functions/<name>/app.py declares its routes in the resolver's decorator style: a route the
    document gives a bearer scope is admitted (`http.requires`) with that scope, a JSON route takes the
    body model the document describes, and no route function's signature is rewritten."""
    import inspect
    import re
    import typing
    from pathlib import Path

    from pydantic import BaseModel

    from testkit.helpers import _modules, handler
    from tools import openapi

    doc = openapi.generate()
    ops = {(m.upper(), path): op for path, item in doc["paths"].items() for m, op in item.items()}
    seen = set()
    for app_py in sorted((Path(__file__).resolve().parents[2] / "functions").glob("*/app.py")):
        handler(app_py.parent.name)
        app = getattr(_modules[app_py.parent.name], "app", None)
        for route in app.declared if app is not None else []:
            key = (route.method, re.sub(r"<(\w+)>", r"{\1}", route.rule))
            if key[1].startswith("/platform/v1/"):  # IAM-authorized, outside the partner document
                continue
            op, fn = ops[key], route.fn
            seen.add(key)
            assert "__signature__" not in vars(fn) and "__signature__" not in vars(inspect.unwrap(fn)), key
            security = op.get("security", [])
            bearer = {"bearerAuth": []} in security
            scope = tuple(s for req in security for s in req.get("oauth2", [])) if bearer else None
            expected = "no admission" if scope is None else (scope[0] if len(scope) == 1 else scope or None)
            assert getattr(fn, "scope", "no admission") == expected, key
            hints = typing.get_type_hints(inspect.unwrap(fn), include_extras=False).values()
            models = [tp.__name__ for tp in hints if inspect.isclass(tp) and issubclass(tp, BaseModel)]
            body = op.get("requestBody", {}).get("content", {})
            ref = body.get(openapi.JSON_TYPE, {}).get("schema", {}).get("$ref", "") if len(body) == 1 else ""
            assert models == ([ref.rsplit("/", 1)[1]] if ref else []), key
    assert seen == set(ops)


def test_warm_leaves_nothing_for_a_first_request_to_inspect(monkeypatch):
    """Before the snapshot, `warm` sends each route one dry request through the resolver (public calls
    only): afterwards a route's first real request inspects no signature and builds no type adapter
    (Powertools caches both on the first request), and the dry requests ran no edge and no route."""
    import inspect

    import pydantic

    app = http.make_app()
    ran: list[str] = []

    @app.get("/partner/v1/ping/<name>")
    def ping(name: str, limit: int = 5):
        ran.append(name)
        return {"name": name, "limit": limit}

    @app.post("/partner/v1/pong")
    @http.before_validation(http.json_body)
    def pong(body: _Body):
        ran.append(body.value)
        return {"value": body.value}

    http.warm(app)
    assert ran == []
    calls: list[str] = []
    real_signature, real_adapter = inspect.signature, pydantic.TypeAdapter.__init__

    def signature(*args, **kwargs):
        calls.append("signature")
        return real_signature(*args, **kwargs)

    def adapter(self, *args, **kwargs):
        calls.append("TypeAdapter")
        return real_adapter(self, *args, **kwargs)

    monkeypatch.setattr(inspect, "signature", signature)
    monkeypatch.setattr(pydantic.TypeAdapter, "__init__", adapter)
    out = app.resolve(api_event(ApiRequest("GET", "/partner/v1/ping/abc", query={"limit": "7"})), None)
    assert (out["statusCode"], json.loads(out["body"])) == (200, {"name": "abc", "limit": 7})
    body, json_type = json.dumps({"value": "v"}), {"Content-Type": "application/json"}
    out = app.resolve(api_event(ApiRequest("POST", "/partner/v1/pong", body=body, headers=json_type)), None)
    assert (out["statusCode"], json.loads(out["body"])) == (200, {"value": "v"})
    assert calls == [] and ran == ["abc", "v"]


def test_a_dry_request_runs_no_edge_and_a_real_one_runs_it_before_validation():
    """`warm`'s request to a route with an edge skips it (no token read, no bucket taken); a real request
    runs the edge first, then Powertools' validation (the check order: admission before a bad body)."""
    app = http.make_app()
    edges: list[str] = []

    def edge(app):
        edges.append(app.current_event.path)
        raise ApiError("invalid_token")

    @app.post("/partner/v1/pong")
    @http.before_validation(edge)
    def pong(body: _Body):
        return {"value": body.value}

    http.warm(app)
    assert edges == []
    out = app.resolve(api_event(ApiRequest("POST", "/partner/v1/pong", body="{}")), None)  # an invalid body
    assert (out["statusCode"], json.loads(out["body"])["error"], edges) == (401, "invalid_token", ["/partner/v1/pong"])


class _Body(__import__("pydantic").BaseModel):
    value: str
