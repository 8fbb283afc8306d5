"""The devstack's moto keeps no model it no longer uses: moto tracks every instance of its models
(`instances_tracked`, for a reset the devstack never makes), so every item ever written, overwritten
or deleted stayed in memory, and every copy a TransactWriteItems makes of the tables it touches (for
its rollback), with all their items (late in a full test run one process held 4,759 copies of two
tables, about 9 GB, and after those were pruned 1.3 M items, 20 GB, grown at about 10 MB a second)."""

from __future__ import annotations

import gc

from moto.dynamodb.models.dynamo_type import Item
from moto.dynamodb.models.table import Table

from devstack.aws import start_moto
from testkit.helpers import moto_client


def alive(kind: type) -> int:
    gc.collect()
    return sum(1 for o in gc.get_objects() if type(o) is kind)


def test_transactions_and_overwrites_keep_no_copies():
    with start_moto(port=0) as moto:
        ddb = moto_client("dynamodb", moto)
        ddb.create_table(
            TableName="copies",
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
            BillingMode="PAY_PER_REQUEST",
        )
        for n in range(50):
            ddb.put_item(TableName="copies", Item={"pk": {"S": f"k{n}"}, "v": {"N": "0"}})
        tables, items = alive(Table), alive(Item)
        add = {"UpdateExpression": "ADD v :one", "ExpressionAttributeValues": {":one": {"N": "1"}}}
        for n in range(20):
            ddb.transact_write_items(
                TransactItems=[{"Update": {"TableName": "copies", "Key": {"pk": {"S": f"k{n}"}}, **add}}]
            )
            ddb.put_item(TableName="copies", Item={"pk": {"S": f"k{n + 20}"}, "v": {"N": "7"}})  # an overwrite
        assert alive(Table) <= tables and alive(Item) <= items + 5  # was +20 copies, and 20 x 50 items
        assert ddb.get_item(TableName="copies", Key={"pk": {"S": "k19"}})["Item"]["v"] == {"N": "1"}
        assert ddb.get_item(TableName="copies", Key={"pk": {"S": "k39"}})["Item"]["v"] == {"N": "7"}
