"""The devstack's moto does not keep what a transaction copied: moto deep-copies the tables a
TransactWriteItems touches (for its rollback) and tracks every model instance it ever made, so each
copy, with all its items, stayed in memory for the life of the process."""

from __future__ import annotations

from moto.core.base_backend import model_data

from devstack.aws import start_moto
from tests.helpers import moto_client


def test_a_transactions_table_copies_are_not_kept():
    with start_moto(port=0) as moto:
        ddb = moto_client("dynamodb", moto)
        ddb.create_table(
            TableName="copies",
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
            BillingMode="PAY_PER_REQUEST",
        )
        tracked = model_data["dynamodb"]["Table"].instances_tracked
        before = len(tracked)
        for n in range(20):
            add = {"UpdateExpression": "ADD v :one", "ExpressionAttributeValues": {":one": {"N": "1"}}}
            ddb.transact_write_items(
                TransactItems=[{"Update": {"TableName": "copies", "Key": {"pk": {"S": f"k{n}"}}, **add}}]
            )
        assert len(tracked) <= before
        assert ddb.get_item(TableName="copies", Key={"pk": {"S": "k19"}})["Item"]["v"] == {"N": "1"}
