"""GET and POST {auth_url}/oauth/authorize: the consent screen. A refusal is the error page (the
OAuth Error JSON when the browser asks for JSON)."""

from aws_lambda_powertools.event_handler import Response

from partner.core import scopes
from partner.core.errors import ApiError
from partner.edge import apidoc, errors, http
from partner.features.oauth import authorize, pages, web

app = http.make_app(oauth=True)


@app.get(
    "/oauth/authorize",
    ip_bucket="authorize",
    summary="Consent screen (browser redirect)",
    operation_id="oauthAuthorize",
    tags=["OAuth"],
    description="Served on `{auth_url}`. Answers the sign-in or consent page (HTML); errors are "
    "HTML, or the Error object with `Accept: application/json`.",
    responses=apidoc.responses(None, apidoc.AUTHORIZE, success=apidoc.page(), page=True),
    openapi_extensions=apidoc.reads(
        apidoc.query("client_id", description="The client's ID."),
        apidoc.query("redirect_uri", description="Exactly the client's registered redirect URI."),
        apidoc.query("response_type", const="code"),
        apidoc.query("scope", description="Space-separated scopes: " + " ".join(scopes.ALL)),
        apidoc.query(
            "code_challenge", pattern=r"^[A-Za-z0-9_-]{43}$", description="base64url SHA-256 of the PKCE verifier."
        ),
        apidoc.query("code_challenge_method", const="S256"),
        apidoc.query("state", "Returned unchanged.", required=False, maxLength=512),
    ),
)
@errors.page(pages.error)
def show():
    multi = app.current_event.multi_value_query_string_parameters or {}
    request = authorize.validate([(k, v) for k, vs in multi.items() for v in vs])
    session = authorize.session_from_cookie(http.header(app.current_event.headers, "cookie"))
    if session is None:
        return web.no_session(app)
    digest, user = session
    return http.html(200, pages.consent(authorize.view_model(request, digest, user)))


@app.post(
    "/oauth/authorize",
    ip_bucket="authorize",
    summary="Consent decision (posted by the page)",
    operation_id="oauthAuthorizeDecide",
    tags=["OAuth"],
    description="Posted by the consent page with the platform session cookie; redirects to the "
    "client's redirect URI with `code` (or `error=access_denied`) and `state`.",
    responses=apidoc.responses(
        None, apidoc.AUTHORIZE, success=apidoc.redirect(302, "Redirect to the client's redirect URI."), page=True
    ),
    openapi_extensions=apidoc.reads(request_body=apidoc.body("ConsentDecision", apidoc.FORM)),
)
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
