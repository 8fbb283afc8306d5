"""The coin-create form: its fields, read and checked (every 400 before the Idempotency-Key claim)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import AfterValidator, ConfigDict, WithJsonSchema

from partner.core.errors import ApiError
from partner.features import links, multipart, uploads
from partner.features.coin_fields import Image, clean_description, normalize_name, normalize_symbol, read_image
from partner.features.launch.rules import BPS, RULES
from partner.features.models import (
    LINK,
    NAME,
    SYMBOL,
    Amount,
    PositiveAmount,
    PriorityFee,
    Request,
    bps_pattern,
    validate,
)

_DIGITS = re.compile(r"[0-9]{1,5}")  # fullmatch: `$` also matches before "\n"


def _slippage(value: str) -> str:
    if not _DIGITS.fullmatch(value) or int(value) > BPS:
        raise ValueError("must be an integer from 0 to 10000")
    return value


SlippageBps = Annotated[
    str,
    AfterValidator(_slippage),
    WithJsonSchema(
        {"type": "string", "pattern": bps_pattern(10_000), "maxLength": 5, "description": "Integer string 0 to 10000."}
    ),
]


def _required(schema: dict[str, Any], *names: str) -> None:
    """Document `names` as required (the handler checks them itself, after the image)."""
    schema["required"] = list(names)
    for name in names:
        schema["properties"][name].pop("default", None)


class CoinCreateForm(Request):
    """The image is required: as the file `image`, or (added) staged with POST /partner/v1/uploads and named by
    `imageUploadId` (both: invalid_input; neither: image_required). initialBuySol and initialBuyTokens are
    mutually exclusive; initialBuyTokens needs initialBuyMaxSolIn. At most 16 form fields and 4 files. The
    client's fee ceiling counts the launch's priorityFeeLamports, or with a first buy the bundle's total:
    2 x priorityFeeLamports + the bundle's tip of 1000000 lamports (over it: 400 invalid_input, field
    priorityFeeLamports, with maxFeeLamports)."""

    model_config = ConfigDict(json_schema_extra=lambda schema: _required(schema, "name", "symbol"))

    name: NAME = ""  # required (the document says so); an empty one is invalid_name after the image's check
    symbol: SYMBOL = ""
    description: str | None = None
    website: LINK | None = None
    twitter: LINK | None = None
    telegram: LINK | None = None
    priorityFeeLamports: PriorityFee | None = None
    initialBuySol: PositiveAmount | None = None
    initialBuyTokens: PositiveAmount | None = None
    initialBuyMaxSolIn: PositiveAmount | None = None
    slippageBps: SlippageBps | None = None
    maxBypassFeeLamports: Amount | None = None
    imageUploadId: uploads.UploadId | None = None  # added: a staged image (partner.features.uploads)


@dataclass(frozen=True)
class LaunchForm:
    name: str
    symbol: str
    description: str
    links: dict[str, str]
    image: Image | None  # None with an imageUploadId until the upload is consumed
    priority_fee_lamports: int
    initial_buy_sol: int | None = None
    initial_buy_tokens: int | None = None
    initial_buy_max_sol_in: int | None = None
    slippage_bps: int = 0
    max_bypass_fee_lamports: int | None = None
    image_upload_id: str | None = None
    staged: uploads.Staged | None = None  # the checked upload, set by `handle`

    @property
    def first_buy(self) -> bool:
        return self.initial_buy_sol is not None or self.initial_buy_tokens is not None


def _invalid(message: str, name: str) -> ApiError:
    return ApiError("invalid_input", message, field=name)


def parse_form(form: multipart.Form) -> LaunchForm:
    upload = form.file("image")
    upload_id = form.fields.get(uploads.FIELD)
    if upload is not None and upload_id is not None:
        raise _invalid(
            "Send the image either as the file field `image` or as `imageUploadId`, not both.", uploads.FIELD
        )
    if upload is None and upload_id is None:
        raise ApiError(
            "image_required",
            "Send the coin's image as the file field `image`, or stage it with "
            "POST /partner/v1/uploads and send its `imageUploadId`.",
            field="image",
        )
    unknown_files = sorted(set(form.files) - {"image"})
    if unknown_files:
        raise _invalid(f"{unknown_files[0][:40]}: unknown file field", unknown_files[0][:40])
    image = read_image(upload.data) if upload is not None else None
    name = normalize_name(form.fields.get("name", ""))
    symbol = normalize_symbol(form.fields.get("symbol", ""))
    fields = validate(CoinCreateForm, form.fields)
    if fields.initialBuySol is not None and fields.initialBuyTokens is not None:
        raise _invalid("initialBuySol and initialBuyTokens are mutually exclusive.", "initialBuyTokens")
    if fields.initialBuyMaxSolIn is not None and fields.initialBuyTokens is None:
        raise _invalid("initialBuyMaxSolIn is only read with initialBuyTokens.", "initialBuyMaxSolIn")
    if fields.initialBuyTokens is not None and fields.initialBuyMaxSolIn is None:
        raise _invalid(
            "initialBuyTokens needs initialBuyMaxSolIn, the lamport ceiling of the buy.", "initialBuyMaxSolIn"
        )
    link_values = {n: getattr(fields, n) for n in links.LINK_FIELDS if getattr(fields, n) is not None}
    normalized = links.normalize_all(link_values)
    prio = (
        RULES.default_priority_fee_lamports if fields.priorityFeeLamports is None else int(fields.priorityFeeLamports)
    )

    def _int(value: str | None) -> int | None:
        return None if value is None else int(value)

    return LaunchForm(
        name=name,
        symbol=symbol,
        description=clean_description(fields.description or ""),
        links=normalized,
        image=image,
        priority_fee_lamports=prio,
        initial_buy_sol=_int(fields.initialBuySol),
        initial_buy_tokens=_int(fields.initialBuyTokens),
        initial_buy_max_sol_in=_int(fields.initialBuyMaxSolIn),
        slippage_bps=int(fields.slippageBps or 0),
        max_bypass_fee_lamports=_int(fields.maxBypassFeeLamports),
        image_upload_id=fields.imageUploadId,
    )
