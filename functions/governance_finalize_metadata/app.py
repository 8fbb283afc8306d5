"""POST /partner/v1/governance/proposals/finalize-metadata"""

from partner.edge import http
from partner.features.governance import writes

app, lambda_handler = http.write_endpoint(
    "/partner/v1/governance/proposals/finalize-metadata",
    "governance",
    "governance:propose",
    writes.FinalizeMetadataRequest,
    writes.finalize_metadata,
)
