"""A test that drives a queue itself (`poll_once` with its own handler) must be the queue's only
consumer: a session's devstack polls the same queue in the background with its own copy of the
function, which runs in a process of its own and so sees none of the test's stand-ins (its DNS
answers): the test's message went to the background poller about half the time under load."""

from __future__ import annotations

import threading

import boto3


def test_a_queue_driven_by_a_test_is_not_consumed_by_a_background_poller(aws_stack):
    from devstack.sqs import QueuePoller

    sqs = boto3.client("sqs", endpoint_url=aws_stack.endpoint_url, region_name="us-east-1")
    url = sqs.create_queue(QueueName="poller-probe")["QueueUrl"]
    arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    background: list[str] = []
    mine: list[str] = []
    polled = threading.Event()

    def in_background(event, context):
        background.extend(r["body"] for r in event["Records"])

    def receive(event, context):
        mine.extend(r["body"] for r in event["Records"])

    behind = QueuePoller(in_background, url, arn, aws_stack.endpoint_url, name="background")
    behind.wait_seconds = 0
    real = behind.poll_once

    def counted(wait_seconds=None):
        polled.set()
        return real(wait_seconds)

    behind.poll_once = counted
    behind.start()
    try:
        polled.wait(5)
        with QueuePoller.alone(url):
            for i in range(10):
                sqs.send_message(QueueUrl=url, MessageBody=f"m{i}")
            polled.clear()
            ours = QueuePoller(receive, url, arn, aws_stack.endpoint_url, name="test")
            while ours.poll_once(wait_seconds=0):
                pass
            assert not polled.wait(0.5), "the background poller polled while paused"
        assert sorted(mine) == [f"m{i}" for i in range(10)] and background == []
        sqs.send_message(QueueUrl=url, MessageBody="after")  # and polls again once the test is done
        for _ in range(50):
            if background:
                break
            threading.Event().wait(0.1)
        assert background == ["after"]
    finally:
        behind.stop()
        sqs.delete_queue(QueueUrl=url)
