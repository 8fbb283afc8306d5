"""What the OAuth pages share: the visitor without a platform session, and where to sign in."""

from __future__ import annotations

from urllib.parse import quote

from aws_lambda_powertools.event_handler import APIGatewayRestResolver as App
from aws_lambda_powertools.event_handler import Response

from partner.core.answers import NO_STORE, html
from partner.core.settings import get_settings
from partner.features.oauth import pages, signin


def no_session(app: App) -> Response:
    """A visitor without a platform session: with the platform's OpenID provider configured, a 302
    to this service's sign-in (`../account/signin`, relative: right under the execute-api stage and
    on a custom domain alike), which comes back to this very request; else the sign-in page."""
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
