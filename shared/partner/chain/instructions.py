"""Pure instruction builders (return solders Instructions; no RPC).

Launchpad and pool instructions are built from the programs' IDLs (idl/*.json via
``partner.chain.idl``): data = the IDL discriminator sha256("global:<name>")[:8] +
the Borsh args, account metas in IDL order with their flags, fixed addresses and
PDAs / ATAs derived from the IDL seeds. The functions below only name the
accounts the IDL cannot derive. See docs/onchain.md "Instructions".
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from solders.instruction import AccountMeta, Instruction
from solders.pubkey import Pubkey

from . import governance_math as GM
from . import programs as P
from .governance_math import ActionKind, VoteSide
from .idls import LAUNCHPAD, POOL
from .layouts import NAME_MAX_BYTES, SYMBOL_MAX_BYTES, URI_MAX_BYTES

U64_MAX = (1 << 64) - 1
MAX_COMPUTE_UNITS = 1_400_000
MICRO_LAMPORTS_PER_LAMPORT = 1_000_000


def instruction_discriminator(name: str) -> bytes:
    return hashlib.sha256(f"global:{name}".encode()).digest()[:8]


# Launchpad
IX_INITIALIZE_GLOBAL = LAUNCHPAD.discriminator("initialize_global")
IX_SET_PARAMS = LAUNCHPAD.discriminator("set_params")
IX_CREATE_COIN = LAUNCHPAD.discriminator("create_coin")
IX_BUY = LAUNCHPAD.discriminator("buy")
IX_BUY_EXACT_OUT = LAUNCHPAD.discriminator("buy_exact_out")
IX_SELL = LAUNCHPAD.discriminator("sell")
IX_MIGRATE = LAUNCHPAD.discriminator("migrate")
# Pool
IX_INITIALIZE_POOL = POOL.discriminator("initialize_pool")
IX_SWAP = POOL.discriminator("swap")
IX_SWAP_EXACT_OUT = POOL.discriminator("swap_exact_out")

GOVERNANCE_INSTRUCTION_NAMES = (
    "create_proposal",
    "cast_vote",
    "cancel_vote",
    "withdraw_vote",
    "settle_proposal",
    "finalize_expired",
    "withdraw_bond",
)
# Names reserved for later instructions (launch fee / bypass, governance); their discriminators
# follow the same rule. The governance ones are now implemented (create_governance is folded into
# create_coin and stays unused).
RESERVED_INSTRUCTION_NAMES = ("pay_launch_fee", "create_governance", *GOVERNANCE_INSTRUCTION_NAMES)


def _u64(v: int, name: str = "amount") -> bytes:
    if not (0 <= v <= U64_MAX):
        raise ValueError(f"{name} outside u64")
    return struct.pack("<Q", v)


def _text(s: str | None, limit: int, what: str) -> str | None:
    if s is not None and len(s.encode("utf-8")) > limit:
        raise ValueError(f"{what} over {limit} bytes")
    return s


def _m(pubkey: Pubkey, signer: bool = False, writable: bool = False) -> AccountMeta:
    return AccountMeta(pubkey, signer, writable)


# ------------------------------------------------------------------ launchpad


class GlobalParams(NamedTuple):
    """initialize_global's arguments: the launchpad's fee, caps and the curve every coin starts on."""

    fee_recipient: Pubkey
    protocol_fee_bps: int = 100
    wallet_cap_bps: int = 10_000
    pool_open_delay_seconds: int = 2
    initial_virtual_token_reserves: int = 1_073_000_000 * 10**6
    initial_virtual_sol_reserves: int = 30 * 10**9
    initial_real_token_reserves: int = 793_100_000 * 10**6
    token_total_supply: int = 1_000_000_000 * 10**6


def initialize_global(admin: Pubkey, params: GlobalParams) -> Instruction:
    return LAUNCHPAD.instruction("initialize_global", {"admin": admin}, **params._asdict())


def set_params(
    admin: Pubkey,
    new_admin: Pubkey,
    fee_recipient: Pubkey,
    protocol_fee_bps: int,
    wallet_cap_bps: int,
    pool_open_delay_seconds: int,
) -> Instruction:
    return LAUNCHPAD.instruction(
        "set_params",
        {"admin": admin},
        new_admin=new_admin,
        fee_recipient=fee_recipient,
        protocol_fee_bps=protocol_fee_bps,
        wallet_cap_bps=wallet_cap_bps,
        pool_open_delay_seconds=pool_open_delay_seconds,
    )


def accept_admin(new_admin: Pubkey) -> Instruction:
    """Step two of the admin handover: the admin set_params proposed signs and takes over."""
    return LAUNCHPAD.instruction("accept_admin", {"new_admin": new_admin})


def _digests(digests: Sequence[bytes]) -> list[bytes]:
    out = [bytes(d) for d in digests]
    if len(out) != len(GM.URI_FIELDS) or any(len(d) != len(GM.NO_DIGESTS[0]) for d in out):
        raise ValueError("content digests: five of 16 bytes (image, description, website, twitter, telegram)")
    return out


def create_coin(
    creator: Pubkey, mint: Pubkey, name: str, symbol: str, uri: str, document: Mapping[str, Any] | None = None
) -> Instruction:
    """`document`: the metadata JSON at `uri`, whose uri-borne fields the program commits to by digest
    (None: no document, every field absent)."""
    return LAUNCHPAD.instruction(
        "create_coin",
        {"creator": creator, "mint": mint, "metadata": mint},
        name=_text(name, NAME_MAX_BYTES, "name"),
        symbol=_text(symbol, SYMBOL_MAX_BYTES, "symbol"),
        uri=_text(uri, URI_MAX_BYTES, "uri"),
        content_digests=GM.content_digests(document or {}),
    )


def set_governance_params(admin: Pubkey, params: GM.GovernanceParams) -> Instruction:
    """Admin: governance params that create_coin copies into each new Governance."""
    return LAUNCHPAD.instruction("set_governance_params", {"admin": admin}, params=params)


def _trader(user: Pubkey, mint: Pubkey, fee_recipient: Pubkey) -> dict[str, Pubkey]:
    """The accounts a trade names, on the curve or the pool (the IDL derives the rest)."""
    return {"user": user, "mint": mint, "fee_recipient": fee_recipient}


def buy(user: Pubkey, mint: Pubkey, fee_recipient: Pubkey, sol_in: int, min_tokens_out: int) -> Instruction:
    """Spend sol_in lamports in total (protocol fee included)."""
    accounts = _trader(user, mint, fee_recipient)
    return LAUNCHPAD.instruction("buy", accounts, sol_in=sol_in, min_tokens_out=min_tokens_out)


def buy_exact_out(user: Pubkey, mint: Pubkey, fee_recipient: Pubkey, tokens_out: int, max_sol_in: int) -> Instruction:
    accounts = _trader(user, mint, fee_recipient)
    return LAUNCHPAD.instruction("buy_exact_out", accounts, tokens_out=tokens_out, max_sol_in=max_sol_in)


def sell(user: Pubkey, mint: Pubkey, fee_recipient: Pubkey, tokens_in: int, min_sol_out: int) -> Instruction:
    accounts = _trader(user, mint, fee_recipient)
    return LAUNCHPAD.instruction("sell", accounts, tokens_in=tokens_in, min_sol_out=min_sol_out)


def migrate(payer: Pubkey, mint: Pubkey) -> Instruction:
    return LAUNCHPAD.instruction("migrate", {"payer": payer, "mint": mint})


# ------------------------------------------------------------------ launchpad: governance


def proposal_vault(proposal: Pubkey, mint: Pubkey) -> Pubkey:
    """Escrow of a proposal's bond and votes: ATA(owner = proposal PDA, mint)."""
    return P.associated_token_address(proposal, mint)


