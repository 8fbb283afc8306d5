"""GET /partner/v1/transactions/{signature}/status: any valid access token, no scope; the service's
records of a send answer only the client and user that sent it (partner.send.txstatus)."""

from typing import Annotated

from aws_lambda_powertools.event_handler.openapi.params import Path as PathParam

from partner.edge import apidoc, http
from partner.features.models import SIGNATURE_PATTERN
from partner.send import txstatus

app = http.make_app()


@app.get(
    "/partner/v1/transactions/<signature>/status",
    bucket="read",
    also=txstatus.bundle_keys,
    summary="A transaction's (or launch bundle's) status",
    operation_id="getTransactionStatus",
    tags=["Transactions"],
    description="`expired` (added): the service sent the transaction, alone or in a launch "
    "bundle, and its blockhash expired before it landed (`error` tx_expired), where the chain "
    "alone would say not_found.",
    responses=apidoc.responses("TransactionStatus", (*apidoc.AUTH, "invalid_input", "rpc_unavailable")),
)
def transaction_status(
    signature: Annotated[
        str,
        PathParam(  # the pattern documents what txstatus checks itself (400 invalid_input), so it is not validated
            description="Base58 transaction signature (64 bytes); else 400 invalid_input.",
            json_schema_extra={"pattern": SIGNATURE_PATTERN},
        ),
    ],
):
    principal = app.principal
    return http.json_response(
        200, txstatus.lookup(signature, principal.also, principal.client.client_id, principal.user.user_id)
    )


lambda_handler = http.entry(app)
