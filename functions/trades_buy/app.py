"""POST /partner/v1/trades/buy"""

from partner.edge import http
from partner.features import trading

app = http.make_app()


@app.post("/partner/v1/trades/buy", bucket="trade", scope="trade:execute", special=trading.SPECIAL_CODES)
def buy(body: trading.BuyRequest):
    return app.write(trading.execute, body)


lambda_handler = http.entry(app)
