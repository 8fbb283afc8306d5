"""GET /partner/v1/governance/{mint}: governance config, proposals (newest first, at most 100)
and the connected user's votes on them. Any valid access token, no scope."""

from typing import Annotated

from aws_lambda_powertools.event_handler.openapi.params import Path as PathParam

from partner.chain import ports
from partner.edge import apidoc, http
from partner.features.governance import reads

app = http.make_app()


@app.get(
    "/partner/v1/governance/<mint>",
    bucket="read",
    summary="A token's governance, proposals and the viewer's votes",
    operation_id="getGovernance",
    tags=["Governance reads"],
    description="A malformed mint yields 404 governance_not_found, not 400. So do the fixed "
    "paths beside `{mint}`: GET on "
    + ", ".join(f"`/partner/v1/governance/{fixed}`" for fixed in apidoc.FIXED_GOVERNANCE)
    + " answers 404 governance_not_found.",
    responses=apidoc.responses("GovernanceView", (*apidoc.AUTH, "governance_not_found", "rpc_unavailable")),
)
def governance_read(
    mint: Annotated[str, PathParam(description="Token mint. Not checked for Base58: a malformed value is 404.")],
):
    return http.json_response(200, reads.governance_view(ports.current().rpc(), mint, app.principal.user.wallet))


lambda_handler = http.entry(app)
