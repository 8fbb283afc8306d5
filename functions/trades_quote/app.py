"""POST /partner/v1/trades/quote: what a trade would do now (venue, amounts, bound, fees, impact).
Scope trade:execute, the read bucket; no delegation; nothing signed, sent or counted."""

from partner.edge import http
from partner.features import trading

app, lambda_handler = http.write_endpoint(
    "/partner/v1/trades/quote",
    "read",
    "trade:execute",
    trading.QuoteRequest,
    trading.quote,
    trading.SPECIAL_CODES,
    keyed=False,
)
