"""POST /partner/v1/trades/quote: what a trade would do now (venue, amounts, bound, fees, impact).
Scope trade:execute, the read bucket; no delegation; nothing signed, sent or counted."""

from partner.edge import http
from partner.features import trading

app = http.make_app()


@app.post("/partner/v1/trades/quote", bucket="read", scope="trade:execute", special=trading.SPECIAL_CODES)
def quote(body: trading.QuoteRequest):
    return http.json_response(200, trading.quote(app.principal, body))


lambda_handler = http.entry(app)
