"""GET and POST {auth_url}/oauth/authorize: the consent screen."""

from aws_lambda_powertools.event_handler import Response

from partner.core.errors import ApiError
from partner.edge import http
from partner.features.oauth import authorize, pages, web

app = web.oauth_app()


def _query() -> list[tuple[str, str]]:
    multi = app.current_event.multi_value_query_string_parameters or {}
    return [(k, v) for k, vs in multi.items() for v in vs]


@app.get("/oauth/authorize")
def show():
    web.take_ip_bucket(app, "authorize")
    try:
        request = authorize.validate(_query())
        session = authorize.session_from_cookie(http.header(app.current_event.headers, "cookie"))
        if session is None:
            return web.no_session(app)
        digest, user = session
        return web.html(200, pages.consent(authorize.view_model(request, digest, user)))
    except ApiError as exc:
        return web.authorize_error(app, exc)


@app.post("/oauth/authorize")
def decide():
    web.take_ip_bucket(app, "authorize")
    try:
        event = app.current_event
        form = http.parse_params(
            http.body_text(event, "invalid_request"), http.header(event.headers, "content-type"), allow_json=False
        )
        session = authorize.session_from_cookie(http.header(app.current_event.headers, "cookie"))
        if session is None:
            raise ApiError("invalid_request", "Sign in again: the platform session is missing or expired.")
        digest, user = session
        location = authorize.decide(form, digest, user)
    except ApiError as exc:
        return web.authorize_error(app, exc)
    return Response(status_code=302, headers={"Location": location, **web.NO_STORE})


lambda_handler = http.entry(app, "authorize")
