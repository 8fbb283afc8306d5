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


ACTIONS = [ddb.update_action(ddb.Update("t", "A", "SET n = :one", vals={":one": 1}))]


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


class FakeBatchGet:
    """BatchGetItem that answers with the items it holds, but leaves each key of `unprocessed`
    unprocessed the first `times` times it is asked for."""

    def __init__(self, items: dict[str, dict[str, dict]], unprocessed: set[str], times: int):
        self.items = items
        self.left = dict.fromkeys(unprocessed, times)
        self.calls: list[dict] = []

    def batch_get_item(self, RequestItems):
        self.calls.append(RequestItems)
        responses: dict[str, list] = {}
        left: dict[str, dict] = {}
        for table, req in RequestItems.items():
            for key in req["Keys"]:
                pk = key["pk"]["S"]
                if self.left.get(pk, 0) > 0:
                    self.left[pk] -= 1
                    left.setdefault(table, {"Keys": [], "ConsistentRead": True})["Keys"].append(key)
                elif pk in self.items.get(table, {}):
                    responses.setdefault(table, []).append(ddb.to_item(self.items[table][pk]))
        return {"Responses": responses, "UnprocessedKeys": left}


def _batch_fake(monkeypatch, client):
    monkeypatch.setattr(ddb.aws, "dynamodb", lambda: client)
    monkeypatch.setattr(ddb.time, "sleep", lambda s: None)
    return client


def test_batch_get_asks_again_for_unprocessed_keys_until_it_has_them_all(monkeypatch):
    items = {"a": {f"k{i}": {"pk": f"k{i}", "n": i} for i in range(150)}, "b": {"x": {"pk": "x", "n": -1}}}
    client = _batch_fake(monkeypatch, FakeBatchGet(items, {"k3", "k120", "x"}, times=2))
    found = ddb.batch_get({"a": [f"k{i}" for i in range(150)], "b": ["x", "missing"]})
    assert found == {"a": items["a"], "b": items["b"]}
    # two chunks (100 keys, then 50 + 2); each asked again, twice, for its unprocessed keys only
    asked = [sorted(k["pk"]["S"] for req in call.values() for k in req["Keys"]) for call in client.calls]
    assert [len(a) for a in asked] == [100, 1, 1, 52, 2, 2]
    assert asked[1] == asked[2] == ["k3"] and asked[4] == asked[5] == ["k120", "x"]


def test_batch_get_keys_never_processed_are_a_retryable_500(monkeypatch):
    items = {"a": {"k": {"pk": "k"}}}
    _batch_fake(monkeypatch, FakeBatchGet(items, {"k"}, times=10**6))
    with pytest.raises(ApiError) as err:
        ddb.batch_get({"a": ["k"]})
    assert err.value.code == "internal" and err.value.retryable
