"""POST /partner/v1/governance/proposals/update-content (multipart/form-data): propose a
metadata change; pins the image and metadata JSON first. Scope governance:propose."""

from partner.edge import http
from partner.features.governance import content

app = http.make_app()


@app.post("/partner/v1/governance/proposals/update-content", bucket="governance", scope="governance:propose")
def update_content():
    form, digest = content.read_request(app.principal, app.current_event)
    return app.write(content.execute, form, digest=digest)


lambda_handler = http.entry(app)
