"""partner.store.ddb's retries of what DynamoDB refuses without writing, with a fake client.

A transaction whose first answer was lost (botocore's read timeout) is sent again by botocore with
the same ClientRequestToken; while the first still runs DynamoDB answers that retry with
TransactionInProgressException. The outcome is then unknown, not failed: the same transaction (the
same token) is asked again until DynamoDB answers what it did, never reported as a refusal.
"""

from __future__ import annotations

import pytest
from botocore.exceptions import ClientError

from partner.core.errors import ApiError
from partner.store import ddb


class FakeDynamo:
    def __init__(self, answers):
        self.answers = list(answers)
        self.calls: list[dict] = []

    def transact_write_items(self, **kwargs):
        self.calls.append(kwargs)
        answer = self.answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer


def in_progress() -> ClientError:
    return ClientError(
        {
            "Error": {"Code": "TransactionInProgressException", "Message": "in progress"},
            "ResponseMetadata": {"HTTPStatusCode": 400},
        },
        "TransactWriteItems",
    )


def cancelled(*codes: str) -> ClientError:
    return ClientError(
        {
            "Error": {"Code": "TransactionCanceledException", "Message": "cancelled"},
            "CancellationReasons": [{"Code": c} for c in codes],
            "ResponseMetadata": {"HTTPStatusCode": 400},
        },
        "TransactWriteItems",
    )


@pytest.fixture
def fake(monkeypatch):
    def install(answers):
        client = FakeDynamo(answers)
        monkeypatch.setattr(ddb.aws, "dynamodb", lambda: client)
        monkeypatch.setattr(ddb.time, "sleep", lambda s: None)
        return client

    return install


ACTIONS = [ddb.update_action("t", "A", "SET n = :one", vals={":one": 1})]


def test_a_transaction_still_in_progress_is_asked_again_with_its_own_token(fake):
    client = fake([in_progress(), in_progress(), {}])
    assert ddb.transact(ACTIONS) is None
    tokens = {c["ClientRequestToken"] for c in client.calls}
    assert len(client.calls) == 3 and len(tokens) == 1


def test_in_progress_then_its_condition_failure_is_that_failure(fake):
    client = fake([in_progress(), cancelled("ConditionalCheckFailed")])
    out = ddb.transact(ACTIONS)
    assert out is not None and out[0].failed
    assert client.calls[0]["ClientRequestToken"] == client.calls[1]["ClientRequestToken"]


def test_a_conflict_retries_as_a_new_transaction(fake):
    client = fake([cancelled("TransactionConflict"), {}])
    assert ddb.transact(ACTIONS) is None
    assert client.calls[0]["ClientRequestToken"] != client.calls[1]["ClientRequestToken"]


def test_in_progress_that_never_ends_is_a_retryable_500(fake):
    fake([in_progress()] * ddb.TRANSACT_ATTEMPTS * 4)
    with pytest.raises(ApiError) as err:
        ddb.transact(ACTIONS)
    assert err.value.code == "internal" and err.value.retryable
