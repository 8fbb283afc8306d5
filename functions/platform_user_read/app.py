"""GET /platform/v1/users/{sub}: a user, by the platform OpenID provider's subject (IAM-authorized)."""

from partner.edge import http
from partner.features import platform

app = http.make_app()


@app.get("/platform/v1/users/<sub>")
def read(sub: str):
    return http.json_response(200, platform.read_user(sub))


lambda_handler = http.entry(app)
