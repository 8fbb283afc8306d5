"""GET and POST {auth_url}/account/apps: the user's connected apps."""

from aws_lambda_powertools.event_handler import Response

from partner.core.errors import ApiError
from partner.edge import apidoc, errors, http
from partner.features import connected_apps
from partner.features.oauth import authorize, pages, signin, web

app = http.make_app(oauth=True)
NOTICES = {
    "limits": "Limits saved. The app's next request uses them.",
    "disconnected": "App disconnected. Its tokens no longer work.",
}


def _session():
    return authorize.session_from_cookie(http.header(app.current_event.headers, "cookie"))


@app.get(
    connected_apps.PATH,
    ip_bucket="authorize",
    summary="The user's connected apps (browser page)",
    operation_id="accountApps",
    tags=["Account"],
    description="Served on `{auth_url}` behind the platform session cookie (added): every "
    "app with a live grant, its scopes, connected and last-used times, today's spend "
    "against its daily limit, and forms to change the limits or disconnect.",
    responses=apidoc.responses(None, ("internal",), success=apidoc.page(), page=True),
    openapi_extensions=apidoc.reads(
        apidoc.query("done", required=False, description="`limits` or `disconnected`: the notice after a change.")
    ),
)
@errors.page(pages.apps_error)
def show():
    session = _session()
    if session is None:
        return web.no_session(app)
    digest, user = session
    done = (app.current_event.query_string_parameters or {}).get("done")
    return http.html(
        200, pages.apps(connected_apps.list_apps(user), connected_apps.csrf_token(digest), NOTICES.get(done or ""))
    )


@app.post(
    connected_apps.PATH,
    ip_bucket="authorize",
    summary="Change an app's limits or disconnect it (posted by the page)",
    operation_id="accountAppsChange",
    tags=["Account"],
    description="Posted by /account/apps with the platform session cookie; redirects (303) back to "
    "the page. A limit above the app's cap, a missing session or a bad CSRF token: 400 "
    "(HTML, or the Error object with `Accept: application/json`). Sends the client's "
    "webhook `grant.updated` or `grant.revoked`.",
    responses=apidoc.responses(
        None,
        ("invalid_request", "internal"),
        success=apidoc.redirect(303, "Back to the page, with its notice."),
        page=True,
    ),
    openapi_extensions=apidoc.reads(request_body=apidoc.body("AppsChange", apidoc.FORM)),
)
@errors.page(pages.apps_error)
def change():
    event = app.current_event
    form = http.parse_params(
        http.body_text(event, "invalid_request"), http.header(event.headers, "content-type"), allow_json=False
    )
    session = _session()
    if session is None:
        raise ApiError("invalid_request", "Sign in again: the platform session is missing or expired.")
    digest, user = session
    done = connected_apps.change(form, digest, user)
    if done == "signedout":  # the session ended server-side; the browser forgets its cookie too
        return http.html(200, pages.signed_out(), {"Set-Cookie": signin.cookie(authorize.SESSION_COOKIE, "", 0)})
    # see the result on the page itself (POST, redirect, GET)
    return Response(status_code=303, headers={"Location": f"{connected_apps.PATH}?done={done}", **errors.NO_STORE})


lambda_handler = http.entry(app)
