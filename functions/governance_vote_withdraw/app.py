"""POST /partner/v1/governance/votes/withdraw"""

from partner.edge import apidoc, http
from partner.features.governance import writes

app = http.make_app()


@app.post(
    "/partner/v1/governance/votes/withdraw",
    bucket="governance",
    scope="governance:vote",
    summary="Withdraw a vote's locked tokens",
    operation_id="withdrawVote",
    tags=["Governance writes"],
    **apidoc.write("GovernanceWriteResponse", apidoc.GOVERNANCE_WRITE),
)
def withdraw_vote(body: writes.WithdrawVoteRequest):
    return app.write(writes.withdraw_vote, body)


lambda_handler = http.entry(app)
