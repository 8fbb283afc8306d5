"""POST /partner/v1/governance/votes/cancel"""

from partner import http
from partner.governance import writes

app, lambda_handler = http.write_endpoint(
    "/partner/v1/governance/votes/cancel", "governance", "governance:vote", writes.CancelVoteRequest, writes.cancel_vote
)
