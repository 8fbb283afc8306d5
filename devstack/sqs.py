"""Stands in for Lambda's SQS event source mapping on the devstack (moto's queues).

    poller = QueuePoller(handler, queue_url, queue_arn, endpoint_url)
    poller.poll_once()          # receive up to 10, invoke, delete what succeeded
    poller.start() / stop()     # a background thread doing that in a loop
    with QueuePoller.alone(queue_url): ...  # the running pollers of that queue wait meanwhile

Like the event source mapping: messages come in batches of up to 10 as an `aws:sqs` event;
the handler's `batchItemFailures` stay on the queue (visible again after the visibility
timeout, so the queue's redrive policy applies); every other message is deleted. A handler
that raises leaves the whole batch on the queue.
"""

from __future__ import annotations

import contextlib
import hashlib
import sys
import threading
import weakref
from collections.abc import Callable, Iterator
from typing import Any

from devstack.events import REGION, lambda_context

Handler = Callable[[dict, Any], Any]


def sqs_event(messages: list[dict[str, Any]], queue_arn: str) -> dict[str, Any]:
    """An SQS event as Lambda's event source mapping delivers it."""
    return {
        "Records": [
            {
                "messageId": m["MessageId"],
                "receiptHandle": m["ReceiptHandle"],
                "body": m["Body"],
                "attributes": dict(m.get("Attributes") or {}),
                "messageAttributes": {},
                "md5OfBody": m.get("MD5OfBody") or hashlib.md5(m["Body"].encode()).hexdigest(),  # SQS's own
                "eventSource": "aws:sqs",
                "eventSourceARN": queue_arn,
                "awsRegion": REGION,
            }
            for m in messages
        ]
    }


class QueuePoller:
    WAIT_SECONDS = 1  # each receive's long poll
    _running: weakref.WeakSet[QueuePoller] = weakref.WeakSet()

    def __init__(
        self,
        handler: Handler,
        queue_url: str,
        queue_arn: str,
        endpoint_url: str | None = None,
        *,
        name: str = "queue",
        timeout_seconds: int = 60,
    ) -> None:
        import boto3

        self.handler, self.queue_url, self.queue_arn, self.name = handler, queue_url, queue_arn, name
        self.wait_seconds, self.timeout_seconds = self.WAIT_SECONDS, timeout_seconds
        self.sqs = boto3.session.Session().client("sqs", endpoint_url=endpoint_url, region_name=REGION)
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._loop, name=f"devstack-sqs-{name}", daemon=True)
        self._last_error = ""
        self._polling = False
        self._holds = 0  # callers of `alone` waiting for this poller to stay out of its queue
        self._turn = threading.Condition()

    def poll_once(self, wait_seconds: int | None = None) -> int:
        """One receive-invoke-delete round; the number of messages handled."""
        got = self.sqs.receive_message(
            QueueUrl=self.queue_url,
            MaxNumberOfMessages=10,
            AttributeNames=["All"],
            WaitTimeSeconds=self.wait_seconds if wait_seconds is None else wait_seconds,
        )
        messages = got.get("Messages") or []
        if not messages:
            return 0
        out = self.handler(
            sqs_event(messages, self.queue_arn), lambda_context(self.name, timeout_seconds=self.timeout_seconds)
        )
        failed = {f["itemIdentifier"] for f in (out or {}).get("batchItemFailures") or []}
        done = [m for m in messages if m["MessageId"] not in failed]
        for start in range(0, len(done), 10):
            self.sqs.delete_message_batch(
                QueueUrl=self.queue_url,
                Entries=[
                    {"Id": str(i), "ReceiptHandle": m["ReceiptHandle"]} for i, m in enumerate(done[start : start + 10])
                ],
            )
        return len(messages)

    def start(self) -> QueuePoller:
        self._thread.start()
        QueuePoller._running.add(self)
        return self

    @classmethod
    @contextlib.contextmanager
    def alone(cls, queue_url: str) -> Iterator[None]:
        """The background pollers of `queue_url` finish their round and stay out until the block
        ends, so a caller driving `poll_once` with its own handler is the queue's only consumer
        (a test whose stand-ins a devstack function's process would not see)."""
        pollers = [p for p in list(cls._running) if p.queue_url == queue_url]
        for p in pollers:
            with p._turn:
                p._holds += 1
                while p._polling:
                    p._turn.wait()
        try:
            yield
        finally:
            for p in pollers:
                with p._turn:
                    p._holds -= 1
                    p._turn.notify_all()

    def _take_turn(self) -> bool:
        with self._turn:
            while self._holds and not self._stopped.is_set():
                self._turn.wait(0.2)
            self._polling = not self._stopped.is_set()
            return self._polling

    def _end_turn(self) -> None:
        with self._turn:
            self._polling = False
            self._turn.notify_all()

    def _loop(self) -> None:
        while self._take_turn():
            try:
                self.poll_once()
                self._last_error = ""
            except Exception as exc:  # keep polling; print a failure once until it changes
                message = f"{type(exc).__name__}: {exc}"
                if message != self._last_error:
                    print(f"devstack: {self.name} delivery failed: {message}", file=sys.stderr)
                self._last_error = message
                self._stopped.wait(1.0)
            finally:
                self._end_turn()

    def stop(self) -> None:
        self._stopped.set()
        QueuePoller._running.discard(self)
        if self._thread.is_alive():
            self._thread.join(timeout=self.timeout_seconds + 5)
