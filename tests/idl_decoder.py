"""An independent decoder for the programs' IDLs, for the golden tests.

It shares no code with `partner.chain.idl`: the IDL JSON is parsed by `anchorpy-idl`
(Python bindings of Anchor's own `anchor-lang-idl-spec` types, so a file that does not
follow the Anchor IDL format fails to load) and bytes are decoded by `construct`, a
general binary-parsing library, from Borsh rules written out below. Only the two
documented account conventions (fixed strings and fixed options, docs/onchain.md) are
applied after decoding, to compare with the service's values.
"""

from __future__ import annotations

from pathlib import Path

import construct as c
from anchorpy_idl import (
    Idl,
    IdlTypeArray,
    IdlTypeDefEnum,
    IdlTypeDefined,
    IdlTypeDefStruct,
    IdlTypeOption,
    IdlTypeSimple,
)
from solders.pubkey import Pubkey

ROOT = Path(__file__).resolve().parents[1]

SIMPLE = {
    IdlTypeSimple.U8: c.Int8ul,
    IdlTypeSimple.U16: c.Int16ul,
    IdlTypeSimple.U32: c.Int32ul,
    IdlTypeSimple.U64: c.Int64ul,
    IdlTypeSimple.I64: c.Int64sl,
    IdlTypeSimple.Bool: c.Flag,
    IdlTypeSimple.String: c.PascalString(c.Int32ul, "utf8"),
    IdlTypeSimple.Pubkey: c.ExprAdapter(
        c.Bytes(32), lambda obj, ctx: Pubkey.from_bytes(obj), lambda obj, ctx: bytes(obj)
    ),
}


class Decoder:
    def __init__(self, program: str):
        self.idl = Idl.from_json((ROOT / "idl" / f"{program}.json").read_text())
        self.types = {t.name: t for t in self.idl.types}
        self.address = Pubkey.from_string(self.idl.address)

    def con(self, ty):
        if isinstance(ty, IdlTypeSimple):
            return SIMPLE[ty]
        if isinstance(ty, IdlTypeArray):
            item, n = ty.array
            return c.Bytes(n) if item == IdlTypeSimple.U8 else c.Array(n, self.con(item))
        if isinstance(ty, IdlTypeOption):
            return c.FocusedSeq(
                "value", "tag" / c.OneOf(c.Int8ul, [0, 1]), "value" / c.If(c.this.tag == 1, self.con(ty.option))
            )
        if isinstance(ty, IdlTypeDefined):
            t = self.types[ty.name].ty
            if isinstance(t, IdlTypeDefEnum):
                return c.Enum(c.Int8ul, **{v.name: i for i, v in enumerate(t.variants)})
            assert isinstance(t, IdlTypeDefStruct)
            return c.Struct(*(f.name / self.con(f.ty) for f in t.fields.fields))
        raise AssertionError(f"unsupported IDL type {ty!r}")

    def account(self, data: bytes) -> tuple[str, dict]:
        """-> (account type name, plain field values); the discriminator picks the type."""
        for acc in self.idl.accounts:
            if bytes(data[:8]) == bytes(acc.discriminator):
                fields = self.types[acc.name].ty.fields.fields
                parsed = c.Struct(*(f.name / self.con(f.ty) for f in fields)).parse(bytes(data[8:]))
                return acc.name, {f.name: plain(parsed[f.name]) for f in fields}
        raise AssertionError("no account of this IDL has this discriminator")

    def instruction(self, data: bytes) -> tuple[str, dict]:
        """-> (instruction name, plain arg values); all bytes must be consumed."""
        for ix in self.idl.instructions:
            if bytes(data[:8]) == bytes(ix.discriminator):
                parsed = c.Struct(*(a.name / self.con(a.ty) for a in ix.args), c.Terminated).parse(bytes(data[8:]))
                return ix.name, {a.name: plain(parsed[a.name]) for a in ix.args}
        raise AssertionError("no instruction of this IDL has this discriminator")

    def account_flags(self, name: str) -> list[tuple[str, bool, bool]]:
        ix = next(i for i in self.idl.instructions if i.name == name)
        return [(a.name, a.signer, a.writable) for a in ix.accounts]


def plain(value):
    """construct values -> plain Python, applying the fixed-string / fixed-option conventions."""
    if isinstance(value, c.Container):
        keys = [k for k in value if not k.startswith("_")]
        if keys == ["len", "data"]:
            return bytes(value.data[: value.len]).decode("utf-8")
        if keys == ["is_some", "value"]:
            return plain(value.value) if value.is_some else None
        return {k: plain(value[k]) for k in keys}
    if isinstance(value, c.EnumIntegerString):
        return str(value)
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


def service_plain(value):
    """The service's decoded values in the same plain form (enum members as IDL variant names)."""
    import dataclasses
    from enum import IntEnum

    if isinstance(value, IntEnum):
        return "".join(w.capitalize() for w in value.name.split("_"))
    if dataclasses.is_dataclass(value):
        return {f.name: service_plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {k: service_plain(v) for k, v in value.items()}
    return value
