"""POST /oauth/revoke (RFC 7009)."""

from partner.edge import http
from partner.features.oauth import client_auth, grants, web

app = web.oauth_app(no_store=True)


@app.post("/oauth/revoke")
def revoke():
    web.take_ip_bucket(app, "oauth")
    event = app.current_event
    params = http.parse_params(http.body_text(event, "invalid_request"), http.header(event.headers, "content-type"))
    caller = client_auth.authenticate(http.header(event.headers, "authorization"), params)
    grants.revoke(caller, params)
    return http.json_response(200, {}, web.NO_STORE)


lambda_handler = http.entry(app, "oauth")
