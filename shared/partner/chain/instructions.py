"""Pure instruction builders (return solders Instructions; no RPC).

Launchpad and pool instruction data = 8-byte discriminator
sha256("global:<name>")[:8] followed by the little-endian args (Borsh).
See docs/onchain.md "Instructions".
"""
from __future__ import annotations

import hashlib
import struct

from solders.instruction import AccountMeta, Instruction
from solders.pubkey import Pubkey

from . import programs as P
from . import governance_math as GM
from .governance_math import ActionKind, VoteSide
from .layouts import NAME_MAX_BYTES, SYMBOL_MAX_BYTES, URI_MAX_BYTES, Global, governance_params_tuple

U64_MAX = (1 << 64) - 1
MAX_COMPUTE_UNITS = 1_400_000
MICRO_LAMPORTS_PER_LAMPORT = 1_000_000


def instruction_discriminator(name: str) -> bytes:
    return hashlib.sha256(f"global:{name}".encode()).digest()[:8]


# Launchpad
IX_INITIALIZE_GLOBAL = instruction_discriminator("initialize_global")
IX_SET_PARAMS = instruction_discriminator("set_params")
IX_CREATE_COIN = instruction_discriminator("create_coin")
IX_BUY = instruction_discriminator("buy")
IX_BUY_EXACT_OUT = instruction_discriminator("buy_exact_out")
IX_SELL = instruction_discriminator("sell")
IX_MIGRATE = instruction_discriminator("migrate")
IX_SET_GOVERNANCE_PARAMS = instruction_discriminator("set_governance_params")
# Launchpad: metadata governance
IX_CREATE_PROPOSAL = instruction_discriminator("create_proposal")
IX_CAST_VOTE = instruction_discriminator("cast_vote")
IX_CANCEL_VOTE = instruction_discriminator("cancel_vote")
IX_WITHDRAW_VOTE = instruction_discriminator("withdraw_vote")
IX_SETTLE_PROPOSAL = instruction_discriminator("settle_proposal")
IX_FINALIZE_EXPIRED = instruction_discriminator("finalize_expired")
IX_WITHDRAW_BOND = instruction_discriminator("withdraw_bond")
# Pool
IX_INITIALIZE_POOL = instruction_discriminator("initialize_pool")
IX_SWAP = instruction_discriminator("swap")
IX_SWAP_EXACT_OUT = instruction_discriminator("swap_exact_out")

# Names reserved for later instructions (launch fee / bypass, governance);
# their discriminators follow the same rule. The governance ones are now
# implemented (create_governance is folded into create_coin and stays unused).
RESERVED_INSTRUCTION_NAMES = (
    "pay_launch_fee", "create_governance", "create_proposal", "cast_vote", "cancel_vote",
    "withdraw_vote", "settle_proposal", "finalize_expired", "withdraw_bond",
)
GOVERNANCE_INSTRUCTION_NAMES = (
    "create_proposal", "cast_vote", "cancel_vote", "withdraw_vote", "settle_proposal",
    "finalize_expired", "withdraw_bond",
)


def _u64(v: int, name: str = "amount") -> bytes:
    if not (0 <= v <= U64_MAX):
        raise ValueError(f"{name} outside u64")
    return struct.pack("<Q", v)


def _borsh_str(s: str, limit: int, what: str) -> bytes:
    raw = s.encode("utf-8")
    if len(raw) > limit:
        raise ValueError(f"{what} over {limit} bytes")
    return struct.pack("<I", len(raw)) + raw


def _m(pubkey: Pubkey, signer: bool = False, writable: bool = False) -> AccountMeta:
    return AccountMeta(pubkey, signer, writable)


# ------------------------------------------------------------------ launchpad

def initialize_global(
    admin: Pubkey,
    fee_recipient: Pubkey,
    protocol_fee_bps: int = 100,
    wallet_cap_bps: int = 10_000,
    pool_open_delay_seconds: int = 2,
    initial_virtual_token_reserves: int = 1_073_000_000 * 10**6,
    initial_virtual_sol_reserves: int = 30 * 10**9,
    initial_real_token_reserves: int = 793_100_000 * 10**6,
    token_total_supply: int = 1_000_000_000 * 10**6,
) -> Instruction:
    data = (IX_INITIALIZE_GLOBAL + bytes(fee_recipient)
            + struct.pack("<HHqQQQQ", protocol_fee_bps, wallet_cap_bps, pool_open_delay_seconds,
                          initial_virtual_token_reserves, initial_virtual_sol_reserves,
                          initial_real_token_reserves, token_total_supply))
    return Instruction(P.LAUNCHPAD_PROGRAM_ID, data, [
        _m(admin, True, True),
        _m(P.global_pda()[0], False, True),
        _m(P.SYSTEM_PROGRAM_ID),
    ])


