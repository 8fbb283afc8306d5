"""POST /partner/v1/governance/votes"""

from partner.edge import apidoc, http
from partner.features.governance import writes

app = http.make_app()


@app.post(
    "/partner/v1/governance/votes",
    bucket="governance",
    scope="governance:vote",
    summary="Cast a vote",
    operation_id="castVote",
    tags=["Governance writes"],
    **apidoc.write("GovernanceWriteResponse", apidoc.GOVERNANCE_WRITE),
)
def vote(body: writes.VoteRequest):
    return app.write(writes.cast_vote, body)


lambda_handler = http.entry(app)
