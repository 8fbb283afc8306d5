"""SQS event source: deliver signed webhook events; retries go back to the queue with a delay."""

from typing import Any

from partner.core import observability
from partner.jobs import webhooks

logger = observability.make_logger("partner-webhooks")


@logger.inject_lambda_context
@observability.instrument_scheduled
def lambda_handler(event: dict, context: Any) -> dict:
    out = webhooks.handle_sqs(event)
    for outcome, n in out["outcomes"].items():
        observability.count("WebhookDeliveries", n, outcome=outcome)
    if out["batchItemFailures"] or out["outcomes"].get("malformed"):
        logger.warning("webhook batch had failures", extra=out["outcomes"])
    return {"batchItemFailures": out["batchItemFailures"]}
