"""The devstack's DynamoDB answers a repeated TransactWriteItems as DynamoDB does
(devstack.ddb_tokens): the same ClientRequestToken and parameters within 10 minutes -> success,
applied once; the same token with other parameters -> IdempotentParameterMismatchException."""

from __future__ import annotations

import uuid

import pytest
from botocore.exceptions import ClientError

from devstack.ddb_tokens import WINDOW_SECONDS, TransactionTokens


def _add(table: str, pk: str, token: str | None, n: int = 1) -> dict:
    from partner.store import aws

    kwargs = {
        "TransactItems": [
            {
                "Update": {
                    "TableName": table,
                    "Key": {"pk": {"S": pk}},
                    "UpdateExpression": "ADD #c :n",
                    "ExpressionAttributeNames": {"#c": "count"},
                    "ExpressionAttributeValues": {":n": {"N": str(n)}},
                }
            }
        ]
    }
    if token:
        kwargs["ClientRequestToken"] = token
    return aws.dynamodb().transact_write_items(**kwargs)


def _count(table: str, pk: str) -> int:
    from partner.store import ddb

    return int((ddb.get(table, pk) or {}).get("count", 0))


def test_a_repeated_token_is_applied_once(aws_stack):
    from partner.core.settings import get_settings

    table, pk, token = get_settings().counters_table, f"TOKENS#{uuid.uuid4()}", str(uuid.uuid4())
    _add(table, pk, token)
    _add(table, pk, token)
    assert _count(table, pk) == 1
    _add(table, pk, str(uuid.uuid4()))  # another token is another transaction
    assert _count(table, pk) == 2


def test_the_same_token_with_other_parameters_is_a_mismatch(aws_stack):
    from partner.core.settings import get_settings

    table, pk, token = get_settings().counters_table, f"TOKENS#{uuid.uuid4()}", str(uuid.uuid4())
    _add(table, pk, token)
    with pytest.raises(ClientError) as info:
        _add(table, pk, token, n=5)
    assert info.value.response["Error"]["Code"] == "IdempotentParameterMismatchException"
    assert _count(table, pk) == 1


def test_a_token_is_forgotten_after_the_window():
    clock = [0.0]
    calls = []

    def app(environ, start_response):
        calls.append(1)
        start_response("200 OK", [])
        return [b"{}"]

    import io

    middleware = TransactionTokens(app, now=lambda: clock[0])
    body = b'{"ClientRequestToken": "t", "TransactItems": []}'

    def send():
        environ = {
            "HTTP_X_AMZ_TARGET": "DynamoDB_20120810.TransactWriteItems",
            "CONTENT_LENGTH": str(len(body)),
            "wsgi.input": io.BytesIO(body),
        }
        return b"".join(middleware(environ, lambda *a: None))

    send()
    send()
    assert len(calls) == 1
    clock[0] += WINDOW_SECONDS + 1
    send()
    assert len(calls) == 2
