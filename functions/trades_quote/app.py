"""POST /partner/v1/trades/quote: what a trade would do now (venue, amounts, bound, fees, impact).
Scope trade:execute, the read bucket; no delegation; nothing signed, sent or counted."""

from partner.edge import apidoc, http
from partner.features import trading

app = http.make_app()


@app.post(
    "/partner/v1/trades/quote",
    bucket="read",
    scope="trade:execute",
    special=trading.SPECIAL_CODES,
    summary="Quote a trade: nothing signed, sent or counted",
    operation_id="tradeQuote",
    tags=["Trades"],
    description="The read bucket (300/min per token); no delegation needed. The amounts come from "
    "the trade endpoints' own math on the state read at `contextSlot`: the same trade "
    "sent at once in explicit mode with the quote's bound (`minTokensOut`, `maxSolIn` "
    "or `minSolOut`) and the same `partnerFeeBps` moves exactly these amounts on-chain "
    "unless the venue's state changes in between.",
    responses=apidoc.responses("QuoteResponse", apidoc.QUOTE),
)
def quote(body: trading.QuoteRequest):
    return http.json_response(200, trading.quote(app.principal, body))


lambda_handler = http.entry(app)