def set_params(
    admin: Pubkey,
    new_admin: Pubkey,
    fee_recipient: Pubkey,
    protocol_fee_bps: int,
    wallet_cap_bps: int,
    pool_open_delay_seconds: int,
) -> Instruction:
    data = (IX_SET_PARAMS + bytes(new_admin) + bytes(fee_recipient)
            + struct.pack("<HHq", protocol_fee_bps, wallet_cap_bps, pool_open_delay_seconds))
    return Instruction(P.LAUNCHPAD_PROGRAM_ID, data, [
        _m(admin, True, False),
        _m(P.global_pda()[0], False, True),
    ])


def create_coin(creator: Pubkey, mint: Pubkey, name: str, symbol: str, uri: str) -> Instruction:
    data = (IX_CREATE_COIN + _borsh_str(name, NAME_MAX_BYTES, "name")
            + _borsh_str(symbol, SYMBOL_MAX_BYTES, "symbol") + _borsh_str(uri, URI_MAX_BYTES, "uri"))
    curve = P.bonding_curve_pda(mint)[0]
    return Instruction(P.LAUNCHPAD_PROGRAM_ID, data, [
        _m(creator, True, True),
        _m(mint, True, True),
        _m(P.global_pda()[0]),
        _m(curve, False, True),
        _m(P.associated_token_address(curve, mint), False, True),
        _m(P.metadata_pda(mint)[0], False, True),
        _m(P.SYSTEM_PROGRAM_ID),
        _m(P.TOKEN_PROGRAM_ID),
        _m(P.ASSOCIATED_TOKEN_PROGRAM_ID),
        _m(P.governance_pda(mint)[0], False, True),
    ])


def set_governance_params(admin: Pubkey, params: GM.GovernanceParams) -> Instruction:
    """Admin: governance params that create_coin copies into each new Governance."""
    data = IX_SET_GOVERNANCE_PARAMS + Global.GOVERNANCE_PARAMS_FMT.pack(
        1, *governance_params_tuple(params))[1:]
    return Instruction(P.LAUNCHPAD_PROGRAM_ID, data, [
        _m(admin, True, False),
        _m(P.global_pda()[0], False, True),
    ])


def _trade_accounts(user: Pubkey, mint: Pubkey, fee_recipient: Pubkey) -> list[AccountMeta]:
    curve = P.bonding_curve_pda(mint)[0]
    return [
        _m(user, True, True),
        _m(P.global_pda()[0]),
        _m(fee_recipient, False, True),
        _m(mint),
        _m(curve, False, True),
        _m(P.associated_token_address(curve, mint), False, True),
        _m(P.associated_token_address(user, mint), False, True),
        _m(P.SYSTEM_PROGRAM_ID),
        _m(P.TOKEN_PROGRAM_ID),
        _m(P.ASSOCIATED_TOKEN_PROGRAM_ID),
    ]


def buy(user: Pubkey, mint: Pubkey, fee_recipient: Pubkey, sol_in: int, min_tokens_out: int) -> Instruction:
    """Spend sol_in lamports in total (protocol fee included)."""
    data = IX_BUY + _u64(sol_in, "sol_in") + _u64(min_tokens_out, "min_tokens_out")
    return Instruction(P.LAUNCHPAD_PROGRAM_ID, data, _trade_accounts(user, mint, fee_recipient))


def buy_exact_out(user: Pubkey, mint: Pubkey, fee_recipient: Pubkey, tokens_out: int, max_sol_in: int) -> Instruction:
    data = IX_BUY_EXACT_OUT + _u64(tokens_out, "tokens_out") + _u64(max_sol_in, "max_sol_in")
    return Instruction(P.LAUNCHPAD_PROGRAM_ID, data, _trade_accounts(user, mint, fee_recipient))


def sell(user: Pubkey, mint: Pubkey, fee_recipient: Pubkey, tokens_in: int, min_sol_out: int) -> Instruction:
    data = IX_SELL + _u64(tokens_in, "tokens_in") + _u64(min_sol_out, "min_sol_out")
    return Instruction(P.LAUNCHPAD_PROGRAM_ID, data, _trade_accounts(user, mint, fee_recipient))


