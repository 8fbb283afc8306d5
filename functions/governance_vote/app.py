"""POST /partner/v1/governance/votes"""

from partner import http
from partner.governance import writes

app, lambda_handler = http.write_endpoint(
    "/partner/v1/governance/votes", "governance", "governance:vote", writes.VoteRequest, writes.cast_vote
)
