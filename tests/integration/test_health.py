"""GET /health (issue 39, newcomer 5) through its handler: no auth, no data, `{"status": "ok"}`
(tests/e2e/test_health_http.py: through the devstack gateway)."""

from __future__ import annotations

import json

from testkit.helpers import invoke


def test_health_answers_ok_without_auth_or_data(aws_stack):
    for headers in (None, {"Authorization": "Bearer app_at_not-a-token"}):
        answer = invoke("health", "GET", "/health", headers=headers)
        assert answer.status == 200, answer.body
        assert json.loads(answer.body) == {"status": "ok"}
        assert answer.headers["content-type"] == "application/json"
        assert not any(name.startswith("x-ratelimit") for name in answer.headers)  # no bucket drawn on
    other = invoke("health", "POST", "/health")
    assert other.status == 404 and json.loads(other.body)["error"] == "not_found"
