"""Staged image uploads: `POST /partner/v1/uploads`, then `imageUploadId` on coins/create and
governance/proposals/update-content (docs/writes.md, "Staged image uploads").

    create(principal, request)        -> {uploadId, url, fields, expiresAt, maxBytes}
    staged = load(principal, id, keyed=...)   # before the Idempotency-Key claim: 400s are not stored
    used = consume(principal, staged)         # in the write, after delegation: one conditional UpdateItem
    release(used) / finished(used)            # nothing reached the network / it did (object deleted)
"""

from __future__ import annotations

import dataclasses
import re
import secrets
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any, Literal, get_args

from pydantic import AfterValidator, WithJsonSchema

from partner.core import bodies, clock, observability
from partner.core.errors import ApiError
from partner.core.principal import Principal, Route
from partner.features.coin_fields import Image, read_image
from partner.features.models import Field, Request
from partner.features.multipart import MAX_FILE_BYTES
from partner.store import uploads as store

if TYPE_CHECKING:
    from partner.send.pipeline import Held

__all__ = [
    "ROUTE",
    "UploadRequest",
    "Staged",
    "Consumed",
    "create",
    "load",
    "consume",
    "release",
    "finished",
    "check_upload_id",
    "CONTENT_TYPES",
    "EXPIRES_IN",
    "FIELD",
]

logger = observability.logger

ROUTE = Route(bucket="upload", scope=("coin:create", "governance:propose"))
ContentType = Literal["image/png", "image/jpeg", "image/webp", "image/gif"]
CONTENT_TYPES = get_args(ContentType)
EXPIRES_IN = 15 * 60
FIELD = "imageUploadId"
PREFIX = "upl_"
_ID = re.compile(r"upl_[A-Za-z0-9_-]{22}")  # with fullmatch: `$` also matches before a trailing newline
_LENGTH = re.compile(r"[0-9]{1,7}")


def _content_length(value: str) -> str:
    if not _LENGTH.fullmatch(value) or not 1 <= int(value) <= MAX_FILE_BYTES:
        raise ValueError(f"must be an integer string from 1 to {MAX_FILE_BYTES}")
    return value


def check_upload_id(value: str) -> str:
    if not _ID.fullmatch(value):
        raise ValueError("must be an uploadId (upl_...) from POST /partner/v1/uploads")
    return value


UploadId = Annotated[
    str,
    AfterValidator(check_upload_id),
    WithJsonSchema(
        {
            "type": "string",
            "pattern": r"^upl_[A-Za-z0-9_-]{22}$",
            "description": "Added: the uploadId of a staged image (POST /partner/v1/uploads) in place of the "
            "`image` part; "
            "not with it. Usable once, by the same client and user, before it expires. The way to send "
            "images too big for a direct multipart body.",
        }
    ),
]
ContentLength = Annotated[
    str,
    AfterValidator(_content_length),
    WithJsonSchema(
        {
            "type": "string",
            "pattern": "^[0-9]{1,7}$",
            "description": "The file's size in bytes, an integer string from 1 to 5242880 (5 MiB).",
        }
    ),
]


class UploadRequest(Request):
    contentType: ContentType = Field(description="The image's type; the policy pins it as the upload's Content-Type.")
    contentLength: ContentLength


def create(principal: Principal, request: UploadRequest) -> dict[str, Any]:
    """A new upload of this client and user: the presigned POST and the record it is checked against."""
    upload_id = PREFIX + secrets.token_urlsafe(16)
    length = int(request.contentLength)
    expires = clock.now_int() + EXPIRES_IN
    post = store.presigned_post(upload_id, request.contentType, length, EXPIRES_IN)
    store.put(upload_id, principal.client.client_id, principal.user.user_id, request.contentType, length, expires)
    return {
        "uploadId": upload_id,
        "url": post["url"],
        "fields": post["fields"],
        "expiresAt": expires,
        "maxBytes": length,
    }


# ------------------------------------------------------------------ using an upload


@dataclass(frozen=True)
class Staged:
    upload_id: str
    image: Image | None  # None: already used, and the request carries an Idempotency-Key (a replay?)


@dataclass(frozen=True)
class Consumed:
    upload_id: str
    owner: str
    image: Image


def _invalid(message: str) -> ApiError:
    return ApiError("invalid_input", f"{FIELD}: {message}", field=FIELD)


