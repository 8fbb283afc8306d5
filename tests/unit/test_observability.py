"""Logs never carry secrets; every API invocation emits the expected EMF metrics."""

from __future__ import annotations

import io
import json
import logging
from types import SimpleNamespace

import pytest

from devstack.events import ApiRequest, api_event, lambda_context
from partner.chain.rpc import BlockEngine, Rpc
from partner.core import observability
from partner.core.errors import ApiError
from partner.edge import http
from partner.store import ratelimit

ACCESS = "app_at_" + "A1b2C3d4" * 6
REFRESH = "app_rt_" + "Zz9_Yy8-" * 6
CODE = "app_ac_" + "c0de" * 10
API_KEY = "app_sk_" + "s3cr3t" * 7
SESSION = "app_ss_" + "sess-ion" * 5
VERIFIER = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
BASIC = "Basic Y2xpZW50OnNlY3JldC1wYXNzd29yZA=="
SECRETS = [ACCESS, REFRESH, CODE, API_KEY, SESSION, VERIFIER, BASIC, "Y2xpZW50OnNlY3JldC1wYXNzd29yZA"]
DEAD_URL = "http://127.0.0.1:9"  # discard port: connection refused at once


@pytest.fixture
def log_lines(monkeypatch):
    """What the service logger writes during the test, one parsed JSON object per line."""
    stream = io.StringIO()
    handler = observability.logger.registered_handler
    monkeypatch.setattr(handler, "stream", stream)
    observability.logger.setLevel(logging.INFO)

    def lines() -> list[dict]:
        return [json.loads(line) for line in stream.getvalue().splitlines() if line.strip()]

    lines.raw = stream.getvalue
    return lines


@pytest.fixture
def emf(monkeypatch, capsys):
    """EMF blobs printed during the test (metrics on, as inside Lambda)."""
    monkeypatch.setenv("POWERTOOLS_METRICS_NAMESPACE", "PartnerApi")
    monkeypatch.setenv("POWERTOOLS_METRICS_DISABLED", "false")
    monkeypatch.setenv("POWERTOOLS_SERVICE_NAME", "partner-api")

    def blobs() -> list[dict]:
        out = []
        for line in capsys.readouterr().out.splitlines():
            line = line.strip()
            if line.startswith("{") and '"_aws"' in line:
                out.append(json.loads(line))
        return out

    return blobs


def _app():
    app = http.make_app()

    @app.post("/partner/v1/echo")
    def _echo():
        event = app.current_event
        # a careless log of everything a request carries
        http.logger.info(
            "incoming",
            extra={"headers": event.headers, "body": event.body, "multiValueHeaders": event.multi_value_headers},
        )
        raise RuntimeError(f"could not use {ACCESS} with {API_KEY}")

    @app.post("/partner/v1/trades/buy")
    def _trade():
        observability.count("Trades", venue="curve", kind="buy")
        return http.json_response(200, {"status": "submitted"})

    @app.get("/partner/v1/limited")
    def _limited():
        http.set_bucket(ratelimit.take("read", "digest"))
        return http.json_response(200, {})

    @app.get("/partner/v1/chain")
    def _chain():
        Rpc(DEAD_URL, timeout=1.0).call("getHealth")
        return http.json_response(200, {})

    @app.get("/partner/v1/bundle")
    def _bundle():
        BlockEngine(DEAD_URL, timeout=1.0).bundle_statuses(["x"])
        return http.json_response(200, {})

    @app.get("/partner/v1/sign")
    def _sign():
        raise ApiError("wallet_sign_failed")

    return app


def _event(method: str, path: str, **kwargs) -> dict:
    return api_event(ApiRequest(method, path, resource=path, request_id="req-1234-abcd", **kwargs))


def _call(handler, event):
    return handler(event, lambda_context("TestFunction"))


# ---------------------------------------------------------------- redaction


@pytest.mark.parametrize("secret", [ACCESS, REFRESH, CODE, API_KEY, SESSION])
def test_scrub_text_removes_every_app_secret(secret):
    text = f'Bearer {secret}; next={secret}&x=1 "{secret}"'
    out = observability.scrub_text(text)
    assert secret not in out
    assert out.count("[REDACTED]") == 3
    assert secret[:7] in out  # the kind stays visible for debugging


