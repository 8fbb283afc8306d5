"""POST /partner/v1/uploads: stage an image for coins/create or update-content (`imageUploadId`):
answers an S3 presigned POST for `uploads/<uploadId>`. Scope coin:create or governance:propose;
bucket `upload` (30/min per token); no delegation; nothing signed or sent."""

from partner.edge import http
from partner.features import uploads

app, lambda_handler = http.write_endpoint(
    "/partner/v1/uploads",
    uploads.ROUTE.bucket,
    uploads.ROUTE.scope,
    uploads.UploadRequest,
    uploads.create,
    keyed=False,
)
