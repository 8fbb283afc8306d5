"""POST /partner/v1/trades/buy-exact-out"""

from partner.edge import apidoc, http
from partner.features import trading

app = http.make_app()


@app.post(
    "/partner/v1/trades/buy-exact-out",
    bucket="trade",
    scope="trade:execute",
    special=trading.SPECIAL_CODES,
    summary="Buy exactly tokensOut",
    operation_id="tradeBuyExactOut",
    tags=["Trades"],
    **apidoc.write("TradeResponse", apidoc.TRADE),
)
def buy_exact_out(body: trading.BuyExactOutRequest):
    return app.write(trading.execute, body)


lambda_handler = http.entry(app)
