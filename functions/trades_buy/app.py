"""POST /partner/v1/trades/buy"""

from partner.edge import apidoc, http
from partner.features import trading

app = http.make_app()


@app.post(
    "/partner/v1/trades/buy",
    bucket="trade",
    scope="trade:execute",
    special=trading.SPECIAL_CODES,
    summary="Buy: spend up to maxSolIn",
    operation_id="tradeBuy",
    tags=["Trades"],
    **apidoc.write("TradeResponse", apidoc.TRADE),
)
def buy(body: trading.BuyRequest):
    return app.write(trading.execute, body)


lambda_handler = http.entry(app)
