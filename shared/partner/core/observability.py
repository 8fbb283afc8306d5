"""Logs, metrics and traces (Powertools' Logger, Metrics and Tracer), wired once into
`partner.edge.http.entry` and the scheduled functions.

Why each is built as it is: docs/architecture.md, "Cold start and SnapStart"; what operators read
and set: docs/operations.md.
"""

from __future__ import annotations

import functools
import logging
import os
import re
import threading
import time
from collections.abc import Callable
from typing import Any

from aws_lambda_powertools import Logger, Metrics
from aws_lambda_powertools.logging import correlation_paths
from aws_lambda_powertools.logging.formatter import LambdaPowertoolsFormatter
from aws_lambda_powertools.metrics import MetricUnit
from aws_lambda_powertools.metrics.provider.cloudwatch_emf.cloudwatch import AmazonCloudWatchEMFProvider

import partner
from partner.core import snapshot

SERVICE = "partner-api"
NAMESPACE = "PartnerApi"
REDACTED = "[REDACTED]"

SECRET_VALUE = re.compile(r"app_(at|rt|ac|sk|ss)_[A-Za-z0-9_-]+")
# form/query/cookie fragments of other secrets that carry no app_ prefix
SECRET_PARAM = re.compile(r"(?i)\b(client_secret|code_verifier|password)=[^&\s\"';,]+")
SENSITIVE_KEYS = frozenset(
    {
        "authorization",
        "cookie",
        "set-cookie",
        "x-api-key",
        "proxy-authorization",
        "client_secret",
        "code_verifier",
        "access_token",
        "refresh_token",
        "api_key",
        "password",
    }
)


def scrub_text(text: str) -> str:
    text = SECRET_VALUE.sub(lambda m: f"app_{m.group(1)}_{REDACTED}", text)
    return SECRET_PARAM.sub(lambda m: f"{m.group(1)}={REDACTED}", text)


def scrub(value: Any) -> Any:
    """A copy of `value` with sensitive keys' values and secret-looking strings redacted."""
    if isinstance(value, dict):
        return {
            k: (REDACTED if isinstance(k, str) and k.lower() in SENSITIVE_KEYS and v is not None else scrub(v))
            for k, v in value.items()
        }
    if isinstance(value, list | tuple):
        return [scrub(v) for v in value]
    if isinstance(value, str):
        return scrub_text(value)
    return value


class RedactingFormatter(LambdaPowertoolsFormatter):
    """Powertools' JSON formatter; the structure and then the serialized line are scrubbed."""

    def serialize(self, log: dict[str, Any] | Any) -> str:
        return scrub_text(super().serialize(scrub(log)))


def _level() -> str | None:
    """None (Powertools reads the environment) unless the level named there is unknown: INFO."""
    name = (os.getenv("POWERTOOLS_LOG_LEVEL") or os.getenv("LOG_LEVEL") or "").upper()
    return None if not name or name in logging.getLevelNamesMapping() else "INFO"


_loggers: list[Logger] = []


def make_logger(service: str = SERVICE) -> Logger:
    """Powertools' `Logger` (structured JSON lines on stdout) with a redacting
    formatter. Every line is scrubbed before and after serialization: values matching
    `app_(at|rt|ac|sk|ss)_...` (tokens, codes, API keys, sessions) become
    `app_xx_[REDACTED]`, and the values under sensitive keys (`Authorization`, `Cookie`,
    `Set-Cookie`, `client_secret`, `code_verifier`, ... in any case, at any depth, also inside
    `headers`/`multiValueHeaders`) become `[REDACTED]`. The correlation id is API Gateway's
    request id (`correlation_paths.API_GATEWAY_REST`). The keys of one invocation (Lambda
    context, cold start, correlation id and what the code appends) are cleared when the next one
    starts (`clear_state`: one invocation at a time per process). Operators' controls are
    Powertools' own: `POWERTOOLS_LOG_LEVEL` (else `LOG_LEVEL`; Lambda's `AWS_LAMBDA_LOG_LEVEL`
    wins; an unknown name means INFO), `POWERTOOLS_LOGGER_SAMPLE_RATE`,
    `POWERTOOLS_LOGGER_LOG_EVENT`.
    """
    log = Logger(service=service, level=_level(), logger_formatter=RedactingFormatter())
    log._logger.propagate = False  # one line per record: stdout only, never again through the root logger
    _loggers.append(log)
    return log


