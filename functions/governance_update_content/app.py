"""POST /partner/v1/governance/proposals/update-content (multipart/form-data): propose a
metadata change; pins the image and metadata JSON first. Scope governance:propose."""

from partner.edge import http
from partner.features.governance import content

app = http.make_app()


@app.post("/partner/v1/governance/proposals/update-content")
def update_content():
    event = app.current_event
    return content.handle(event.raw_event, event.headers, http.set_bucket)


lambda_handler = http.entry(app, content.ROUTE.bucket)
