"""POST /oauth/revoke (RFC 7009)."""

from partner.edge import apidoc, http
from partner.edge.errors import NO_STORE
from partner.features.oauth import client_auth, grants

app = http.make_app(oauth=True, no_store=True)


@app.post(
    "/oauth/revoke",
    ip_bucket="oauth",
    summary="Revoke a token (RFC 7009)",
    operation_id="oauthRevoke",
    tags=["OAuth"],
    security=apidoc.CLIENT_BASIC,
    description="Unknown or foreign tokens are ignored. Also accepts `application/json` (string values).",
    responses=apidoc.responses("RevokeResponse", apidoc.OAUTH_CLIENT, client_auth=True),
    openapi_extensions=apidoc.reads(request_body=apidoc.body("RevokeRequest", apidoc.FORM, apidoc.JSON_TYPE)),
)
def revoke():
    caller, params = client_auth.authenticate_form(app.current_event)
    grants.revoke(caller, params)
    return http.json_response(200, {}, NO_STORE)


lambda_handler = http.entry(app)
