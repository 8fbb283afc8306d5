"""POST /partner/v1/coins/create (multipart/form-data): launch a coin, optionally with the
creator's first buy in one bundle. Scope coin:create; bucket `coin` (20/min per token)."""

from partner.edge import http
from partner.features.launch import execute as launch

app = http.make_app()


@app.post("/partner/v1/coins/create", bucket="coin", scope="coin:create")
def create_coin():
    return app.write_form(launch.read_request, launch.execute)


lambda_handler = http.entry(app)