@snapshot.after_restore
def _resample() -> None:
    # POWERTOOLS_LOGGER_SAMPLE_RATE: the DEBUG-or-not draw was made at init, so every copy
    # restored from one snapshot would share it for its first invocation; each draws its own
    # (after partner.core.snapshot re-seeded `random`)
    for log in _loggers:
        if log.sampling_rate:
            log.refresh_sample_rate_calculation()


logger = make_logger(SERVICE)


# ---------------------------------------------------------------- metrics


def _metrics_enabled() -> bool:
    flag = os.getenv("POWERTOOLS_METRICS_DISABLED", "").strip().lower()
    if flag in ("1", "true", "yes", "on"):
        return False
    return flag in ("0", "false", "no", "off") or bool(os.getenv("AWS_LAMBDA_FUNCTION_NAME"))


# metric -> extra, coarser dimension set it is also published under (for alarms)
ROLLUPS = {"RpcUnavailable": ("service",)}

_by_dimensions: dict[tuple, Metrics] = {}  # one Powertools `Metrics` per dimension set, for the process
_counted: set[tuple] | None = None  # the dimension sets the current invocation counted; None: outside one
_count_lock = threading.Lock()  # a request's pool tasks (partner.core.parallel) count too


def _metrics() -> Metrics:
    """A Powertools `Metrics` with its own provider and storage (not the class-level one every
    `Metrics()` shares); its dimension set is added at each flush (a flush clears them)."""
    provider = AmazonCloudWatchEMFProvider(
        namespace=os.getenv("POWERTOOLS_METRICS_NAMESPACE") or NAMESPACE, service=SERVICE
    )
    return Metrics(provider=provider)


def count(name: str, value: int = 1, /, **dimensions: str) -> None:
    """Count `name` with `dimensions` for the current invocation (dropped outside one).

    Powertools' `Metrics` on its CloudWatch EMF provider, namespace
    `POWERTOOLS_METRICS_NAMESPACE` (template: `PartnerApi`). Domain code calls
    `count(name, **dimensions)` where the event happens; the process keeps one `Metrics` per
    dimension set, and an invocation flushes those it counted on when it ends, one EMF blob per
    dimension set.
    Outside an instrumented invocation (partnerctl, unit tests of domain code) counts are
    dropped. Emitted only inside Lambda (`AWS_LAMBDA_FUNCTION_NAME`) unless
    `POWERTOOLS_METRICS_DISABLED=false` asks for them elsewhere (tests), and never when it
    is true (nor under `POWERTOOLS_DEV` without it: Powertools' rule).

    Metric names (all Count, dimension `service` plus those listed):
      Requests        endpoint, status, code   one per API invocation (`code` = error code or `ok`)
      Trades          venue, kind              a trade the network accepted
      RateLimited     layer                    `bucket` (per-endpoint/IP), `tier`, `lockout`
      RpcUnavailable  upstream                 `rpc` or `block_engine`; also rolled up on `service` alone
      SigningFailures                          `wallet_sign_failed` answers
      Migrations      status                   one per mint the migrator handled
    """
    key = tuple(sorted((k, str(v)) for k, v in dimensions.items()))
    with _count_lock:
        if _counted is None:
            return
        metrics = _by_dimensions.get(key)
        if metrics is None:
            metrics = _by_dimensions[key] = _metrics()
        metrics.add_metric(name=name, unit=MetricUnit.Count, value=value)
        _counted.add(key)


def _flush(counted: set[tuple]) -> None:
    enabled = _metrics_enabled()
    for dims in sorted(counted):
        metrics = _by_dimensions[dims]
        if not enabled:
            metrics.provider.clear_metrics()
            continue
        for name, value in dims:
            metrics.provider.add_dimension(name=name, value=value)
        if dims:  # a metric with its own dimensions is also published under its roll-up set
            for rollup in sorted({ROLLUPS[name] for name in metrics.provider.metric_set if name in ROLLUPS}):
                metrics.provider.add_dimensions(**{dim: SERVICE for dim in rollup})
        metrics.flush_metrics()


