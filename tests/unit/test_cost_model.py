"""The cost per million requests (bench/cost.py, issue 26 item 5): the arithmetic."""

from __future__ import annotations

import math

import pytest

from bench import cost
from testkit.helpers import ROOT

PRICES = cost.PRICES


def test_prices_are_one_dated_table():
    assert PRICES["as_of"] and PRICES["region"] == "us-east-1"
    assert PRICES["api_gateway_http_per_million"] < PRICES["api_gateway_rest_per_million"]


def test_billed_duration_rounds_up_and_scales_only_the_cpu_part():
    assert cost.duration_ms(20.2, None, 512) == 21  # no CPU figure: the p50 as it is
    # 10 ms of own CPU at 512 MB stretches by 1769/512; the 10 ms of waiting does not
    assert cost.duration_ms(20.0, 10.0, 512) == math.ceil(10 + 10 * 1769 / 512)
    assert cost.duration_ms(20.0, 10.0, 1769) == 20
    assert cost.duration_ms(20.0, 10.0, 3008) == 20  # no faster beyond one vCPU for one thread
    assert cost.duration_ms(5.0, 9.0, 1769) == 5  # CPU never counted beyond the p50


def test_a_buy_per_million():
    row = {
        "aws": {"dynamodb.BatchGetItem": 1, "dynamodb.UpdateItem": 4, "dynamodb.PutItem": 1, "kms.Decrypt": 1},
        "ddb_read_units": 3.0,
        "ddb_write_units": 5.0,
        "log_bytes": 2048,
        "cpu_ms": 12.0,
    }
    got = cost.per_million(row, 40.0, 512, api=True)
    billed = math.ceil(28 + 12 * 1769 / 512)  # 70 ms
    assert got["api_gateway"] == 3.50
    assert got["lambda"] == pytest.approx(0.20 + billed / 1000 * 0.5 * 0.0000166667 * 1e6, abs=1e-4)
    assert got["dynamodb"] == pytest.approx(3 * 0.125 + 5 * 0.625)
    assert got["kms"] == 3.00
    assert got["s3"] == 0 and got["sqs"] == 0
    assert got["logs"] == pytest.approx(2048 * 1e6 / 1024**3 * 0.50, abs=1e-4)
    parts = sum(v for k, v in got.items() if k != "total")
    assert got["total"] == pytest.approx(parts, abs=1e-3)


def test_s3_puts_and_gets_sqs_and_units_from_operations_when_none_were_measured():
    row = {
        "aws": {
            "s3.PutObject": 2,
            "s3.GetObject": 1,
            "sqs.SendMessageBatch": 1,
            "dynamodb.GetItem": 2,
            "dynamodb.TransactWriteItems": 1,
        }
    }
    got = cost.per_million(row, 10.0, 512, api=False)
    assert got["api_gateway"] == 0
    assert got["s3"] == pytest.approx(2 * 5.00 + 0.40)
    assert got["sqs"] == pytest.approx(0.40)
    assert got["dynamodb"] == pytest.approx(
        2 * 0.125 + 4 * 0.625
    )  # fallback: 1 RRU per GetItem, 4 WRU per 2-item transaction
    assert got["logs"] == pytest.approx(cost.FALLBACK_LOG_BYTES * 1e6 / 1024**3 * 0.50, abs=1e-4)


def test_the_table_compares_http_api_and_more_memory():
    results = {
        "calls": {
            "me": {
                "aws": {"dynamodb.BatchGetItem": 1, "dynamodb.UpdateItem": 2},
                "ddb_read_units": 3.0,
                "ddb_write_units": 2.0,
                "log_bytes": 1000,
                "cpu_ms": 8.0,
            },
            "tracker": {"aws": {"dynamodb.Query": 4}, "cpu_ms": 5.0},
            "broken": {"error": "x"},
        },
        "warm": {"me": {"p50_ms": 20.0}, "tracker": {"p50_ms": 30.0}},
    }
    out = cost.table(results, {"me": 512, "tracker": 512, "broken": 512}, compare_mb=(1024, 1769))
    me = out["functions"]["me"]
    assert set(out["functions"]) == {"me", "tracker"}
    assert me["total_http_api"] == pytest.approx(me["total"] - 3.50 + 1.00, abs=1e-3)
    assert me["at_memory"]["1024"]["billed_ms"] == math.ceil(12 + 8 * 1769 / 1024)
    assert me["at_memory"]["1769"]["billed_ms"] == 20
    assert out["functions"]["tracker"]["api_gateway"] == 0
    assert out["functions"]["tracker"]["total_http_api"] == out["functions"]["tracker"]["total"]


def test_template_memory_names_every_function():
    memory = cost.template_memory(ROOT / "template.yaml")
    assert {"me", "trades_buy", "tracker", "webhook_delivery"} <= set(memory)
    assert all(m >= 128 for m in memory.values())
