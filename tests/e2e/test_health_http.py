"""GET /health through the devstack gateway (issue 39, newcomer 5): API Gateway routes it with no
authorizer to its own function, which answers `{"status": "ok"}` and nothing else; a browser on any
page gets no CORS grant for it."""

from __future__ import annotations

import httpx


def test_health_through_the_gateway(devstack):
    answer = httpx.get(f"{devstack.url}/health", timeout=30)
    assert answer.status_code == 200, answer.text
    assert answer.json() == {"status": "ok"}
    assert answer.headers["content-type"] == "application/json"
    assert not any(name.lower().startswith("x-ratelimit") for name in answer.headers)
    assert "access-control-allow-origin" not in answer.headers
    with_token = httpx.get(f"{devstack.url}/health", headers={"Authorization": "Bearer nonsense"}, timeout=30)
    assert with_token.status_code == 200 and with_token.json() == {"status": "ok"}
    posted = httpx.post(f"{devstack.url}/health", timeout=30)
    assert posted.status_code == 404 and posted.json()["error"] == "not_found"  # no such method
