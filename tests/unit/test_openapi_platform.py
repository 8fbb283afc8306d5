"""docs/openapi-platform.json (issue 39, newcomer 5): the platform API in a document of its own,
every route of template.yaml under /platform/v1 with its method, each marked IAM only (SigV4); the
partners' docs/openapi.json (and the SDKs generated from it) keeps no platform route."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tools import openapi_platform

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def doc():
    return openapi_platform.generate()


def test_checked_in_document_is_current(doc):
    assert openapi_platform.OUTPUT.read_text() == openapi_platform.render(), "run `make openapi`"
    assert openapi_platform.main(["--check"]) == 0


def test_document_is_valid_openapi_31(doc):
    validator = pytest.importorskip("openapi_spec_validator")
    assert doc["openapi"].startswith("3.1")
    validator.validate(doc)


def test_every_platform_route_of_the_template_is_documented(doc):
    from devstack.cfn import load_template

    template = load_template(ROOT / "template.yaml")
    routes = {
        (ev.method.lower(), ev.path)
        for fn in template.functions()
        for ev in fn.api_events
        if ev.path.startswith("/platform/v1/")
    }
    assert len(routes) == 4
    assert {(m, p) for p, item in doc["paths"].items() for m in item} == routes


def test_every_operation_is_iam_only(doc):
    assert doc["components"]["securitySchemes"] == {"sigv4": openapi_platform.SIGV4}
    assert doc["components"]["securitySchemes"]["sigv4"]["x-amazon-apigateway-authtype"] == "awsSigv4"
    assert "IAM only" in doc["info"]["title"]
    for item in doc["paths"].values():
        for operation in item.values():
            assert operation["security"] == [{"sigv4": []}]
            assert operation["tags"] == ["Platform (IAM only)"]
            assert "403" in operation["responses"]


def test_the_partners_document_has_no_platform_route():
    partners = json.loads((ROOT / "docs" / "openapi.json").read_text())
    assert not any(path.startswith("/platform/") for path in partners["paths"])
    assert "sigv4" not in partners["components"]["securitySchemes"]
