"""POST /partner/v1/governance/metadata/finalize-expired"""

from partner import http
from partner.governance import writes

app, lambda_handler = http.write_endpoint(
    "/partner/v1/governance/metadata/finalize-expired", "governance", "governance:propose", writes.FinalizeExpiredRequest, writes.finalize_expired
)
