"""What the tests and `make bench` share: `helpers` (API Gateway events and calls of the real
handlers, the OAuth flow, a webhook receiver), `chain` (the devstack chain: coins, airdrops,
warps, waits) and `images` (a valid PNG of any seed). Not deployed."""
