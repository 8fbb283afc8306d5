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
    responses=apidoc.responses("GovernanceWriteResponse", apidoc.GOVERNANCE_WRITE, keyed=True),
    openapi_extensions=apidoc.keyed(),
)
def finalize_metadata(body: writes.FinalizeMetadataRequest):
    return app.write(writes.finalize_metadata, body)


lambda_handler = http.entry(app)
