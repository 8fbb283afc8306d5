"""POST /partner/v1/governance/votes/withdraw"""

from partner import http
from partner.governance import writes

app, lambda_handler = http.write_endpoint(
    "/partner/v1/governance/votes/withdraw", "governance", "governance:vote", writes.WithdrawVoteRequest, writes.withdraw_vote
)
