"""POST /partner/v1/uploads: stage an image for coins/create or update-content (`imageUploadId`):
answers an S3 presigned POST for `uploads/<uploadId>`. Scope coin:create or governance:propose;
bucket `upload` (30/min per token); no delegation; nothing signed or sent."""

from partner.edge import apidoc, http
from partner.features import uploads

app = http.make_app()


@app.post(
    "/partner/v1/uploads",
    bucket="upload",
    scope=("coin:create", "governance:propose"),
    summary="Stage an image for coins/create or update-content",
    operation_id="createUpload",
    tags=["Coins"],
    description="Added (not in the spec). Scope `coin:create` or `governance:propose` (either "
    "one); its own bucket, 30/min per access token, plus the tier budget; no "
    "delegation. Answers an S3 presigned POST for one image of at most contentLength "
    "bytes (at most 5 MiB), valid 15 minutes: the way to send images too big for a "
    "direct multipart body (API Gateway hands a multipart body to Lambda "
    "base64-encoded, and Lambda takes at most 6 MB). Then send its uploadId as "
    "`imageUploadId` in place of the `image` part.",
    responses=apidoc.responses("UploadResponse", (*apidoc.AUTH, "insufficient_scope", "invalid_input")),
)
def create_upload(body: uploads.UploadRequest):
    return http.json_response(200, uploads.create(app.principal, body))


lambda_handler = http.entry(app)
