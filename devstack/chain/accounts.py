"""`jsonParsed` accounts, as Agave's account-decoder answers them (`parse_account_data`):
`{"program": name, "parsed": {"type": ..., "info": ...}, "space": n}` for the programs it knows,
None for any other account or data it cannot parse (the caller answers base64 then, as Agave does).

    parse(pubkey, owner, data, mint_decimals)   # mint_decimals(mint) -> decimals | None

Parsed here: SPL Token and Token-2022 accounts and mints (with the Token-2022 extensions listed in
`_EXTENSIONS`; the confidential-transfer ones answer `unparseableExtension`), sysvars, nonce
accounts, BPF Upgradeable Loader accounts, stake accounts and address lookup tables. Vote accounts
are not parsed: the devstack's one leader has none.
"""

from __future__ import annotations

import base64
import struct
from collections.abc import Callable
from typing import Any

import base58
from solders.pubkey import Pubkey

from . import constants as C
from .tokens import TOKEN_PROGRAMS, decode_mint, decode_token_account, program_name, ui_token_amount

SYSVAR_OWNER = "Sysvar1111111111111111111111111111111111111"
UPGRADEABLE_LOADER = "BPFLoaderUpgradeab1e11111111111111111111111"
STAKE_PROGRAM = "Stake11111111111111111111111111111111111111"
LOOKUP_TABLE_PROGRAM = "AddressLookupTab1e1111111111111111111111111"
SYSTEM_PROGRAM = "11111111111111111111111111111111"
NONCE_LEN = 80
LOOKUP_TABLE_META = 56
TOKEN_ACCOUNT_LEN = 165
ZERO = bytes(32)

MintDecimals = Callable[[Pubkey], "int | None"]


class _Unparsable(Exception):
    pass


class _Reader:
    """bincode / Borsh little-endian fields off `data`, failing as _Unparsable past its end."""

    def __init__(self, data: bytes, at: int = 0) -> None:
        self.data, self.at = data, at

    def take(self, n: int) -> bytes:
        if self.at + n > len(self.data):
            raise _Unparsable
        out = self.data[self.at : self.at + n]
        self.at += n
        return out

    def u8(self) -> int:
        return self.take(1)[0]

    def u16(self) -> int:
        return int.from_bytes(self.take(2), "little")

    def u32(self) -> int:
        return int.from_bytes(self.take(4), "little")

    def u64(self) -> int:
        return int.from_bytes(self.take(8), "little")

    def i64(self) -> int:
        return int.from_bytes(self.take(8), "little", signed=True)

    def f64(self) -> float:
        return float(struct.unpack("<d", self.take(8))[0])

    def key(self) -> str:
        return str(Pubkey.from_bytes(self.take(32)))

    def hash(self) -> str:
        return base58.b58encode(self.take(32)).decode()

    def option_key(self) -> str | None:
        """bincode's Option<Pubkey>: a tag byte, then the key when it is 1."""
        tag = self.u8()
        if tag > 1:
            raise _Unparsable
        return self.key() if tag else None

    def nonzero_key(self) -> str | None:
        """Token-2022's OptionalNonZeroPubkey: all zeros is None."""
        raw = self.take(32)
        return None if raw == ZERO else str(Pubkey.from_bytes(raw))

    def string(self) -> str:
        try:
            return self.take(self.u32()).decode()
        except UnicodeDecodeError:
            raise _Unparsable from None


def _typed(kind: str, info: Any = None) -> dict[str, Any]:
    return {"type": kind} if info is None else {"type": kind, "info": info}


# ------------------------------------------------------------------ sysvars


def _vec(r: _Reader, item: Callable[[_Reader], Any]) -> list[Any]:
    return [item(r) for _ in range(r.u64())]


def _fee_calculator(r: _Reader) -> dict[str, str]:
    return {"lamportsPerSignature": str(r.u64())}


