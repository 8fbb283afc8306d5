"""POST /partner/v1/trades/buy-exact-out"""

from partner.edge import http
from partner.features import trading

app, lambda_handler = http.write_endpoint(
    "/partner/v1/trades/buy-exact-out",
    "trade",
    "trade:execute",
    trading.BuyExactOutRequest,
    trading.execute,
    trading.SPECIAL_CODES,
)
