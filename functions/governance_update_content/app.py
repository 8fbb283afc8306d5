"""POST /partner/v1/governance/proposals/update-content (multipart/form-data): propose a
metadata change; pins the image and metadata JSON first. Scope governance:propose."""

from partner.edge import apidoc, http
from partner.features.governance import content

app = http.make_app()


@app.post(
    "/partner/v1/governance/proposals/update-content",
    bucket="governance",
    scope="governance:propose",
    summary="Propose a metadata change",
    operation_id="proposeUpdateContent",
    tags=["Governance writes"],
    description=apidoc.BIG_IMAGES,
    **apidoc.write(
        "UpdateContentResponse",
        apidoc.UPDATE_CONTENT,
        apidoc.body(content.UpdateContentFields, apidoc.MULTIPART, multipart_image=True),
    ),
)
def update_content():
    return app.write_form(content.read_request, content.execute)


lambda_handler = http.entry(app)
