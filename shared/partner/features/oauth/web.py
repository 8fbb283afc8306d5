"""HTTP glue shared by the OAuth functions: per-IP buckets, OAuth-shaped errors, pages."""

from __future__ import annotations

from urllib.parse import quote

from aws_lambda_powertools.event_handler import APIGatewayRestResolver as App
from aws_lambda_powertools.event_handler import Response

from partner.core.errors import ApiError, RateLimited
from partner.core.settings import get_settings
from partner.edge import http, ratelimit
from partner.features.oauth import pages

NO_STORE = {"Cache-Control": "no-store", "Pragma": "no-cache"}


def oauth_app(*, no_store: bool = False) -> App:
    """A resolver whose errors also carry `error_description` (RFC 6749 section 5.2)."""
    app = http.make_app()

    @app.exception_handler(ApiError)
    def _oauth_error(exc: ApiError) -> Response:
        exc.extra.setdefault("error_description", exc.message)
        if no_store:
            exc.headers.update(NO_STORE)
        return http.error_response(exc)

    if no_store:
        # The spec: every /oauth/token response carries no-store/no-cache, so the per-IP
        # 429 and an unexpected 500 must too (the generic handlers add neither).
        @app.exception_handler(RateLimited)
        def _oauth_limited(exc: RateLimited) -> Response:
            response = http._rate_limited(exc)  # the shared 429 body and bucket headers
            response.headers.update(NO_STORE)
            return response

        @app.exception_handler(Exception)
        def _oauth_unexpected(exc: Exception) -> Response:
            http.logger.exception("unhandled error", extra={"error_type": type(exc).__name__})
            return _oauth_error(ApiError("internal"))

    return app


def take_ip_bucket(app: App, bucket: str) -> None:
    http.set_bucket(ratelimit.take(bucket, http.source_ip(app.current_event.raw_event)))


def wants_json(app: App) -> bool:
    accept = http.header(app.current_event.headers, "accept") or ""
    return "application/json" in accept.lower()


def html(status: int, body: str, headers: dict[str, str] | None = None) -> Response:
    return Response(
        status_code=status,
        content_type="text/html; charset=utf-8",
        body=body,
        headers={**pages.SECURITY_HEADERS, **(headers or {})},
    )


def authorize_error(app: App, exc: ApiError) -> Response:
    if wants_json(app):
        exc.extra.setdefault("error_description", exc.message)
        return http.json_response(exc.status, exc.body(), {**exc.headers, **NO_STORE})
    return html(exc.status, pages.error(exc.code, exc.message))


def no_session(app: App) -> Response:
    """A visitor without a platform session: with the platform's OpenID provider configured, a 302
    to this service's sign-in (`../account/signin`, relative: right under the execute-api stage and
    on a custom domain alike), which comes back to this very request; else the sign-in page."""
    from partner.features.oauth import signin

    if signin.configured():
        event = app.current_event
        query = "&".join(
            f"{quote(k, safe='')}={quote(v, safe='')}"
            for k, vs in (event.multi_value_query_string_parameters or {}).items()
            for v in vs
        )
        here = event.path.lstrip("/") + (f"?{query}" if query else "")
        return Response(
            status_code=302, headers={"Location": f"../account/signin?next={quote(here, safe='')}", **NO_STORE}
        )
    return html(200, pages.sign_in(login_location(app)))


def login_location(app: App) -> str | None:
    login = get_settings().login_url
    if not login:
        return None
    event = app.current_event
    query = "&".join(
        f"{quote(k, safe='')}={quote(v, safe='')}"
        for k, vs in (event.multi_value_query_string_parameters or {}).items()
        for v in vs
    )
    here = event.path + (f"?{query}" if query else "")
    return f"{login}{'&' if '?' in login else '?'}next={quote(here, safe='')}"