def migrate(payer: Pubkey, mint: Pubkey) -> Instruction:
    curve = P.bonding_curve_pda(mint)[0]
    pool = P.pool_pda(mint)[0]
    return Instruction(P.LAUNCHPAD_PROGRAM_ID, IX_MIGRATE, [
        _m(payer, True, True),
        _m(P.global_pda()[0]),
        _m(mint),
        _m(curve, False, True),
        _m(P.associated_token_address(curve, mint), False, True),
        _m(pool, False, True),
        _m(P.associated_token_address(pool, mint), False, True),
        _m(P.POOL_PROGRAM_ID),
        _m(P.SYSTEM_PROGRAM_ID),
        _m(P.TOKEN_PROGRAM_ID),
        _m(P.ASSOCIATED_TOKEN_PROGRAM_ID),
    ])


# ------------------------------------------------------------------ launchpad: governance

def proposal_vault(proposal: Pubkey, mint: Pubkey) -> Pubkey:
    """Escrow of a proposal's bond and votes: ATA(owner = proposal PDA, mint)."""
    return P.associated_token_address(proposal, mint)


def _borsh_opt_str(s: str | None, limit: int, what: str) -> bytes:
    return b"\x00" if s is None else b"\x01" + _borsh_str(s, limit, what)


def _borsh_opt_u64(v: int | None, what: str) -> bytes:
    return b"\x00" if v is None else b"\x01" + _u64(v, what)


def _field_mask(fields) -> int:
    if isinstance(fields, int):
        if not 0 <= fields <= GM.ALL_FIELDS_MASK:
            raise ValueError("field mask outside 7 bits")
        return fields
    return GM.field_mask(**{f: True for f in fields})


def create_proposal(
    proposer: Pubkey,
    mint: Pubkey,
    proposal_index: int,
    kind: ActionKind | int,
    *,
    base_content_revision: int,
    vote_duration_seconds: int = GM.DEFAULT_VOTE_DURATION_SECONDS,
    name: str | None = None,
    symbol: str | None = None,
    uri: str | None = None,
    additional_seconds: int | None = None,
    changed_fields=(),
) -> Instruction:
    """Create proposal number `proposal_index` (= Governance.next_proposal_index).

    `changed_fields`: iterable of content field names (governance_math.CONTENT_FIELDS)
    or a 7-bit mask. update_content: the change set (name/symbol flagged iff
    given; image/description/website/twitter/telegram live in the JSON at `uri`,
    so `uri` is required iff one of them is flagged). finalize_metadata: the
    fields to lock (empty = all = full finalization). extend_mutability: none.
    """
    kind = ActionKind(kind)
    data = (IX_CREATE_PROPOSAL + bytes([kind]) + _u64(base_content_revision, "base_content_revision")
            + _u64(vote_duration_seconds, "vote_duration_seconds")
            + _borsh_opt_str(name, NAME_MAX_BYTES, "name") + _borsh_opt_str(symbol, SYMBOL_MAX_BYTES, "symbol")
            + _borsh_opt_str(uri, URI_MAX_BYTES, "uri") + _borsh_opt_u64(additional_seconds, "additional_seconds")
            + bytes([_field_mask(changed_fields)]))
    governance = P.governance_pda(mint)[0]
    proposal = P.proposal_pda(governance, proposal_index)[0]
    return Instruction(P.LAUNCHPAD_PROGRAM_ID, data, [
        _m(proposer, True, True),
        _m(mint),
        _m(governance, False, True),
        _m(P.metadata_pda(mint)[0]),
        _m(proposal, False, True),
        _m(P.associated_token_address(proposal, mint), False, True),
        _m(P.associated_token_address(proposer, mint), False, True),
        _m(P.SYSTEM_PROGRAM_ID),
        _m(P.TOKEN_PROGRAM_ID),
        _m(P.ASSOCIATED_TOKEN_PROGRAM_ID),
    ])


def propose_update_content(proposer: Pubkey, mint: Pubkey, proposal_index: int, *, base_content_revision: int,
                           changed_fields, name: str | None = None, symbol: str | None = None,
                           uri: str | None = None,
                           vote_duration_seconds: int = GM.DEFAULT_VOTE_DURATION_SECONDS) -> Instruction:
    return create_proposal(proposer, mint, proposal_index, ActionKind.UPDATE_CONTENT,
                           base_content_revision=base_content_revision, vote_duration_seconds=vote_duration_seconds,
                           name=name, symbol=symbol, uri=uri, changed_fields=changed_fields)


