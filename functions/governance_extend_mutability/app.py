"""POST /partner/v1/governance/proposals/extend-mutability"""

from partner.edge import http
from partner.features.governance import writes

app, lambda_handler = http.write_endpoint(
    "/partner/v1/governance/proposals/extend-mutability",
    "governance",
    "governance:propose",
    writes.ExtendMutabilityRequest,
    writes.extend_mutability,
)
