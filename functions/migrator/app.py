"""Scheduled (EventBridge, every minute): migrate completed bonding curves into their pools."""

from typing import Any

from partner.core import observability
from partner.jobs import migration

logger = observability.make_logger("partner-migrator")


@logger.inject_lambda_context
@observability.instrument_scheduled
def lambda_handler(event: dict, context: Any) -> dict:
    summary = migration.run()
    for report in summary["results"]:
        observability.count("Migrations", status=report["status"])
        if report["status"] in ("failed", "unconfirmed"):
            logger.warning("migration not done", extra=report)
    counts = {k: v for k, v in summary.items() if k != "results"}
    if summary["found"]:
        logger.info("crank finished", extra=counts)
    else:
        logger.debug("crank finished", extra=counts)
    return summary
