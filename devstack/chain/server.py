"""JSON-RPC 2.0 server of the devstack chain (Solana RPC + Jito-style block engine + devstack controls).

The façade: every transaction executes in LiteSVM (``svm.py``); this module encodes, decodes,
applies the faults and serves the ledger's history. Run: ``python -m devstack.chain.server``, or
in-process ``start_chain(port=0)``; paths and methods: README.md next to this file.
"""

from __future__ import annotations

import argparse
import base64
import json
import sys
import threading
import time
import urllib.parse
from dataclasses import dataclass
from typing import Any, cast

import base58
from solders.message import MessageV0, from_bytes_versioned
from solders.pubkey import Pubkey
from solders.signature import Signature
from solders.transaction import VersionedTransaction

from .. import latency
from ..faultlist import FaultList
from ..httpserver import HttpRequest, HttpServer, ReadTimeouts
from . import constants as C
from . import parsed
from .accounts import parse as parse_account
from .blockengine import RATE_LIMIT_CODE, BlockEngine, BundleRefused, EngineSettings, rate_limit_message
from .ledger import Account, TxError, TxResult, tx_error_display
from .pubsub import PubSub
from .svm import Admission, SvmBank, is_writable
from .tokens import TOKEN_PROGRAMS, decode_mint, decode_token_account, ui_token_amount

BUNDLE_PATH = "/api/v1/bundles"
TRANSACTIONS_PATH = "/api/v1/transactions"
ENGINE_TARGETS = ("bundle", "transactions")  # the block engine's two paths: one rate limit, faults of target "bundle"
CONTROL_PREFIX = "devstack_"


class RpcError(Exception):
    def __init__(self, code: int, message: str, data: Any = None, http_status: int = 200):
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data
        self.http_status = http_status  # the block engine answers its refusals with HTTP 400, as Jito's

    def to_json(self) -> dict[str, Any]:
        e: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data is not None:
            e["data"] = self.data
        return e


def invalid_params(msg: str) -> RpcError:
    return RpcError(-32602, msg)


# ---------------------------------------------------------------------------
# faults
# ---------------------------------------------------------------------------


@dataclass
class Fault:
    id: int
    target: str  # "rpc" | "bundle"
    mode: str  # "down" | "slow" | "error" | "drop"
    methods: list[str] | None
    count: int | None
    delay_ms: int

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "target": self.target,
            "mode": self.mode,
            "methods": self.methods,
            "count": self.count,
            "delayMs": self.delay_ms,
        }


class FaultTable(FaultList[Fault]):
    MODES = ("down", "slow", "error", "drop")

    def add(self, spec: dict[str, Any]) -> Fault:
        target = spec.get("target", "rpc")
        mode = spec.get("mode")
        if target not in ("rpc", "bundle") or mode not in self.MODES:
            raise invalid_params("Invalid params: target must be rpc|bundle, mode down|slow|error|drop")
        methods = spec.get("methods")
        if methods is not None and not (isinstance(methods, list) and all(isinstance(m, str) for m in methods)):
            raise invalid_params("Invalid params: methods must be a list of strings")
        count = spec.get("count")
        if count is not None and (not isinstance(count, int) or count < 1):
            raise invalid_params("Invalid params: count must be a positive integer")
        delay_ms = int(spec.get("delayMs", 1000))
        return self._add(lambda id_: Fault(id_, target, mode, methods or None, count, delay_ms))

    def take(self, target: str, method: str, modes: tuple[str, ...]) -> Fault | None:
        """Find the first fault matching (target, method, one of modes); consume one use of it."""
        if method.startswith(CONTROL_PREFIX):
            return None

        def matches(f: Fault) -> bool:
            if f.target != target or f.mode not in modes:
                return False
            if f.methods is not None and method not in f.methods:
                return False
            return f.mode != "drop" or method in ("sendTransaction", "sendBundle")

        return self._take(matches)


# ---------------------------------------------------------------------------
# encoding helpers
# ---------------------------------------------------------------------------


def _pubkey(v: Any, what: str = "pubkey") -> Pubkey:
    try:
        return Pubkey.from_string(v)
    except Exception:
        raise invalid_params(f"Invalid param: Invalid {what}") from None


def _cfg(params: list[Any], i: int) -> dict[str, Any]:
    if len(params) > i and isinstance(params[i], dict):
        return params[i]
    return {}


# -- commitment: which slot's state a read sees ------------------------------------
COMMITMENTS = ("processed", "confirmed", "finalized")


def _commitment(cfg: dict[str, Any], key: str = "commitment") -> str:
    """The commitment a request names (``finalized`` when it names none, as a real node)."""
    value = cfg.get(key)
    if value is None:
        return "finalized"
    if value not in COMMITMENTS:
        raise invalid_params(
            f"Invalid params: unknown variant `{value}`, expected one of `processed`, `confirmed`, `finalized`."
        )
    return value


def _is_u64(value: Any) -> bool:
    """A JSON integer that a u64 parameter takes (not a bool, not negative)."""
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _min_context_slot(cfg: dict[str, Any]) -> int | None:
    value = cfg.get("minContextSlot")
    if value is None:
        return None
    if not _is_u64(value):
        raise invalid_params("Invalid params: invalid type: minContextSlot, expected u64.")
    return value


def _mint_decimals(bank: SvmBank) -> Any:
    def decimals(mint: Pubkey) -> int | None:
        acct = bank.get_account(mint)
        m = decode_mint(acct.owner, bytes(acct.data)) if acct else None
        return None if m is None else m.decimals

    return decimals


def encode_account(
    acct: Account | None, cfg: dict[str, Any], bank: SvmBank, pubkey: Pubkey | None = None
) -> dict[str, Any] | None:
    """An account as the RPC answers it in `cfg`'s encoding; `pubkey` (the account's address) lets
    jsonParsed parse sysvars (devstack.chain.accounts), which are told apart by address."""
    if acct is None:
        return None
    encoding = cfg.get("encoding", "base64" if cfg.get("_default_b64") else "base58")
    data = bytes(acct.data)
    ds = cfg.get("dataSlice")
    if isinstance(ds, dict):
        off, ln = int(ds.get("offset", 0)), int(ds.get("length", 0))
        data = data[off : off + ln]
    if encoding == "jsonParsed":
        parsed = None
        if not ds:  # Agave parses the whole data only
            parsed = parse_account(pubkey or Pubkey.default(), acct.owner, bytes(acct.data), _mint_decimals(bank))
        enc: Any = parsed if parsed is not None else [base64.b64encode(data).decode(), "base64"]
    elif encoding == "base64":
        enc = [base64.b64encode(data).decode(), "base64"]
    elif encoding == "base58":
        if len(data) > 128:
            raise invalid_params(
                "Encoded binary (base 58) data should be less than 128 bytes, please use Base64 encoding."
            )
        enc = [base58.b58encode(data).decode(), "base58"]
    elif encoding == "base64+zstd":
        try:
            import zstandard  # type: ignore  # an optional dependency
        except ImportError:
            raise invalid_params("Invalid params: base64+zstd encoding is not available on this node") from None
        enc = [base64.b64encode(zstandard.ZstdCompressor().compress(data)).decode(), "base64+zstd"]
    else:
        raise invalid_params(f"Invalid params: unknown variant `{encoding}`")
    return {
        "data": enc,
        "executable": acct.executable,
        "lamports": acct.lamports,
        "owner": str(acct.owner),
        "rentEpoch": acct.rent_epoch,
        "space": len(acct.data),
    }


