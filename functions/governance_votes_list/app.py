"""GET /partner/v1/governance/proposals/{proposal}/votes: a proposal's votes, largest stake
first. `limit` defaults to 50, is clamped to 200 and never rejected. No scope."""

from partner.chain import ports
from partner.edge import http
from partner.features.governance import reads

app = http.make_app()


@app.get("/partner/v1/governance/proposals/<proposal>/votes", bucket="read")
def governance_votes(proposal: str):
    limit = reads.parse_limit(app.current_event.get_query_string_value("limit"))
    return http.json_response(200, reads.votes_view(ports.current().rpc(), proposal, limit))


lambda_handler = http.entry(app)
