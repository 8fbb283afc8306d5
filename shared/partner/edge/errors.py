"""The one mapper from exceptions to HTTP answers, for the API, the OAuth endpoints and the web pages.

Domain code raises partner.core.errors. `install` gives a resolver its handlers: an ApiError is the
spec's Error object (OAuth endpoints add `error_description`, /oauth/token and /oauth/revoke
`no-store`), RateLimited the 429 without `error`, anything else 500 internal. A browser page marked
with `page` answers its refusals with its HTML error page (same status and code), or with the OAuth
Error JSON when the browser asked for JSON; its per-IP limit, to a browser, with that page too.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from aws_lambda_powertools.event_handler import APIGatewayRestResolver, Response

from partner.core import bodies, lazy, observability, request
from partner.core.answers import JSON
from partner.core.answers import NO_STORE as NO_STORE
from partner.core.answers import html as html
from partner.core.answers import json_response as json_response
from partner.core.errors import ApiError, RateLimited
from partner.store.ratelimit import BucketState

# only a request that fails validation needs the request models here (a function whose routes take no
# model would not import them at all): deferred at init, executed before the snapshot (partner.core.lazy)
if TYPE_CHECKING:  # the checker reads it as the module it is
    from partner.features import models
else:
    models = lazy.module("partner.features.models")

logger = observability.logger


def error_response(exc: ApiError) -> Response:
    request.current().code = exc.code  # the request's outcome (metrics)
    return json_response(exc.status, exc.body(), exc.headers)


def api_error(exc: ApiError) -> Response:
    if exc.status >= 500:
        logger.warning("request failed", extra={"error": exc.code})
    return error_response(exc)


def rate_limited(exc: RateLimited) -> Response:
    answered = request.current()
    answered.code, answered.bucket = "rate_limited", BucketState(exc.limit, 0, exc.retry_after)
    return json_response(
        429,
        {
            "message": "Too many requests to this endpoint; wait for the window to reset.",
            "retryAfterSeconds": exc.retry_after,
        },
        {"retry-after": str(exc.retry_after)},
    )


def page_limited(app: APIGatewayRestResolver, exc: RateLimited) -> Response | None:
    """A browser page's per-IP limit, for a browser (Accept: text/html): the page's error view with
    the code RFC 6749 gives an overloaded authorization server, `temporarily_unavailable`, and the
    429's headers; None for any other caller, who gets `rate_limited`'s JSON (the spec's 429)."""
    page = app.context.get("partner_page")  # the route's `page` mark (partner.edge.http)
    if page is None or "text/html" not in _accept(app):
        return None
    rate_limited(exc)  # its state: the code and the bucket's headers
    render, headers = page
    message = f"Too many requests from your network; try again in {exc.retry_after} seconds."
    return html(429, render("temporarily_unavailable", message), {**headers, "retry-after": str(exc.retry_after)})


def unexpected(exc: Exception, retryable: bool = True) -> Response:
    logger.exception("unhandled error", extra={"error_type": type(exc).__name__})
    return error_response(ApiError("internal", retryable=retryable))


def oauth_error(exc: ApiError, *, no_store: bool = False) -> Response:
    """The OAuth endpoints' Error object: `error_description` too (RFC 6749 section 5.2)."""
    exc.extra.setdefault("error_description", exc.message)
    if no_store:
        exc.headers.update(NO_STORE)
    return error_response(exc)


def invalid_input(exc: Any, special: dict[str, str] | None) -> Response:
    """Powertools' RequestValidationError: the spec's invalid_input (or a field's own code)."""
    return error_response(models.invalid(list(exc.errors()), special, skip=1))


def _accept(app: APIGatewayRestResolver) -> str:
    """The request's Accept header, lower-cased ("" without one)."""
    return (bodies.header(app.current_event.headers, "accept") or "").lower()


def wants_json(app: APIGatewayRestResolver) -> bool:
    return JSON in _accept(app)


class Refused(Exception):
    """A browser page's refusal on its way to `install`'s handler, with how to show it."""

    def __init__(self, exc: Any, render: Callable[[str, str], str], json_too: bool, headers: dict[str, str]) -> None:
        super().__init__(str(exc))
        self.exc, self.render, self.json_too, self.headers = exc, render, json_too, headers


def page_error(app: APIGatewayRestResolver, refused: Refused) -> Response:
    exc = refused.exc
    if refused.json_too and isinstance(exc, ApiError) and wants_json(app):
        exc.extra.setdefault("error_description", exc.message)
        return json_response(exc.status, exc.body(), {**exc.headers, **NO_STORE})
    return html(exc.status, refused.render(exc.code, exc.message), refused.headers)


def page(
    render: Callable[[str, str], str],
    *,
    refusal: type[Exception] = ApiError,
    json_too: bool = True,
    headers: dict[str, str] | None = None,
) -> Callable[[Callable], Callable]:
    """Mark a browser route: a `refusal` it raises (an exception with `status`, `code`, `message`) is
    the HTML page `render(code, message)` with that status (and `headers`); with `json_too`, an ApiError
    is the OAuth Error JSON when the request's Accept asks for JSON."""

    def mark(fn: Callable) -> Callable:
        @functools.wraps(fn)
        def route(*args: Any, **kwargs: Any) -> Any:
            try:
                return fn(*args, **kwargs)
            except refusal as exc:
                raise Refused(exc, render, json_too, headers or {}) from exc

        route.page = (render, headers or {})  # type: ignore[attr-defined]  # what `page_limited` shows
        return route

    return mark


def install(app: APIGatewayRestResolver, *, oauth: bool = False, no_store: bool = False) -> None:
    """The resolver's exception handlers. `oauth`: errors carry `error_description`; `no_store`: every
    answer, the 429 and the 500 too, carries no-store/no-cache (the spec's /oauth/token)."""
    from aws_lambda_powertools.event_handler.openapi.exceptions import RequestValidationError

    def _api(exc: ApiError) -> Response:
        return oauth_error(exc, no_store=no_store) if oauth else api_error(exc)

    def _limited(exc: RateLimited) -> Response:
        response = page_limited(app, exc) or rate_limited(exc)
        if no_store:
            response.headers.update(NO_STORE)
        return response

    def _invalid(exc: RequestValidationError) -> Response:
        return invalid_input(exc, app.context.get("partner_special"))  # the route's mark (partner.edge.http)

    def _unexpected(exc: Exception) -> Response:
        if no_store:
            logger.exception("unhandled error", extra={"error_type": type(exc).__name__})
            return oauth_error(ApiError("internal"), no_store=True)
        return unexpected(exc)

    def _not_found(_exc: Exception) -> Response:
        return error_response(ApiError("not_found"))

    app.exception_handler(ApiError)(_api)
    app.exception_handler(RequestValidationError)(_invalid)
    app.exception_handler(RateLimited)(_limited)
    app.exception_handler(Refused)(lambda refused: page_error(app, refused))
    app.not_found(_not_found)
    app.exception_handler(Exception)(_unexpected)