def test_scrub_redacts_sensitive_keys_at_any_depth_and_case():
    data = {
        "headers": {"Authorization": BASIC, "COOKIE": "sid=abc", "accept": "application/json"},
        "multiValueHeaders": {"authorization": [BASIC]},
        "form": "grant_type=authorization_code&client_secret=hunter2&code_verifier=" + VERIFIER,
        "nested": [{"set-cookie": "a=b"}],
    }
    out = observability.scrub(data)
    text = json.dumps(out)
    assert BASIC not in text and "sid=abc" not in text and "hunter2" not in text and VERIFIER not in text
    assert out["headers"]["accept"] == "application/json"
    assert out["headers"]["Authorization"] == "[REDACTED]"
    assert out["multiValueHeaders"]["authorization"] == "[REDACTED]"
    assert out["nested"][0]["set-cookie"] == "[REDACTED]"
    assert data["headers"]["Authorization"] == BASIC  # the caller's data is untouched


def test_request_with_tokens_logs_none_of_them(monkeypatch, log_lines, emf):
    monkeypatch.setenv("POWERTOOLS_LOGGER_LOG_EVENT", "true")  # even the full event dump is scrubbed
    handler = http.entry(_app())
    body = (
        f"grant_type=refresh_token&refresh_token={REFRESH}&code={CODE}&client_secret={API_KEY}&code_verifier={VERIFIER}"
    )
    event = _event(
        "POST",
        "/partner/v1/echo",
        body=body,
        headers={
            "Authorization": f"Bearer {ACCESS}",
            "Cookie": f"platform_session={SESSION}",
            "Content-Type": "application/x-www-form-urlencoded",
        },
    )
    event["multiValueHeaders"]["authorization"] = [BASIC]

    out = _call(handler, event)

    assert out["statusCode"] == 500
    raw = log_lines.raw()
    for secret in SECRETS:
        assert secret not in raw, secret
    lines = log_lines()
    assert any(line.get("message") == "unhandled error" and "exception" in line for line in lines)
    assert "[REDACTED]" in raw
    access = [line for line in lines if line.get("message") == "request"]
    assert len(access) == 1
    assert access[0]["correlation_id"] == "req-1234-abcd"
    assert access[0]["status"] == 500 and access[0]["code"] == "internal"
    assert access[0]["service"] == "partner-api"
    assert access[0]["function_request_id"]


# ---------------------------------------------------------------- metrics


def _metrics(blob: dict) -> tuple[str, list[str], list[list[str]], dict]:
    directive = blob["_aws"]["CloudWatchMetrics"][0]
    names = sorted(m["Name"] for m in directive["Metrics"])
    return directive["Namespace"], names, directive["Dimensions"], blob


def _value(blob: dict, name: str) -> float:
    value = blob[name]
    return sum(value) if isinstance(value, list) else value


def _find(blobs: list[dict], name: str) -> dict:
    found = [b for b in blobs if name in _metrics(b)[1]]
    assert len(found) == 1, (name, blobs)
    return found[0]


def test_trade_request_emits_requests_and_trades(log_lines, emf):
    handler = http.entry(_app())
    out = _call(handler, _event("POST", "/partner/v1/trades/buy", body={}))
    assert out["statusCode"] == 200
    blobs = emf()
    assert len(blobs) == 2
    namespace, names, dims, req = _metrics(_find(blobs, "Requests"))
    assert namespace == "PartnerApi" and names == ["Requests"]
    assert sorted(dims[0]) == ["code", "endpoint", "service", "status"]
    assert (req["endpoint"], req["status"], req["code"], req["service"], _value(req, "Requests")) == (
        "/partner/v1/trades/buy",
        "200",
        "ok",
        "partner-api",
        1,
    )
    _, _, dims, trade = _metrics(_find(blobs, "Trades"))
    assert sorted(dims[0]) == ["kind", "service", "venue"]
    assert (trade["venue"], trade["kind"], _value(trade, "Trades")) == ("curve", "buy", 1)


def test_rate_limit_rejection_counts_by_layer(monkeypatch, log_lines, emf):
    monkeypatch.setattr(ratelimit.counters, "hit", lambda *a, **k: SimpleNamespace(allowed=False, count=300))
    out = _call(http.entry(_app()), _event("GET", "/partner/v1/limited"))
    assert out["statusCode"] == 429
    blobs = emf()
    _, _, dims, limited = _metrics(_find(blobs, "RateLimited"))
    assert sorted(dims[0]) == ["layer", "service"] and limited["layer"] == "bucket"
    req = _find(blobs, "Requests")
    assert (req["status"], req["code"]) == ("429", "rate_limited")