def _field_mask(fields) -> int:
    if isinstance(fields, int):
        if not 0 <= fields <= GM.ALL_FIELDS_MASK:
            raise ValueError("field mask outside 7 bits")
        return fields
    return GM.field_mask(**{f: True for f in fields})


@dataclass(frozen=True)
class ContentChange:
    """A proposal's content fields. `changed_fields`: names of governance_math.CONTENT_FIELDS or a
    7-bit mask. update_content: the change set (name/symbol flagged iff given; image/description/
    website/twitter/telegram live in the JSON at `uri`, so `uri` is required iff one of them is
    flagged). finalize_metadata: the fields to lock (empty = all = full finalization)."""

    changed_fields: Iterable[str] | int = ()
    name: str | None = None
    symbol: str | None = None
    uri: str | None = None
    # update_content: the five uri-borne digests after the change (the unchanged ones: the Governance's
    # content_digests); the program derives the change set of image .. telegram from them
    digests: Sequence[bytes] = GM.NO_DIGESTS


@dataclass(frozen=True)
class ProposalTerms:
    """create_proposal's arguments: the action, the content revision it builds on, how long the vote
    runs, and the action's own: the content change, or extend_mutability's `additional_seconds`."""

    kind: ActionKind | int
    base_content_revision: int
    vote_duration_seconds: int = GM.DEFAULT_VOTE_DURATION_SECONDS
    content: ContentChange = ContentChange()
    additional_seconds: int | None = None


