"""Scheduled (EventBridge, every minute): follow sent transactions to finality, enqueue webhook events."""

from typing import Any

from partner.core import observability
from partner.core.settings import get_settings
from partner.features import tracker

logger = observability.make_logger("partner-tracker")


@logger.inject_lambda_context
@observability.instrument_scheduled
def lambda_handler(event: dict, context: Any) -> dict:
    seconds = float(get_settings().tracker_run_seconds)
    remaining = getattr(context, "get_remaining_time_in_millis", None)
    if remaining is not None:  # leave room for the last pass
        seconds = min(seconds, max(0.0, remaining() / 1000 - 30))
    passes = tracker.run_for(seconds)
    total: dict[str, Any] = {
        "passes": len(passes),
        "moved": sum(p["moved"] for p in passes),
        "events": sum(p["events"] for p in passes),
        "open": passes[-1]["open"],
    }
    for p in passes:
        for status, n in p["statuses"].items():
            if n:
                observability.count("TransactionsTracked", n, status=status)
    (logger.info if total["moved"] else logger.debug)("tracker finished", extra=total)
    return total
