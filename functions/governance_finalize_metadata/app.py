"""POST /partner/v1/governance/proposals/finalize-metadata"""

from partner.edge import apidoc, http
from partner.features.governance import writes

app = http.make_app()


@app.post(
    "/partner/v1/governance/proposals/finalize-metadata",
    bucket="governance",
    scope="governance:propose",
    summary="Propose locking metadata permanently",
    operation_id="proposeFinalizeMetadata",
    tags=["Governance writes"],
    **apidoc.write("GovernanceWriteResponse", apidoc.GOVERNANCE_WRITE),
)
def finalize_metadata(body: writes.FinalizeMetadataRequest):
    return app.write(writes.finalize_metadata, body)


lambda_handler = http.entry(app)
