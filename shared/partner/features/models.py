"""Request models: pydantic v2, the one declaration of each request body, validated by Powertools'
resolver and documented by tools/openapi.py from the same classes.

Amounts are integer strings in base units (digits only, matched in full, at most u64 max); unknown
fields are refused and types are strict (a number is not a string, a string or 1.0 not an integer; a
decimal, a sign or whitespace, a trailing newline too, is `invalid_input`). Each `Annotated` type
carries its rule as a JSON-Schema fragment for the document (`WithJsonSchema`), not as a second check.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Annotated, Any, TypeVar

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StrictInt, StrictStr, ValidationError, WithJsonSchema

from partner.core.errors import ApiError
from partner.core.limits import MAX_PRIORITY_FEE, MIN_PRIORITY_FEE, MIN_TIP, check_address

U64_MAX = 2**64 - 1
_DIGITS = re.compile(r"[0-9]+")  # with fullmatch: `$` also matches before a trailing newline
BASE58_PATTERN = r"^[1-9A-HJ-NP-Za-km-z]{32,44}$"
SIGNATURE_PATTERN = r"^[1-9A-HJ-NP-Za-km-z]{64,88}$"


# ------------------------------------------------------------------ value rules


def _amount(value: str) -> str:
    if not _DIGITS.fullmatch(value) or len(value) > 20 or int(value) > U64_MAX:
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


def _priority_fee(value: str) -> str:
    _at_least(MIN_PRIORITY_FEE)(value)
    if int(value) > MAX_PRIORITY_FEE:  # the compute-unit price would not fit u64
        raise ValueError(f"must be at most {MAX_PRIORITY_FEE}")
    return value


# ------------------------------------------------------------------ the rules as JSON Schema (document only)


def _at_most(bound: str) -> str:
    """A regex (no anchors) for a digit string of exactly len(bound) digits <= bound."""
    parts = []
    for i, digit in enumerate(bound):
        d = int(digit)
        if d == 0:
            continue
        rest = len(bound) - i - 1
        low = "0" if d == 1 else f"[0-{d - 1}]"
        parts.append(bound[:i] + low + (f"[0-9]{{{rest}}}" if rest else ""))
    parts.append(bound)
    return "|".join(parts)


def amount_pattern(minimum: int = 0, maximum: int | None = None) -> str:
    """The JSON-Schema pattern of an integer string of base units, in u64 (or at most `maximum`), at least
    `minimum` (0, 1: greater than 0, or a power of ten); leading zeros allowed, at most 20 characters."""
    if maximum is None:
        body = f"(?:[0-9]{{1,19}}|{_at_most(str(U64_MAX))})"
    else:  # leading zeros, then fewer digits than the bound or as many and at most it
        bound = str(maximum)
        body = f"0*(?:[0-9]{{1,{len(bound) - 1}}}|{_at_most(bound)})"
    if minimum <= 0:
        look = ""
    elif minimum == 1:
        look = "(?=[0-9]*[1-9])"
    else:
        digits = len(str(minimum))
        if minimum != 10 ** (digits - 1):
            raise ValueError("only powers of ten are supported as minimums")
        look = f"(?=0*[1-9][0-9]{{{digits - 1}}})"
    return f"^{look}{body}$"


def bps_pattern(maximum: int) -> str:
    """An integer string 0..maximum of at most len(str(maximum)) digits (coins/create slippageBps)."""
    digits = len(str(maximum))
    return f"^(?:[0-9]{{1,{digits - 1}}}|{_at_most(str(maximum))})$"


AMOUNT = {
    "type": "string",
    "pattern": amount_pattern(0),
    "maxLength": 20,
    "description": "Integer string of base units (no sign, no decimals), at most u64 max.",
}
POSITIVE_AMOUNT = {
    "type": "string",
    "pattern": amount_pattern(1),
    "maxLength": 20,
    "description": "Integer string of base units, greater than 0, at most u64 max.",
}
FEE_CEILING = (
    "With tipLamports, at most the client's fee ceiling per transaction (priorityFeeLamports + "
    "tipLamports; a launch bundle counts by its total), set by the operator, default 100000000 "
    "(0.1 SOL); over it: 400 invalid_input naming the larger of the two, with maxFeeLamports."
)
PRIORITY_FEE = {
    "type": "string",
    "pattern": amount_pattern(1000, MAX_PRIORITY_FEE),
    "maxLength": 20,
    "description": f"Lamports, integer string, minimum 1000, at most {MAX_PRIORITY_FEE} (the "
    "compute-unit price fits u64). " + FEE_CEILING,
}
TIP = {
    "type": "string",
    "pattern": amount_pattern(1_000_000),
    "maxLength": 20,
    "description": "Lamports, integer string, minimum 1000000. "
    + FEE_CEILING.replace("With tipLamports", "With priorityFeeLamports"),
}
ADDRESS = {
    "type": "string",
    "pattern": BASE58_PATTERN,
    "minLength": 32,
    "maxLength": 44,
    "format": "solana-pubkey",
    "description": "Base58 public key (decodes to 32 bytes).",
}


# ------------------------------------------------------------------ field types


# A string field: checked by its AfterValidator (ValueError -> "Value error, ..."), documented by
# its WithJsonSchema.
Amount = Annotated[str, AfterValidator(_amount), WithJsonSchema(AMOUNT)]
PositiveAmount = Annotated[str, AfterValidator(_positive), WithJsonSchema(POSITIVE_AMOUNT)]
PriorityFee = Annotated[str, AfterValidator(_priority_fee), WithJsonSchema(PRIORITY_FEE)]
Tip = Annotated[str, AfterValidator(_at_least(MIN_TIP)), WithJsonSchema(TIP)]
Address = Annotated[str, AfterValidator(check_address), WithJsonSchema(ADDRESS)]
NAME = Annotated[
    str,
    WithJsonSchema(
        {
            "type": "string",
            "minLength": 1,
            "maxLength": 32,
            "pattern": r"\S",
            "description": "NFC-normalized and trimmed, then 1 to 32 bytes of UTF-8.",
        }
    ),
]
SYMBOL = Annotated[
    str,
    WithJsonSchema(
        {
            "type": "string",
            "pattern": r"^\s*[A-Za-z0-9]{1,10}\s*$",
            "description": "Trimmed and upper-cased, then 1 to 10 characters A-Z and 0-9.",
        }
    ),
]
LINK = Annotated[str, WithJsonSchema({"type": "string", "maxLength": 300})]
IntOrString = StrictInt | StrictStr  # a union: its members' errors name the field (`invalid`)


class Request(BaseModel):
    """A request body: strict types, unknown fields refused, frozen."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class WriteFields(Request):
    priorityFeeLamports: PriorityFee
    tipLamports: Tip


