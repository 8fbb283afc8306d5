"""POST /oauth/revoke (RFC 7009)."""

from partner.edge import http
from partner.edge.errors import NO_STORE
from partner.features.oauth import client_auth, grants

app = http.make_app(oauth=True, no_store=True)


@app.post("/oauth/revoke", ip_bucket="oauth")
def revoke():
    caller, params = client_auth.authenticate_form(app.current_event)
    grants.revoke(caller, params)
    return http.json_response(200, {}, NO_STORE)


lambda_handler = http.entry(app)
