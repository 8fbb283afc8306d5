"""POST /partner/v1/trades/sell"""

from partner.edge import http
from partner.features import trading

app, lambda_handler = http.write_endpoint(
    "/partner/v1/trades/sell", "trade", "trade:execute", trading.SellRequest, trading.execute, trading.SPECIAL_CODES
)
