"""The devstack's moto applies each request atomically (devstack/aws.py), except an SQS long poll:
it waits on moto's own queue condition, and under the lock it would hold up every other request
(the webhook poller re-polling at once starved a trade's DynamoDB write for good)."""

from __future__ import annotations

import threading


def test_a_long_poll_does_not_hold_up_other_requests(aws_stack):
    import boto3

    session = boto3.session.Session()
    sqs = session.client("sqs", endpoint_url=aws_stack.endpoint_url, region_name="us-east-1")
    ddb = session.client("dynamodb", endpoint_url=aws_stack.endpoint_url, region_name="us-east-1")
    queue = sqs.create_queue(QueueName="long-poll-probe")["QueueUrl"]
    table = aws_stack.physical_id("CountersTable")
    done: list[str] = []
    polling = threading.Event()

    def poll() -> None:
        polling.set()
        sqs.receive_message(QueueUrl=queue, WaitTimeSeconds=5)  # an empty queue: waits the full 5 s
        done.append("poll")

    poller = threading.Thread(target=poll)
    poller.start()
    polling.wait()
    for _ in range(20):  # requests while the poll waits: each answers at once, not after the poll
        ddb.get_item(TableName=table, Key={"pk": {"S": "probe"}})
    done.append("reads")
    poller.join()
    assert done == ["reads", "poll"]