def propose_extend_mutability(proposer: Pubkey, mint: Pubkey, proposal_index: int, additional_seconds: int, *,
                              base_content_revision: int,
                              vote_duration_seconds: int = GM.DEFAULT_VOTE_DURATION_SECONDS) -> Instruction:
    return create_proposal(proposer, mint, proposal_index, ActionKind.EXTEND_MUTABILITY,
                           base_content_revision=base_content_revision, vote_duration_seconds=vote_duration_seconds,
                           additional_seconds=additional_seconds)


def propose_finalize_metadata(proposer: Pubkey, mint: Pubkey, proposal_index: int, *, base_content_revision: int,
                              lock_fields=(),
                              vote_duration_seconds: int = GM.DEFAULT_VOTE_DURATION_SECONDS) -> Instruction:
    return create_proposal(proposer, mint, proposal_index, ActionKind.FINALIZE_METADATA,
                           base_content_revision=base_content_revision, vote_duration_seconds=vote_duration_seconds,
                           changed_fields=lock_fields)


def _side(side) -> int:
    if isinstance(side, str):
        return VoteSide[side.upper()]
    return VoteSide(side)


def cast_vote(voter: Pubkey, mint: Pubkey, proposal: Pubkey, side: VoteSide | int | str, amount: int) -> Instruction:
    """side: VoteSide / 0 = yes, 1 = no / "yes" | "no"; amount in base units."""
    data = IX_CAST_VOTE + bytes([_side(side)]) + _u64(amount, "amount")
    return Instruction(P.LAUNCHPAD_PROGRAM_ID, data, [
        _m(voter, True, True),
        _m(mint),
        _m(P.governance_pda(mint)[0]),
        _m(proposal, False, True),
        _m(P.associated_token_address(proposal, mint), False, True),
        _m(P.vote_pda(proposal, voter)[0], False, True),
        _m(P.associated_token_address(voter, mint), False, True),
        _m(P.SYSTEM_PROGRAM_ID),
        _m(P.TOKEN_PROGRAM_ID),
    ])


def cancel_vote(voter: Pubkey, mint: Pubkey, proposal: Pubkey) -> Instruction:
    return Instruction(P.LAUNCHPAD_PROGRAM_ID, IX_CANCEL_VOTE, [
        _m(voter, True, True),
        _m(mint),
        _m(P.governance_pda(mint)[0]),
        _m(proposal, False, True),
        _m(P.associated_token_address(proposal, mint), False, True),
        _m(P.vote_pda(proposal, voter)[0], False, True),
        _m(P.associated_token_address(voter, mint), False, True),
        _m(P.SYSTEM_PROGRAM_ID),
        _m(P.TOKEN_PROGRAM_ID),
        _m(P.ASSOCIATED_TOKEN_PROGRAM_ID),
    ])


def withdraw_vote(payer: Pubkey, voter: Pubkey, mint: Pubkey, proposal: Pubkey) -> Instruction:
    """Permissionless crank: `payer` signs (and pays a re-created voter ATA's rent); tokens go to the voter's ATA."""
    return Instruction(P.LAUNCHPAD_PROGRAM_ID, IX_WITHDRAW_VOTE, [
        _m(payer, True, True),
        _m(voter),
        _m(mint),
        _m(P.governance_pda(mint)[0]),
        _m(proposal),
        _m(P.associated_token_address(proposal, mint), False, True),
        _m(P.vote_pda(proposal, voter)[0], False, True),
        _m(P.associated_token_address(voter, mint), False, True),
        _m(P.SYSTEM_PROGRAM_ID),
        _m(P.TOKEN_PROGRAM_ID),
        _m(P.ASSOCIATED_TOKEN_PROGRAM_ID),
    ])


def settle_proposal(payer: Pubkey, mint: Pubkey, proposal: Pubkey) -> Instruction:
    """Permissionless."""
    return Instruction(P.LAUNCHPAD_PROGRAM_ID, IX_SETTLE_PROPOSAL, [
        _m(payer, True, False),
        _m(P.governance_pda(mint)[0], False, True),
        _m(proposal, False, True),
        _m(P.metadata_pda(mint)[0], False, True),
    ])


def finalize_expired(payer: Pubkey, mint: Pubkey) -> Instruction:
    """Permissionless, after Governance.mutable_until."""
    return Instruction(P.LAUNCHPAD_PROGRAM_ID, IX_FINALIZE_EXPIRED, [
        _m(payer, True, False),
        _m(P.governance_pda(mint)[0], False, True),
    ])


