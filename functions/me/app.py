"""GET /partner/v1/me: the connected user's profile."""

from partner.edge import access, http
from partner.features.profile import also_read, profile

ROUTE = access.Route(bucket="read", scope="profile:read")
app = http.make_app()


@app.get("/partner/v1/me")
def me():
    principal = access.admit(app.current_event.headers, ROUTE, http.set_bucket, also=also_read)
    return http.json_response(200, profile(principal))


lambda_handler = http.entry(app, ROUTE.bucket)
