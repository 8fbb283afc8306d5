"""GET /partner/v1/me: the connected user's profile."""

from partner.edge import http
from partner.features.profile import also_read, profile

app = http.make_app()


@app.get("/partner/v1/me", bucket="read", scope="profile:read", also=also_read)
def me():
    return http.json_response(200, profile(app.principal))


lambda_handler = http.entry(app)
