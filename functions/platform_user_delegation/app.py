"""PUT /platform/v1/users/{sub}/delegation: `{"tradingEnabled": true|false}`, the user's 1-click
trading; trades, governance writes and launches see it on their next request. IAM-authorized."""

from partner.edge import http
from partner.features import platform

app = http.make_app()


@app.put("/platform/v1/users/<sub>/delegation")
def delegation(sub: str):
    body = platform.json_object(
        http.body_text(app.current_event, "invalid_input"), {"tradingEnabled"}, required={"tradingEnabled"}
    )
    return http.json_response(200, platform.set_delegation(sub, body["tradingEnabled"]))


lambda_handler = http.entry(app)
