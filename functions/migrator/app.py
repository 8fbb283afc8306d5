"""Scheduled (EventBridge, every minute): migrate completed bonding curves into their pools."""

from typing import Any

from aws_lambda_powertools import Logger

from partner import migration

logger = Logger(service="partner-migrator")


@logger.inject_lambda_context
def lambda_handler(event: dict, context: Any) -> dict:
    summary = migration.run()
    for report in summary["results"]:
        if report["status"] in ("failed", "unconfirmed"):
            logger.warning("migration not done", extra=report)
    counts = {k: v for k, v in summary.items() if k != "results"}
    if summary["found"]:
        logger.info("crank finished", extra=counts)
    else:
        logger.debug("crank finished", extra=counts)
    return summary
