"""POST /partner/v1/governance/votes/withdraw"""

from partner.edge import http
from partner.features.governance import writes

app, lambda_handler = http.write_endpoint(
    "/partner/v1/governance/votes/withdraw",
    "governance",
    "governance:vote",
    writes.WithdrawVoteRequest,
    writes.withdraw_vote,
)
