"""The service logs through Powertools' Logger (partner.core.observability.make_logger): the lines
keep the fields, key order and timestamp they had (the shape Powertools' Logger writes, which
partner.jsonlog copied until issue 19), with the redaction, per-thread invocation keys and
the operators' environment controls on top."""

from __future__ import annotations

import io
import json
import logging
import re
import uuid

import pytest
from aws_lambda_powertools import Logger
from aws_lambda_powertools.logging import correlation_paths
from aws_lambda_powertools.logging import logger as pt_logger_module

from devstack.events import ApiRequest, api_event, lambda_context
from partner.core import observability
from partner.core.observability import RedactingFormatter

TIMESTAMP = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}[+-]\d{4}$")
CONTEXT_KEYS = [
    "cold_start",
    "function_name",
    "function_memory_size",
    "function_arn",
    "function_request_id",
    "correlation_id",
]


def _ours(stream: io.StringIO, service: str | None = None) -> Logger:
    log = observability.make_logger(service or f"svc-{uuid.uuid4().hex[:8]}")  # one stdlib logger per name
    log.registered_handler.stream = stream
    return log


def _emit(log, event: dict, context) -> None:
    """The same calls, from the same lines, through either logger."""

    def handler(_event, _context):
        log.info("request", extra={"endpoint": "/partner/v1/me", "status": 200, "duration_ms": 12.5})
        log.warning("slow %s after %d ms", "rpc", 700)
        log.info('{"already": "json"}')
        log.info({"a": "dict message"})
        try:
            raise ValueError("bad thing")
        except ValueError:
            log.exception("unhandled error", extra={"error_type": "ValueError"})
        return {"ok": True}

    wrapped = log.inject_lambda_context(handler, correlation_id_path=correlation_paths.API_GATEWAY_REST)
    assert wrapped(event, context) == {"ok": True}


def _lines(stream: io.StringIO) -> list[dict]:
    return [json.loads(line) for line in stream.getvalue().splitlines() if line.strip()]


@pytest.mark.parametrize("trace", [None, "Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1"])
def test_lines_keep_their_fields_and_order(monkeypatch, trace):
    if trace:
        monkeypatch.setenv("_X_AMZN_TRACE_ID", trace)
    else:
        monkeypatch.delenv("_X_AMZN_TRACE_ID", raising=False)
    monkeypatch.setenv("POWERTOOLS_LOG_LEVEL", "INFO")
    event = api_event(ApiRequest("GET", "/partner/v1/me", resource="/partner/v1/me", request_id="req-77"))
    context = lambda_context("MeFunction", aws_request_id="11111111-2222-4333-8444-555555555555")

    theirs_out, ours_out = io.StringIO(), io.StringIO()
    service = f"svc-{uuid.uuid4().hex[:8]}"
    monkeypatch.setattr(pt_logger_module, "is_cold_start", True)
    _emit(Logger(service=service + "-plain", logger_handler=logging.StreamHandler(theirs_out)), event, context)
    monkeypatch.setattr(pt_logger_module, "is_cold_start", True)
    _emit(_ours(ours_out, service), event, context)

    theirs, ours = _lines(theirs_out), _lines(ours_out)
    assert len(ours) == len(theirs) == 5
    trace_key = ["xray_trace_id"] if trace else []
    head = ["level", "location", "message", "timestamp", "service", *CONTEXT_KEYS]
    assert list(ours[0]) == [*head, "endpoint", "status", "duration_ms", *trace_key]
    assert list(ours[4]) == [*head, "error_type", "exception", "exception_name", "stack_trace", *trace_key]
    for mine, pt in zip(ours, theirs, strict=True):
        assert TIMESTAMP.match(mine.pop("timestamp")) and TIMESTAMP.match(pt.pop("timestamp"))
        pt["service"] = service
        assert list(mine) == list(pt)  # same keys, same order as a plain Powertools Logger
        assert mine == pt
    assert ours[0]["correlation_id"] == "req-77" and ours[0]["cold_start"] is True
    assert ours[0]["function_request_id"] == "11111111-2222-4333-8444-555555555555"
    assert ours[1]["message"] == "slow rpc after 700 ms" and ours[2]["message"] == {"already": "json"}
    assert ours[4]["exception_name"] == "ValueError" and ours[4]["stack_trace"]["value"] == "bad thing"
    if trace:
        assert ours[0]["xray_trace_id"] == "1-5759e988-bd862e3fe1be46a994272793"


