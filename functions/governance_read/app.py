"""GET /partner/v1/governance/{mint}: governance config, proposals (newest first, at most 100)
and the connected user's votes on them. Any valid access token, no scope."""

from partner.chain import ports
from partner.edge import http
from partner.features.governance import reads

app = http.make_app()


@app.get("/partner/v1/governance/<mint>", bucket="read")
def governance_read(mint: str):
    return http.json_response(200, reads.governance_view(ports.current().rpc(), mint, app.principal.user.wallet))


lambda_handler = http.entry(app)
