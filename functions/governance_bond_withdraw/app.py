"""POST /partner/v1/governance/bonds/withdraw"""

from partner.edge import apidoc, http
from partner.features.governance import writes

app = http.make_app()


@app.post(
    "/partner/v1/governance/bonds/withdraw",
    bucket="governance",
    scope="governance:propose",
    summary="Withdraw a proposal bond",
    operation_id="withdrawProposalBond",
    tags=["Governance writes"],
    **apidoc.write("GovernanceWriteResponse", apidoc.GOVERNANCE_WRITE),
)
def bond_withdraw(body: writes.BondWithdrawRequest):
    return app.write(writes.withdraw_bond, body)


lambda_handler = http.entry(app)
