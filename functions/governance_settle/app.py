"""POST /partner/v1/governance/proposals/settle"""

from partner.edge import http
from partner.features.governance import writes

app, lambda_handler = http.write_endpoint(
    "/partner/v1/governance/proposals/settle", "governance", "governance:vote", writes.SettleRequest, writes.settle
)
