"""POST /partner/v1/uploads: stage an image for coins/create or update-content (`imageUploadId`):
answers an S3 presigned POST for `uploads/<uploadId>`. Scope coin:create or governance:propose;
bucket `upload` (30/min per token); no delegation; nothing signed or sent."""

from partner.edge import http
from partner.features import uploads

app = http.make_app()


@app.post("/partner/v1/uploads", bucket="upload", scope=("coin:create", "governance:propose"))
def create_upload(body: uploads.UploadRequest):
    return http.json_response(200, uploads.create(app.principal, body))


lambda_handler = http.entry(app)
