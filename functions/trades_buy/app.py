"""POST /partner/v1/trades/buy"""

from partner.edge import http
from partner.features import trading

app, lambda_handler = http.write_endpoint(
    "/partner/v1/trades/buy", "trade", "trade:execute", trading.BuyRequest, trading.execute, trading.SPECIAL_CODES
)
