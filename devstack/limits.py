"""The AWS quotas the devstack enforces, in one place: the gateway and the tests import these.

What the template carries (integration timeouts, the stage throttle, the gateway responses) is read from
template.yaml instead. Each quota and the answer past it: docs/devstack.md, "What the devstack enforces".
"""

from __future__ import annotations

API_GATEWAY_MAX_REQUEST_BYTES = 10 * 1024 * 1024  # 10,485,760: REST API payload quota
API_GATEWAY_MAX_HEADER_BYTES = 10_240  # request line + header values (see above)
LAMBDA_MAX_REQUEST_BYTES = 6_291_456  # synchronous invoke request payload (the event JSON)
LAMBDA_MAX_RESPONSE_BYTES = 6_291_456  # synchronous invoke response payload (the proxy result JSON)
INTEGRATION_TIMEOUT_MS = 29_000  # REST API integration timeout (default and maximum of TimeoutInMillis)

__all__ = [
    "API_GATEWAY_MAX_REQUEST_BYTES",
    "API_GATEWAY_MAX_HEADER_BYTES",
    "LAMBDA_MAX_REQUEST_BYTES",
    "LAMBDA_MAX_RESPONSE_BYTES",
    "INTEGRATION_TIMEOUT_MS",
]
