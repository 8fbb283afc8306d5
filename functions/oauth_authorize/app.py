"""GET and POST {auth_url}/oauth/authorize: the consent screen. A refusal is the error page (the
OAuth Error JSON when the browser asks for JSON)."""

from aws_lambda_powertools.event_handler import Response

from partner.core.errors import ApiError
from partner.edge import errors, http
from partner.features.oauth import authorize, pages, web

app = http.make_app(oauth=True)


@app.get("/oauth/authorize", ip_bucket="authorize")
@errors.page(pages.error)
def show():
    multi = app.current_event.multi_value_query_string_parameters or {}
    request = authorize.validate([(k, v) for k, vs in multi.items() for v in vs])
    session = authorize.session_from_cookie(http.header(app.current_event.headers, "cookie"))
    if session is None:
        return web.no_session(app)
    digest, user = session
    return http.html(200, pages.consent(authorize.view_model(request, digest, user)))


@app.post("/oauth/authorize", ip_bucket="authorize")
@errors.page(pages.error)
def decide():
    event = app.current_event
    form = http.parse_params(
        http.body_text(event, "invalid_request"), http.header(event.headers, "content-type"), allow_json=False
    )
    session = authorize.session_from_cookie(http.header(event.headers, "cookie"))
    if session is None:
        raise ApiError("invalid_request", "Sign in again: the platform session is missing or expired.")
    digest, user = session
    location = authorize.decide(form, digest, user)
    return Response(status_code=302, headers={"Location": location, **errors.NO_STORE})


lambda_handler = http.entry(app)
