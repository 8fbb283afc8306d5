"""POST /partner/v1/governance/proposals/settle"""

from partner.edge import apidoc, http
from partner.features.governance import writes

app = http.make_app()


@app.post(
    "/partner/v1/governance/proposals/settle",
    bucket="governance",
    scope="governance:vote",
    summary="Settle a closed proposal",
    operation_id="settleProposal",
    tags=["Governance writes"],
    **apidoc.write("GovernanceWriteResponse", apidoc.GOVERNANCE_WRITE),
)
def settle(body: writes.SettleRequest):
    return app.write(writes.settle, body)


lambda_handler = http.entry(app)
