"""POST /partner/v1/governance/bonds/withdraw"""

from partner.edge import http
from partner.features.governance import writes

app, lambda_handler = http.write_endpoint(
    "/partner/v1/governance/bonds/withdraw",
    "governance",
    "governance:propose",
    writes.BondWithdrawRequest,
    writes.withdraw_bond,
)
