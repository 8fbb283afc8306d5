"""POST /partner/v1/governance/proposals/extend-mutability"""

from partner.edge import apidoc, http
from partner.features.governance import writes

app = http.make_app()


@app.post(
    "/partner/v1/governance/proposals/extend-mutability",
    bucket="governance",
    scope="governance:propose",
    summary="Propose extending the mutable window",
    operation_id="proposeExtendMutability",
    tags=["Governance writes"],
    **apidoc.write("GovernanceWriteResponse", apidoc.GOVERNANCE_WRITE),
)
def extend_mutability(body: writes.ExtendMutabilityRequest):
    return app.write(writes.extend_mutability, body)


lambda_handler = http.entry(app)
