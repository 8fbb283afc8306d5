"""The AWS quotas the devstack enforces, in one place.

The devstack gateway (``devstack.gateway``) and the tests import these; nothing else
holds the numbers. What the template can carry is read from template.yaml instead:
a route's integration timeout (``TimeoutInMillis`` of its Api event, default below),
the stage throttle (``MethodSettings`` ``ThrottlingRateLimit`` / ``ThrottlingBurstLimit``)
and the answers API Gateway gives past a quota (the Api's ``GatewayResponses``).

Past each quota the devstack answers what API Gateway answers (docs/architecture.md,
"What the devstack enforces"):

* ``API_GATEWAY_MAX_REQUEST_BYTES``: a REST API request body over 10 MB -> the
  ``REQUEST_TOO_LARGE`` gateway response (413).
* ``LAMBDA_MAX_REQUEST_BYTES``: Lambda refuses a synchronous invoke whose payload, the
  event JSON as the function receives it (a binary media type's body base64-encoded,
  +33%), is over 6,291,456 bytes (``RequestEntityTooLargeException``); API Gateway then
  answers 413 as well (observed: ``x-amzn-ErrorType: BadRequestException``,
  ``{"message": "Request Too Long"}``, the ``REQUEST_TOO_LARGE`` default), so the
  devstack renders ``REQUEST_TOO_LARGE``.
* ``LAMBDA_MAX_RESPONSE_BYTES``: a proxy result JSON over 6,291,456 bytes fails the
  invoke (``Function.ResponseSizeTooLarge``); API Gateway answers 502, rendered from
  ``INTEGRATION_FAILURE`` like every other failed invoke.
* ``API_GATEWAY_MAX_HEADER_BYTES``: API Gateway's header quota, 10,240 bytes (REST APIs: a
  header value; HTTP APIs: the request line and header values combined). The devstack bounds
  the combined size, the stricter reading: past it ``431`` (a request line alone: ``414``), in
  the template's ``DEFAULT_4XX`` shape (``devstack.httpserver``).
* ``INTEGRATION_TIMEOUT_MS``: no answer within 29 s -> ``INTEGRATION_TIMEOUT`` (504);
  the function itself runs on until its own timeout, as on AWS.
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
