"""GET {auth_url}/account/signin and /account/signin/callback: sign-in through the platform's
OpenID provider (partner.features.oauth.signin). Every refusal is an error page that clears the
sign-in cookie (a refused sign-in starts again from the beginning), and no session."""

from aws_lambda_powertools.event_handler import Response

from partner.edge import errors, http
from partner.features.oauth import authorize, pages, signin

app = http.make_app(oauth=True)
REFUSED = {"Set-Cookie": signin.cookie(signin.SIGNIN_COOKIE, "", 0), **errors.NO_STORE}
NOT_CONFIGURED = "Sign-in through the platform is not configured."


@app.get(signin.START_PATH, ip_bucket="authorize")
@errors.page(pages.error, refusal=signin.SigninRefused, json_too=False, headers=REFUSED)
def start():
    if not signin.configured():
        return http.html(404, pages.error("not_found", NOT_CONFIGURED))
    location, state = signin.start((app.current_event.query_string_parameters or {}).get("next"))
    cookie = signin.cookie(signin.SIGNIN_COOKIE, state, signin.SIGNIN_TTL)
    return Response(status_code=302, headers={"Location": location, "Set-Cookie": cookie, **errors.NO_STORE})


@app.get(signin.CALLBACK_PATH, ip_bucket="authorize")
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
