"""Staged image uploads (POST /partner/v1/uploads): the record in the uploads table and the object
under `uploads/<uploadId>` in the staging bucket.

    pk           UPL#<uploadId>
    cid, uid     the client and the user the upload belongs to
    ctype        the declared content type (the presigned policy pins it)
    length       the declared contentLength (the policy's upper bound)
    exp          when the upload can no longer be used (unix seconds; 15 minutes after creation)
    used         false until a launch or update-content consumes it; `used_by` names that request
    expires_at   TTL (a day after `exp`)
"""

from __future__ import annotations

from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from partner.core.errors import ApiError
from partner.core.settings import get_settings
from partner.store import aws, ddb

PREFIX = "uploads/"
TTL_AFTER_EXPIRY = 24 * 3600


def _table() -> str:
    table = get_settings().uploads_table
    if not table:
        raise ApiError("internal", "No uploads table is configured.")
    return table


def _bucket() -> str:
    bucket = get_settings().staging_bucket
    if not bucket:
        raise ApiError("internal", "No staging bucket is configured.")
    return bucket


def pk(upload_id: str) -> str:
    return f"UPL#{upload_id}"


def object_key(upload_id: str) -> str:
    return PREFIX + upload_id


def put(upload_id: str, client_id: str, user_id: str, content_type: str, length: int, expires: int) -> None:
    created = ddb.put(
        _table(),
        {
            "pk": pk(upload_id),
            "cid": client_id,
            "uid": user_id,
            "ctype": content_type,
            "length": length,
            "exp": expires,
            "used": False,
            "expires_at": expires + TTL_AFTER_EXPIRY,
        },
        condition="attribute_not_exists(pk)",
    )
    if not created:  # 128 random bits collided: never in practice
        raise ApiError("internal", "The upload could not be recorded.", retryable=True)


def get(upload_id: str) -> dict[str, Any] | None:
    return ddb.get(_table(), pk(upload_id))


def consume(upload_id: str, client_id: str, user_id: str, owner: str, now: int) -> tuple[bool, dict[str, Any] | None]:
    """Mark the upload used by `owner`, atomically: only an unused, unexpired upload of this client
    and user. (True, {}) or (False, the record as it is)."""
    return ddb.update_or_current(
        ddb.Update(
            _table(),
            pk(upload_id),
            "SET used = :true, used_by = :owner",
            condition="attribute_exists(pk) AND cid = :cid AND uid = :uid AND used = :false AND #exp > :now",
            names={"#exp": "exp"},
            vals={":true": True, ":false": False, ":owner": owner, ":cid": client_id, ":uid": user_id, ":now": now},
        )
    )


def release(upload_id: str, owner: str) -> None:
    """Give a consumed upload back (nothing of the request that consumed it reached the network)."""
    ddb.update(
        ddb.Update(
            _table(),
            pk(upload_id),
            "SET used = :false REMOVE used_by",
            condition="used_by = :owner",
            vals={":false": False, ":owner": owner},
        )
    )


def presigned_post(upload_id: str, content_type: str, max_bytes: int, expires_in: int) -> dict[str, Any]:
    """An S3 presigned POST for `uploads/<uploadId>`: its policy pins the key, the exact Content-Type,
    a content-length-range of 1 to `max_bytes` and the expiry. -> {"url", "fields"}."""
    try:
        return aws.s3().generate_presigned_post(
            Bucket=_bucket(),
            Key=object_key(upload_id),
            Fields={"Content-Type": content_type},
            Conditions=[{"Content-Type": content_type}, ["content-length-range", 1, max_bytes]],
            ExpiresIn=expires_in,
        )
    except (ClientError, BotoCoreError) as exc:
        raise ddb.wrap(exc) from exc


def read_object(upload_id: str, max_bytes: int) -> bytes | None:
    """The staged bytes; None when nothing was uploaded; b"" + size check by the caller: an object
    over `max_bytes` is not read (ObjectTooLarge)."""
    try:
        out = aws.s3().get_object(Bucket=_bucket(), Key=object_key(upload_id))
    except ClientError as exc:
        if exc.response.get("Error", {}).get("Code") in ("NoSuchKey", "404"):
            return None
        raise ddb.wrap(exc) from exc
    except BotoCoreError as exc:
        raise ddb.wrap(exc) from exc
    body = out["Body"]
    try:
        if int(out.get("ContentLength") or 0) > max_bytes:
            raise ObjectTooLarge(int(out["ContentLength"]))
        data = body.read(max_bytes + 1)
    except (ClientError, BotoCoreError) as exc:
        raise ddb.wrap(exc) from exc
    finally:
        body.close()
    if len(data) > max_bytes:
        raise ObjectTooLarge(len(data))
    return data


def delete_object(upload_id: str) -> None:
    """Remove the staged object once it was used (the bucket's lifecycle rule removes the rest)."""
    try:
        aws.s3().delete_object(Bucket=_bucket(), Key=object_key(upload_id))
    except (ClientError, BotoCoreError) as exc:
        raise ddb.wrap(exc) from exc


class ObjectTooLarge(Exception):
    def __init__(self, size: int) -> None:
        super().__init__(size)
        self.size = size
