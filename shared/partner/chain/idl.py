"""The programs' interface, read from their Anchor IDLs (idl/launchpad.json, idl/pool.json): Borsh
codecs, account dataclasses, instruction builders and the error table, for the service, the devstack
programs and the docs. It knows no domain: whoever builds a ``Program`` binds the types with
behaviour of their own (``partner.chain.idls``), checked against the IDL member by member.
Conventions beyond plain Borsh: docs/onchain.md, "Conventions".
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import json
import struct
from collections.abc import Mapping
from functools import cached_property
from typing import Any, ClassVar, cast, dataclass_transform

from solders.instruction import AccountMeta, Instruction
from solders.pubkey import Pubkey


@functools.lru_cache(maxsize=4096)
def _find_pda(seeds: tuple[bytes, ...], program_id: Pubkey) -> Pubkey:
    """A PDA (a pure function of its seeds), remembered: requests derive the same few again."""
    return Pubkey.find_program_address(list(seeds), program_id)[0]


class LayoutError(ValueError):
    """Bytes or values that do not fit the IDL layout."""


class IdlMismatch(TypeError):
    """A Python class bound to an IDL type disagrees with it."""


# ----------------------------------------------------------------- codecs


class Codec:
    size: int | None = None  # fixed byte size, None when variable (Borsh string / option / vec)
    annotation = "Any"

    def read(self, data: bytes, at: int, what: str) -> tuple[Any, int]:
        raise NotImplementedError

    def write(self, value: Any, out: bytearray, what: str) -> None:
        raise NotImplementedError

    @cached_property
    def zero(self) -> Any:
        """The value all-zero bytes decode to (a field's default)."""
        return self.read(bytes(self.size or 0), 0, "zero")[0]

    def take(self, data: bytes, at: int, n: int, what: str) -> bytes:
        if at + n > len(data):
            raise LayoutError(f"{what}: data too short")
        return data[at : at + n]


class Int(Codec):
    annotation = "int"

    def __init__(self, name: str, fmt: str):
        self.name, self.fmt = name, struct.Struct("<" + fmt)
        self.size = self.fmt.size
        bits = self.size * 8
        self.lo, self.hi = (-(1 << bits - 1), (1 << bits - 1) - 1) if name[0] == "i" else (0, (1 << bits) - 1)

    def read(self, data, at, what):
        return self.fmt.unpack(self.take(data, at, self.size, what))[0], at + self.size

    def write(self, value, out, what):
        if not isinstance(value, int) or not self.lo <= value <= self.hi:
            raise LayoutError(f"{what} outside {self.name}")
        out += self.fmt.pack(value)


class Bool(Codec):
    size, annotation = 1, "bool"

    def read(self, data, at, what):
        b = self.take(data, at, 1, what)[0]
        if b > 1:
            raise LayoutError(f"{what}: bad bool {b}")
        return b == 1, at + 1

    def write(self, value, out, what):
        out.append(1 if value else 0)


class PubkeyCodec(Codec):
    size, annotation = 32, "Pubkey"

    def read(self, data, at, what):
        return Pubkey.from_bytes(bytes(self.take(data, at, 32, what))), at + 32

    def write(self, value, out, what):
        raw = bytes(value if isinstance(value, Pubkey) else Pubkey.from_string(str(value)))
        out += raw


class ByteArray(Codec):
    """[u8; N] as bytes (shorter values are zero padded, as reserved space is)."""

    annotation = "bytes"

    def __init__(self, n: int):
        self.size = n

    def read(self, data, at, what):
        return bytes(self.take(data, at, self.size, what)), at + self.size

    def write(self, value, out, what):
        out += bytes(value).ljust(self.size, b"\0")[: self.size]


class Array(Codec):
    annotation = "list"

    def __init__(self, item: Codec, n: int):
        self.item, self.n = item, n
        self.size = None if item.size is None else item.size * n

    def read(self, data, at, what):
        out = []
        for i in range(self.n):
            v, at = self.item.read(data, at, f"{what}[{i}]")
            out.append(v)
        return out, at

    def write(self, value, out, what):
        if len(value) != self.n:
            raise LayoutError(f"{what}: expected {self.n} items")
        for i, v in enumerate(value):
            self.item.write(v, out, f"{what}[{i}]")


def _utf8(raw: bytes, what: str) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise LayoutError(f"{what}: bad utf-8: {exc}") from None


class BorshString(Codec):
    annotation = "str"

    def read(self, data, at, what):
        (n,) = struct.unpack("<I", self.take(data, at, 4, what))
        return _utf8(bytes(self.take(data, at + 4, n, what)), what), at + 4 + n

    def write(self, value, out, what):
        raw = value.encode("utf-8")
        out += struct.pack("<I", len(raw)) + raw

    zero = ""


class BorshOption(Codec):
    def __init__(self, item: Codec):
        self.item = item
        self.annotation = f"{item.annotation} | None"

    def read(self, data, at, what):
        tag = self.take(data, at, 1, what)[0]
        if tag > 1:
            raise LayoutError(f"{what}: bad option tag {tag}")
        return self.item.read(data, at + 1, what) if tag else (None, at + 1)

    def write(self, value, out, what):
        if value is None:
            out.append(0)
        else:
            out.append(1)
            self.item.write(value, out, what)

    zero = None


class FixedString(Codec):
    """Convention: struct {len: u8, data: [u8; N]} = UTF-8 string of at most N bytes, zero padded."""

    annotation = "str"

    def __init__(self, capacity: int):
        self.capacity, self.size = capacity, 1 + capacity

    def read(self, data, at, what):
        raw = self.take(data, at, self.size, what)
        if raw[0] > self.capacity:
            raise LayoutError(f"{what} length {raw[0]} over {self.capacity}")
        return _utf8(bytes(raw[1 : 1 + raw[0]]), what), at + self.size

    def write(self, value, out, what):
        raw = value.encode("utf-8")
        if len(raw) > self.capacity:
            raise LayoutError(f"{what} over {self.capacity} bytes")
        out.append(len(raw))
        out += raw.ljust(self.capacity, b"\0")


class FixedOption(Codec):
    """Convention: struct {is_some: bool, value: T} (fixed size; all zero when None)."""

    def __init__(self, item: Codec):
        if item.size is None:
            raise IdlMismatch("a fixed option holds a fixed-size value")
        self.item, self.size = item, 1 + item.size
        self.annotation = f"{item.annotation} | None"

    def read(self, data, at, what):
        present, _ = BOOL.read(data, at, what)
        value = self.item.read(data, at + 1, what)[0] if present else None
        return value, at + self.size

    def write(self, value, out, what):
        if value is None:
            out += bytes(self.size)
        else:
            out.append(1)
            self.item.write(value, out, what)


class Struct(Codec):
    def __init__(self, name: str, fields: list[tuple[str, Codec]], cls=None):
        self.name, self.fields, self.cls = name, fields, cls
        sizes = [c.size for _, c in fields]
        self.size = sum(s for s in sizes if s is not None) if None not in sizes else None
        self.annotation = name

    def read_values(self, data, at, what) -> tuple[dict, int]:
        values = {}
        for name, codec in self.fields:
            values[name], at = codec.read(data, at, f"{what}.{name}")
        return values, at

    def read(self, data, at, what):
        values, at = self.read_values(data, at, what)
        return (self.cls(**values) if self.cls else values), at

    def write(self, value, out, what):
        get = value.get if isinstance(value, dict) else (lambda k: getattr(value, k))
        for name, codec in self.fields:
            codec.write(get(name), out, f"{what}.{name}")


class Enum(Codec):
    """A unit-variant enum: one u8 variant index (bound to an IntEnum when one is given)."""

    size = 1

    def __init__(self, name: str, variants: list[str], cls=None):
        self.name, self.variants, self.cls = name, variants, cls
        self.annotation = name

    def read(self, data, at, what):
        i = self.take(data, at, 1, what)[0]
        if i >= len(self.variants):
            raise LayoutError(f"{what}: {i} is not a {self.name}")
        return (self.cls(i) if self.cls else i), at + 1

    def write(self, value, out, what):
        i = value if isinstance(value, int) else self.variants.index(value)
        if not 0 <= i < len(self.variants):
            raise LayoutError(f"{what}: {value} is not a {self.name}")
        out.append(int(i))


BOOL = Bool()
PRIMITIVES: dict[str, Codec] = {
    "u8": Int("u8", "B"),
    "u16": Int("u16", "H"),
    "u32": Int("u32", "I"),
    "u64": Int("u64", "Q"),
    "i8": Int("i8", "b"),
    "i16": Int("i16", "h"),
    "i32": Int("i32", "i"),
    "i64": Int("i64", "q"),
    "bool": BOOL,
    "pubkey": PubkeyCodec(),
    "string": BorshString(),
}


def _upper_snake(camel: str) -> str:
    return "".join("_" + c if c.isupper() and i else c for i, c in enumerate(camel)).upper()


def check_binding(idl_type: dict, cls: Any) -> None:
    """Raise IdlMismatch unless `cls` has exactly the IDL type's members / fields, in order."""
    ty = idl_type["type"]
    want: list[Any]
    have: list[Any]
    if ty["kind"] == "enum":
        want = [(_upper_snake(v["name"]), i) for i, v in enumerate(ty["variants"])]
        have = [(m.name, int(m)) for m in cls]
    else:
        want = [f["name"] for f in ty["fields"]]
        have = [f.name for f in dataclasses.fields(cls)]
    if want != have:
        raise IdlMismatch(f"{cls.__qualname__} does not match IDL type {idl_type['name']}: {have} != {want}")


# ----------------------------------------------------------------- programs


class Program:
    """One program's IDL, compiled on demand.

    * ``Program.codec(type)`` -> a Borsh codec for any IDL type (primitives, ``pubkey``,
      ``string``, ``option``, arrays, defined structs and unit enums);
    * ``IdlAccount``: subclass it with the IDL type's name and get a dataclass whose fields,
      order, sizes, offsets, discriminator, ``decode`` and ``encode`` all come from the IDL;
    * ``Program.instruction(name, accounts, **args)`` builds a solders Instruction: data =
      discriminator + Borsh args, account metas in IDL order with their signer / writable
      flags, fixed addresses filled in and PDAs / ATAs derived from the IDL seeds;
    * ``Program.decode_instruction(data)`` -> ``(name, args)`` for the programs' dispatch;
    * ``Program.errors``: code, name, spec code and message of every program error.
    """

    def __init__(self, idl: dict, bindings: Mapping[str, type] | None = None):
        self.idl = idl
        # Python classes with behaviour of their own, bound to the IDL types of the same name
        self.bindings: dict[str, type] = dict(bindings or {})
        self.name: str = idl["metadata"]["name"]
        self.address = Pubkey.from_string(idl["address"])
        self.types: dict[str, dict] = {t["name"]: t for t in idl.get("types", [])}
        self.instructions: dict[str, dict] = {i["name"]: i for i in idl["instructions"]}
        self.account_discriminators: dict[str, bytes] = {
            a["name"]: bytes(a["discriminator"]) for a in idl.get("accounts", [])
        }
        self._by_discriminator = {bytes(i["discriminator"]): i for i in idl["instructions"]}
        self._codecs: dict[str, Codec] = {}
        self._classes: dict[str, type] = {}

    # -- types

    def codec(self, ty) -> Codec:
        if isinstance(ty, str):
            if ty not in PRIMITIVES:
                raise IdlMismatch(f"{self.name}: unsupported IDL type {ty!r}")
            return PRIMITIVES[ty]
        if "defined" in ty:
            return self.defined(ty["defined"]["name"])
        if "option" in ty:
            return BorshOption(self.codec(ty["option"]))
        if "array" in ty:
            item, n = ty["array"]
            return ByteArray(n) if item == "u8" else Array(self.codec(item), n)
        raise IdlMismatch(f"{self.name}: unsupported IDL type {ty!r}")

    def defined(self, name: str) -> Codec:
        if name not in self._codecs:
            self._codecs[name] = self._compile(self.types[name])
        return self._codecs[name]

    def defined_struct(self, name: str) -> Struct:
        codec = self.defined(name)
        if not isinstance(codec, Struct):
            raise IdlMismatch(f"{self.name}: {name} is not a struct")
        return codec

    def _compile(self, t: dict) -> Codec:
        ty, name = t["type"], t["name"]
        cls = self._classes.get(name) or self.bindings.get(name)
        if cls is not None and name in self.bindings:
            check_binding(t, cls)
        if ty["kind"] == "enum":
            if any("fields" in v for v in ty["variants"]):
                raise IdlMismatch(f"{name}: only unit-variant enums are supported")
            return Enum(name, [v["name"] for v in ty["variants"]], cls)
        if ty["kind"] != "struct":
            raise IdlMismatch(f"{name}: unsupported type kind {ty['kind']}")
        shape = [(f["name"], f["type"]) for f in ty["fields"]]
        if (
            len(shape) == 2
            and shape[0] == ("len", "u8")
            and isinstance(shape[1][1], dict)
            and shape[1][0] == "data"
            and shape[1][1].get("array", [None])[0] == "u8"
        ):
            return FixedString(shape[1][1]["array"][1])
        if len(shape) == 2 and shape[0] == ("is_some", "bool") and shape[1][0] == "value":
            return FixedOption(self.codec(shape[1][1]))
        return Struct(name, [(n, self.codec(t)) for n, t in shape], cls)

    def fields(self, type_name: str) -> list[tuple[str, Codec]]:
        codec = self.defined(type_name)
        assert isinstance(codec, Struct), type_name
        return codec.fields

    def capacity(self, type_name: str, field_name: str) -> int:
        """Byte capacity of a fixed-size string field (e.g. CoinMetadata.name -> 32)."""
        codec = dict(self.fields(type_name))[field_name]
        codec = getattr(codec, "item", codec)
        assert isinstance(codec, FixedString), (type_name, field_name)
        return codec.capacity

    # -- instructions

    def args_codec(self, name: str) -> Struct:
        key = "ix:" + name
        if key not in self._codecs:
            ix = self.instructions[name]
            self._codecs[key] = Struct(name, [(a["name"], self.codec(a["type"])) for a in ix["args"]])
        return cast(Struct, self._codecs[key])

    def discriminator(self, name: str) -> bytes:
        return bytes(self.instructions[name]["discriminator"])

    def encode_args(self, name: str, args: dict) -> bytes:
        codec = self.args_codec(name)
        expected = [n for n, _ in codec.fields]
        if sorted(args) != sorted(expected):
            raise LayoutError(f"{name}: args {sorted(args)}, expected {expected}")
        out = bytearray(self.discriminator(name))
        codec.write(args, out, name)
        return bytes(out)

    def instruction_name(self, data: bytes) -> str | None:
        """Name of the instruction whose discriminator starts `data` (None if not one of ours)."""
        ix = self._by_discriminator.get(bytes(data[:8]))
        return ix["name"] if ix else None

    def decode_instruction(self, data: bytes) -> tuple[str, dict]:
        """-> (instruction name, args); LayoutError when unknown, short, malformed or with trailing bytes."""
        data = bytes(data)
        ix = self._by_discriminator.get(data[:8])
        if ix is None:
            raise LayoutError(f"{self.name}: unknown instruction")
        args, end = self.args_codec(ix["name"]).read_values(data, 8, ix["name"])
        if end != len(data):
            raise LayoutError(f"{ix['name']}: trailing instruction data")
        return ix["name"], args

    def instruction(self, name: str, accounts: dict[str, Any], /, **args) -> Instruction:
        """Build `name`: `accounts` gives the accounts the IDL cannot derive (signers, free
        accounts; dotted seed paths such as ``"governance.mint"``), by name; the rest are the
        IDL's fixed addresses and PDAs. `args` are the instruction's arguments by name."""
        data = self.encode_args(name, args)
        return Instruction(self.address, data, self.account_metas(name, accounts))

    def account_metas(self, name: str, given: dict[str, Any]) -> list[AccountMeta]:
        items = self.instructions[name]["accounts"]
        by_name = {a["name"]: a for a in items}
        resolved: dict[str, Pubkey] = {}

        def resolve(acc_name: str) -> Pubkey:
            if acc_name in resolved:
                return resolved[acc_name]
            item = by_name.get(acc_name)
            if acc_name in given:
                key = given[acc_name]
                if "." in acc_name:  # a field of another account, for a seed: returned as given
                    return key
                key = key if isinstance(key, Pubkey) else Pubkey.from_string(str(key))
            elif item is not None and "address" in item:
                key = Pubkey.from_string(item["address"])
            elif item is not None and "pda" in item:
                key = self._pda(item["pda"], resolve)
            else:
                raise LayoutError(f"{name}: account {acc_name} must be given")
            resolved[acc_name] = key
            return key

        return [AccountMeta(resolve(a["name"]), bool(a.get("signer")), bool(a.get("writable"))) for a in items]

    def _pda(self, pda: dict, resolve) -> Pubkey:
        seeds = []
        for seed in pda["seeds"]:
            kind = seed["kind"]
            if kind == "const":
                seeds.append(bytes(seed["value"]))
            elif kind == "account":
                value = resolve(seed["path"])
                seeds.append(self._seed_value(seed, value) if "." in seed["path"] else bytes(value))
            else:  # "arg" seeds: none of these programs uses them
                raise IdlMismatch(f"unsupported seed kind {kind}")
        program = pda.get("program")
        program_id = self.address if program is None else Pubkey.from_bytes(bytes(program["value"]))
        return _find_pda(tuple(seeds), program_id)

    def _seed_value(self, seed: dict, value) -> bytes:
        account, _, field = seed["path"].partition(".")
        out = bytearray()
        dict(self.fields(seed["account"]))[field].write(value, out, seed["path"])
        return bytes(out)

    # -- errors

    @cached_property
    def errors(self) -> list[tuple[int, str, str, str]]:
        """(code, name, spec code, message) for each error; msg is "<spec code>: <message>"."""
        out = []
        for e in self.idl.get("errors", []):
            spec, _, message = e["msg"].partition(": ")
            out.append((e["code"], e["name"], spec, message))
        return out


# ----------------------------------------------------------------- accounts


@dataclass_transform()
class IdlAccount:
    """Base of the account dataclasses: ``class Pool(IdlAccount, program=POOL): ...``.

    Fields (in IDL order, each defaulting to what all-zero bytes decode to), NAME,
    DISCRIMINATOR, SIZE and OFFSETS come from the IDL type of the class's name.
    """

    PROGRAM: ClassVar[Program]
    NAME: ClassVar[str]
    DISCRIMINATOR: ClassVar[bytes]
    SIZE: ClassVar[int]
    OFFSETS: ClassVar[dict[str, int]]
    _CODEC: ClassVar[Struct]

    def __init_subclass__(cls, program: Program | None = None, **kw):
        super().__init_subclass__(**kw)
        if program is None:
            return
        name = cls.__name__
        program._classes[name] = cls
        codec = program.defined_struct(name)
        codec.cls = cls
        cls.PROGRAM, cls.NAME, cls._CODEC = program, name, codec
        cls.DISCRIMINATOR = program.account_discriminators[name]
        cls.OFFSETS, at = {}, 8
        annotations = {}
        for field_name, field_codec in codec.fields:
            if field_codec.size is None:
                raise IdlMismatch(
                    f"{name}.{field_name}: account fields must have a fixed size "
                    "(use the fixed string / option conventions)"
                )
            cls.OFFSETS[field_name] = at
            at += field_codec.size
            annotations[field_name] = field_codec.annotation
            zero, show = field_codec.zero, not isinstance(field_codec, ByteArray)
            if isinstance(zero, (dict, list)):  # nested unbound structs / arrays: a fresh copy each
                default = dataclasses.field(default_factory=functools.partial(copy.deepcopy, zero), repr=show)
            else:
                default = dataclasses.field(default=zero, repr=show)
            setattr(cls, field_name, default)
        cls.SIZE = at
        cls.__annotations__ = annotations
        dataclasses.dataclass(cls)

    @classmethod
    def decode(cls, data: bytes):
        data = bytes(data)
        if len(data) < cls.SIZE:
            raise LayoutError(f"{cls.NAME}: need {cls.SIZE} bytes, got {len(data)}")
        if data[:8] != cls.DISCRIMINATOR:
            raise LayoutError(f"{cls.NAME}: discriminator mismatch")
        return cls(**cls._CODEC.read_values(data, 8, cls.NAME)[0])

    def encode(self) -> bytes:
        out = bytearray(self.DISCRIMINATOR)
        self._CODEC.write(self, out, self.NAME)
        return bytes(out)


def load(name: str, bindings: Mapping[str, type] | None = None) -> Program:
    """The program whose IDL ships as `idl_data.<NAME>`, with `bindings` (partner.chain.idls)."""
    from . import idl_data

    return Program(json.loads(getattr(idl_data, name.upper())), bindings)