class _Invocation:
    """Collects counts for one invocation; nests (an inner one adds to the outer)."""

    def __enter__(self) -> _Invocation:
        global _counted
        self.outer = _counted
        if self.outer is None:
            _counted = set()
        return self

    def __exit__(self, *exc: Any) -> None:
        global _counted
        if self.outer is None:
            with _count_lock:
                counted, _counted = _counted or set(), None
            try:
                _flush(counted)
            except Exception:  # never let telemetry fail a request
                logger.warning("metrics flush failed", exc_info=True)


def invocation() -> _Invocation:
    return _Invocation()


# ---------------------------------------------------------------- tracer

_tracer: Any = None
_tracer_lock = threading.Lock()


def _tracing() -> bool:
    if not os.getenv("AWS_LAMBDA_FUNCTION_NAME") or os.getenv("POWERTOOLS_TRACE_DISABLED", "").lower() == "true":
        return False
    import importlib.util  # optional package: the X-Ray SDK exists only in the Lambda layer

    return importlib.util.find_spec("aws_xray_sdk") is not None


@snapshot.before_snapshot
def _warm_tracer() -> None:
    if _tracing():
        import aws_lambda_powertools.tracing  # noqa: F401 - imported for the snapshot
        import aws_xray_sdk.ext.httplib  # noqa: F401 - imported for the snapshot


def tracer() -> Any | None:
    """The Powertools Tracer, or None outside Lambda or without the X-Ray SDK (built once)."""
    global _tracer
    if _tracer is None:
        with _tracer_lock:
            if _tracer is None:
                _tracer = False
                if _tracing():
                    from aws_lambda_powertools.tracing import Tracer
                    from aws_xray_sdk.ext.httplib import add_ignored

                    # httplib: the RPC node, block engine and pin server (partner.core.transport);
                    # AWS calls are traced by the botocore patch, not twice
                    add_ignored(subclass="botocore.awsrequest.AWSHTTPConnection")
                    _tracer = Tracer(service=SERVICE, patch_modules=("botocore", "httplib"))
    return _tracer or None


# ---------------------------------------------------------------- handler wrapper


def _endpoint(event: dict) -> str:
    return str(event.get("resource") or event.get("path") or "unknown")[:120]


def instrument_api(
    handler: Callable[[dict, Any], dict], outcome: Callable[[], str | None]
) -> Callable[[dict, Any], dict]:
    """Wrap an API Gateway handler: request logging context, one access line, metrics, a trace span.

    `outcome()` gives the error code the request ended with (None for success).
    """
    partner.init_done()

    @functools.wraps(handler)
    def _run(event: dict, context: Any) -> dict:
        started = time.perf_counter()
        endpoint = _endpoint(event)
        with invocation():
            t = tracer()
            if t is not None:
                with t.provider.in_subsegment(f"## {endpoint}") as segment:
                    response = handler(event, context)
                    segment.put_annotation("endpoint", endpoint)
                    segment.put_annotation("status", int(response.get("statusCode", 0)))
            else:
                response = handler(event, context)
            status = int(response.get("statusCode", 0))
            code = outcome() or ("ok" if status < 400 else "error")
            count("Requests", endpoint=endpoint, status=str(status), code=code)
            if code == "wallet_sign_failed":
                count("SigningFailures")
            logger.info(
                "request",
                extra={
                    "endpoint": endpoint,
                    "method": event.get("httpMethod"),
                    "status": status,
                    "code": code,
                    "duration_ms": round((time.perf_counter() - started) * 1000, 1),
                },
            )
        return response

    injected = logger.inject_lambda_context(
        _run, correlation_id_path=correlation_paths.API_GATEWAY_REST, clear_state=True
    )

    @functools.wraps(handler)
    def lambda_handler(event: dict, context: Any) -> dict:
        if getattr(context, "aws_request_id", None) is None:  # a bare call without a Lambda context
            return _run(event, context)
        return injected(event, context)

    return lambda_handler


def instrument_scheduled(handler: Callable[[dict, Any], Any]) -> Callable[[dict, Any], Any]:
    """Metrics for a scheduled function (the migrator): counts flushed when it returns."""
    partner.init_done()

    @functools.wraps(handler)
    def _run(event: dict, context: Any) -> Any:
        with invocation():
            return handler(event, context)

    return _run
