"""POST /partner/v1/governance/metadata/finalize-expired"""

from partner.edge import http
from partner.features.governance import writes

app, lambda_handler = http.write_endpoint(
    "/partner/v1/governance/metadata/finalize-expired",
    "governance",
    "governance:propose",
    writes.FinalizeExpiredRequest,
    writes.finalize_expired,
)