def withdraw_bond(payer: Pubkey, proposer: Pubkey, mint: Pubkey, proposal: Pubkey) -> Instruction:
    """Permissionless crank; the bond always goes to the proposer's ATA."""
    return Instruction(P.LAUNCHPAD_PROGRAM_ID, IX_WITHDRAW_BOND, [
        _m(payer, True, True),
        _m(proposer),
        _m(mint),
        _m(P.governance_pda(mint)[0]),
        _m(proposal, False, True),
        _m(P.associated_token_address(proposal, mint), False, True),
        _m(P.associated_token_address(proposer, mint), False, True),
        _m(P.SYSTEM_PROGRAM_ID),
        _m(P.TOKEN_PROGRAM_ID),
        _m(P.ASSOCIATED_TOKEN_PROGRAM_ID),
    ])


# ------------------------------------------------------------------ pool

def initialize_pool(
    payer: Pubkey, mint: Pubkey, base_amount: int, quote_amount: int, open_time: int, fee_bps: int,
    fee_recipient: Pubkey, creator: Pubkey,
) -> Instruction:
    """CPI-only (signed by the launchpad's bonding-curve PDA during migrate)."""
    curve = P.bonding_curve_pda(mint)[0]
    pool = P.pool_pda(mint)[0]
    data = (IX_INITIALIZE_POOL + struct.pack("<QQqH", base_amount, quote_amount, open_time, fee_bps)
            + bytes(fee_recipient) + bytes(creator))
    return Instruction(P.POOL_PROGRAM_ID, data, [
        _m(payer, True, True),
        _m(curve, True, False),
        _m(mint),
        _m(pool, False, True),
        _m(P.associated_token_address(pool, mint), False, True),
        _m(P.associated_token_address(curve, mint), False, True),
        _m(P.SYSTEM_PROGRAM_ID),
        _m(P.TOKEN_PROGRAM_ID),
        _m(P.ASSOCIATED_TOKEN_PROGRAM_ID),
    ])


def _swap_accounts(user: Pubkey, mint: Pubkey, fee_recipient: Pubkey) -> list[AccountMeta]:
    pool = P.pool_pda(mint)[0]
    return [
        _m(user, True, True),
        _m(pool, False, True),
        _m(mint),
        _m(P.associated_token_address(pool, mint), False, True),
        _m(P.associated_token_address(user, mint), False, True),
        _m(fee_recipient, False, True),
        _m(P.SYSTEM_PROGRAM_ID),
        _m(P.TOKEN_PROGRAM_ID),
        _m(P.ASSOCIATED_TOKEN_PROGRAM_ID),
    ]


def swap(user: Pubkey, mint: Pubkey, fee_recipient: Pubkey, base_in: bool, amount_in: int,
         min_amount_out: int) -> Instruction:
    """base_in False: pay amount_in lamports (fee included) for tokens; True: sell amount_in tokens."""
    data = IX_SWAP + bytes([1 if base_in else 0]) + _u64(amount_in, "amount_in") + _u64(min_amount_out, "min_amount_out")
    return Instruction(P.POOL_PROGRAM_ID, data, _swap_accounts(user, mint, fee_recipient))


def swap_exact_out(user: Pubkey, mint: Pubkey, fee_recipient: Pubkey, base_out: int, max_quote_in: int) -> Instruction:
    """Buy exactly base_out tokens paying at most max_quote_in lamports (fee included)."""
    data = IX_SWAP_EXACT_OUT + _u64(base_out, "base_out") + _u64(max_quote_in, "max_quote_in")
    return Instruction(P.POOL_PROGRAM_ID, data, _swap_accounts(user, mint, fee_recipient))


# ------------------------------------------------------------------ well-known programs

def create_associated_token_account_idempotent(payer: Pubkey, owner: Pubkey, mint: Pubkey) -> Instruction:
    return Instruction(P.ASSOCIATED_TOKEN_PROGRAM_ID, bytes([1]), [
        _m(payer, True, True),
        _m(P.associated_token_address(owner, mint), False, True),
        _m(owner),
        _m(mint),
        _m(P.SYSTEM_PROGRAM_ID),
        _m(P.TOKEN_PROGRAM_ID),
    ])


def system_transfer(from_pubkey: Pubkey, to_pubkey: Pubkey, lamports: int) -> Instruction:
    """System program Transfer (instruction index 2, u32 LE, then u64 lamports)."""
    return Instruction(P.SYSTEM_PROGRAM_ID, struct.pack("<I", 2) + _u64(lamports, "lamports"), [
        _m(from_pubkey, True, True),
        _m(to_pubkey, False, True),
    ])


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
