"""POST /partner/v1/trades/buy-exact-out"""

from partner import http, trading

app, lambda_handler = http.write_endpoint(
    "/partner/v1/trades/buy-exact-out", "trade", "trade:execute", trading.BuyExactOutRequest, trading.execute, trading.SPECIAL_CODES
)