def test_tier_rejection_counts_as_tier(monkeypatch, emf):
    monkeypatch.setattr(ratelimit.counters, "hit", lambda *a, **k: SimpleNamespace(allowed=False, count=120))
    with observability.invocation():
        with pytest.raises(ApiError) as err:
            ratelimit.take_tier("client", "Basic")
    assert err.value.code == "rate_limit_exceeded"
    assert _find(emf(), "RateLimited")["layer"] == "tier"


@pytest.mark.parametrize("path,upstream", [("/partner/v1/chain", "rpc"), ("/partner/v1/bundle", "block_engine")])
def test_chain_failure_counts_rpc_unavailable_by_upstream(path, upstream, log_lines, emf):
    out = _call(http.entry(_app()), _event("GET", path))
    assert out["statusCode"] == 502 and json.loads(out["body"])["error"] == "rpc_unavailable"
    blobs = emf()
    _, _, dims, blob = _metrics(_find(blobs, "RpcUnavailable"))
    # by upstream, and rolled up on service alone (what the alarm watches)
    assert sorted(map(sorted, dims)) == [["service"], ["service", "upstream"]]
    assert (blob["upstream"], _value(blob, "RpcUnavailable")) == (upstream, 1)
    assert _find(blobs, "Requests")["code"] == "rpc_unavailable"


def test_signing_failure_is_counted(log_lines, emf):
    out = _call(http.entry(_app()), _event("GET", "/partner/v1/sign"))
    assert out["statusCode"] == 502
    blobs = emf()
    assert _value(_find(blobs, "SigningFailures"), "SigningFailures") == 1
    assert _find(blobs, "Requests")["code"] == "wallet_sign_failed"


def test_counts_outside_an_invocation_are_dropped(emf):
    observability.count("Trades", venue="pool", kind="sell")
    with observability.invocation():
        pass
    assert emf() == []


def test_metrics_stay_off_outside_lambda_by_default(monkeypatch, capsys, log_lines):
    monkeypatch.delenv("POWERTOOLS_METRICS_DISABLED", raising=False)
    monkeypatch.delenv("AWS_LAMBDA_FUNCTION_NAME", raising=False)
    _call(http.entry(_app()), _event("POST", "/partner/v1/trades/buy", body={}))
    assert '"_aws"' not in capsys.readouterr().out


def test_tracer_is_not_built_outside_lambda(monkeypatch):
    monkeypatch.delenv("AWS_LAMBDA_FUNCTION_NAME", raising=False)
    monkeypatch.setattr(observability, "_tracer", None)
    assert observability.tracer() is None


def test_counts_of_an_invocation_with_metrics_off_are_not_kept_for_the_next(emf, monkeypatch):
    """Metrics off (outside Lambda): an invocation's counts are dropped, not left in the process's
    `Metrics` for the next invocation to flush."""
    monkeypatch.setenv("POWERTOOLS_METRICS_DISABLED", "true")
    with observability.invocation():
        observability.count("Trades", venue="curve", kind="sell")
    monkeypatch.setenv("POWERTOOLS_METRICS_DISABLED", "false")
    with observability.invocation():
        observability.count("Trades", venue="curve", kind="sell")
    assert [_value(b, "Trades") for b in emf()] == [1]


def test_each_invocation_flushes_only_its_own_counts(emf):
    """The process keeps one `Metrics` per dimension set: each invocation flushes what it counted,
    and never an earlier invocation's counts again."""
    for endpoint, trades in (("/a", 1), ("/b", 2)):
        with observability.invocation():
            for _ in range(trades):
                observability.count("Trades", venue="curve", kind="buy")
            observability.count("Requests", endpoint=endpoint, status="200", code="ok")
    blobs = emf()
    requests = sorted((b["endpoint"], _value(b, "Requests")) for b in blobs if "Requests" in b)
    trades = sorted(_value(b, "Trades") for b in blobs if "Trades" in b)
    assert requests == [("/a", 1), ("/b", 1)]
    assert trades == [1, 2]
    assert all(len(_metrics(b)[1]) == 1 for b in blobs)
