"""POST /oauth/token: authorization_code (PKCE S256) and refresh_token (rotation) grants."""

from partner.edge import http
from partner.edge.errors import NO_STORE
from partner.features.oauth import client_auth, grants

app = http.make_app(oauth=True, no_store=True)


@app.post("/oauth/token", ip_bucket="oauth")
def token():
    event = app.current_event
    params = http.parse_params(http.body_text(event, "invalid_request"), http.header(event.headers, "content-type"))
    caller = client_auth.authenticate(http.header(event.headers, "authorization"), params)
    return http.json_response(200, grants.exchange(caller, params), NO_STORE)


lambda_handler = http.entry(app)
