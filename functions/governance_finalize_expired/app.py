"""POST /partner/v1/governance/metadata/finalize-expired"""

from partner.edge import apidoc, http
from partner.features.governance import writes

app = http.make_app()


@app.post(
    "/partner/v1/governance/metadata/finalize-expired",
    bucket="governance",
    scope="governance:propose",
    summary="Record a lapsed mutability window",
    operation_id="finalizeExpiredMetadata",
    tags=["Governance writes"],
    **apidoc.write("GovernanceWriteResponse", apidoc.GOVERNANCE_WRITE),
)
def finalize_expired(body: writes.FinalizeExpiredRequest):
    return app.write(writes.finalize_expired, body)


lambda_handler = http.entry(app)
