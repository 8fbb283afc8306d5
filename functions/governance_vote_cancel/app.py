"""POST /partner/v1/governance/votes/cancel"""

from partner.edge import http
from partner.features.governance import writes

app, lambda_handler = http.write_endpoint(
    "/partner/v1/governance/votes/cancel", "governance", "governance:vote", writes.CancelVoteRequest, writes.cancel_vote
)
