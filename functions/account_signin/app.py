"""GET {auth_url}/account/signin and /account/signin/callback: sign-in through the platform's
OpenID provider (partner.features.oauth.signin). Every refusal is an error page that clears the
sign-in cookie (a refused sign-in starts again from the beginning), and no session."""

from aws_lambda_powertools.event_handler import Response

from partner.edge import apidoc, errors, http
from partner.features.oauth import authorize, pages, signin

app = http.make_app(oauth=True)
REFUSED = {"Set-Cookie": signin.cookie(signin.SIGNIN_COOKIE, "", 0), **errors.NO_STORE}
NOT_CONFIGURED = "Sign-in through the platform is not configured."


@app.get(
    signin.START_PATH,
    ip_bucket="authorize",
    summary="Sign in through the platform's OpenID provider (browser redirect)",
    operation_id="accountSignin",
    tags=["Account"],
    description="Served on `{auth_url}` (added). The consent page and /account/apps send a "
    "visitor without a session here; it redirects to the platform's OpenID provider "
    "(authorization code, PKCE S256, `state` bound to the browser by the `app_signin` "
    "cookie, `nonce`).",
    responses=apidoc.responses(
        None,
        ("internal",),
        success=apidoc.redirect(302, "To the platform's OpenID provider, or back to the original page."),
        page=True,
    ),
    openapi_extensions=apidoc.reads(
        apidoc.query(
            "next",
            required=False,
            description="Where to come back to: `oauth/authorize?...` or "
            "`account/apps` (anything else: `account/apps`).",
        )
    ),
)
@errors.page(pages.error, refusal=signin.SigninRefused, json_too=False, headers=REFUSED)
def start():
    if not signin.configured():
        return http.html(404, pages.error("not_found", NOT_CONFIGURED))
    location, state = signin.start((app.current_event.query_string_parameters or {}).get("next"))
    cookie = signin.cookie(signin.SIGNIN_COOKIE, state, signin.SIGNIN_TTL)
    return Response(status_code=302, headers={"Location": location, "Set-Cookie": cookie, **errors.NO_STORE})


@app.get(
    signin.CALLBACK_PATH,
    ip_bucket="authorize",
    summary="The provider's redirect back (browser)",
    operation_id="accountSigninCallback",
    tags=["Account"],
    description="The redirect URI registered with the platform's provider (added). Checks "
    "`state` against the `app_signin` cookie, exchanges the code, verifies the ID token "
    "(JWKS signature, algorithm, iss, aud, exp, iat, nonce), maps `sub` to the user, sets "
    "the `app_session` cookie and redirects to the original page. Every refusal is an "
    "HTML error page and no session (502 `temporarily_unavailable` when the provider "
    "cannot be reached).",
    responses=apidoc.responses(
        None,
        ("invalid_request", "access_denied", "invalid_grant", "invalid_token", "internal"),
        success=apidoc.redirect(302, "To the platform's OpenID provider, or back to the original page."),
        page=True,
    ),
    openapi_extensions=apidoc.reads(*(apidoc.query(name, required=False) for name in ("code", "state", "error"))),
)
@errors.page(pages.error, refusal=signin.SigninRefused, json_too=False, headers=REFUSED)
def callback():
    if not signin.configured():
        return http.html(404, pages.error("not_found", NOT_CONFIGURED))
    event = app.current_event
    multi = event.multi_value_query_string_parameters or {}
    query = http.single_params([(k, v) for k, vs in multi.items() for v in vs])
    cookie = signin.cookie_value(http.header(event.headers, "cookie"), signin.SIGNIN_COOKIE)
    session, next_path = signin.finish(query, cookie)
    # two cookies: the session, and the spent sign-in cookie cleared
    response = Response(status_code=302, headers={"Location": f"../../{next_path}", **errors.NO_STORE})
    response.headers["Set-Cookie"] = [
        signin.cookie(authorize.SESSION_COOKIE, session, authorize.SESSION_TTL),
        signin.cookie(signin.SIGNIN_COOKIE, "", 0),
    ]
    return response


lambda_handler = http.entry(app)
