"""GET {auth_url}/account/signin and /account/signin/callback: sign-in through the platform's
OpenID provider (partner.features.oauth.signin). Every refusal is an error page, and
no session."""

from aws_lambda_powertools.event_handler import Response

from partner.edge import http
from partner.features.oauth import authorize, pages, signin, web

app = web.oauth_app()


def _refused(exc: signin.SigninRefused) -> Response:
    # the sign-in cookie goes either way: a refused sign-in starts again from the beginning
    return web.html(
        exc.status,
        pages.error(exc.code, exc.message),
        {"Set-Cookie": signin.cookie(signin.SIGNIN_COOKIE, "", 0), **web.NO_STORE},
    )


@app.get(signin.START_PATH)
def start():
    web.take_ip_bucket(app, "authorize")
    if not signin.configured():
        return web.html(404, pages.error("not_found", "Sign-in through the platform is not configured."))
    try:
        location, state = signin.start((app.current_event.query_string_parameters or {}).get("next"))
    except signin.SigninRefused as exc:
        return _refused(exc)
    return Response(
        status_code=302,
        headers={
            "Location": location,
            "Set-Cookie": signin.cookie(signin.SIGNIN_COOKIE, state, signin.SIGNIN_TTL),
            **web.NO_STORE,
        },
    )


@app.get(signin.CALLBACK_PATH)
def callback():
    web.take_ip_bucket(app, "authorize")
    if not signin.configured():
        return web.html(404, pages.error("not_found", "Sign-in through the platform is not configured."))
    query = http.single_params(
        [(k, v) for k, vs in (app.current_event.multi_value_query_string_parameters or {}).items() for v in vs]
    )
    try:
        session, next_path = signin.finish(
            query, signin.cookie_value(http.header(app.current_event.headers, "cookie"), signin.SIGNIN_COOKIE)
        )
    except signin.SigninRefused as exc:
        return _refused(exc)
    # two cookies: the session, and the spent sign-in cookie cleared
    response = Response(status_code=302, headers={"Location": f"../../{next_path}", **web.NO_STORE})
    response.headers["Set-Cookie"] = [
        signin.cookie(authorize.SESSION_COOKIE, session, authorize.SESSION_TTL),
        signin.cookie(signin.SIGNIN_COOKIE, "", 0),
    ]
    return response


lambda_handler = http.entry(app, "authorize")
