"""What a million requests of each endpoint cost on AWS, from the bench's own figures: per function,
the template's memory, the warm p50 and the calls one request makes; prices from `PRICES`, one
dated table of us-east-1 list prices. Nothing here measures (tests/unit/test_cost_model.py checks
the arithmetic).
"""

from __future__ import annotations

import math
from typing import Any

# us-east-1 list prices (USD), first volume tier, as published on the AWS pricing pages.
PRICES: dict[str, Any] = {
    "as_of": "2025-01-15",
    "region": "us-east-1",
    "api_gateway_rest_per_million": 3.50,  # REST API, first 333 million a month
    "api_gateway_http_per_million": 1.00,  # HTTP API, first 300 million a month (per 512 KB)
    "lambda_requests_per_million": 0.20,
    "lambda_gb_second_x86": 0.0000166667,  # first 6 billion GB-s a month
    "dynamodb_write_unit_per_million": 0.625,  # on-demand, after the 2024-11-01 cut
    "dynamodb_read_unit_per_million": 0.125,
    "kms_requests_per_million": 3.00,  # $0.03 per 10,000 symmetric / HMAC requests
    "s3_put_per_million": 5.00,  # PUT, COPY, POST, LIST: $0.005 per 1,000
    "s3_get_per_million": 0.40,  # GET and others: $0.0004 per 1,000
    "sqs_requests_per_million": 0.40,  # standard queue, per 64 KB chunk
    "logs_ingest_per_gb": 0.50,  # CloudWatch Logs, standard class
}
FULL_VCPU_MB = 1769
GB = 1024**3
# functions that API Gateway does not front (schedules, the queue consumer)
NOT_API = {"migrator", "tracker", "webhook_delivery"}
# when a stored result has no units (older bench runs): per operation, items under 1 KB / 4 KB
FALLBACK_UNITS = {
    "GetItem": (1, 0),
    "BatchGetItem": (3, 0),
    "Query": (1, 0),
    "PutItem": (0, 1),
    "UpdateItem": (0, 1),
    "DeleteItem": (0, 1),
    "TransactWriteItems": (0, 4),
}
FALLBACK_LOG_BYTES = 1200
S3_GET_OPS = {"GetObject", "HeadObject"}


def duration_ms(p50_ms: float, cpu_ms: float | None, memory_mb: int) -> float:
    """The billed duration of one request at `memory_mb`: whole milliseconds, rounded up.

    Lambda gives a function CPU in proportion to its memory, one full vCPU at 1,769 MB. The bench
    runs each function on a full core, so its own CPU time (`cpu_ms`) stretches by 1769 / memory
    below that; the rest of the p50 (waiting on the stand-ins) does not. Without `cpu_ms`, the p50
    is taken as it is at every size."""
    if cpu_ms is None:
        return float(math.ceil(p50_ms))
    cpu = min(cpu_ms, p50_ms)
    return float(math.ceil((p50_ms - cpu) + cpu * FULL_VCPU_MB / min(memory_mb, FULL_VCPU_MB)))


def _units(row: dict[str, Any]) -> tuple[float, float]:
    if "ddb_read_units" in row:
        return float(row["ddb_read_units"]), float(row["ddb_write_units"])
    read = write = 0.0
    for op, n in (row.get("aws") or {}).items():
        service, _, name = op.partition(".")
        if service == "dynamodb":
            r, w = FALLBACK_UNITS.get(name, (0, 0))
            read, write = read + r * n, write + w * n
    return read, write


def per_million(
    row: dict[str, Any], p50_ms: float, memory_mb: int, api: bool, prices: dict[str, Any] = PRICES
) -> dict[str, float]:
    """USD per million requests of one endpoint, by item."""
    ops = row.get("aws") or {}
    count = lambda service: sum(n for op, n in ops.items() if op.startswith(service + "."))  # noqa: E731 - a local one-liner
    s3_get = sum(n for op, n in ops.items() if op.startswith("s3.") and op.split(".")[1] in S3_GET_OPS)
    read, write = _units(row)
    billed = duration_ms(p50_ms, row.get("cpu_ms"), memory_mb)
    log_bytes = row.get("log_bytes", FALLBACK_LOG_BYTES)
    out = {
        "api_gateway": prices["api_gateway_rest_per_million"] if api else 0.0,
        "lambda": prices["lambda_requests_per_million"]
        + billed / 1000 * memory_mb / 1024 * prices["lambda_gb_second_x86"] * 1e6,
        "dynamodb": read * prices["dynamodb_read_unit_per_million"] + write * prices["dynamodb_write_unit_per_million"],
        "kms": count("kms") * prices["kms_requests_per_million"],
        "s3": (count("s3") - s3_get) * prices["s3_put_per_million"] + s3_get * prices["s3_get_per_million"],
        "sqs": count("sqs") * prices["sqs_requests_per_million"],
        "logs": log_bytes * 1e6 / GB * prices["logs_ingest_per_gb"],
    }
    out["total"] = sum(out.values())
    return {k: round(v, 4) for k, v in out.items()}


def table(
    results: dict[str, Any],
    memory: dict[str, int],
    compare_mb: tuple[int, ...] = (1024, FULL_VCPU_MB),
    prices: dict[str, Any] = PRICES,
) -> dict[str, Any]:
    """The cost section of bench/results.json: per endpoint, USD per million requests at the
    template's memory (by item), the total behind an HTTP API instead, and the total at each
    of `compare_mb`."""
    calls, warm = results.get("calls") or {}, results.get("warm") or {}
    rows: dict[str, Any] = {}
    for name, row in calls.items():
        if "error" in row or name not in memory:
            continue
        p50 = (warm.get(name) or {}).get("p50_ms")
        if p50 is None:
            continue
        api = name not in NOT_API
        mem = memory[name]
        base = per_million(row, p50, mem, api, prices)
        http = base["total"] - base["api_gateway"] + (prices["api_gateway_http_per_million"] if api else 0.0)
        rows[name] = {
            "memory_mb": mem,
            "p50_ms": p50,
            "cpu_ms": row.get("cpu_ms"),
            "billed_ms": duration_ms(p50, row.get("cpu_ms"), mem),
            **base,
            "total_http_api": round(http, 4),
            "at_memory": {
                str(m): {
                    "billed_ms": duration_ms(p50, row.get("cpu_ms"), m),
                    "total": per_million(row, p50, m, api, prices)["total"],
                }
                for m in compare_mb
            },
        }
    return {"prices": prices, "functions": rows}


def template_memory(template_path: Any) -> dict[str, int]:
    """Function directory name (functions/<name>) -> MemorySize (its own, else Globals')."""
    from devstack.cfn import load_template

    t = load_template(template_path)
    default = int((t.globals.get("Function") or {}).get("MemorySize", 128))
    out: dict[str, int] = {}
    for res in t.resources.values():
        if (res or {}).get("Type") != "AWS::Serverless::Function":
            continue
        props = res.get("Properties") or {}
        code = str(props.get("CodeUri", ""))
        if code.startswith("functions/"):
            out[code.split("/", 1)[1].rstrip("/")] = int(props.get("MemorySize", default))
    return out