def _refusal(record: dict[str, Any] | None, principal: Principal, now: int) -> ApiError | None:
    """Why `record` cannot be used by `principal` now (ownership first), or None."""
    if record is None:
        return _invalid("no such upload; create one with POST /partner/v1/uploads.")
    if record.get("cid") != principal.client.client_id:
        return _invalid("the upload belongs to another client.")
    if record.get("uid") != principal.user.user_id:
        return _invalid("the upload belongs to another user.")
    if record.get("used"):
        return _invalid("the upload was already used; create a new one for each launch or proposal.")
    if int(record.get("exp", 0)) <= now:
        return _invalid("the upload expired; create a new one and launch within 15 minutes.")
    return None


def _read(upload_id: str, declared: int) -> Image:
    try:
        data = store.read_object(upload_id, min(declared, MAX_FILE_BYTES))
    except store.ObjectTooLarge as exc:
        if exc.size > MAX_FILE_BYTES:
            raise ApiError(
                "payload_too_large",
                f"The uploaded file is over {MAX_FILE_BYTES} bytes.",
                maxFileBytes=MAX_FILE_BYTES,
                field=FIELD,
            ) from exc
        raise _invalid("the uploaded file is bigger than the contentLength the upload was created with.") from exc
    if data is None:
        raise _invalid("nothing was uploaded; POST the upload's fields and the file to its url first.")
    try:
        return read_image(data)
    except ApiError as exc:
        raise ApiError(exc.code, "The uploaded file is not a PNG, JPEG, WebP or GIF image.", field=FIELD) from exc


def load(principal: Principal, upload_id: str, *, keyed: bool) -> Staged:
    """Check the upload and read its bytes, before the Idempotency-Key claim (so these 400s are not
    stored). A used upload under an Idempotency-Key is let through unread: the request may be the
    replay of the one that used it (the claim answers it); otherwise `consume` refuses it.

    Checks, each `400 invalid_input` with `field` imageUploadId and a message naming it: unknown upload,
    another client's, another user's, already used, expired, nothing uploaded yet, bigger than the
    declared `contentLength`; then `invalid_image_type`, and `payload_too_large` over 5 MiB.
    """
    record = store.get(upload_id)
    if (
        keyed
        and record is not None
        and record.get("used")
        and record.get("cid") == principal.client.client_id
        and record.get("uid") == principal.user.user_id
    ):
        return Staged(upload_id, None)
    problem = _refusal(record, principal, clock.now_int())
    if problem is not None:
        raise problem
    assert record is not None
    return Staged(upload_id, _read(upload_id, int(record.get("length", MAX_FILE_BYTES))))


def stage(principal: Principal, form: Any, event: dict[str, Any]) -> Any:
    """A parsed coin or content form (`image_upload_id`, `staged`, `image`) with its named upload
    checked and read (`load`); a form without one as it is."""
    if form.image_upload_id is None:
        return form
    keyed = bodies.idempotency_key(event.get("headers"), event.get("multiValueHeaders")) is not None
    staged = load(principal, form.image_upload_id, keyed=keyed)
    return dataclasses.replace(form, staged=staged, image=staged.image)


def consume(principal: Principal, staged: Staged) -> Consumed:
    """Take the upload for this request (one conditional UpdateItem); 400 invalid_input when it can no
    longer be used (another request took it meanwhile, or it expired)."""
    owner = secrets.token_hex(16)
    now = clock.now_int()
    ok, current = store.consume(staged.upload_id, principal.client.client_id, principal.user.user_id, owner, now)
    if not ok:
        raise _refusal(current, principal, now) or _invalid("the upload can no longer be used.")
    image = staged.image
    if image is None:  # released by a failed request since `load`: read it now
        try:
            record = store.get(staged.upload_id) or {}
            image = _read(staged.upload_id, int(record.get("length", MAX_FILE_BYTES)))
        except ApiError:
            store.release(staged.upload_id, owner)
            raise
    return Consumed(staged.upload_id, owner, image)


def consume_held(principal: Principal, staged: Staged, held: Held) -> Consumed:
    """`consume`, given back by `held` when nothing of the request reached the network."""
    used = consume(principal, staged)
    held.add(lambda: release(used))
    return used


def release(used: Consumed | None) -> None:
    """Give the upload back: the request failed before any transaction reached the network."""
    if used is None:
        return
    try:
        store.release(used.upload_id, used.owner)
    except ApiError:
        logger.warning("staged upload not released")


def finished(used: Consumed | None) -> None:
    """The upload served a write that reached the network: delete its object (best effort)."""
    if used is None:
        return
    try:
        store.delete_object(used.upload_id)
    except ApiError:
        logger.warning("staged upload object not deleted")
