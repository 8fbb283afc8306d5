"""GET /health: `{"status": "ok"}` when the function answers. No auth, no rate limit, no data: it reads
no table, key or chain, so a monitor's check says only that the API and its functions are up."""

from partner.edge import apidoc, http

app = http.make_app()


@app.get(
    "/health",
    summary="Whether the API answers",
    operation_id="getHealth",
    tags=["Health"],
    description="Added (not in the spec). No authentication, no rate-limit bucket, no data: "
    "the function reads no table, key or chain.",
    responses=apidoc.responses("Health", ()),
)
def health():
    return http.json_response(200, {"status": "ok"})


lambda_handler = http.entry(app)
