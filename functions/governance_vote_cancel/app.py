"""POST /partner/v1/governance/votes/cancel"""

from partner.edge import apidoc, http
from partner.features.governance import writes

app = http.make_app()


@app.post(
    "/partner/v1/governance/votes/cancel",
    bucket="governance",
    scope="governance:vote",
    summary="Cancel an active vote",
    operation_id="cancelVote",
    tags=["Governance writes"],
    **apidoc.write("GovernanceWriteResponse", apidoc.GOVERNANCE_WRITE),
)
def cancel_vote(body: writes.CancelVoteRequest):
    return app.write(writes.cancel_vote, body)


lambda_handler = http.entry(app)
