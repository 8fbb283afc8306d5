"""The ground floor: settings, time, errors, logs and metrics, outbound transport, SnapStart hooks.

Imports nothing of `partner` outside `partner.core`; every other floor may import it."""
