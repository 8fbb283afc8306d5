"""POST /partner/v1/trades/sell"""

from partner.edge import http
from partner.features import trading

app = http.make_app()


@app.post("/partner/v1/trades/sell", bucket="trade", scope="trade:execute", special=trading.SPECIAL_CODES)
def sell(body: trading.SellRequest):
    return app.write(trading.execute, body)


lambda_handler = http.entry(app)
