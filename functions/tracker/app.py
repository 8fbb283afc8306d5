"""Scheduled (EventBridge, every minute): follow sent transactions to finality, enqueue webhook events.

The scheduled run splits the open index's partitions into TRACKER_GROUPS groups, invokes this function
asynchronously with {"shards": [...]} for each group but the first, and runs the first itself (and any
group whose invoke failed): the groups' passes run in parallel, each in an interpreter of its own.
An invocation with "shards" runs the passes of those partitions only."""

from typing import Any

from partner.core import observability
from partner.core.settings import get_settings
from partner.jobs import tracker

logger = observability.make_logger("partner-tracker")


@logger.inject_lambda_context
@observability.instrument_scheduled
def lambda_handler(event: dict, context: Any) -> dict:
    seconds = float(get_settings().tracker_run_seconds)
    remaining = getattr(context, "get_remaining_time_in_millis", None)
    if remaining is not None:  # leave room for the last pass
        seconds = min(seconds, max(0.0, remaining() / 1000 - 30))
    shards = event.get("shards") if isinstance(event, dict) else None
    if shards is None:  # the scheduled run: one group here, the others in invocations of their own
        first, *others = tracker.groups()
        shards = first + tracker.fan_out(context.invoked_function_arn, others) if others else None
    passes = tracker.run_for(seconds, shards=shards)
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
