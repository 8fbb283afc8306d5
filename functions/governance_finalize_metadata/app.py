"""POST /partner/v1/governance/proposals/finalize-metadata"""

from partner.edge import http
from partner.features.governance import writes

app = http.make_app()


@app.post("/partner/v1/governance/proposals/finalize-metadata", bucket="governance", scope="governance:propose")
def finalize_metadata(body: writes.FinalizeMetadataRequest):
    return app.write(writes.finalize_metadata, body)


lambda_handler = http.entry(app)
