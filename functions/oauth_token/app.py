"""POST /oauth/token: authorization_code (PKCE S256) and refresh_token (rotation) grants."""

from partner.edge import apidoc, http
from partner.edge.errors import NO_STORE
from partner.features.oauth import client_auth, grants

app = http.make_app(oauth=True, no_store=True)


@app.post(
    "/oauth/token",
    ip_bucket="oauth",
    summary="Issue tokens (authorization_code or refresh_token)",
    operation_id="oauthToken",
    tags=["OAuth"],
    security=apidoc.CLIENT_BASIC,
    description="Client authentication by HTTP Basic (client_id, API key) or body fields client_id "
    "and client_secret. Also accepts `application/json` (string values). Responses "
    "carry `cache-control: no-store` and `pragma: no-cache`.",
    responses=apidoc.responses("TokenResponse", apidoc.TOKEN, client_auth=True),
    openapi_extensions=apidoc.reads(
        request_body=apidoc.body(
            apidoc.one_of("grant_type", authorization_code="AuthorizationCodeGrant", refresh_token="RefreshTokenGrant"),
            apidoc.FORM,
            apidoc.JSON_TYPE,
        )
    ),
)
def token():
    caller, params = client_auth.authenticate_form(app.current_event)
    return http.json_response(200, grants.exchange(caller, params), NO_STORE)


lambda_handler = http.entry(app)