def _decode_wire(s: Any, encoding: str, max_encoded: int, what: str) -> bytes:
    if not isinstance(s, str):
        raise invalid_params("Invalid params: expected a string")
    if len(s) > max_encoded:
        raise invalid_params(
            f"{encoding} encoded {what} too large: {len(s)} bytes (max: encoded/raw {max_encoded}/{C.PACKET_DATA_SIZE})"
        )
    try:
        raw = base64.b64decode(s, validate=True) if encoding == "base64" else base58.b58decode(s)
    except Exception:
        raise invalid_params(f"invalid {encoding} encoding: {s[:16]}...") from None
    if len(raw) > C.PACKET_DATA_SIZE:
        raise invalid_params(f"decoded {what} too large: {len(raw)} bytes (max: {C.PACKET_DATA_SIZE} bytes)")
    return raw


_TX_WHAT = "solana_sdk::transaction::versioned::VersionedTransaction"


def decode_transaction(s: Any, encoding: str) -> tuple[VersionedTransaction, int]:
    if encoding not in ("base58", "base64"):
        raise invalid_params(f"Invalid params: unsupported encoding: {encoding}. Supported encodings: base58, base64")
    max_encoded = 1644 if encoding == "base64" else 1683
    raw = _decode_wire(s, encoding, max_encoded, _TX_WHAT)
    try:
        tx = VersionedTransaction.from_bytes(raw)
    except Exception:
        raise invalid_params(f"failed to deserialize {_TX_WHAT}: io error: failed to fill whole buffer") from None
    return tx, len(raw)


def _sim_value(r: TxResult | None, err: Any, cfg_accounts: dict[str, Any] | None, bank: SvmBank) -> dict[str, Any]:
    accounts = None
    if cfg_accounts and r is not None:
        enc_cfg = {"encoding": cfg_accounts.get("encoding", "base64")}
        accounts = []
        for a in cfg_accounts.get("addresses", []):
            pk = _pubkey(a)
            acct = r.post_accounts.get(pk) if pk in r.post_accounts else bank.get_account(pk)
            accounts.append(encode_account(acct if acct is None or acct.lamports else None, enc_cfg, bank, pk))
    value: dict[str, Any] = {
        "err": err,
        "logs": r.logs if r is not None else [],
        "accounts": accounts,
        "unitsConsumed": r.units_consumed if r is not None else 0,
        "returnData": None,
        "innerInstructions": None,
        "replacementBlockhash": None,
    }
    if r is not None and r.replacement_blockhash is not None:
        bh, lvbh = r.replacement_blockhash
        value["replacementBlockhash"] = {"blockhash": str(bh), "lastValidBlockHeight": lvbh}
    return value


def _ui_message(tx: VersionedTransaction) -> dict[str, Any]:
    msg = tx.message
    h = msg.header
    out: dict[str, Any] = {
        "header": {
            "numRequiredSignatures": h.num_required_signatures,
            "numReadonlySignedAccounts": h.num_readonly_signed_accounts,
            "numReadonlyUnsignedAccounts": h.num_readonly_unsigned_accounts,
        },
        "accountKeys": [str(k) for k in msg.account_keys],
        "recentBlockhash": str(msg.recent_blockhash),
        "instructions": [
            {
                "programIdIndex": ix.program_id_index,
                "accounts": list(bytes(ix.accounts)),
                "data": base58.b58encode(bytes(ix.data)).decode(),
                "stackHeight": None,
            }
            for ix in msg.instructions
        ],
    }
    if isinstance(msg, MessageV0):
        out["addressTableLookups"] = []
    return out


# ---------------------------------------------------------------------------
# the RPC implementation
# ---------------------------------------------------------------------------


