"""GET /partner/v1/governance/{mint}: governance config, proposals (newest first, at most 100)
and the connected user's votes on them. Any valid access token, no scope."""

from partner.edge import access, http
from partner.features.governance import reads

ROUTE = access.Route(bucket="read")
app = http.make_app()


@app.get("/partner/v1/governance/<mint>")
def governance_read(mint: str):
    principal = access.admit(app.current_event.headers, ROUTE, http.set_bucket)
    return http.json_response(200, reads.governance_view(reads.rpc(), mint, principal.user.wallet))


lambda_handler = http.entry(app, ROUTE.bucket)
