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

    from tests.helpers import _modules, handler
    from tools import openapi

    doc = openapi.generate()
    ops = {(m.upper(), path): op for path, item in doc["paths"].items() for m, op in item.items()}
    seen = set()
    for app_py in sorted((Path(__file__).resolve().parents[2] / "functions").glob("*/app.py")):
        handler(app_py.parent.name)
        app = getattr(_modules[app_py.parent.name], "app", None)
        for route in [*app._static_routes, *app._dynamic_routes] if app is not None else []:
            key = (route.method, re.sub(r"<(\w+)>", r"{\1}", route.path))
            if key[1].startswith("/platform/v1/"):  # IAM-authorized, outside the partner document
                continue
            op, fn = ops[key], route.func
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


def test_compile_routes_inspects_what_a_first_request_would():
    """Before the snapshot, `compile_routes` also does what Powertools does on a route's first call and
    caches: the route function's `Request` parameter and `Depends()`, and each middleware's inspection."""
    from aws_lambda_powertools.event_handler import api_gateway

    app = http.make_app()

    @app.get("/partner/v1/ping")
    def ping():
        return {"ok": True}

    http.compile_routes(app)
    route = next(r for r in app._static_routes if r.func is ping)
    assert route.request_param_name_checked and route.request_param_name is None
    assert route._has_dependencies is False
    frame, inspected = route._middleware_stack, []
    while isinstance(frame, api_gateway.MiddlewareFrame):
        inspected.append(getattr(frame.current_middleware, "_powertools_middleware_inspection", None))
        frame = frame.next_middleware
    assert inspected and all(i is not None for i in inspected)
    assert frame is ping
    out = app.resolve(api_event(ApiRequest("GET", "/partner/v1/ping")), None)  # and the route answers as before
    assert (out["statusCode"], json.loads(out["body"])) == (200, {"ok": True})


def test_no_function_loads_the_documentations_models():
    """A route's decorator names its response and form models (`apidoc.responses("TradeResponse", ...)`):
    partner.edge.responses, pydantic models built only for docs/openapi.json, is loaded by
    tools/openapi.py and by no function at init."""
    root = __import__("pathlib").Path(__file__).resolve().parents[2]
    code = (
        "import importlib.util, sys\n"
        "for path in sorted(__import__('pathlib').Path('functions').glob('*/app.py')):\n"
        "    spec = importlib.util.spec_from_file_location('fn_' + path.parent.name, path)\n"
        "    spec.loader.exec_module(importlib.util.module_from_spec(spec))\n"
        "print('partner.edge.responses' in sys.modules, 'partner.edge.apidoc' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, cwd=str(root))
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["False", "True"]
