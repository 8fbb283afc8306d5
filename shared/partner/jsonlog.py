"""Structured JSON logs on stdout, with the standard library alone.

The lines keep the shape Powertools' Logger gave them (the service used it until its import
cost a cold start about 70 ms; docs/benchmarks.md), so log queries and alarms keep working:

    {"level":"INFO","location":"handler:42","message":"request",
     "timestamp":"2026-11-23 03:07:58,119+0000","service":"partner-api",
     "cold_start":true,"function_name":...,"function_memory_size":512,"function_arn":...,
     "function_request_id":...,"correlation_id":...,<extra keys>,
     "exception":...,"exception_name":...,"stack_trace":{...},"xray_trace_id":...}

Keys whose value is None are left out. The Lambda context keys are per thread (the
devstack serves requests on threads; Lambda runs one at a time), set by
`inject_lambda_context` and cleared when the invocation ends. Level:
`POWERTOOLS_LOG_LEVEL`, else `LOG_LEVEL`, else INFO. `POWERTOOLS_LOGGER_LOG_EVENT=true`
logs each incoming event. `serialize` is the seam for redaction (partner.observability).
"""

from __future__ import annotations

import functools
import json
import logging
import os
import sys
import threading
import time
import traceback
from collections.abc import Callable
from typing import Any

# LogRecord's own attributes: everything else on a record came in through `extra=`
_RESERVED = frozenset(vars(logging.LogRecord("", 0, "", 0, "", (), None))) | {"message", "asctime"}

_context = threading.local()
_cold = True


def _truthy(name: str) -> bool:
    return os.getenv(name, "").strip().lower() in ("1", "true", "yes", "on")


def _trace_id() -> str | None:
    raw = os.getenv("_X_AMZN_TRACE_ID")
    return raw.split(";")[0].replace("Root=", "") if raw else None


def _path(data: Any, dotted: str) -> Any:
    for part in dotted.split("."):
        if not isinstance(data, dict):
            return None
        data = data.get(part)
    return data


class JsonFormatter(logging.Formatter):
    """One JSON object per record, in Powertools' key order and timestamp format."""

    def __init__(self, service: str) -> None:
        super().__init__()
        self.service = service

    def serialize(self, log: dict[str, Any]) -> str:
        return json.dumps(log, default=str, separators=(",", ":"), ensure_ascii=False)

    def formatTime(self, record: logging.LogRecord, datefmt: str | None = None) -> str:  # noqa: N802 - logging's name
        return time.strftime(f"%Y-%m-%d %H:%M:%S,{int(record.msecs):03d}%z", time.localtime(record.created))

    def format(self, record: logging.LogRecord) -> str:
        message: Any = record.msg
        if record.args:
            message = record.getMessage()
        elif isinstance(message, str):
            try:  # a JSON string is logged as the value it holds
                message = json.loads(message)
            except ValueError:
                pass
        log: dict[str, Any] = {
            "level": record.levelname,
            "location": f"{record.funcName}:{record.lineno}",
            "message": message,
            "timestamp": self.formatTime(record),
            "service": self.service,
            **getattr(_context, "keys", {}),
        }
        log.update((k, v) for k, v in vars(record).items() if k not in _RESERVED)
        exc = record.exc_info
        if isinstance(exc, tuple) and hasattr(exc[0], "__name__"):
            log.setdefault("exception", self.formatException(exc))
            log.setdefault("exception_name", exc[0].__name__)
            log.setdefault("exception_notes", getattr(exc[1], "__notes__", None))
            log["stack_trace"] = {
                "type": exc[0].__name__, "value": exc[1], "module": type(exc[1]).__module__,
                "frames": [{"file": f.filename, "line": f.lineno, "function": f.name, "statement": f.line}
                           for f in traceback.extract_tb(exc[2])],
            }
        log["xray_trace_id"] = _trace_id()
        return self.serialize({k: v for k, v in log.items() if v is not None})


class JsonLogger(logging.Logger):
    """A standalone `logging.Logger` (not in the global registry) writing JSON lines to stdout."""

    def __init__(self, service: str, formatter: JsonFormatter | None = None) -> None:
        super().__init__(service)
        self.propagate = False
        level = (os.getenv("POWERTOOLS_LOG_LEVEL") or os.getenv("LOG_LEVEL") or "INFO").strip().upper()
        self.setLevel(logging.getLevelNamesMapping().get(level, logging.INFO))
        self.registered_handler = logging.StreamHandler(sys.stdout)
        self.registered_handler.setFormatter(formatter or JsonFormatter(service))
        self.addHandler(self.registered_handler)

    def inject_lambda_context(self, handler: Callable[..., Any] | None = None, *,
                              correlation_id_path: str | None = None) -> Any:
        """Decorator: the Lambda context's keys (and the correlation id found at the dotted
        `correlation_id_path` of the event) on every line the invocation logs."""
        if handler is None:
            return functools.partial(self.inject_lambda_context, correlation_id_path=correlation_id_path)

        @functools.wraps(handler)
        def _run(event: Any, context: Any, *args: Any, **kwargs: Any) -> Any:
            global _cold
            cold, _cold = _cold, False
            if os.getenv("AWS_LAMBDA_INITIALIZATION_TYPE") == "provisioned-concurrency":
                cold = False  # initialized ahead of any request: never a cold start
            _context.keys = {
                "cold_start": cold,
                "function_name": getattr(context, "function_name", None),
                "function_memory_size": getattr(context, "memory_limit_in_mb", None),
                "function_arn": getattr(context, "invoked_function_arn", None),
                "function_request_id": getattr(context, "aws_request_id", None),
                "correlation_id": _path(event, correlation_id_path) if correlation_id_path else None,
            }
            try:
                if _truthy("POWERTOOLS_LOGGER_LOG_EVENT"):
                    self.info(event)
                return handler(event, context, *args, **kwargs)
            finally:
                _context.keys = {}

        return _run
