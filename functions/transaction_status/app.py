"""GET /partner/v1/transactions/{signature}/status: any valid access token, no scope; the service's
records of a send answer only the client and user that sent it (partner.send.txstatus)."""

from partner.edge import http
from partner.send import txstatus

app = http.make_app()


@app.get("/partner/v1/transactions/<signature>/status", bucket="read", also=txstatus.bundle_keys)
def transaction_status(signature: str):
    principal = app.principal
    return http.json_response(
        200, txstatus.lookup(signature, principal.also, principal.client.client_id, principal.user.user_id)
    )


lambda_handler = http.entry(app)
