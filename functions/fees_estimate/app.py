"""GET /partner/v1/fees/estimate?mint=...: priority fee percentiles for a trade. Any valid token, no scope."""

from partner.edge import access, http
from partner.features import fees

ROUTE = access.Route(bucket="read")
app = http.make_app()


@app.get("/partner/v1/fees/estimate")
def fees_estimate():
    access.admit(app.current_event.headers, ROUTE, http.set_bucket)
    mint = fees.parse_mint(app.current_event.multi_value_query_string_parameters or {})
    return http.json_response(200, fees.estimate(mint))


lambda_handler = http.entry(app, ROUTE.bucket)
