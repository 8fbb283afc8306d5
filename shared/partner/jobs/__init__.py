"""The background jobs: the tracker (transaction statuses, webhook events), the migration crank,
and webhook delivery. Each runs as a function of its own (functions/tracker, migrator, webhook_delivery)."""
