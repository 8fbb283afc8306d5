"""POST /oauth/token: authorization_code (PKCE S256) and refresh_token (rotation) grants."""

from partner.edge import http
from partner.edge.errors import NO_STORE
from partner.features.oauth import client_auth, grants

app = http.make_app(oauth=True, no_store=True)


@app.post("/oauth/token", ip_bucket="oauth")
def token():
    caller, params = client_auth.authenticate_form(app.current_event)
    return http.json_response(200, grants.exchange(caller, params), NO_STORE)


lambda_handler = http.entry(app)
