"""POST /oauth/token: authorization_code (PKCE S256) and refresh_token (rotation) grants."""

from partner.edge import http
from partner.features.oauth import client_auth, grants, web

app = web.oauth_app(no_store=True)


@app.post("/oauth/token")
def token():
    web.take_ip_bucket(app, "oauth")
    event = app.current_event
    params = http.parse_params(http.body_text(event, "invalid_request"), http.header(event.headers, "content-type"))
    caller = client_auth.authenticate(http.header(event.headers, "authorization"), params)
    return http.json_response(200, grants.exchange(caller, params), web.NO_STORE)


lambda_handler = http.entry(app, "oauth")
