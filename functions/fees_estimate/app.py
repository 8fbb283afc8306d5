"""GET /partner/v1/fees/estimate?mint=...: priority fee percentiles for a trade. Any valid token, no scope."""

from partner.edge import apidoc, http
from partner.features import fees
from partner.features.models import BASE58_PATTERN

app = http.make_app()


@app.get(
    "/partner/v1/fees/estimate",
    bucket="read",
    summary="Priority fee percentiles for a trade on a mint",
    operation_id="getFeeEstimate",
    tags=["Transactions"],
    description="Added (not in the spec). Percentiles of the compute-unit prices that recently "
    "landed transactions writing the mint's bonding curve or pool, as lamports for the "
    "service's compute-unit limit; amounts never below the spec minimums. Read bucket.",
    responses=apidoc.responses("FeeEstimate", (*apidoc.AUTH, "invalid_input", "rpc_unavailable")),
    openapi_extensions=apidoc.reads(
        apidoc.query("mint", description="The coin's mint (Base58).", pattern=BASE58_PATTERN)
    ),
)
def fees_estimate():
    mint = fees.parse_mint(app.current_event.multi_value_query_string_parameters or {})
    return http.json_response(200, fees.estimate(mint))


lambda_handler = http.entry(app)
