"""Request models for the write endpoints: strict, exact to the spec's field rules.

Amounts are integer strings in base units (`^[0-9]+$`, at most u64 max); a decimal, a
number, a sign or whitespace is `invalid_input`. Unknown fields are refused.
"""

from __future__ import annotations

import json
import re
from typing import Annotated, Any, TypeVar

from pydantic import AfterValidator, BaseModel, ConfigDict, ValidationError

from partner.errors import ApiError
from partner.limits import MIN_PRIORITY_FEE, MIN_TIP, check_address

U64_MAX = 2**64 - 1
MAX_JSON_BODY = 64 * 1024
_DIGITS = re.compile(r"^[0-9]+$")


def _amount(value: str) -> str:
    if not _DIGITS.match(value) or len(value) > 20 or int(value) > U64_MAX:
        raise ValueError("must be an integer string of base units (no sign, no decimals) within u64")
    return value


def _positive(value: str) -> str:
    if int(_amount(value)) == 0:
        raise ValueError("must be greater than 0")
    return value


def _at_least(minimum: int):
    def check(value: str) -> str:
        if int(_amount(value)) < minimum:
            raise ValueError(f"must be at least {minimum}")
        return value
    return check


Amount = Annotated[str, AfterValidator(_amount)]
PositiveAmount = Annotated[str, AfterValidator(_positive)]
PriorityFee = Annotated[str, AfterValidator(_at_least(MIN_PRIORITY_FEE))]
Tip = Annotated[str, AfterValidator(_at_least(MIN_TIP))]
Address = Annotated[str, AfterValidator(check_address)]


class StrictModel(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class WriteFields(StrictModel):
    priorityFeeLamports: PriorityFee
    tipLamports: Tip


M = TypeVar("M", bound=BaseModel)


def _field(error: dict[str, Any]) -> str:
    return ".".join(str(p) for p in error.get("loc", ())) or "body"


def parse_json(body: str | None, content_type: str | None, model: type[M],
               special: dict[str, str] | None = None) -> M:
    """Parse a JSON body into `model`; `special` maps a field to its own error code."""
    ctype = (content_type or "").split(";")[0].strip().lower()
    if ctype != "application/json":
        raise ApiError("invalid_input", "Content-Type must be application/json.")
    text = body or ""
    if len(text.encode()) > MAX_JSON_BODY:
        raise ApiError("invalid_input", "The JSON body is over 64 KiB.")
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise ApiError("invalid_input", "The body is not valid JSON.") from exc
    if not isinstance(data, dict):
        raise ApiError("invalid_input", "The body must be a JSON object.")
    return validate(model, data, special)


def validate(model: type[M], data: dict[str, Any], special: dict[str, str] | None = None) -> M:
    """Validate `data` (a JSON body or form fields) into `model`; the first problem becomes
    `invalid_input` naming its field, or the field's own code from `special`."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        errors = exc.errors(include_url=False)
        for error in errors:
            code = (special or {}).get(str(error.get("loc", ("",))[0]))
            if code:
                raise ApiError(code, f"{_field(error)}: {error['msg']}", field=_field(error)) from exc
        first = errors[0]
        message = f"{_field(first)}: {first['msg']}" if first["type"] != "extra_forbidden" else \
            f"{_field(first)}: unknown field"
        raise ApiError("invalid_input", message, field=_field(first)) from exc
