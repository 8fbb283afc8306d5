"""Request bodies of the write endpoints: strict, exact to the spec's field rules.

Amounts are integer strings in base units (digits only, matched in full: `$` would also
match before a final newline; at most u64 max); a decimal, a number, a sign or whitespace
(a trailing newline too) is `invalid_input`. Unknown fields are refused. A JSON body nested
deeper than `http.MAX_JSON_DEPTH` is `invalid_input` before it is parsed (`http.loads`).

A request is a class of declared fields (no pydantic at run time: building pydantic models
cost every write function ~50-60 ms of cold start; docs/benchmarks.md):

    class VoteRequest(WriteFields):
        proposal = Address()
        side = Choice("yes", "no")
        amount = PositiveAmount()
        voter = Address(optional=True)       # absent or null -> None

`validate(Model, data)` checks every field in declaration order (base classes first), then
refuses unknown fields, and raises the first problem as `invalid_input` naming its `field`
(or the field's own code from `special`). Messages keep the wording of the pydantic models
this replaced ("Field required", "Input should be a valid string", "Value error, ...").
tools/openapi.py builds the OpenAPI schemas from the same declarations.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, ClassVar, TypeVar


from partner.errors import ApiError
from partner.http import TooDeep, loads
from partner.limits import MAX_PRIORITY_FEE, MIN_PRIORITY_FEE, MIN_TIP, check_address

U64_MAX = 2**64 - 1
MAX_JSON_BODY = 64 * 1024
_DIGITS = re.compile(r"[0-9]+")  # with fullmatch: `$` also matches before a trailing newline


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

_tip = _at_least(MIN_TIP)


# ------------------------------------------------------------------ fields


class Invalid(Exception):
    """One field's problem: `message`, and `loc` below the field name (a union member)."""

    def __init__(self, message: str, *loc: str) -> None:
        super().__init__(message)
        self.message = message
        self.loc = loc


_MISSING: Any = object()


class Field:
    """A body field. `optional`: may be absent or null (-> None); `default`: may be absent
    (-> default) but not null. Subclasses implement `parse(value)`; `check` is the value
    rule run after the type check (tools/openapi.py maps it to a JSON-Schema fragment)."""

    def __init__(self, *, optional: bool = False, default: Any = _MISSING,
                 check: Callable[[Any], Any] | None = None) -> None:
        self.optional = optional
        self.default = None if optional and default is _MISSING else default
        self.check = check

    @property
    def required(self) -> bool:
        return self.default is _MISSING and not self.optional

    def parse(self, value: Any) -> Any:
        raise NotImplementedError

    def _checked(self, value: Any) -> Any:
        if self.check is None:
            return value
        try:
            return self.check(value)
        except ValueError as exc:
            raise Invalid(f"Value error, {exc}") from exc

    def value(self, data: dict[str, Any], name: str) -> Any:
        if name not in data:
            if self.required:
                raise Invalid("Field required")
            return self.default
        value = data[name]
        if value is None and self.optional:
            return None
        return self.parse(value)


class Text(Field):
    """A string (strictly: a number or a boolean is refused), then `check`."""

    def parse(self, value: Any) -> Any:
        if not isinstance(value, str):
            raise Invalid("Input should be a valid string")
        return self._checked(value)


class Integer(Field):
    """A JSON integer (not a boolean, not 1.0) within [minimum, maximum]."""

    def __init__(self, minimum: int, maximum: int, **kw: Any) -> None:
        super().__init__(**kw)
        self.minimum, self.maximum = minimum, maximum

    def parse(self, value: Any) -> Any:
        if not isinstance(value, int) or isinstance(value, bool):
            raise Invalid("Input should be a valid integer")
        if value < self.minimum:
            raise Invalid(f"Input should be greater than or equal to {self.minimum}")
        if value > self.maximum:
            raise Invalid(f"Input should be less than or equal to {self.maximum}")
        return value


class Choice(Field):
    """One of the given strings, exactly."""

    def __init__(self, *choices: str, **kw: Any) -> None:
        super().__init__(**kw)
        self.choices = choices

    def parse(self, value: Any) -> Any:
        if not isinstance(value, str) or value not in self.choices:
            listed = [repr(c) for c in self.choices]
            raise Invalid("Input should be " + (" or ".join(listed) if len(listed) < 3 else
                                                ", ".join(listed[:-1]) + " or " + listed[-1]))
        return value


class IntOrString(Field):
    """An integer or a string (`check` sees either); anything else fails as the first member."""

    def parse(self, value: Any) -> Any:
        if isinstance(value, bool) or not isinstance(value, int | str):
            raise Invalid("Input should be a valid integer", "int")
        return self._checked(value)


def Amount(**kw: Any) -> Text:
    return Text(check=_amount, **kw)


def PositiveAmount(**kw: Any) -> Text:
    return Text(check=_positive, **kw)


def PriorityFee(**kw: Any) -> Text:
    return Text(check=_priority_fee, **kw)


def Tip(**kw: Any) -> Text:
    return Text(check=_tip, **kw)


def Address(**kw: Any) -> Text:
    return Text(check=check_address, **kw)


# ------------------------------------------------------------------ requests


class Request:
    """A validated request body: each declared field an attribute; `fields_set`: those sent."""

    fields: ClassVar[dict[str, Field]] = {}
    fields_set: frozenset[str]

    def __init_subclass__(cls, **kw: Any) -> None:
        super().__init_subclass__(**kw)
        fields: dict[str, Field] = {}
        for base in reversed(cls.__mro__[1:]):
            fields.update(getattr(base, "fields", {}))
        fields.update({k: v for k, v in vars(cls).items() if isinstance(v, Field)})
        cls.fields = fields

    def __init__(self, values: dict[str, Any], sent: frozenset[str]) -> None:
        object.__setattr__(self, "fields_set", sent)
        for name, value in values.items():
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is frozen")

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(f'{n}={getattr(self, n)!r}' for n in self.fields)})"


class WriteFields(Request):
    priorityFeeLamports = PriorityFee()
    tipLamports = Tip()


M = TypeVar("M", bound=Request)




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
        data = loads(text)
    except TooDeep as exc:
        raise ApiError("invalid_input", f"The JSON body is {exc}.") from exc
    except ValueError as exc:
        raise ApiError("invalid_input", "The body is not valid JSON.") from exc
    if not isinstance(data, dict):
        raise ApiError("invalid_input", "The body must be a JSON object.")
    return validate(model, data, special)


def validate(model: type[M], data: dict[str, Any], special: dict[str, str] | None = None) -> M:
    """Validate `data` (a JSON body or form fields) into `model`; the first problem becomes
    `invalid_input` naming its field, or the field's own code from `special`."""
    values: dict[str, Any] = {}
    errors: list[tuple[str, str, str]] = []  # (field name, field path, message)
    for name, field in model.fields.items():
        try:
            values[name] = field.value(data, name)
        except Invalid as exc:
            errors.append((name, ".".join((name, *exc.loc)), exc.message))
    errors += [(name, name, "unknown field") for name in data if name not in model.fields]
    if not errors:
        return model(values, frozenset(n for n in data if n in model.fields))
    for name, path, message in errors:
        code = (special or {}).get(name)
        if code:
            raise ApiError(code, f"{path}: {message}", field=path)
    name, path, message = errors[0]
    raise ApiError("invalid_input", f"{path}: {message}", field=path)
