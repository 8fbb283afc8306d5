"""PUT /platform/v1/users/{sub}: create or update the user linked to the provider's subject
(`{"twitterHandle": "alice"}` or null). Idempotent. IAM-authorized: the platform's back end only."""

from partner.edge import http
from partner.features import platform

app = http.make_app()


@app.put("/platform/v1/users/<sub>")
def upsert(sub: str):
    body = platform.json_object(http.body_text(app.current_event, "invalid_input"), {"twitterHandle"})
    return http.json_response(200, platform.upsert_user(sub, body.get("twitterHandle")))


lambda_handler = http.entry(app)
