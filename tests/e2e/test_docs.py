"""The devstack gateway serves Swagger UI and the OpenAPI document, assets from this machine."""

from __future__ import annotations

import json
import re
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[2]


def test_swagger_ui_page_loads_only_local_assets(devstack):
    base = devstack.url
    page = httpx.get(f"{base}/docs", timeout=10)
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    html = page.text
    assert "SwaggerUIBundle" in html and "/docs/openapi.json" in html
    # nothing from another host: every src/href is a local path
    for ref in re.findall(r'(?:src|href)="([^"]+)"', html):
        assert ref.startswith("/docs/"), ref
    assert "http://" not in html.replace("window.location.origin", "") and "https://" not in html

    js = httpx.get(f"{base}/docs/swagger-ui-bundle.js", timeout=10)
    assert js.status_code == 200 and "javascript" in js.headers["content-type"]
    assert len(js.content) > 100_000 and b"SwaggerUIBundle" in js.content
    css = httpx.get(f"{base}/docs/swagger-ui.css", timeout=10)
    assert css.status_code == 200 and css.headers["content-type"].startswith("text/css")
    assert b".swagger-ui" in css.content
    redirect = httpx.get(f"{base}/docs/oauth2-redirect.html", timeout=10)
    assert redirect.status_code == 200 and "oauth2" in redirect.text.lower()


def test_openapi_document_is_served_for_this_gateway(devstack):
    base = devstack.url
    response = httpx.get(f"{base}/docs/openapi.json", timeout=10)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/json")
    doc = response.json()
    checked_in = json.loads((ROOT / "docs" / "openapi.json").read_text())
    assert doc["paths"] == checked_in["paths"]
    assert doc["components"]["schemas"] == checked_in["components"]["schemas"]
    assert doc["servers"][0]["url"] == base
    flow = doc["components"]["securitySchemes"]["oauth2"]["flows"]["authorizationCode"]
    assert flow["authorizationUrl"] == f"{base}/oauth/authorize"
    assert flow["tokenUrl"] == "/oauth/token"


def test_documented_routes_answer_on_the_gateway(devstack):
    """Every documented partner route is routed by the gateway (401 without a token, not 404)."""
    base = devstack.url
    doc = httpx.get(f"{base}/docs/openapi.json", timeout=10).json()
    samples = {
        "mint": "So11111111111111111111111111111111111111112",
        "proposal": "So11111111111111111111111111111111111111112",
        "signature": "1" * 64,
    }
    for path, item in doc["paths"].items():
        if not path.startswith("/partner/v1/"):
            continue
        url = base + re.sub(r"\{(\w+)\}", lambda m: samples[m.group(1)], path)
        for method in item:
            response = httpx.request(method.upper(), url, timeout=30)
            assert response.status_code == 401, (method, path, response.status_code)
            assert response.json()["error"] == "invalid_token"


def test_swagger_ui_shows_the_platform_api_marked_iam_only(devstack):
    """/docs/platform: Swagger UI over docs/openapi-platform.json (issue 39, newcomer 5); /docs links to it."""
    base = devstack.url
    partner_page = httpx.get(f"{base}/docs", timeout=10).text
    assert 'href="/docs/platform"' in partner_page and "Platform API (IAM only, SigV4)" in partner_page
    page = httpx.get(f"{base}/docs/platform", timeout=10)
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert 'url: "/docs/openapi-platform.json"' in page.text and "SwaggerUIBundle" in page.text
    for ref in re.findall(r'(?:src|href)="([^"]+)"', page.text):
        assert ref.startswith("/docs/"), ref
    response = httpx.get(f"{base}/docs/openapi-platform.json", timeout=10)
    assert response.status_code == 200 and response.headers["content-type"].startswith("application/json")
    doc = response.json()
    checked_in = json.loads((ROOT / "docs" / "openapi-platform.json").read_text())
    assert doc["paths"] == checked_in["paths"] and doc["servers"][0]["url"] == base
    assert set(doc["paths"]) == {
        "/platform/v1/users/{sub}",
        "/platform/v1/users/{sub}/wallet",
        "/platform/v1/users/{sub}/delegation",
    }
    assert all(op["security"] == [{"sigv4": []}] for item in doc["paths"].values() for op in item.values())
    # the partners' document is as it was: no platform route
    partners = httpx.get(f"{base}/docs/openapi.json", timeout=10).json()
    assert not any(path.startswith("/platform/") for path in partners["paths"])
