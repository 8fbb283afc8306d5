"""POST /platform/v1/users/{sub}/wallet: provision the user's delegated wallet (KMS-sealed) and
answer its address; the same wallet on every later call. No body, or `{}`: a field is refused as the
upsert refuses an unknown one. IAM-authorized."""

from partner.edge import http
from partner.features import platform

app = http.make_app()


@app.post("/platform/v1/users/<sub>/wallet")
def provision(sub: str):
    platform.json_object(http.body_text(app.current_event, "invalid_input"), set())
    return http.json_response(200, platform.provision_wallet(sub))


lambda_handler = http.entry(app)