# ------------------------------------------------------------------ errors

M = TypeVar("M", bound=BaseModel)


def _field_names() -> set[str]:
    """Every field name and alias a model of the service declares (pydantic's and Powertools' own
    models left out): what a request's field path can be made of."""
    names: set[str] = set()
    todo = list(BaseModel.__subclasses__())
    while todo:
        cls = todo.pop()
        todo += cls.__subclasses__()
        if cls.__module__.startswith(("pydantic", "aws_lambda_powertools")):
            continue
        for name, info in cls.model_fields.items():
            names.update(n for n in (name, info.alias, info.validation_alias) if isinstance(n, str))
    return names


def request_path(loc: Sequence[Any], unknown: bool = False) -> list[str]:
    """The request field path of a pydantic error location: its first part (the body's field), then
    its list indexes and declared field names, and with `unknown` its last part (the unknown field);
    the labels pydantic adds for a union member or a validator (`int`, `str`, `function-after[...]`,
    a model's class name) are left out."""
    if not loc:
        return []
    names = _field_names() if any(isinstance(p, str) for p in loc[1:]) else set()
    last = len(loc) - 1
    return [str(loc[0])] + [
        str(p) for i, p in enumerate(loc[1:], 1) if isinstance(p, int) or p in names or (unknown and i == last)
    ]


def invalid(errors: Sequence[Mapping[str, Any]], special: dict[str, str] | None = None, *, skip: int = 0) -> ApiError:
    """The API error of pydantic's `errors` (locations past their first `skip` parts: Powertools puts
    "body" first): the first naming a field of `special` gets that code, else the first is invalid_input.

    The `field` names the first problem by the request's own field path (`request_path`: never a
    union member's or a validator's label, `partnerFeeBps` for a bad union member); messages are
    pydantic's ("Field required", "Input should be a valid string", "Value error, ..."), an unknown
    field's "unknown field".
    """
    found: list[tuple[str, str, str]] = []  # (field name, field path, message)
    for error in errors:
        loc = request_path(error.get("loc", ())[skip:], unknown=error.get("type") == "extra_forbidden")
        path = ".".join(loc) or "body"
        message = "unknown field" if error.get("type") == "extra_forbidden" else error["msg"]
        found.append((loc[0] if loc else "", path, message))
    for name, path, message in found:
        code = (special or {}).get(name)
        if code:
            return ApiError(code, f"{path}: {message}", field=path)
    _, path, message = found[0]
    return ApiError("invalid_input", f"{path}: {message}", field=path)


def validate(model: type[M], data: dict[str, Any], special: dict[str, str] | None = None) -> M:
    """Validate `data` (multipart form fields) into `model`; a problem is `invalid(...)`."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise invalid(exc.errors(include_url=False), special) from exc


__all__ = [
    "Address",
    "Amount",
    "Field",
    "IntOrString",
    "PositiveAmount",
    "PriorityFee",
    "Request",
    "Tip",
    "WriteFields",
    "invalid",
    "validate",
]
