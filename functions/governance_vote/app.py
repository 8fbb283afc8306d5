"""POST /partner/v1/governance/votes"""

from partner.edge import http
from partner.features.governance import writes

app = http.make_app()


@app.post("/partner/v1/governance/votes", bucket="governance", scope="governance:vote")
def vote(body: writes.VoteRequest):
    return app.write(writes.cast_vote, body)


lambda_handler = http.entry(app)
