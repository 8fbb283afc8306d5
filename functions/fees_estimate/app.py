"""GET /partner/v1/fees/estimate?mint=...: priority fee percentiles for a trade. Any valid token, no scope."""

from partner.edge import http
from partner.features import fees

app = http.make_app()


@app.get("/partner/v1/fees/estimate", bucket="read")
def fees_estimate():
    mint = fees.parse_mint(app.current_event.multi_value_query_string_parameters or {})
    return http.json_response(200, fees.estimate(mint))


lambda_handler = http.entry(app)
