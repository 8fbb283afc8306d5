"""Compute units of a transaction, known before it is sent, and the limit it asks for.

A program instruction's units are fixed but for what the service knows when it builds it:
- each PDA bump search the programs (and the ATA program) make costs TRY_UNITS per try past the
  first, and bump b takes 256 - b tries: the keys decide it;
- an account the instruction creates (a token account, a vote receipt) adds its creation; the
  builder knows whether it exists, as it knows to ask for its rent (`Hint.new`);
- a settle rewrites the metadata fields a passed proposal changes, and drops the update
  authority when it locks the last field (`Hint.updates`, `Hint.drops_authority`);
- a pool swap that buys moves SOL in, one that sells moves it out (its `base_in`).

The figures are each case's largest, measured in LiteSVM over many key sets
(`python -m tests.programs.unit_model --keys 200`); `tests/programs/test_unit_model.py` holds the
model to the programs over fresh keys, and `tests/integration/test_compute_limits.py` every
route's landed transaction to `limit`: at least what it used, at most 10% plus 1,000 over it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from solders.instruction import Instruction
from solders.pubkey import Pubkey

from partner.chain import governance_math as GM
from partner.chain import programs as P
from partner.chain.idls import LAUNCHPAD, POOL
from partner.chain.unique import MEMO_PROGRAM_ID

TRY_UNITS = 1_500  # one more try of a bump search (a sol_try_find_program_address round)
BUDGET_UNITS = 150  # each compute-budget instruction
TRANSFER_UNITS = 150  # a System transfer (the partner's fee, the tip, a launch's bypass fee)
MEMO_UNITS = 300  # an SPL Memo of at most 72 bytes (the request memo: `partner:` + 64), measured 287


@dataclass(frozen=True)
class Hint:
    """What a transaction's units depend on beyond its instructions' keys and data.

    `new`: accounts its instructions create; `bumps`: the bumps of new PDAs whose seeds the
    instruction does not carry, by address (a new proposal's: its index); `updates`: metadata
    fields a settle rewrites; `drops_authority`: a settle that locks the last field."""

    new: frozenset[Pubkey] = frozenset()
    bumps: Mapping[Pubkey, int] = field(default_factory=dict)
    updates: int = 0
    drops_authority: bool = False


class Hinted(NamedTuple):
    """An instruction with its hint, for a builder that hands both on."""

    instruction: Instruction
    hint: Hint


@dataclass(frozen=True)
class Keys:
    """An instruction's accounts by IDL name, its arguments, and its hint."""

    by_name: Mapping[str, Pubkey]
    args: Mapping[str, Any]
    hint: Hint

    def __getitem__(self, name: str) -> Pubkey:
        return self.by_name[name]

    def bump(self, name: str) -> int:
        return self.hint.bumps[self.by_name[name]]


Searches = Callable[[Keys], list[int]]  # the bumps an instruction searches for, one per search
Extra = Callable[[Keys], int]  # units a path adds


def _ata(owner: str) -> Searches:
    return lambda k: [P.associated_token_pda(k[owner], k["mint"])[1]]


def _none(_: Keys) -> list[int]:
    return []


def _zero(_: Keys) -> int:
    return 0


@dataclass(frozen=True)
class Cost:
    """`fixed`: the units with every search found on its first try; `searches`: the bumps it
    searches; `new`: per account it may create (IDL name), the creation's units and searches;
    `extra`: what its path adds."""

    fixed: int
    searches: Searches = _none
    new: Mapping[str, tuple[int, Searches]] = field(default_factory=dict)
    extra: Extra = _zero


# A Token-2022 ATA created through the ATA program (its search's first try included); a vote
# receipt (a System CPI and the receipt's search, its first try)
NEW_TOKEN_ACCOUNT = 18_800
NEW_RECEIPT = 2_000
# settle: each metadata field it rewrites (a Token-2022 UpdateField CPI, the longest value), and the
# update authority's removal when the last field locks
UPDATE_FIELD = 6_100
DROP_AUTHORITY = 5_300
SWAP_BUY = 2_300  # a pool swap that buys (SOL in: the quote's transfer) over one that sells


def _create_coin(k: Keys) -> list[int]:
    curve, curve_bump = P.bonding_curve_pda(k["mint"])
    vault_bump = P.associated_token_pda(curve, k["mint"])[1]
    return [curve_bump, P.governance_pda(k["mint"])[1], vault_bump, vault_bump]


def _create_proposal(k: Keys) -> list[int]:
    vault_bump = P.associated_token_pda(k["proposal"], k["mint"])[1]
    return [k.bump("proposal"), vault_bump, vault_bump, P.associated_token_pda(k["proposer"], k["mint"])[1]]


def _migrate(k: Keys) -> list[int]:
    """The launchpad derives the curve's vault, the pool and the pool's vault (the curve: its stored
    bump); the pool program the curve, the pool and its vault again; the ATA program the pool's vault
    a third time as it creates it."""
    curve, curve_bump = P.bonding_curve_pda(k["mint"])
    pool, pool_bump = P.pool_pda(k["mint"])
    pool_vault = P.associated_token_pda(pool, k["mint"])[1]
    return [curve_bump, P.associated_token_pda(curve, k["mint"])[1], pool_bump, pool_bump, *[pool_vault] * 3]


def _receipt(k: Keys) -> list[int]:
    return [P.vote_pda(k["proposal"], k["voter"])[1]]


def _settle(k: Keys) -> int:
    return UPDATE_FIELD * k.hint.updates + (DROP_AUTHORITY if k.hint.drops_authority else 0)


def _swap(k: Keys) -> int:
    return 0 if k.args.get("base_in", False) else SWAP_BUY


_BUYER_ATA = {"user_token_account": (NEW_TOKEN_ACCOUNT, _ata("user"))}
LAUNCHPAD_COSTS: dict[str, Cost] = {
    "create_coin": Cost(48_000, _create_coin),
    "buy": Cost(9_600, new=_BUYER_ATA),
    "buy_exact_out": Cost(9_600, new=_BUYER_ATA),
    "sell": Cost(8_200),
    "migrate": Cost(43_000, _migrate),
    "create_proposal": Cost(34_800, _create_proposal),
    "cast_vote": Cost(10_600, new={"vote_receipt": (NEW_RECEIPT, _receipt)}),
    "cancel_vote": Cost(10_500),
    "withdraw_vote": Cost(10_100, new={"voter_token_account": (NEW_TOKEN_ACCOUNT, _ata("voter"))}),
    "withdraw_bond": Cost(8_350, new={"proposer_token_account": (NEW_TOKEN_ACCOUNT, _ata("proposer"))}),
    "settle_proposal": Cost(4_700, extra=_settle),
    "finalize_expired": Cost(7_500),
}
POOL_COSTS: dict[str, Cost] = {
    "swap": Cost(9_200, new=_BUYER_ATA, extra=_swap),
    "swap_exact_out": Cost(11_400, new=_BUYER_ATA),
}


def _tries(bumps: list[int]) -> int:
    return sum(255 - b for b in bumps)


def _costs(ix: Instruction) -> tuple[Any, dict[str, Cost]] | None:
    if ix.program_id == LAUNCHPAD.address:
        return LAUNCHPAD, LAUNCHPAD_COSTS
    if ix.program_id == POOL.address:
        return POOL, POOL_COSTS
    return None


def instruction_units(ix: Instruction, hint: Hint = Hint()) -> int:
    """The units `ix` takes, its CPIs included: a launchpad or pool instruction by the model, a
    System transfer, an SPL Memo or a compute-budget instruction by its figure."""
    if ix.program_id == P.SYSTEM_PROGRAM_ID:
        return TRANSFER_UNITS
    if ix.program_id == MEMO_PROGRAM_ID:
        return MEMO_UNITS
    if ix.program_id == P.COMPUTE_BUDGET_PROGRAM_ID:
        return BUDGET_UNITS
    found = _costs(ix)
    if found is None:
        raise ValueError(f"no unit figure for a {ix.program_id} instruction")
    idl, costs = found
    name, args = idl.decode_instruction(bytes(ix.data))
    if name not in costs:
        raise ValueError(f"no unit model for {name}")
    names = [a["name"] for a in idl.instructions[name]["accounts"]]
    keys = Keys(dict(zip(names, (m.pubkey for m in ix.accounts), strict=False)), args, hint)
    cost = costs[name]
    units = cost.fixed + TRY_UNITS * _tries(cost.searches(keys)) + cost.extra(keys)
    for account, (creation, searches) in cost.new.items():
        if keys[account] in hint.new:
            units += creation + TRY_UNITS * _tries(searches(keys))
    return units


def transaction_units(instructions: Sequence[Instruction], hint: Hint = Hint()) -> int:
    """The units of a transaction of `instructions`, its compute-budget instructions included."""
    return sum(instruction_units(i, hint) for i in instructions)


def limit_for(instructions: Sequence[Instruction], hint: Hint = Hint(), transfers: int = 0) -> int:
    """The limit of a transaction of `instructions`, `transfers` System transfers the assembly adds,
    and the two compute-budget instructions that ask for it."""
    return limit(transaction_units(instructions, hint) + TRANSFER_UNITS * transfers + 2 * BUDGET_UNITS)


def limit(units: int) -> int:
    """The compute-unit limit for a transaction that takes `units`: 5% and 500 over them (the
    paths the model does not tell apart: a few hundred units), within the 10% plus 1,000 promised."""
    return units + -(-units // 20) + 500


def settle_hint(proposal: Any, governance: Any, now: int) -> Hint:
    """What settling `proposal` (a layouts.Proposal, voting closed) rewrites, as the launchpad's
    settle decides it: a passed content change rewrites each of name, symbol and uri it carries (at
    most: one equal to the current value is skipped), a passed finalize that locks the last field
    drops the update authority; nothing when it fails or is not executed (finalized, lapsed window,
    stale revision, a locked field)."""
    params = GM.GovernanceParams(
        min_voter_count=governance.min_voter_count,
        min_participating_supply_bps=governance.min_participating_supply_bps,
        approval_bps=governance.approval_bps,
    )
    passed = GM.outcome(
        yes_votes=proposal.yes_votes,
        no_votes=proposal.no_votes,
        participating_voters=proposal.participating_voters,
        total_supply=governance.total_supply,
        params=params,
    )
    if passed != GM.Outcome.PASSED or governance.finalized or now >= governance.mutable_until:
        return Hint()
    kind = GM.ActionKind(proposal.action_kind)
    if kind == GM.ActionKind.UPDATE_CONTENT:
        stale = proposal.base_content_revision != governance.content_revision
        if stale or proposal.changed_mask & governance.locked_mask:
            return Hint()
        carried = (proposal.action_name, proposal.action_symbol, proposal.action_uri)
        return Hint(updates=sum(v is not None for v in carried))
    if kind == GM.ActionKind.FINALIZE_METADATA:
        mask = proposal.changed_mask or GM.ALL_FIELDS_MASK
        return Hint(drops_authority=(mask | governance.locked_mask) == GM.ALL_FIELDS_MASK)
    return Hint()


# The dearest trade: a pool swap that buys into a new token account (its search on the first try),
# with the compute-budget instructions, the partner's fee and tip transfers and the request memo;
# the fee estimate prices a trade at its limit (limits.TRADE_UNITS), so a priority fee it suggests
# buys at least its price on any trade but one whose token account's search takes more tries.
DEAREST_TRADE_UNITS = (
    POOL_COSTS["swap"].fixed + SWAP_BUY + NEW_TOKEN_ACCOUNT + 2 * BUDGET_UNITS + 2 * TRANSFER_UNITS + MEMO_UNITS
)
