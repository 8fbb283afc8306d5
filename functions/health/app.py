"""GET /health: `{"status": "ok"}` when the function answers. No auth, no rate limit, no data: it reads
no table, key or chain, so a monitor's check says only that the API and its functions are up."""

from partner.edge import http

app = http.make_app()


@app.get("/health")
def health():
    return http.json_response(200, {"status": "ok"})


lambda_handler = http.entry(app)