def create_proposal(proposer: Pubkey, mint: Pubkey, proposal_index: int, terms: ProposalTerms) -> Instruction:
    """Create proposal number `proposal_index` (= Governance.next_proposal_index)."""
    content = terms.content
    return LAUNCHPAD.instruction(
        "create_proposal",
        {"proposer": proposer, "mint": mint, "metadata": mint, "governance.next_proposal_index": proposal_index},
        action_kind=ActionKind(terms.kind),
        base_content_revision=terms.base_content_revision,
        vote_duration_seconds=terms.vote_duration_seconds,
        name=_text(content.name, NAME_MAX_BYTES, "name"),
        symbol=_text(content.symbol, SYMBOL_MAX_BYTES, "symbol"),
        uri=_text(content.uri, URI_MAX_BYTES, "uri"),
        additional_seconds=terms.additional_seconds,
        changed_fields=_field_mask(content.changed_fields),
        content_digests=_digests(content.digests),
    )


def propose_update_content(
    proposer: Pubkey,
    mint: Pubkey,
    proposal_index: int,
    change: ContentChange,
    *,
    base_content_revision: int,
    vote_duration_seconds: int = GM.DEFAULT_VOTE_DURATION_SECONDS,
) -> Instruction:
    terms = ProposalTerms(ActionKind.UPDATE_CONTENT, base_content_revision, vote_duration_seconds, change)
    return create_proposal(proposer, mint, proposal_index, terms)


def propose_extend_mutability(
    proposer: Pubkey,
    mint: Pubkey,
    proposal_index: int,
    additional_seconds: int,
    *,
    base_content_revision: int,
    vote_duration_seconds: int = GM.DEFAULT_VOTE_DURATION_SECONDS,
) -> Instruction:
    terms = ProposalTerms(
        ActionKind.EXTEND_MUTABILITY,
        base_content_revision,
        vote_duration_seconds,
        additional_seconds=additional_seconds,
    )
    return create_proposal(proposer, mint, proposal_index, terms)


def propose_finalize_metadata(
    proposer: Pubkey,
    mint: Pubkey,
    proposal_index: int,
    *,
    base_content_revision: int,
    lock_fields: Iterable[str] | int = (),
    vote_duration_seconds: int = GM.DEFAULT_VOTE_DURATION_SECONDS,
) -> Instruction:
    terms = ProposalTerms(
        ActionKind.FINALIZE_METADATA, base_content_revision, vote_duration_seconds, ContentChange(lock_fields)
    )
    return create_proposal(proposer, mint, proposal_index, terms)


def _side(side) -> int:
    if isinstance(side, str):
        return VoteSide[side.upper()]
    return VoteSide(side)


def cast_vote(voter: Pubkey, mint: Pubkey, proposal: Pubkey, side: VoteSide | int | str, amount: int) -> Instruction:
    """side: VoteSide / 0 = yes, 1 = no / "yes" | "no"; amount in base units."""
    return LAUNCHPAD.instruction(
        "cast_vote", {"voter": voter, "mint": mint, "proposal": proposal}, side=_side(side), amount=amount
    )


def cancel_vote(voter: Pubkey, mint: Pubkey, proposal: Pubkey) -> Instruction:
    return LAUNCHPAD.instruction("cancel_vote", {"voter": voter, "mint": mint, "proposal": proposal})


def withdraw_vote(payer: Pubkey, voter: Pubkey, mint: Pubkey, proposal: Pubkey) -> Instruction:
    """Permissionless crank: `payer` signs (and pays a re-created voter ATA's rent); tokens go to the voter's ATA."""
    return LAUNCHPAD.instruction("withdraw_vote", {"payer": payer, "voter": voter, "mint": mint, "proposal": proposal})


def settle_proposal(payer: Pubkey, mint: Pubkey, proposal: Pubkey) -> Instruction:
    """Permissionless."""
    return LAUNCHPAD.instruction(
        "settle_proposal", {"payer": payer, "governance.mint": mint, "metadata": mint, "proposal": proposal}
    )


def finalize_expired(payer: Pubkey, mint: Pubkey) -> Instruction:
    """Permissionless, after Governance.mutable_until."""
    return LAUNCHPAD.instruction("finalize_expired", {"payer": payer, "governance.mint": mint, "metadata": mint})


def withdraw_bond(payer: Pubkey, proposer: Pubkey, mint: Pubkey, proposal: Pubkey) -> Instruction:
    """Permissionless crank; the bond always goes to the proposer's ATA."""
    return LAUNCHPAD.instruction(
        "withdraw_bond", {"payer": payer, "proposer": proposer, "mint": mint, "proposal": proposal}
    )


# ------------------------------------------------------------------ pool


class PoolOpening(NamedTuple):
    """initialize_pool's arguments: the liquidity the pool opens with, when it opens, its fee and who
    receives it, and the coin's creator."""

    base_amount: int
    quote_amount: int
    open_time: int
    fee_bps: int
    fee_recipient: Pubkey
    creator: Pubkey


