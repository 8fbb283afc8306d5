"""POST /partner/v1/coins/create (multipart/form-data): launch a coin, optionally with the
creator's first buy in one bundle. Scope coin:create; bucket `coin` (20/min per token)."""

from partner.edge import http
from partner.features import launch

app = http.make_app()


@app.post("/partner/v1/coins/create")
def create_coin():
    event = app.current_event
    return launch.handle(event.raw_event, event.headers, http.set_bucket)


lambda_handler = http.entry(app, launch.ROUTE.bucket)
