"""POST /partner/v1/trades/sell"""

from partner.edge import apidoc, http
from partner.features import trading

app = http.make_app()


@app.post(
    "/partner/v1/trades/sell",
    bucket="trade",
    scope="trade:execute",
    special=trading.SPECIAL_CODES,
    summary="Sell tokensIn",
    operation_id="tradeSell",
    tags=["Trades"],
    **apidoc.write("TradeResponse", apidoc.TRADE),
)
def sell(body: trading.SellRequest):
    return app.write(trading.execute, body)


lambda_handler = http.entry(app)