def initialize_pool(payer: Pubkey, mint: Pubkey, opening: PoolOpening) -> Instruction:
    """CPI-only (signed by the launchpad's bonding-curve PDA during migrate)."""
    return POOL.instruction("initialize_pool", {"payer": payer, "mint": mint}, **opening._asdict())


def swap(
    user: Pubkey, mint: Pubkey, fee_recipient: Pubkey, base_in: bool, amount_in: int, min_amount_out: int
) -> Instruction:
    """base_in False: pay amount_in lamports (fee included) for tokens; True: sell amount_in tokens."""
    accounts = _trader(user, mint, fee_recipient)
    return POOL.instruction("swap", accounts, base_in=bool(base_in), amount_in=amount_in, min_amount_out=min_amount_out)


def swap_exact_out(user: Pubkey, mint: Pubkey, fee_recipient: Pubkey, base_out: int, max_quote_in: int) -> Instruction:
    """Buy exactly base_out tokens paying at most max_quote_in lamports (fee included)."""
    accounts = _trader(user, mint, fee_recipient)
    return POOL.instruction("swap_exact_out", accounts, base_out=base_out, max_quote_in=max_quote_in)


# ------------------------------------------------------------------ well-known programs


def create_associated_token_account_idempotent(payer: Pubkey, owner: Pubkey, mint: Pubkey) -> Instruction:
    return Instruction(
        P.ASSOCIATED_TOKEN_PROGRAM_ID,
        bytes([1]),
        [
            _m(payer, True, True),
            _m(P.associated_token_address(owner, mint), False, True),
            _m(owner),
            _m(mint),
            _m(P.SYSTEM_PROGRAM_ID),
            _m(P.TOKEN_2022_PROGRAM_ID),
        ],
    )


def system_transfer(from_pubkey: Pubkey, to_pubkey: Pubkey, lamports: int) -> Instruction:
    """System program Transfer (instruction index 2, u32 LE, then u64 lamports)."""
    return Instruction(
        P.SYSTEM_PROGRAM_ID,
        struct.pack("<I", 2) + _u64(lamports, "lamports"),
        [
            _m(from_pubkey, True, True),
            _m(to_pubkey, False, True),
        ],
    )


def tip_transfer(payer: Pubkey, tip_account: Pubkey, tip_lamports: int) -> Instruction:
    return system_transfer(payer, tip_account, tip_lamports)


def partner_fee_transfer(payer: Pubkey, fee_wallet: Pubkey, fee_lamports: int) -> Instruction:
    return system_transfer(payer, fee_wallet, fee_lamports)


def set_compute_unit_limit(units: int) -> Instruction:
    if not (0 <= units <= 0xFFFFFFFF):
        raise ValueError("units outside u32")
    return Instruction(P.COMPUTE_BUDGET_PROGRAM_ID, bytes([2]) + struct.pack("<I", units), [])


def set_compute_unit_price(micro_lamports: int) -> Instruction:
    return Instruction(P.COMPUTE_BUDGET_PROGRAM_ID, bytes([3]) + _u64(micro_lamports, "micro_lamports"), [])


def priority_fee_charged(units: int, micro_lamports: int) -> int:
    """Lamports the chain charges: ceil(units * micro_lamports / 1e6)."""
    return -(-(units * micro_lamports) // MICRO_LAMPORTS_PER_LAMPORT)


def compute_budget_for_priority_fee(priority_fee_lamports: int, units: int) -> tuple[int, int]:
    """-> (units, micro_lamports) such that the charge ceil(units*micro/1e6)
    is >= priority_fee_lamports and as close as possible (equal whenever
    units <= 1e6)."""
    if not (1 <= units <= MAX_COMPUTE_UNITS):
        raise ValueError(f"units must be in [1, {MAX_COMPUTE_UNITS}]")
    if priority_fee_lamports < 0:
        raise ValueError("priority fee must be >= 0")
    if priority_fee_lamports == 0:
        return units, 0
    # the plain price ceil(fee*1e6/units) when it charges exactly the fee,
    # else the smallest price that charges at least the fee
    micro = -(-priority_fee_lamports * MICRO_LAMPORTS_PER_LAMPORT // units)
    if priority_fee_charged(units, micro) != priority_fee_lamports:
        micro = (priority_fee_lamports - 1) * MICRO_LAMPORTS_PER_LAMPORT // units + 1
    if micro > U64_MAX:
        raise ValueError("priority fee too large for these units")
    return units, micro


def compute_budget_instructions(priority_fee_lamports: int, units: int) -> list[Instruction]:
    units, micro = compute_budget_for_priority_fee(priority_fee_lamports, units)
    return [set_compute_unit_limit(units), set_compute_unit_price(micro)]
