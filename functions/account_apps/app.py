"""GET and POST {auth_url}/account/apps: the user's connected apps."""

from aws_lambda_powertools.event_handler import Response

from partner.core.errors import ApiError
from partner.edge import http
from partner.features import connected_apps
from partner.features.oauth import authorize, pages, web

app = web.oauth_app()
NOTICES = {
    "limits": "Limits saved. The app's next request uses them.",
    "disconnected": "App disconnected. Its tokens no longer work.",
}


def _session():
    return authorize.session_from_cookie(http.header(app.current_event.headers, "cookie"))


@app.get(connected_apps.PATH)
def show():
    web.take_ip_bucket(app, "authorize")
    session = _session()
    if session is None:
        return web.no_session(app)
    digest, user = session
    done = (app.current_event.query_string_parameters or {}).get("done")
    return web.html(
        200, pages.apps(connected_apps.list_apps(user), connected_apps.csrf_token(digest), NOTICES.get(done or ""))
    )


@app.post(connected_apps.PATH)
def change():
    web.take_ip_bucket(app, "authorize")
    try:
        event = app.current_event
        form = http.parse_params(
            http.body_text(event, "invalid_request"), http.header(event.headers, "content-type"), allow_json=False
        )
        session = _session()
        if session is None:
            raise ApiError("invalid_request", "Sign in again: the platform session is missing or expired.")
        digest, user = session
        action = form.get("action")
        if action == "limits":
            connected_apps.change_limits(form, digest, user)
            done = "limits"
        elif action == "disconnect":
            connected_apps.disconnect(form, digest, user)
            done = "disconnected"
        else:
            raise ApiError("invalid_request", "action must be limits or disconnect.")
    except ApiError as exc:
        if web.wants_json(app):
            return web.authorize_error(app, exc)
        return web.html(exc.status, pages.apps_error(exc.code, exc.message))
    # see the result on the page itself (POST, redirect, GET)
    return Response(status_code=303, headers={"Location": f"{connected_apps.PATH}?done={done}", **web.NO_STORE})


lambda_handler = http.entry(app, "authorize")
