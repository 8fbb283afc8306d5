"""GET /partner/v1/governance/proposals/{proposal}/votes: a proposal's votes, largest stake
first. `limit` defaults to 50, is clamped to 200 and never rejected. No scope."""

from typing import Annotated

from aws_lambda_powertools.event_handler.openapi.params import Path as PathParam

from partner.chain import ports
from partner.edge import apidoc, http
from partner.features.governance import reads

app = http.make_app()


@app.get(
    "/partner/v1/governance/proposals/<proposal>/votes",
    bucket="read",
    summary="A proposal's votes",
    operation_id="listProposalVotes",
    tags=["Governance reads"],
    description="Largest stake first. A malformed proposal address yields an empty array.",
    responses=apidoc.responses("VotesList", (*apidoc.AUTH, "rpc_unavailable")),
    openapi_extensions=apidoc.reads(
        apidoc.query(
            "limit",
            required=False,
            description="Default 50, at most 200; anything that is not a positive integer is treated as 50; never 400.",
        )
    ),
)
def governance_votes(
    proposal: Annotated[str, PathParam(description="Proposal account. A malformed value yields an empty list.")],
):
    limit = reads.parse_limit(app.current_event.get_query_string_value("limit"))
    return http.json_response(200, reads.votes_view(ports.current().rpc(), proposal, limit))


lambda_handler = http.entry(app)
