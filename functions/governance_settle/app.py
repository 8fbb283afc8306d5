"""POST /partner/v1/governance/proposals/settle"""

from partner import http
from partner.governance import writes

app, lambda_handler = http.write_endpoint(
    "/partner/v1/governance/proposals/settle", "governance", "governance:vote", writes.SettleRequest, writes.settle
)
