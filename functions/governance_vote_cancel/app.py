"""POST /partner/v1/governance/votes/cancel"""

from partner.edge import http
from partner.features.governance import writes

app = http.make_app()


@app.post("/partner/v1/governance/votes/cancel", bucket="governance", scope="governance:vote")
def cancel_vote(body: writes.CancelVoteRequest):
    return app.write(writes.cancel_vote, body)


lambda_handler = http.entry(app)