def _slot_history(r: _Reader) -> dict[str, Any]:
    words = _vec(r, _Reader.u64) if r.u8() else []
    length = r.u64()
    bits = "".join("1" if words[i // 64] >> (i % 64) & 1 else "0" for i in range(min(length, 64 * len(words))))
    return {"nextSlot": r.u64(), "bits": bits.ljust(length, "0")}


_SYSVARS: dict[str, tuple[str, Callable[[_Reader], Any]]] = {
    "SysvarC1ock11111111111111111111111111111111": (
        "clock",
        lambda r: dict(
            zip(
                ("slot", "epochStartTimestamp", "epoch", "leaderScheduleEpoch", "unixTimestamp"),
                (r.u64(), r.i64(), r.u64(), r.u64(), r.i64()),
                strict=True,
            )
        ),
    ),
    "SysvarEpochSchedu1e111111111111111111111111": (
        "epochSchedule",
        lambda r: {
            "slotsPerEpoch": r.u64(),
            "leaderScheduleSlotOffset": r.u64(),
            "warmup": bool(r.u8()),
            "firstNormalEpoch": r.u64(),
            "firstNormalSlot": r.u64(),
        },
    ),
    "SysvarFees111111111111111111111111111111111": ("fees", lambda r: {"feeCalculator": _fee_calculator(r)}),
    "SysvarRecentB1ockHashes11111111111111111111": (
        "recentBlockhashes",
        lambda r: _vec(r, lambda e: {"blockhash": e.hash(), "feeCalculator": _fee_calculator(e)}),
    ),
    "SysvarRent111111111111111111111111111111111": (
        "rent",
        lambda r: {"lamportsPerByteYear": str(r.u64()), "exemptionThreshold": r.f64(), "burnPercent": r.u8()},
    ),
    "SysvarRewards111111111111111111111111111111": ("rewards", lambda r: {"validatorPointValue": r.f64()}),
    "SysvarS1otHashes111111111111111111111111111": (
        "slotHashes",
        lambda r: _vec(r, lambda e: {"slot": e.u64(), "hash": e.hash()}),
    ),
    "SysvarS1otHistory11111111111111111111111111": ("slotHistory", _slot_history),
    "SysvarStakeHistory1111111111111111111111111": (
        "stakeHistory",
        lambda r: _vec(
            r,
            lambda e: {
                "epoch": e.u64(),
                "stakeHistory": {"effective": e.u64(), "activating": e.u64(), "deactivating": e.u64()},
            },
        ),
    ),
    "SysvarLastRestartS1ot1111111111111111111111": ("lastRestartSlot", lambda r: {"lastRestartSlot": r.u64()}),
    "SysvarEpochRewards1111111111111111111111111": (
        "epochRewards",
        lambda r: {
            "distributionStartingBlockHeight": r.u64(),
            "numPartitions": r.u64(),
            "parentBlockhash": r.hash(),
            "totalPoints": str(int.from_bytes(r.take(16), "little")),
            "totalRewards": str(r.u64()),
            "distributedRewards": str(r.u64()),
            "active": bool(r.u8()),
        },
    ),
}


def _sysvar(pubkey: str, data: bytes) -> tuple[str, dict[str, Any]]:
    if pubkey not in _SYSVARS:
        raise _Unparsable
    kind, read = _SYSVARS[pubkey]
    return "sysvar", _typed(kind, read(_Reader(data)))


# ------------------------------------------------------------------ nonce, loader, stake, lookup tables


def _nonce(data: bytes) -> tuple[str, dict[str, Any]]:
    if len(data) != NONCE_LEN:
        raise _Unparsable
    r = _Reader(data)
    if r.u32() > 1:  # Versions: Legacy, Current
        raise _Unparsable
    state = r.u32()
    if state == 0:
        return "nonce", _typed("uninitialized")
    if state != 1:
        raise _Unparsable
    info = {"authority": r.key(), "blockhash": r.hash(), "feeCalculator": _fee_calculator(r)}
    return "nonce", _typed("initialized", info)


def _b64(data: bytes) -> list[str]:
    return [base64.b64encode(data).decode(), "base64"]


def _upgradeable(data: bytes) -> tuple[str, dict[str, Any]]:
    r = _Reader(data)
    tag = r.u32()
    if tag == 0:
        parsed = _typed("uninitialized")
    elif tag == 1:
        authority = r.option_key()
        parsed = _typed("buffer", {"authority": authority, "data": _b64(data[37:])})
    elif tag == 2:
        parsed = _typed("program", {"programData": r.key()})
    elif tag == 3:
        slot, authority = r.u64(), r.option_key()
        parsed = _typed("programData", {"slot": slot, "authority": authority, "data": _b64(data[45:])})
    else:
        raise _Unparsable
    return "bpfUpgradeableLoader", parsed


def _stake_meta(r: _Reader) -> dict[str, Any]:
    reserve = r.u64()
    authorized = {"staker": r.key(), "withdrawer": r.key()}
    lockup = {"unixTimestamp": r.i64(), "epoch": r.u64(), "custodian": r.key()}
    return {"rentExemptReserve": str(reserve), "authorized": authorized, "lockup": lockup}


def _stake(data: bytes) -> tuple[str, dict[str, Any]]:
    r = _Reader(data)
    tag = r.u32()
    if tag == 0:
        return "stake", _typed("uninitialized")
    if tag == 3:
        return "stake", _typed("rewardsPool")
    if tag not in (1, 2):
        raise _Unparsable
    meta = _stake_meta(r)
    if tag == 1:
        return "stake", _typed("initialized", {"meta": meta, "stake": None})
    delegation = {
        "voter": r.key(),
        "stake": str(r.u64()),
        "activationEpoch": str(r.u64()),
        "deactivationEpoch": str(r.u64()),
        "warmupCooldownRate": r.f64(),
    }
    stake = {"delegation": delegation, "creditsObserved": r.u64()}
    return "stake", _typed("delegated", {"meta": meta, "stake": stake})


def _lookup_table(data: bytes) -> tuple[str, dict[str, Any]]:
    r = _Reader(data)
    tag = r.u32()
    if tag == 0:
        return "addressLookupTable", _typed("uninitialized")
    if tag != 1 or len(data) < LOOKUP_TABLE_META or (len(data) - LOOKUP_TABLE_META) % 32:
        raise _Unparsable
    info = {
        "deactivationSlot": str(r.u64()),
        "lastExtendedSlot": str(r.u64()),
        "lastExtendedSlotStartIndex": r.u8(),
        "authority": r.option_key(),
        "addresses": [str(Pubkey.from_bytes(data[at : at + 32])) for at in range(LOOKUP_TABLE_META, len(data), 32)],
    }
    return "addressLookupTable", _typed("lookupTable", info)


# ------------------------------------------------------------------ SPL Token and Token-2022


def _token_metadata(r: _Reader) -> dict[str, Any]:
    update_authority, mint = r.nonzero_key(), r.key()
    name, symbol, uri = r.string(), r.string(), r.string()
    extra = [[r.string(), r.string()] for _ in range(r.u32())]
    return {
        "updateAuthority": update_authority,
        "mint": mint,
        "name": name,
        "symbol": symbol,
        "uri": uri,
        "additionalMetadata": extra,
    }


def _authority_and(field: str) -> Callable[[_Reader], dict[str, Any]]:
    return lambda r: {"authority": r.nonzero_key(), field: r.nonzero_key()}


def _fee(r: _Reader) -> dict[str, int]:
    return {"epoch": r.u64(), "maximumFee": r.u64(), "transferFeeBasisPoints": r.u16()}


_STATES = {0: "uninitialized", 1: "initialized", 2: "frozen"}

# ExtensionType -> (the UiExtension name, its state's reader, or None for a unit variant)
_EXTENSIONS: dict[int, tuple[str, Callable[[_Reader], Any] | None]] = {
    0: ("uninitialized", None),
    1: (
        "transferFeeConfig",
        lambda r: {
            "transferFeeConfigAuthority": r.nonzero_key(),
            "withdrawWithheldAuthority": r.nonzero_key(),
            "withheldAmount": r.u64(),
            "olderTransferFee": _fee(r),
            "newerTransferFee": _fee(r),
        },
    ),
    2: ("transferFeeAmount", lambda r: {"withheldAmount": r.u64()}),
    3: ("mintCloseAuthority", lambda r: {"closeAuthority": r.nonzero_key()}),
    6: ("defaultAccountState", lambda r: {"accountState": _STATES.get(r.u8(), "uninitialized")}),
    7: ("immutableOwner", None),
    8: ("memoTransfer", lambda r: {"requireIncomingTransferMemos": bool(r.u8())}),
    9: ("nonTransferable", None),
    10: (
        "interestBearingConfig",
        lambda r: {
            "rateAuthority": r.nonzero_key(),
            "initializationTimestamp": r.i64(),
            "preUpdateAverageRate": int.from_bytes(r.take(2), "little", signed=True),
            "lastUpdateTimestamp": r.i64(),
            "currentRate": int.from_bytes(r.take(2), "little", signed=True),
        },
    ),
    11: ("cpiGuard", lambda r: {"lockCpi": bool(r.u8())}),
    12: ("permanentDelegate", lambda r: {"delegate": r.nonzero_key()}),
    13: ("nonTransferableAccount", None),
    14: ("transferHook", _authority_and("programId")),
    15: ("transferHookAccount", lambda r: {"transferring": bool(r.u8())}),
    18: ("metadataPointer", _authority_and("metadataAddress")),
    19: ("tokenMetadata", _token_metadata),
    20: ("groupPointer", _authority_and("groupAddress")),
    21: (
        "tokenGroup",
        lambda r: {"updateAuthority": r.nonzero_key(), "mint": r.key(), "size": r.u64(), "maxSize": r.u64()},
    ),
    22: ("groupMemberPointer", _authority_and("memberAddress")),
    23: ("tokenGroupMember", lambda r: {"mint": r.key(), "group": r.key(), "memberNumber": r.u64()}),
    26: ("pausableConfig", lambda r: {"authority": r.nonzero_key(), "paused": bool(r.u8())}),
    27: ("pausableAccount", None),
}


def _extension(kind: int, value: bytes) -> dict[str, Any]:
    name, read = _EXTENSIONS.get(kind, ("unparseableExtension", None))
    if read is None:
        return {"extension": name}
    try:
        return {"extension": name, "state": read(_Reader(value))}
    except _Unparsable:
        return {"extension": "unparseableExtension"}


def token_extensions(data: bytes) -> list[dict[str, Any]]:
    """The TLV entries after a Token-2022 account's or mint's base (padded to 165 bytes, then
    the account-type byte), in their order."""
    out: list[dict[str, Any]] = []
    r = _Reader(data, TOKEN_ACCOUNT_LEN + 1)
    while r.at + 4 <= len(data):
        kind, length = r.u16(), r.u16()
        if kind == 0 and length == 0:
            break  # the zeroed tail
        out.append(_extension(kind, r.take(length)))
    return out


def _token(owner: Pubkey, data: bytes, mint_decimals: MintDecimals) -> tuple[str, dict[str, Any]]:
    extensions = token_extensions(data) if owner == C.TOKEN_2022_PROGRAM_ID and len(data) > 165 else []
    ta = decode_token_account(owner, data)
    if ta is not None:
        decimals = mint_decimals(ta.mint)
        if decimals is None:
            raise _Unparsable  # Agave: the mint's decimals are needed (AdditionalDataMissing)
        info: dict[str, Any] = {
            "isNative": ta.is_native is not None,
            "mint": str(ta.mint),
            "owner": str(ta.owner),
            "state": "frozen" if int(ta.state) == 2 else "initialized",
            "tokenAmount": ui_token_amount(ta.amount, decimals),
        }
        if ta.delegate is not None:
            info["delegate"] = str(ta.delegate)
            info["delegatedAmount"] = ui_token_amount(ta.delegated_amount, decimals)
        if ta.close_authority is not None:
            info["closeAuthority"] = str(ta.close_authority)
        if ta.is_native is not None:
            info["rentExemptReserve"] = ui_token_amount(ta.is_native, decimals)
        if extensions:
            info["extensions"] = extensions
        return program_name(owner), _typed("account", info)
    m = decode_mint(owner, data)
    if m is None:
        raise _Unparsable
    info = {
        "decimals": m.decimals,
        "freezeAuthority": str(m.freeze_authority) if m.freeze_authority else None,
        "isInitialized": True,
        "mintAuthority": str(m.mint_authority) if m.mint_authority else None,
        "supply": str(m.supply),
    }
    if extensions:
        info["extensions"] = extensions
    return program_name(owner), _typed("mint", info)


def parse(pubkey: Pubkey, owner: Pubkey, data: bytes, mint_decimals: MintDecimals) -> dict[str, Any] | None:
    """Agave's parsed account data, or None (not a program it parses, or data it cannot)."""
    owner_s = str(owner)
    try:
        if owner in TOKEN_PROGRAMS:
            program, parsed = _token(owner, data, mint_decimals)
        elif owner_s == SYSVAR_OWNER:
            program, parsed = _sysvar(str(pubkey), data)
        elif owner_s == SYSTEM_PROGRAM:
            program, parsed = _nonce(data)
        elif owner_s == UPGRADEABLE_LOADER:
            program, parsed = _upgradeable(data)
        elif owner_s == STAKE_PROGRAM:
            program, parsed = _stake(data)
        elif owner_s == LOOKUP_TABLE_PROGRAM:
            program, parsed = _lookup_table(data)
        else:
            return None
    except (_Unparsable, ValueError):
        return None
    return {"program": program, "parsed": parsed, "space": len(data)}
