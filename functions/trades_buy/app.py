"""POST /partner/v1/trades/buy"""

from partner import http, trading

app, lambda_handler = http.write_endpoint(
    "/partner/v1/trades/buy", "trade", "trade:execute", trading.BuyRequest, trading.execute, trading.SPECIAL_CODES
)
