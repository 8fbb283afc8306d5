"""Gateway extra routes: Swagger UI over docs/openapi.json, all assets served locally.

    GET /docs                          the Swagger UI page
    GET /docs/openapi.json             the document, servers and OAuth URLs set to this gateway
    GET /docs/platform                 Swagger UI over the platform API's document (IAM only, SigV4)
    GET /docs/openapi-platform.json    docs/openapi-platform.json, its server set to this gateway
    GET /docs/swagger-ui-bundle.js     Swagger UI's bundle   } shipped inside the
    GET /docs/swagger-ui.css           Swagger UI's styles   } aws-lambda-powertools package
    GET /docs/oauth2-redirect.html     Swagger UI's OAuth2 redirect page

No CDN: the page loads only from this gateway (the machine may have no internet).
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DOCUMENT = ROOT / "docs" / "openapi.json"
PREFIX = "/docs"
JS = f"{PREFIX}/swagger-ui-bundle.js"
CSS = f"{PREFIX}/swagger-ui.css"
SPEC = f"{PREFIX}/openapi.json"
PLATFORM_DOCUMENT = ROOT / "docs" / "openapi-platform.json"
PLATFORM_PAGE = f"{PREFIX}/platform"
PLATFORM_SPEC = f"{PREFIX}/openapi-platform.json"
REDIRECT = f"{PREFIX}/oauth2-redirect.html"

PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Partner API - Swagger UI</title>
  <link rel="stylesheet" type="text/css" href="{css}">
</head>
<body>
  <nav style="font-family:sans-serif;padding:.5rem 1rem">
    <a id="partner-api" href="{partner_page}">Partner API</a> |
    <a id="platform-api" href="{platform_page}">Platform API (IAM only, SigV4)</a>
  </nav>
  <div id="swagger-ui"></div>
  <script src="{js}"></script>
  <script>
    window.ui = SwaggerUIBundle({{
      url: "{spec}",
      dom_id: "#swagger-ui",
      deepLinking: true,
      docExpansion: "list",
      presets: [SwaggerUIBundle.presets.apis],
      layout: "BaseLayout",
      oauth2RedirectUrl: window.location.origin + "{redirect}",
      persistAuthorization: false,
    }});
    window.ui.initOAuth({{ usePkceWithAuthorizationCodeGrant: true, scopeSeparator: " " }});
  </script>
</body>
</html>
"""


def _assets_dir() -> Path:
    from aws_lambda_powertools.event_handler.openapi import swagger_ui

    return Path(swagger_ui.__file__).resolve().parent


@functools.lru_cache(maxsize=4)
def _asset(name: str) -> bytes:
    return (_assets_dir() / name).read_bytes()


def _origin(request: Any) -> str:
    host = request.header("host") or "127.0.0.1"
    proto = request.header("x-forwarded-proto") or "http"
    return f"{proto}://{host}"


def document(origin: str) -> dict[str, Any]:
    """docs/openapi.json with this gateway as the server and the consent screen's host."""
    doc = json.loads(DOCUMENT.read_text())
    doc["servers"] = [{"url": origin, "description": "this devstack gateway"}]
    flow = doc["components"]["securitySchemes"]["oauth2"]["flows"]["authorizationCode"]
    flow["authorizationUrl"] = flow["authorizationUrl"].replace("{auth_url}", origin)
    return doc


def platform_document(origin: str) -> dict[str, Any]:
    """docs/openapi-platform.json with this gateway as the server."""
    doc = json.loads(PLATFORM_DOCUMENT.read_text())
    doc["servers"] = [{"url": origin, "description": "this devstack gateway"}]
    return doc


def _html(spec: str) -> tuple[int, dict[str, str], bytes]:
    body = PAGE.format(
        css=CSS, js=JS, spec=spec, redirect=REDIRECT, partner_page=f"{PREFIX}/", platform_page=PLATFORM_PAGE
    )
    return 200, {"content-type": "text/html; charset=utf-8", "cache-control": "no-store"}, body.encode()


def _page(_request: Any) -> tuple[int, dict[str, str], bytes]:
    return _html(SPEC)


def _platform_page(_request: Any) -> tuple[int, dict[str, str], bytes]:
    return _html(PLATFORM_SPEC)


def _spec(request: Any) -> tuple[int, dict[str, str], bytes]:
    body = json.dumps(document(_origin(request)), indent=2).encode()
    return 200, {"content-type": "application/json", "cache-control": "no-store"}, body


def _platform_spec(request: Any) -> tuple[int, dict[str, str], bytes]:
    body = json.dumps(platform_document(_origin(request)), indent=2).encode()
    return 200, {"content-type": "application/json", "cache-control": "no-store"}, body


def _js(_request: Any) -> tuple[int, dict[str, str], bytes]:
    return 200, {"content-type": "application/javascript; charset=utf-8"}, _asset("swagger-ui-bundle.min.js")


def _css(_request: Any) -> tuple[int, dict[str, str], bytes]:
    return 200, {"content-type": "text/css; charset=utf-8"}, _asset("swagger-ui.min.css")


def _redirect(_request: Any) -> tuple[int, dict[str, str], bytes]:
    from aws_lambda_powertools.event_handler.openapi.swagger_ui import generate_oauth2_redirect_html

    return 200, {"content-type": "text/html; charset=utf-8"}, generate_oauth2_redirect_html().encode()


def routes() -> dict[tuple[str, str], Any]:
    """Extra gateway routes for the API documentation."""
    return {
        ("GET", PREFIX): _page,
        ("GET", f"{PREFIX}/"): _page,
        ("GET", SPEC): _spec,
        ("GET", PLATFORM_PAGE): _platform_page,
        ("GET", PLATFORM_SPEC): _platform_spec,
        ("GET", JS): _js,
        ("GET", CSS): _css,
        ("GET", REDIRECT): _redirect,
    }