class _CallFlag:
    """A flag of the call a ChainRPC thread is serving (calls are served on many threads at once)."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, rpc: Any, owner: type | None = None) -> bool:
        return getattr(rpc._tl, self.name, False)

    def __set__(self, rpc: Any, value: bool) -> None:
        setattr(rpc._tl, self.name, value)


class ChainRPC:
    """Dispatches JSON-RPC requests against the bank (SvmBank). Methods hold ``bank.lock``."""

    def __init__(self, bank: SvmBank, faults: FaultTable, engine: BlockEngine | None = None):
        self.bank = bank
        self.faults = faults
        self.engine = engine or BlockEngine(bank)
        self.dropped: dict[str, Any] = {}  # sendTransaction under a "drop" fault
        self._tl = threading.local()

    _drop_current = _CallFlag()  # a "drop" fault applies to this call
    _bundle_only = _CallFlag()  # the call came as sendTransaction?bundleOnly=true

    @property
    def _headers(self) -> dict[str, str]:
        """Headers the current call adds to its HTTP answer (``x-bundle-id``)."""
        found = getattr(self._tl, "headers", None)
        if found is None:
            found = self._tl.headers = {}
        return found

    # -- framing ---------------------------------------------------------------
    def ctx(self, value: Any, slot: int | None = None) -> dict[str, Any]:
        """An answer with its context: ``slot`` the slot whose state it reflects (the newest)."""
        return {
            "context": {"slot": self.bank.slot if slot is None else slot, "apiVersion": C.API_VERSION},
            "value": value,
        }

    def at(self, cfg: dict[str, Any], key: str = "commitment") -> int:
        """The slot whose state a read sees: its commitment's (``finalized`` by default). A
        ``minContextSlot`` above it is refused as Agave does (-32016, the slot in ``data``)."""
        slot = self.bank.commitment_slot(_commitment(cfg, key))
        floor = _min_context_slot(cfg)
        if floor is not None and slot < floor:
            raise RpcError(-32016, "Minimum context slot has not been reached", {"contextSlot": slot})
        return slot

    def call(self, target: str, method: str, params: Any) -> Any:
        if params is None:
            params = []
        if target == "bundle":
            fn = getattr(self, f"bundle_{method}", None)
        elif target == "transactions":
            fn = getattr(self, f"tx_{method}", None)
        elif method.startswith(CONTROL_PREFIX):
            fn = getattr(self, f"ctl_{method[len(CONTROL_PREFIX) :]}", None)
        else:
            fn = getattr(self, f"rpc_{method}", None)
        if fn is None:
            raise RpcError(-32601, "Method not found")
        if not isinstance(params, (list, dict)):
            raise invalid_params("Invalid params: expected an array")
        with self.bank.lock:
            return fn(params)

    # -- basic -------------------------------------------------------------------
    def rpc_getHealth(self, p):
        return "ok"

    def rpc_getVersion(self, p):
        return {"solana-core": C.SOLANA_CORE_VERSION, "feature-set": C.FEATURE_SET}

    def rpc_getGenesisHash(self, p):
        return str(self.bank.genesis_hash)

    def rpc_getIdentity(self, p):
        return {"identity": str(self.bank.faucet.pubkey())}

    def rpc_getSlot(self, p):
        return self.at(_cfg(p, 0))

    def rpc_getBlockHeight(self, p):
        return self.at(_cfg(p, 0))  # one block per slot

    def rpc_getTransactionCount(self, p):
        return self.bank.transaction_count

    def rpc_getFirstAvailableBlock(self, p):
        return 0

    def rpc_getEpochInfo(self, p):
        slot = self.at(_cfg(p, 0))
        return {
            "absoluteSlot": slot,
            "blockHeight": slot,
            "epoch": slot // C.SLOTS_PER_EPOCH,
            "slotIndex": slot % C.SLOTS_PER_EPOCH,
            "slotsInEpoch": C.SLOTS_PER_EPOCH,
            "transactionCount": self.bank.transaction_count,
        }

    def rpc_getBlockTime(self, p):
        if not p or not isinstance(p[0], int):
            raise invalid_params("Invalid params: expected slot")
        return int(self.bank._unix0 + p[0] * C.SLOT_SECONDS)

    def rpc_getMinimumBalanceForRentExemption(self, p):
        if not p or not isinstance(p[0], int) or p[0] < 0:
            raise invalid_params("Invalid params: expected data length")
        return C.minimum_balance(p[0])

    def rpc_getLatestBlockhash(self, p):
        """The blockhash of the commitment's slot; valid for 150 blocks from it."""
        slot = self.at(_cfg(p, 0))
        self.bank.latest_blockhash()  # prunes the known blockhashes
        bh = self.bank.blockhash_for_slot(slot)
        return self.ctx({"blockhash": str(bh), "lastValidBlockHeight": slot + C.MAX_BLOCKHASH_AGE}, slot)

    def rpc_isBlockhashValid(self, p):
        from solders.hash import Hash

        try:
            h = Hash.from_string(p[0])
        except Exception:
            raise invalid_params("Invalid params: invalid blockhash") from None
        slot = self.at(_cfg(p, 1))
        made = self.bank.blockhash_slot(h)
        return self.ctx(made is not None and made <= slot and slot - made <= C.MAX_BLOCKHASH_AGE, slot)

    def rpc_getFeeForMessage(self, p):
        try:
            raw = base64.b64decode(p[0], validate=True)
            msg = from_bytes_versioned(raw)
        except Exception:
            raise invalid_params("Invalid params: invalid message") from None
        fee = self.bank.fee_for_message(msg) if self.bank.is_blockhash_valid(msg.recent_blockhash) else None
        return self.ctx(fee)

    def rpc_getRecentPrioritizationFees(self, p):
        """[[address, ...]?] (at most 128): per recent slot, the price in micro-lamports per
        compute unit that landed a transaction writing all of them (the bank's record)."""
        raw = p[0] if p else []
        if raw is None:
            raw = []
        if not isinstance(raw, list):
            raise invalid_params("Invalid params: expected an array of addresses")
        if len(raw) > 128:
            raise invalid_params("Too many inputs provided; max 128")
        return self.bank.recent_prioritization_fees([_pubkey(a, "address") for a in raw])

    # -- accounts ----------------------------------------------------------------
    def rpc_getBalance(self, p):
        if not p:
            raise invalid_params("Invalid params: missing pubkey")
        slot = self.at(_cfg(p, 1))
        a = self.bank.get_account(_pubkey(p[0]), slot)
        return self.ctx(a.lamports if a else 0, slot)

    def rpc_getAccountInfo(self, p):
        if not p:
            raise invalid_params("Invalid params: missing pubkey")
        cfg = _cfg(p, 1)
        slot = self.at(cfg)
        key = _pubkey(p[0])
        return self.ctx(encode_account(self.bank.get_account(key, slot), cfg, self.bank, key), slot)

    def rpc_getMultipleAccounts(self, p):
        if not p or not isinstance(p[0], list):
            raise invalid_params("Invalid params: expected a list of pubkeys")
        if len(p[0]) > 100:
            raise invalid_params("Too many inputs provided; max 100")
        cfg = _cfg(p, 1)
        slot = self.at(cfg)
        keys = [_pubkey(k) for k in p[0]]
        return self.ctx([encode_account(self.bank.get_account(k, slot), cfg, self.bank, k) for k in keys], slot)

    @staticmethod
    def _matches(acct: Account, filters: list[Any]) -> bool:
        data = bytes(acct.data)
        for f in filters:
            if "dataSize" in f:
                if len(data) != f["dataSize"]:
                    return False
            elif "memcmp" in f:
                mc = f["memcmp"]
                off = int(mc.get("offset", 0))
                enc = mc.get("encoding", "base58")
                try:
                    want = base64.b64decode(mc["bytes"]) if enc == "base64" else base58.b58decode(mc["bytes"])
                except Exception:
                    raise invalid_params("Invalid params: invalid memcmp bytes") from None
                if data[off : off + len(want)] != want:
                    return False
            elif "tokenAccountState" in f:
                if decode_token_account(acct.owner, data) is None:
                    return False
            else:
                raise invalid_params(f"Invalid params: unknown filter {f}")
        return True

    def rpc_getProgramAccounts(self, p):
        if not p:
            raise invalid_params("Invalid params: missing program id")
        program = _pubkey(p[0], "program id")
        cfg = _cfg(p, 1)
        filters = cfg.get("filters") or []
        if not isinstance(filters, list) or len(filters) > 4:
            raise invalid_params("Too many filters provided; max 4")
        slot = self.at(cfg)
        out = []
        for k, a in self.bank.program_accounts(program, slot):
            if self._matches(a, filters):
                out.append({"pubkey": str(k), "account": encode_account(a, cfg, self.bank, k)})
        return self.ctx(out, slot) if cfg.get("withContext") else out

    def _token_account(self, pk: Pubkey, slot: int | None = None):
        a = self.bank.get_account(pk, slot)
        if a is None:
            raise invalid_params("Invalid param: could not find account")
        ta = decode_token_account(a.owner, bytes(a.data))
        if ta is None:
            raise invalid_params("Invalid param: not a Token account")
        return a, ta

    def _decimals(self, mint: Pubkey, slot: int | None = None) -> int:
        ma = self.bank.get_account(mint, slot)
        m = decode_mint(ma.owner, bytes(ma.data)) if ma else None
        if m is None:
            raise invalid_params("Invalid param: mint could not be unpacked")
        return m.decimals

    def rpc_getTokenAccountBalance(self, p):
        if not p:
            raise invalid_params("Invalid params: missing pubkey")
        slot = self.at(_cfg(p, 1))
        _, ta = self._token_account(_pubkey(p[0]), slot)
        return self.ctx(ui_token_amount(ta.amount, self._decimals(ta.mint, slot)), slot)

    def rpc_getTokenSupply(self, p):
        if not p:
            raise invalid_params("Invalid params: missing pubkey")
        slot = self.at(_cfg(p, 1))
        ma = self.bank.get_account(_pubkey(p[0]), slot)
        m = decode_mint(ma.owner, bytes(ma.data)) if ma else None
        if m is None:
            raise invalid_params("Invalid param: not a Token mint")
        return self.ctx(ui_token_amount(m.supply, m.decimals), slot)

    def _token_accounts_by(self, p, field_name: str):
        if len(p) < 2 or not isinstance(p[1], dict):
            raise invalid_params("Invalid params: expected owner and filter")
        who = _pubkey(p[0])
        flt = p[1]
        mint = _pubkey(flt["mint"]) if "mint" in flt else None
        programs: tuple[Pubkey, ...] = TOKEN_PROGRAMS
        if "programId" in flt:
            program = _pubkey(flt["programId"])
            if program not in TOKEN_PROGRAMS:
                raise invalid_params("Invalid param: unrecognized Token program id")
            programs = (program,)
        elif mint is None:
            raise invalid_params("Invalid params: filter must be mint or programId")
        cfg = _cfg(p, 2)
        slot = self.at(cfg)
        out = []
        for k, a in [ka for program in programs for ka in self.bank.program_accounts(program, slot)]:
            ta = decode_token_account(a.owner, bytes(a.data))
            if ta is None or getattr(ta, field_name) != who or (mint is not None and ta.mint != mint):
                continue
            out.append({"pubkey": str(k), "account": encode_account(a, cfg, self.bank, k)})
        return self.ctx(out, slot)

    def rpc_getTokenAccountsByOwner(self, p):
        return self._token_accounts_by(p, "owner")

    def rpc_getTokenAccountsByDelegate(self, p):
        return self._token_accounts_by(p, "delegate")

    def rpc_getTokenLargestAccounts(self, p):
        """The 20 largest token accounts of a mint, largest first (Agave's limit)."""
        if not p:
            raise invalid_params("Invalid params: missing pubkey")
        mint = _pubkey(p[0])
        slot = self.at(_cfg(p, 1))
        ma = self.bank.get_account(mint, slot)
        m = decode_mint(ma.owner, bytes(ma.data)) if ma else None
        if ma is None or m is None:
            raise invalid_params("Invalid param: could not find mint")
        holders = []
        for k, a in self.bank.program_accounts(ma.owner, slot):
            ta = decode_token_account(a.owner, bytes(a.data))
            if ta is not None and ta.mint == mint:
                holders.append((ta.amount, str(k)))
        holders.sort(key=lambda h: (-h[0], h[1]))
        return self.ctx([{"address": k, **ui_token_amount(n, m.decimals)} for n, k in holders[:20]], slot)

    def rpc_getSupply(self, p):
        """Lamports in existence: every account's (the faucet's and the genesis accounts' count as
        circulating; a single node has no non-circulating list)."""
        cfg = _cfg(p, 0)
        slot = self.at(cfg)
        total = self.bank.total_lamports(slot)
        listed: list[str] = [] if cfg.get("excludeNonCirculatingAccountsList") else []
        return self.ctx(
            {"total": total, "circulating": total, "nonCirculating": 0, "nonCirculatingAccounts": listed}, slot
        )

    def rpc_getEpochSchedule(self, p):
        return {
            "slotsPerEpoch": C.SLOTS_PER_EPOCH,
            "leaderScheduleSlotOffset": C.SLOTS_PER_EPOCH,
            "warmup": False,
            "firstNormalEpoch": 0,
            "firstNormalSlot": 0,
        }

    def rpc_getLeaderSchedule(self, p):
        """One validator leads every slot of the epoch: {identity: [slot index, ...]}."""
        cfg = p[1] if len(p) > 1 and isinstance(p[1], dict) else (p[0] if p and isinstance(p[0], dict) else {})
        slot = p[0] if p and isinstance(p[0], int) else self.at(cfg)
        if slot // C.SLOTS_PER_EPOCH > self.bank.slot // C.SLOTS_PER_EPOCH + 1:
            return None  # an epoch whose schedule is not known yet
        identity = str(self.bank.faucet.pubkey())
        if cfg.get("identity") not in (None, identity):
            return {}
        return {identity: list(range(C.SLOTS_PER_EPOCH))}

    def rpc_getClusterNodes(self, p):
        host = self.public_host
        return [
            {
                "pubkey": str(self.bank.faucet.pubkey()),
                "gossip": None,
                "tpu": None,
                "tpuQuic": None,
                "rpc": host,
                "pubsub": self.pubsub_host,
                "version": C.SOLANA_CORE_VERSION,
                "featureSet": C.FEATURE_SET,
                "shredVersion": 0,
            }
        ]

    public_host: str | None = None  # host:port of the RPC and the PubSub, set by start_chain
    pubsub_host: str | None = None

    def rpc_getVoteAccounts(self, p):
        """The devstack has no vote accounts: its one leader does not vote."""
        return {"current": [], "delinquent": []}

    def rpc_getStakeMinimumDelegation(self, p):
        slot = self.at(_cfg(p, 0))
        return self.ctx(1, slot)  # 1 lamport: stake_raise_minimum_delegation_to_1_sol is not active on mainnet

    def rpc_minimumLedgerSlot(self, p):
        return 0  # the devstack keeps its whole history

    def rpc_getHighestSnapshotSlot(self, p):
        raise RpcError(-32008, "No snapshot")  # Agave's answer on a node that has taken none

    def rpc_getRecentPerformanceSamples(self, p):
        """One sample per 60 s of the ledger's life, newest first (at most `limit`, 720)."""
        limit = p[0] if p and isinstance(p[0], int) and not isinstance(p[0], bool) else 720
        if not 0 <= limit <= 720:
            raise invalid_params("Invalid limit; max 720")
        per = int(60 / C.SLOT_SECONDS)  # 150 slots a sample
        now = self.bank.slot
        counts: dict[int, int] = {}
        for r in self.bank.transactions.values():
            counts[r.slot // per] = counts.get(r.slot // per, 0) + 1
        out = []
        for i in range(now // per - 1, -1, -1):
            if len(out) >= limit:
                break
            n = counts.get(i, 0)
            out.append(
                {
                    "slot": (i + 1) * per,
                    "numTransactions": n,
                    "numNonVoteTransactions": n,
                    "numSlots": per,
                    "samplePeriodSecs": 60,
                }
            )
        return out

    # One leader, no voters: the leader answers every slot; no stake, so no commitment by stake,
    # no inflation rewards. Inflation is mainnet's governor, its rate by the epoch's year (Agave's
    # Bank::slot_in_year_for_inflation, inflation active from slot 0).
    INFLATION = {"initial": 0.08, "terminal": 0.015, "taper": 0.15, "foundation": 0.05, "foundationTerm": 7.0}
    SLOTS_PER_YEAR = 365.242_199 * 24.0 * 60.0 * 60.0 / C.SLOT_SECONDS

    def rpc_getSlotLeader(self, p):
        self.at(_cfg(p, 0))
        return str(self.bank.faucet.pubkey())

    def rpc_getSlotLeaders(self, p):
        if len(p) < 2 or not all(_is_u64(v) for v in p[:2]):
            raise invalid_params("Invalid params: expected a start slot and a limit")
        start, limit = p[0], p[1]
        if not 1 <= limit <= 5000:
            raise invalid_params("Invalid limit; max 5000")
        epoch = (start + limit - 1) // C.SLOTS_PER_EPOCH
        if epoch > self.bank.slot // C.SLOTS_PER_EPOCH + 1:
            raise invalid_params(f"Invalid slot range: leader schedule for epoch {epoch} is unavailable")
        return [str(self.bank.faucet.pubkey())] * limit

    def rpc_getBlockCommitment(self, p):
        if not p or not _is_u64(p[0]):
            raise invalid_params("Invalid params: expected a slot")
        return {"commitment": None, "totalStake": 0}

    def rpc_getBlockProduction(self, p):
        cfg = _cfg(p, 0)
        slot = self.at(cfg)
        wanted = cfg.get("range") or {}
        first = wanted.get("firstSlot", slot - slot % C.SLOTS_PER_EPOCH)
        last = wanted.get("lastSlot", slot)
        if not (_is_u64(first) and _is_u64(last)):
            raise invalid_params("Invalid params: firstSlot and lastSlot are slots")
        if last < first:
            raise invalid_params(f"lastSlot, {last}, cannot be less than firstSlot, {first}")
        if last > slot:
            raise invalid_params(f"lastSlot, {last}, cannot be greater than current slot, {slot}")
        identity = str(self.bank.faucet.pubkey())
        slots = last - first + 1
        by = {} if cfg.get("identity") not in (None, identity) else {identity: [slots, slots]}
        return self.ctx({"byIdentity": by, "range": {"firstSlot": first, "lastSlot": last}}, slot)

    def rpc_getInflationGovernor(self, p):
        self.at(_cfg(p, 0))
        return dict(self.INFLATION)

    def rpc_getInflationRate(self, p):
        epoch = self.bank.slot // C.SLOTS_PER_EPOCH
        year = epoch * C.SLOTS_PER_EPOCH / self.SLOTS_PER_YEAR
        gov = self.INFLATION
        total = max(gov["initial"] * (1.0 - gov["taper"]) ** year, gov["terminal"])
        foundation = total * gov["foundation"] if year < gov["foundationTerm"] else 0.0
        return {"total": total, "validator": total - foundation, "foundation": foundation, "epoch": epoch}

    def rpc_getInflationReward(self, p):
        if not p or not isinstance(p[0], list):
            raise invalid_params("Invalid params: expected an array of addresses")
        for a in p[0]:
            _pubkey(a, "address")
        cfg = _cfg(p, 1)
        slot = self.at(cfg)
        epoch = cfg.get("epoch", max(slot // C.SLOTS_PER_EPOCH - 1, 0))
        if not _is_u64(epoch):
            raise invalid_params("Invalid params: epoch is a u64")
        first_after = (epoch + 1) * C.SLOTS_PER_EPOCH
        if first_after > slot:
            raise RpcError(-32004, f"Block not available for slot {first_after}")
        return [None] * len(p[0])  # no stake or vote accounts: no rewards

    def rpc_getLargestAccounts(self, p):
        cfg = _cfg(p, 0)
        slot = self.at(cfg)
        if cfg.get("filter") not in (None, "circulating", "nonCirculating"):
            raise invalid_params(f"Invalid params: unknown variant `{cfg.get('filter')}`")
        top = [] if cfg.get("filter") == "nonCirculating" else self.bank.largest_accounts(20, slot)
        return self.ctx([{"address": str(k), "lamports": n} for k, n in top], slot)

    def rpc_getMaxRetransmitSlot(self, p):
        return self.bank.slot

    def rpc_getMaxShredInsertSlot(self, p):
        return self.bank.slot

    def _block_range(self, start: Any, end: Any, cfg: dict[str, Any]) -> range:
        if not _is_u64(start):
            raise invalid_params("Invalid params: expected a start slot")
        commitment = _commitment(cfg)
        if commitment == "processed":
            raise invalid_params("Method does not support commitment below `confirmed`")
        top = self.bank.commitment_slot(commitment)
        end = top if end is None else min(end, top)
        if end - start > 500_000:
            raise RpcError(-32602, f"Slot range too large; max {500_000}")
        return range(start, end + 1)

    def rpc_getBlocks(self, p):
        """Every slot has a block here (one leader, none skipped)."""
        if not p:
            raise invalid_params("Invalid params: expected a start slot")
        end = p[1] if len(p) > 1 and isinstance(p[1], int) and not isinstance(p[1], bool) else None
        cfg = p[2] if len(p) > 2 and isinstance(p[2], dict) else (p[1] if len(p) > 1 and isinstance(p[1], dict) else {})
        return list(self._block_range(p[0], end, cfg))

    def rpc_getBlocksWithLimit(self, p):
        if len(p) < 2 or not _is_u64(p[1]):
            raise invalid_params("Invalid params: expected a start slot and a limit")
        if p[1] > 500_000:
            raise RpcError(-32602, "Limit too large; max 500000")
        if p[1] == 0:
            return []
        return list(self._block_range(p[0], p[0] + p[1] - 1, _cfg(p, 2)))

    def rpc_getBlock(self, p):
        if not p or not isinstance(p[0], int) or isinstance(p[0], bool):
            raise invalid_params("Invalid params: expected a slot")
        slot = p[0]
        cfg = p[1] if len(p) > 1 and isinstance(p[1], dict) else {}
        encoding = p[1] if len(p) > 1 and isinstance(p[1], str) else cfg.get("encoding", "json")
        details = cfg.get("transactionDetails", "full")
        if details not in ("full", "accounts", "signatures", "none"):
            raise invalid_params(f"Invalid params: unknown variant `{details}`")
        commitment = _commitment(cfg)
        if commitment == "processed":
            raise invalid_params("Method does not support commitment below `confirmed`")
        if slot > self.bank.commitment_slot(commitment):
            raise RpcError(-32004, f"Block not available for slot {slot}")
        landed = sorted(
            (r for r in self.bank.transactions.values() if r.slot == slot and r.landed), key=lambda r: r.block_time
        )
        block: dict[str, Any] = {
            "blockhash": str(self.bank.blockhash_for_slot(slot)),
            "previousBlockhash": str(self.bank.blockhash_for_slot(max(slot - 1, 0))),
            "parentSlot": max(slot - 1, 0),
            "blockTime": int(self.bank._unix0 + slot * C.SLOT_SECONDS),
            "blockHeight": slot,
        }
        max_v = cfg.get("maxSupportedTransactionVersion")
        if details == "signatures":
            block["signatures"] = [str(r.signature) for r in landed]
        elif details in ("full", "accounts"):
            block["transactions"] = [self._tx_json(r, encoding, max_v, details) for r in landed]
        if cfg.get("rewards", True):
            block["rewards"] = []
        return block

    # -- transactions ------------------------------------------------------------
    def _status_json(self, r: TxResult) -> dict[str, Any]:
        conf, confirmations = self.bank.confirmation_status(r.slot)
        return {
            "slot": r.slot,
            "confirmations": confirmations,
            "err": r.err,
            "status": {"Ok": None} if r.err is None else {"Err": r.err},
            "confirmationStatus": conf,
        }

    def rpc_getSignatureStatuses(self, p):
        if not p or not isinstance(p[0], list):
            raise invalid_params("Invalid params: expected a list of signatures")
        if len(p[0]) > 256:
            raise invalid_params("Too many inputs provided; max 256")
        out = []
        for s in p[0]:
            try:
                sig = Signature.from_string(s)
            except Exception:
                raise invalid_params("Invalid param: Invalid signature") from None
            r = self.bank.transactions.get(sig)
            out.append(self._status_json(r) if r is not None else None)
        return self.ctx(out)

    def rpc_getTransaction(self, p):
        if not p:
            raise invalid_params("Invalid params: missing signature")
        try:
            sig = Signature.from_string(p[0])
        except Exception:
            raise invalid_params("Invalid param: Invalid signature") from None
        cfg = _cfg(p, 1) if len(p) > 1 and isinstance(p[1], dict) else {}
        encoding = p[1] if len(p) > 1 and isinstance(p[1], str) else cfg.get("encoding", "json")
        commitment = _commitment(cfg)  # finalized by default, as a real node
        if commitment == "processed":
            raise invalid_params("Method does not support commitment below `confirmed`")
        r = self.bank.transactions.get(sig)
        if r is None or r.slot > self.bank.commitment_slot(commitment):
            return None
        out = self._tx_json(r, encoding, cfg.get("maxSupportedTransactionVersion"))
        return {"slot": r.slot, "blockTime": r.block_time, **out}

    @staticmethod
    def _tx_json(r: TxResult, encoding: str, max_v: Any, details: str = "full") -> dict[str, Any]:
        """A landed transaction as getTransaction and getBlock show it (without slot and blockTime)."""
        is_v0 = isinstance(r.tx.message, MessageV0)
        if is_v0 and max_v is None:
            raise RpcError(
                -32015,
                "Transaction version (0) is not supported by the requesting client. Please try the request "
                'again with the following configuration parameter: "maxSupportedTransactionVersion": 0',
            )
        txj: Any
        if details == "accounts":
            keys = r.tx.message.account_keys
            txj = {
                "signatures": [str(s) for s in r.tx.signatures],
                "accountKeys": [
                    {
                        "pubkey": str(k),
                        "signer": i < r.tx.message.header.num_required_signatures,
                        "writable": is_writable(i, r.tx.message, len(keys)),
                        "source": "transaction",
                    }
                    for i, k in enumerate(keys)
                ],
            }
        elif encoding == "jsonParsed":
            txj = {"signatures": [str(s) for s in r.tx.signatures], "message": parsed.message(r.tx)}
        elif encoding == "json":
            txj = {"signatures": [str(s) for s in r.tx.signatures], "message": _ui_message(r.tx)}
        elif encoding in ("base64", "base58"):
            raw = bytes(r.tx)
            txj = [base64.b64encode(raw).decode() if encoding == "base64" else base58.b58encode(raw).decode(), encoding]
        else:
            raise invalid_params(f"Invalid params: unknown variant `{encoding}`")
        meta: dict[str, Any] = {
            "err": r.err,
            "status": {"Ok": None} if r.err is None else {"Err": r.err},
            "fee": r.fee,
            "preBalances": r.pre_balances,
            "postBalances": r.post_balances,
            "innerInstructions": parsed.inner_instructions(r.tx, r.inner_instructions)
            if encoding == "jsonParsed" and details == "full"
            else r.inner_instructions,
            "logMessages": r.logs,
            "preTokenBalances": r.pre_token_balances,
            "postTokenBalances": r.post_token_balances,
            "rewards": [],
            "loadedAddresses": {"writable": [], "readonly": []},
            "computeUnitsConsumed": r.units_consumed,
        }
        if details == "accounts":
            for key in ("innerInstructions", "logMessages", "loadedAddresses", "computeUnitsConsumed"):
                meta.pop(key)
        out: dict[str, Any] = {"transaction": txj, "meta": meta}
        if max_v is not None:
            out["version"] = 0 if is_v0 else "legacy"
        return out

    def _preflight_error(self, err: Any, r: TxResult | None) -> RpcError:
        return RpcError(
            -32002,
            f"Transaction simulation failed: {tx_error_display(err)}",
            _sim_value(r, err, None, self.bank),
        )

    def rpc_simulateTransaction(self, p):
        if not p:
            raise invalid_params("Invalid params: missing transaction")
        cfg = _cfg(p, 1)
        tx, raw_len = decode_transaction(p[0], cfg.get("encoding", "base58"))
        sig_verify = bool(cfg.get("sigVerify", False))
        replace = bool(cfg.get("replaceRecentBlockhash", False))
        if sig_verify and replace:
            raise invalid_params("sigVerify may not be used with replaceRecentBlockhash")
        slot = self.at(cfg)  # the accounts as of the commitment's slot (finalized by default)
        try:
            admission = Admission(raw_len, sig_verify, replace_blockhash=replace, check_duplicate=False)
            r = self.bank.simulate_at(tx, slot, admission)
        except TxError as e:
            if e.err == "SignatureFailure":
                raise RpcError(-32003, "Transaction signature verification failure") from None
            return self.ctx(_sim_value(None, e.err, None, self.bank), slot)
        return self.ctx(_sim_value(r, r.err, cfg.get("accounts"), self.bank), slot)

    def rpc_sendTransaction(self, p):
        if not p:
            raise invalid_params("Invalid params: missing transaction")
        cfg = _cfg(p, 1)
        tx, raw_len = decode_transaction(p[0], cfg.get("encoding", "base58"))
        sig = tx.signatures[0] if tx.signatures else Signature.default()
        preflight_slot = self.at(cfg, "preflightCommitment")  # finalized by default, as a real node
        if getattr(self, "_drop_current", False):
            self.dropped[str(sig)] = time.time()
            return str(sig)
        if not cfg.get("skipPreflight", False):
            if not all(tx.verify_with_results()):
                raise RpcError(-32003, "Transaction signature verification failure")
            try:  # the preflight sees its commitment's accounts; the transaction runs on the newest
                r = self.bank.simulate_at(tx, preflight_slot, Admission(raw_len))
            except TxError as e:
                raise self._preflight_error(e.err, None) from None
            if r.err is not None:
                raise self._preflight_error(r.err, r)
        try:
            self.bank.process_transaction(tx, Admission(raw_len))
        except TxError:
            pass  # like a real cluster: the transaction is dropped and never lands
        return str(sig)

    def rpc_requestAirdrop(self, p):
        if len(p) < 2 or not isinstance(p[1], int) or p[1] <= 0:
            raise invalid_params("Invalid params: expected pubkey and lamports")
        try:
            r = self.bank.airdrop(_pubkey(p[0]), p[1])
        except TxError as e:
            raise RpcError(-32600, f"airdrop request failed: {e}") from None
        if r.err is not None:
            raise RpcError(-32600, f"airdrop request failed: {tx_error_display(r.err)}")
        return str(r.signature)

    def rpc_getSignaturesForAddress(self, p):
        """Newest first. `before`: start after (older than) this signature; `until`: stop
        before reaching this one (both exclusive); `limit` 1..1000 (default 1000)."""
        if not p:
            raise invalid_params("Invalid params: missing address")
        who = _pubkey(p[0])
        cfg = _cfg(p, 1)
        limit = cfg.get("limit")
        limit = 1000 if limit is None else limit
        if not isinstance(limit, int) or isinstance(limit, bool) or not 1 <= limit <= 1000:
            raise invalid_params("Invalid limit; max 1000")
        before = cfg.get("before")
        until = cfg.get("until")
        for name, value in (("before", before), ("until", until)):
            if value is not None:
                try:
                    Signature.from_string(value)
                except Exception:
                    raise invalid_params(f"Invalid param: {name} is not a signature") from None
        out = []
        started = before is None
        for sig, r in reversed(list(self.bank.transactions.items())):
            text = str(sig)
            if not started:
                started = text == before
                continue
            if until is not None and text == until:
                break
            if who in r.tx.message.account_keys:
                conf, _ = self.bank.confirmation_status(r.slot)
                out.append(
                    {
                        "signature": str(sig),
                        "slot": r.slot,
                        "err": r.err,
                        "memo": None,
                        "blockTime": r.block_time,
                        "confirmationStatus": conf,
                    }
                )
                if len(out) >= limit:
                    break
        return out

    # -- block engine (devstack/chain/blockengine.py: Jito's rules) -----------------
    def _engine(self, fn, *args, **kw):
        try:
            return fn(*args, **kw)
        except BundleRefused as e:
            raise RpcError(e.code, e.message, http_status=e.http_status) from None

    def _decode_for_bundle(self, encoding: str):
        def decode(s: Any) -> VersionedTransaction:
            try:
                return decode_transaction(s, encoding)[0]
            except RpcError as e:
                raise BundleRefused(e.message) from None

        return decode

    def bundle_getTipAccounts(self, p):
        return self.engine.tip_accounts()

    def bundle_sendBundle(self, p):
        encoding = _cfg(p, 1).get("encoding", "base58")
        return self._engine(
            self.engine.send_bundle,
            p[0] if p else None,
            self._decode_for_bundle(encoding),
            drop=bool(getattr(self, "_drop_current", False)),
        )

    def bundle_getBundleStatuses(self, p):
        return self.ctx(self._engine(self.engine.bundle_statuses, p))

    def bundle_getInflightBundleStatuses(self, p):
        return self.ctx(self._engine(self.engine.inflight_statuses, p))

    def tx_sendTransaction(self, p):
        """The block engine's sendTransaction (blockengine.py): the tip rule, no preflight; the
        signature, and the bundle id in ``x-bundle-id``."""
        if not p:
            raise RpcError(-32602, "Invalid params: missing transaction", http_status=400)
        encoding = _cfg(p, 1).get("encoding", "base58")
        tx = self._engine(self._decode_for_bundle(encoding), p[0])

        def execute(t: VersionedTransaction) -> TxResult | None:
            try:
                return self.bank.process_transaction(t, Admission(len(bytes(t))))
            except TxError:
                return None  # dropped, as a cluster drops it: never lands

        sig, bid = self._engine(
            self.engine.send_transaction,
            tx,
            bundle_only=self._bundle_only,
            drop=bool(getattr(self, "_drop_current", False)),
            execute=execute,
        )
        self._headers["x-bundle-id"] = bid
        return sig

    # -- devstack controls -------------------------------------------------------
    def ctl_getEngineTransactions(self, p):
        """[[signature, ...]] -> per signature, what the engine's sendTransaction accepted
        ({signature, bundleId, bundleOnly}), or null."""
        return self._engine(self.engine.sent_transactions, p)

    def ctl_warp(self, p):
        secs = p[0] if isinstance(p, list) and p else (p.get("seconds") if isinstance(p, dict) else None)
        if not isinstance(secs, (int, float)) or secs < 0:
            raise invalid_params("Invalid params: expected [seconds >= 0]")
        return self.bank.warp(secs)

    def ctl_setFault(self, p):
        spec = p[0] if isinstance(p, list) and p else p
        if not isinstance(spec, dict):
            raise invalid_params("Invalid params: expected [fault object]")
        return self.faults.add(spec).to_json()

    def ctl_setBlockEngine(self, p):
        """[{"rateLimitPerSecond": r (0: none), "landDelayMs": ms}] -> the settings before."""
        spec = p[0] if isinstance(p, list) and p else p
        if not isinstance(spec, dict):
            raise invalid_params("Invalid params: expected [{rateLimitPerSecond, landDelayMs}]")
        rps, delay = spec.get("rateLimitPerSecond"), spec.get("landDelayMs")
        for v in (rps, delay):
            if v is not None and (not isinstance(v, (int, float)) or isinstance(v, bool) or v < 0):
                raise invalid_params("Invalid params: rateLimitPerSecond and landDelayMs must be numbers >= 0")
        return self.engine.configure(rps, None if delay is None else delay / 1000.0)

    def ctl_landBundles(self, p):
        """Land every pending bundle now; returns how many."""
        self.bank.lock.release()  # call() holds it; landing takes it per bundle
        try:
            return self.engine.land_due(everything=True)
        finally:
            self.bank.lock.acquire()

    def ctl_clearFaults(self, p):
        self.faults.clear()
        return True

    def ctl_getFaults(self, p):
        return self.faults.list()

    def ctl_setAccount(self, p):
        spec = p[0] if isinstance(p, list) and p and isinstance(p[0], dict) else None
        if spec is None and isinstance(p, list) and len(p) >= 2:
            spec = {
                "pubkey": p[0],
                "lamports": p[1],
                "data": p[2] if len(p) > 2 else "",
                "owner": p[3] if len(p) > 3 else str(C.SYSTEM_PROGRAM_ID),
                "executable": p[4] if len(p) > 4 else False,
            }
        if spec is None and isinstance(p, dict):
            spec = p
        if spec is None:
            raise invalid_params("Invalid params: expected {pubkey, lamports, data, owner, executable}")
        try:
            data = base64.b64decode(spec.get("data") or "", validate=True)
        except Exception:
            raise invalid_params("Invalid params: data must be base64") from None
        self.bank.set_account(
            _pubkey(spec["pubkey"]),
            int(spec["lamports"]),
            data,
            _pubkey(spec.get("owner", str(C.SYSTEM_PROGRAM_ID)), "owner"),
            bool(spec.get("executable", False)),
        )
        return True

    def ctl_airdrop(self, p):
        return self.rpc_requestAirdrop(p)

    def ctl_getClock(self, p):
        return {
            "slot": self.bank.slot,
            "blockHeight": self.bank.block_height,
            "unixTimestamp": self.bank.unix_timestamp,
        }


# ---------------------------------------------------------------------------
# HTTP
# ---------------------------------------------------------------------------


Answer = tuple[int, list[tuple[str, str]], bytes]
MAX_BODY = 64 * 1024 * 1024


def _plain(status: int, body: bytes, *headers: tuple[str, str]) -> Answer:
    return status, [("Content-Type", "text/plain"), *headers], body


class _ChainApp:
    """The JSON-RPC endpoints, behind the HTTP server (``devstack.httpserver``)."""

    max_body = MAX_BODY
    read_timeouts = ReadTimeouts()

    def __init__(self, rpc: ChainRPC, verbose: bool = False) -> None:
        self.rpc, self.verbose = rpc, verbose

    def refuse(self, status: int, message: str, request: HttpRequest) -> Answer:
        return _plain(status, message.encode("utf-8", "replace"), ("Connection", "close"))

    def handle(self, request: HttpRequest) -> Answer:
        answer = self._answer(request)
        if self.verbose:
            sys.stderr.write(f"devstack chain: {request.client[0]} {request.method} {request.target} -> {answer[0]}\n")
        return answer

    def _answer(self, request: HttpRequest) -> Answer:
        path = request.target.split("?")[0].rstrip("/") or "/"
        if request.method in ("GET", "HEAD"):
            return _plain(200, b"ok") if path == "/health" else _plain(404, b"not found")
        if request.method != "POST":
            return _plain(405, b"method not allowed")
        target = {BUNDLE_PATH: "bundle", TRANSACTIONS_PATH: "transactions", "/": "rpc"}.get(path)
        if target is None:
            return _plain(404, b"not found")
        body = request.body
        held = path == "/" and latency.model.enabled
        kind = latency.rpc_kind(latency.methods_of(body)) if held else ""
        answer = self._post(request, target, body)
        if held:  # the latency model (devstack.latency): held from the request's arrival
            latency.model.hold(kind, request.received)
        return answer

    def _post(self, request: HttpRequest, target: str, body: bytes) -> Answer:
        rpc = self.rpc
        try:
            req = json.loads(body)
        except Exception:
            return _reply({"jsonrpc": "2.0", "error": {"code": -32700, "message": "Parse error"}, "id": None})
        batch = isinstance(req, list)
        reqs = req if batch else [req]
        if target in ENGINE_TARGETS and not all(rpc.engine.allow(_caller(request)) for _ in reqs or [None]):
            rid = req.get("id") if isinstance(req, dict) else None
            error = {"code": RATE_LIMIT_CODE, "message": rate_limit_message(rpc.engine.rps)}
            return _reply({"jsonrpc": "2.0", "error": error, "id": rid}, 429)
        methods = [r.get("method", "") if isinstance(r, dict) else "" for r in reqs]
        faulted = "bundle" if target in ENGINE_TARGETS else target
        # "down": the endpoint answers 503 and closes the connection
        for m in methods:
            if rpc.faults.take(faulted, m, ("down",)) is not None:
                return (
                    503,
                    [("Content-Type", "application/json"), ("Connection", "close")],
                    b'{"error":"service unavailable"}',
                )
        for m in methods:
            f = rpc.faults.take(faulted, m, ("slow",))
            if f is not None:
                time.sleep(f.delay_ms / 1000.0)
        query = urllib.parse.parse_qs(urllib.parse.urlsplit(request.target).query)
        bundle_only = target == "transactions" and any(v.lower() == "true" for v in query.get("bundleOnly", []))
        out = [self._one(rpc, target, r, bundle_only) for r in reqs]
        if batch:
            for o in out:
                if o is not None:
                    o.pop("_http_status", None)
                    o.pop("_headers", None)
            return _reply([o for o in out if o is not None])
        if out[0] is not None:
            headers = out[0].pop("_headers", None)
            return _reply(out[0], out[0].pop("_http_status", 200), headers)
        return 200, [("Content-Type", "application/json")], b""

    @staticmethod
    def _one(rpc: ChainRPC, target: str, r: Any, bundle_only: bool = False) -> dict[str, Any] | None:
        if not isinstance(r, dict) or not isinstance(r.get("method"), str):
            return {"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid request"}, "id": None}
        rid = r.get("id")
        method = r["method"]
        faulted = "bundle" if target in ENGINE_TARGETS else target
        try:
            if rpc.faults.take(faulted, method, ("error",)) is not None:
                raise RpcError(-32005, "Node is unhealthy", {"numSlotsBehind": None})
            drop = rpc.faults.take(faulted, method, ("drop",)) is not None
            rpc._drop_current, rpc._bundle_only = drop, bundle_only
            rpc._headers.clear()
            try:
                result = rpc.call(target, method, r.get("params"))
                headers = dict(rpc._headers)
            finally:
                rpc._drop_current = rpc._bundle_only = False
                rpc._headers.clear()
            resp = {"jsonrpc": "2.0", "result": result, "id": rid}
            if headers:
                resp["_headers"] = headers  # taken off before it is sent
        except RpcError as e:
            resp = {"jsonrpc": "2.0", "error": e.to_json(), "id": rid}
            if e.http_status != 200:
                resp["_http_status"] = e.http_status  # taken off before it is sent
        except Exception as e:  # never let a bug kill the connection
            resp = {"jsonrpc": "2.0", "error": {"code": -32603, "message": f"Internal error: {e}"}, "id": rid}
        return resp


def _caller(request: HttpRequest) -> str:
    """Who the block engine's rate limit counts: the x-jito-auth header, the uuid query
    parameter, else the client's IP address (as Jito's)."""
    auth = request.header("x-jito-auth")
    if auth:
        return "auth:" + auth
    query = urllib.parse.parse_qs(urllib.parse.urlsplit(request.target).query)
    if query.get("uuid"):
        return "auth:" + query["uuid"][0]
    return "ip:" + request.client[0]


def _reply(obj: Any, status: int = 200, headers: dict[str, str] | None = None) -> Answer:
    return status, [("Content-Type", "application/json"), *(headers or {}).items()], json.dumps(obj).encode()


@dataclass
class ChainHandle:
    url: str
    bundle_url: str
    bank: SvmBank
    faults: FaultTable
    server: HttpServer
    thread: threading.Thread
    engine: BlockEngine | None = None
    transactions_url: str = ""  # the block engine's sendTransaction (url + /api/v1/transactions)
    pubsub: PubSub | None = None
    ws_url: str = ""  # the PubSub websocket (the RPC port + 1; devstack.chain.pubsub)

    @property
    def port(self) -> int:
        return self.server.server_address[1]

    def stop(self) -> None:
        if self.pubsub is not None:
            self.pubsub.stop()
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)
        if self.engine is not None:
            self.engine.stop()


def install_plugins(bank: SvmBank) -> None:
    """Deploy the launchpad and the pool and write their genesis: ``devstack.chain.genesis.install``
    (the SBF programs through BPF Loader Upgradeable, genesis written by real instructions)."""
    from .genesis import install

    with bank.lock:
        install(bank)


def start_chain(
    host: str = "127.0.0.1",
    port: int = 0,
    *,
    bank: SvmBank | None = None,
    plugins: bool = True,
    verbose: bool = False,
    engine: EngineSettings | None = None,
) -> ChainHandle:
    """Start the chain's HTTP server in a background thread (port 0 = a free port), and its PubSub
    websocket on the port + 1 (a free port when the RPC's is), as solana-test-validator does.

    ``plugins``: deploy the launchpad and the pool (``make programs``); without, only the
    programs LiteSVM ships (System, SPL Token, Token-2022, ATA, Memo, ComputeBudget).
    ``engine``: the block engine's rate limit and landing delay (default: from the environment,
    devstack/chain/blockengine.py)."""
    bank = bank or SvmBank()
    if plugins:
        install_plugins(bank)
    faults = FaultTable()
    block_engine = BlockEngine(bank)
    if engine is not None:
        block_engine.configure(engine.rps, engine.land_delay)
    block_engine.start()
    rpc = ChainRPC(bank, faults, block_engine)
    srv = HttpServer((host, port), _ChainApp(rpc, verbose), server_name="devstack-chain")
    t = threading.Thread(target=srv.serve_forever, name="devstack-chain", daemon=True)
    t.start()
    h, p = cast(tuple[str, int], srv.server_address[:2])
    url = f"http://{h}:{p}"
    ws = PubSub(rpc).start(host, port + 1 if port else 0)
    rpc.public_host, rpc.pubsub_host = f"{h}:{p}", f"{h}:{ws.port}"
    return ChainHandle(
        pubsub=ws,
        ws_url=f"ws://{h}:{ws.port}",
        url=url,
        bundle_url=url + BUNDLE_PATH,
        bank=bank,
        faults=faults,
        server=srv,
        thread=t,
        engine=block_engine,
        transactions_url=url + TRANSACTIONS_PATH,
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="devstack chain: local Solana-compatible JSON-RPC + block engine")
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=8899)
    ap.add_argument("--no-plugins", action="store_true", help="do not deploy the launchpad and the pool")
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument(
        "--block-engine-rps",
        type=float,
        default=None,
        help="block-engine requests per second per caller (default $DEVSTACK_BLOCK_ENGINE_RPS, "
        "else Jito's 1; 0: no limit)",
    )
    ap.add_argument(
        "--bundle-land-ms",
        type=float,
        default=None,
        help="milliseconds from a bundle's arrival to its landing (default $DEVSTACK_BUNDLE_LAND_MS, else one slot)",
    )
    a = ap.parse_args(argv)
    handle = start_chain(
        a.host,
        a.port,
        plugins=not a.no_plugins,
        verbose=a.verbose,
        engine=EngineSettings(a.block_engine_rps, None if a.bundle_land_ms is None else a.bundle_land_ms / 1000.0),
    )
    print(
        f"devstack chain: rpc {handle.url} websocket {handle.ws_url} block engine {handle.bundle_url} "
        f"{handle.transactions_url}",
        flush=True,
    )
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        handle.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
