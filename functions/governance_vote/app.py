"""POST /partner/v1/governance/votes"""

from partner.edge import http
from partner.features.governance import writes

app, lambda_handler = http.write_endpoint(
    "/partner/v1/governance/votes", "governance", "governance:vote", writes.VoteRequest, writes.cast_vote
)