def test_second_invocation_is_not_cold_and_keys_do_not_reach_it(monkeypatch):
    """The API functions' wiring (`instrument_api`): one invocation's keys, Powertools' and those the
    code appends, never reach the next invocation's lines."""
    monkeypatch.setattr(pt_logger_module, "is_cold_start", True)
    out = io.StringIO()
    monkeypatch.setattr(observability.logger.registered_handler, "stream", out)

    def handler(event, _context):
        if event["requestContext"]["requestId"] == "r1":
            observability.logger.append_keys(mine="r1")
        return {"statusCode": 200, "body": ""}

    wrapped = observability.instrument_api(handler, lambda: None)
    for rid in ("r1", "r2"):
        wrapped(api_event(ApiRequest("GET", "/x", request_id=rid)), lambda_context("F"))
    first, second = _lines(out)
    assert (first["cold_start"], first["correlation_id"], first["mine"]) == (True, "r1", "r1")
    assert (second["cold_start"], second["correlation_id"]) == (False, "r2") and "mine" not in second


def test_provisioned_concurrency_is_never_cold(monkeypatch):
    monkeypatch.setattr(pt_logger_module, "is_cold_start", True)
    monkeypatch.setenv("AWS_LAMBDA_INITIALIZATION_TYPE", "provisioned-concurrency")
    out = io.StringIO()
    log = _ours(out)
    log.inject_lambda_context(lambda e, c: log.info("x"))({}, lambda_context("F"))
    assert _lines(out)[0]["cold_start"] is False


@pytest.mark.parametrize(
    "env,level",
    [
        ({"POWERTOOLS_LOG_LEVEL": "debug"}, logging.DEBUG),
        ({"LOG_LEVEL": "WARNING"}, logging.WARNING),
        ({"POWERTOOLS_LOG_LEVEL": "ERROR", "LOG_LEVEL": "DEBUG"}, logging.ERROR),
        ({"POWERTOOLS_LOG_LEVEL": "nonsense"}, logging.INFO),
        ({}, logging.INFO),
    ],
)
def test_level_from_environment(monkeypatch, env, level):
    for name in ("POWERTOOLS_LOG_LEVEL", "LOG_LEVEL", "AWS_LAMBDA_LOG_LEVEL", "POWERTOOLS_LOGGER_SAMPLE_RATE"):
        monkeypatch.delenv(name, raising=False)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    assert _ours(io.StringIO()).log_level == level


def test_sample_rate_from_environment_turns_on_debug(monkeypatch):
    monkeypatch.setenv("POWERTOOLS_LOG_LEVEL", "INFO")
    monkeypatch.setenv("POWERTOOLS_LOGGER_SAMPLE_RATE", "1")
    out = io.StringIO()
    log = _ours(out)
    log.debug("sampled")
    assert log.log_level == logging.DEBUG and _lines(out)[0]["message"] == "sampled"


def test_log_event_env_logs_the_event(monkeypatch):
    monkeypatch.setenv("POWERTOOLS_LOGGER_LOG_EVENT", "true")
    out = io.StringIO()
    log = _ours(out)
    log.inject_lambda_context(lambda e, c: None)({"detail": {"n": 1}}, lambda_context("F"))
    assert _lines(out)[0]["message"] == {"detail": {"n": 1}}


def test_redacting_formatter_redacts_at_any_depth():
    out = io.StringIO()
    log = _ours(out)
    token = "app_at_" + "x" * 86
    log.info(
        f"token {token}",
        extra={
            "headers": {"Authorization": "Bearer abc"},
            "deep": [{"inner": {"client_secret": "hunter2", "note": f"k={token}"}}],
        },
    )
    line = _lines(out)[0]
    assert token not in out.getvalue() and "hunter2" not in out.getvalue()
    assert line["headers"]["Authorization"] == "[REDACTED]"
    assert line["deep"][0]["inner"] == {"client_secret": "[REDACTED]", "note": "k=app_at_[REDACTED]"}
    assert isinstance(log.registered_formatter, RedactingFormatter)


def test_each_restored_copy_draws_its_own_debug_sample(monkeypatch):
    """SnapStart: the sampling draw made at init is not shared by every copy of the snapshot."""
    from partner.core import snapshot

    monkeypatch.setenv("POWERTOOLS_LOG_LEVEL", "INFO")
    monkeypatch.setenv("POWERTOOLS_LOGGER_SAMPLE_RATE", "0.5")
    draws = iter([0.1, 0.9])  # init: sampled (DEBUG); after the restore: not sampled
    monkeypatch.setattr("aws_lambda_powertools.logging.logger.random.random", lambda: next(draws, 0.9))
    log = _ours(io.StringIO())
    assert log.log_level == logging.DEBUG
    snapshot.run_after_restore()
    assert log.log_level == logging.INFO
