"""The audit's findings (issue 35, item 3), each reproduced: every test here failed on the
programs before its fix (docs/programs.md, "Audit findings")."""

from __future__ import annotations

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st
from solders.account import Account
from solders.instruction import AccountMeta, Instruction
from solders.pubkey import Pubkey

from partner.chain import curve as C
from partner.chain import governance_math as GM
from partner.chain.governance_math import ActionKind, Outcome

from .launchpad_chain import (
    ATA_PROGRAM,
    ATA_SIZE,
    DEFAULT_GLOBAL,
    SOL,
    SYSTEM,
    TOKEN_2022,
    Chain,
    ata,
    curve_pda,
    global_pda,
    governance_pda,
    pool_pda,
    rent,
)

E_INVALID_INPUT, E_UNAUTHORIZED, E_ALREADY_INIT = 6000, 6017, 6019


# ----------------------------------------------------------------- initialize_global


@pytest.mark.parametrize("supply", [C.INITIAL_REAL_TOKEN_RESERVES, C.INITIAL_REAL_TOKEN_RESERVES - 1])
def test_initialize_global_refuses_a_supply_that_leaves_nothing_to_migrate(supply):
    # migrate seeds the pool with the vault's tokens at completion, supply - initial_real_token_reserves;
    # the pool refuses 0, so a curve completed under supply == initial_real_token_reserves would be stuck
    chain = Chain(initialize=False)
    r = chain.send([chain.global_ix(token_total_supply=supply)], chain.admin)
    r.expect(E_INVALID_INPUT)
    assert chain.account(global_pda()) is None


# ----------------------------------------------------------------- create_coin


@pytest.mark.parametrize("prefund", [1, rent(0), 10 * rent(1_000)])
def test_create_coin_at_a_pre_funded_mint_address(prefund):
    # anyone may send lamports to an unused address; the coin is still created there, and the
    # creator pays only the shortfall of the mint's rent
    chain = Chain()
    mint = chain.keypair()
    # set directly: a transfer must leave a new account rent-exempt (rent(0) = 890,880 lamports,
    # the cheapest real attack, also tested), 1 lamport is the audit's case
    chain.svm.set_account(mint.pubkey(), Account(prefund, b"", SYSTEM))
    assert chain.lamports(mint.pubkey()) == prefund
    creator = chain.wallet()
    before = chain.lamports(creator.pubkey())
    chain.send_ok([chain.create_coin_ix(creator.pubkey(), mint.pubkey())], creator, mint)
    m = chain.mint(mint.pubkey())
    assert m.supply == C.TOKEN_TOTAL_SUPPLY
    assert chain.curve(mint.pubkey()).real_token_reserves == C.INITIAL_REAL_TOKEN_RESERVES
    mint_rent = chain.lamports(mint.pubkey())
    assert mint_rent == max(prefund, _fresh_mint_rent(chain))
    paid = before - chain.lamports(creator.pubkey())
    assert paid == _fresh_cost(chain) - min(prefund, _fresh_mint_rent(chain))


def _fresh_coin(chain: Chain) -> tuple[int, int]:
    creator = chain.wallet()
    before = chain.lamports(creator.pubkey())
    _, mint = chain.create_coin(creator)
    return before - chain.lamports(creator.pubkey()), chain.lamports(mint.pubkey())


def _fresh_cost(chain: Chain) -> int:
    return _fresh_coin(chain)[0]


def _fresh_mint_rent(chain: Chain) -> int:
    return _fresh_coin(chain)[1]


# ----------------------------------------------------------------- migrate


def _complete(chain: Chain):
    creator, mint = chain.create_coin()
    chain.advance(1, 1)
    whale = chain.wallet(200 * SOL)
    assert chain.buy(whale, mint.pubkey(), 100 * SOL).ok
    assert chain.curve(mint.pubkey()).complete
    return whale, mint.pubkey()


def test_migrate_refuses_a_pool_that_would_open_at_another_price():
    # a supply whose pool reserve is twice what the curve's final price needs: the pool would open
    # at half the curve's last price
    supply = C.TOKEN_TOTAL_SUPPLY + (C.TOKEN_TOTAL_SUPPLY - C.INITIAL_REAL_TOKEN_RESERVES)
    chain = Chain(pool=True, token_total_supply=supply)
    _, mint = _complete(chain)
    before = chain.snapshot(curve_pda(mint), pool_pda(mint))
    chain.migrate(mint).expect(E_INVALID_INPUT)
    assert chain.snapshot(curve_pda(mint), pool_pda(mint)) == before


def test_migrate_ignores_tokens_donated_to_the_curve_vault():
    # the pool opens with the curve's own reserve (supply - sold), at the curve's final price,
    # whatever was sent to the vault; the surplus stays in the vault
    chain = Chain(pool=True)
    whale, mint = _complete(chain)
    gift = 50_000_000 * 10**6
    metas = [
        AccountMeta(ata(whale.pubkey(), mint), False, True),
        AccountMeta(mint, False, False),
        AccountMeta(ata(curve_pda(mint), mint), False, True),
        AccountMeta(whale.pubkey(), True, False),
    ]
    transfer = Instruction(TOKEN_2022, bytes([12]) + gift.to_bytes(8, "little") + bytes([6]), metas)
    chain.send_ok([transfer], whale)
    c = chain.curve(mint)
    assert chain.migrate(mint).ok
    pool = chain.pool(mint)
    assert pool.base_reserve == C.TOKEN_TOTAL_SUPPLY - C.INITIAL_REAL_TOKEN_RESERVES
    assert chain.balance(curve_pda(mint), mint) == gift
    # the pool's price is the curve's final price to within 1 bps
    assert (
        abs(pool.quote_reserve * c.virtual_token_reserves - pool.base_reserve * c.virtual_sol_reserves) * 10_000
        <= pool.base_reserve * c.virtual_sol_reserves
    )


# ----------------------------------------------------------------- a fee recipient at 0 lamports


def _unfunded_fee_recipient(chain: Chain):
    """Point the Global's fee recipient at an address that holds nothing."""
    fresh = chain.keypair()
    chain.send_ok(
        [
            chain.ix(
                "set_params",
                {"admin": chain.admin.pubkey()},
                new_admin=chain.admin.pubkey(),
                fee_recipient=fresh.pubkey(),
                **{k: DEFAULT_GLOBAL[k] for k in ("protocol_fee_bps", "wallet_cap_bps", "pool_open_delay_seconds")},
            )
        ],
        chain.admin,
    )
    chain.fee_recipient = fresh
    assert chain.lamports(fresh.pubkey()) == 0
    return fresh.pubkey()


def test_curve_trades_with_a_fee_recipient_at_zero_lamports():
    # a fee too small to make the recipient rent-exempt is not charged (the trader keeps it, the
    # trade lands at its quote or better); the first fee that does is paid, and every one after
    chain = Chain()
    creator, mint = chain.create_coin()
    chain.advance(1, 1)
    mint = mint.pubkey()
    fee_to = _unfunded_fee_recipient(chain)
    user = chain.wallet()
    small = C.buy(C.CurveState.of(chain.curve(mint)), SOL // 100, 100)
    assert 0 < small.fee < rent(0)
    before = chain.lamports(user.pubkey())
    assert chain.buy(user, mint, SOL // 100).ok
    assert before - chain.lamports(user.pubkey()) == SOL // 100 - small.fee + rent(ATA_SIZE)
    assert chain.balance(user.pubkey(), mint) == small.tokens_out
    assert chain.lamports(fee_to) == 0
    chain.advance(1, 1)
    held = chain.balance(user.pubkey(), mint)
    gross = C.sell(C.CurveState.of(chain.curve(mint)), held // 2, 100)
    before = chain.lamports(user.pubkey())
    assert chain.sell(user, mint, held // 2).ok
    assert chain.lamports(user.pubkey()) - before == gross.sol_out + gross.fee
    assert chain.lamports(fee_to) == 0
    big = C.buy(C.CurveState.of(chain.curve(mint)), 10 * SOL, 100)
    assert chain.buy(chain.wallet(), mint, 10 * SOL).ok
    assert chain.lamports(fee_to) == big.fee >= rent(0)
    assert chain.buy(user, mint, SOL // 100).ok
    assert chain.lamports(fee_to) > big.fee


def test_pool_swaps_with_a_fee_recipient_at_zero_lamports():
    from partner.chain import pool_math as PM

    chain = Chain(pool=True)
    whale, mint = _complete(chain)
    fee_to = _unfunded_fee_recipient(chain)
    assert chain.migrate(mint).ok
    assert chain.pool(mint).fee_recipient == fee_to
    chain.advance(5, 5)
    user = chain.wallet()
    want = PM.swap_quote_in(PM.PoolState.of(chain.pool(mint)), SOL // 100, 100)
    assert 0 < want.fee < rent(0)
    before = chain.lamports(user.pubkey())
    assert chain.swap(user, mint, False, SOL // 100).ok
    assert before - chain.lamports(user.pubkey()) == SOL // 100 - want.fee + rent(ATA_SIZE)
    assert chain.balance(user.pubkey(), mint) == want.amount_out
    assert chain.lamports(fee_to) == 0
    sell = PM.swap_base_in(PM.PoolState.of(chain.pool(mint)), want.amount_out, 100)
    assert 0 < sell.fee < rent(0)
    before = chain.lamports(user.pubkey())
    assert chain.swap(user, mint, True, want.amount_out).ok
    assert chain.lamports(user.pubkey()) - before == sell.amount_out + sell.fee
    assert chain.lamports(fee_to) == 0
    assert PM.PoolState.of(chain.pool(mint)) == sell.state_after


# ----------------------------------------------------------------- the admin handover


def test_the_admin_changes_in_two_steps():
    # set_params names a pending admin; the admin changes only when that key signs accept_admin
    chain = Chain()
    old, new, stranger = chain.admin, chain.wallet(), chain.wallet()
    keep = {k: DEFAULT_GLOBAL[k] for k in ("protocol_fee_bps", "wallet_cap_bps", "pool_open_delay_seconds")}

    def set_params(new_admin):
        return chain.send(
            [
                chain.ix(
                    "set_params",
                    {"admin": old.pubkey()},
                    new_admin=new_admin,
                    fee_recipient=chain.fee_recipient.pubkey(),
                    **keep,
                )
            ],
            old,
        )

    assert set_params(new.pubkey()).ok
    g = chain.global_()
    assert g.admin == old.pubkey() and g.pending_admin == new.pubkey()
    before = chain.snapshot(global_pda())
    chain.send([chain.ix("accept_admin", {"new_admin": stranger.pubkey()})], stranger).expect(E_UNAUTHORIZED)
    assert chain.snapshot(global_pda()) == before
    # the current admin may take the proposal back: set_params naming itself clears it
    assert set_params(old.pubkey()).ok
    assert chain.global_().pending_admin == Pubkey.default()
    chain.send([chain.ix("accept_admin", {"new_admin": new.pubkey()})], new).expect(E_UNAUTHORIZED)
    assert set_params(new.pubkey()).ok
    chain.send_ok([chain.ix("accept_admin", {"new_admin": new.pubkey()})], new)
    g = chain.global_()
    assert g.admin == new.pubkey() and g.pending_admin == Pubkey.default()
    assert not set_params(old.pubkey()).ok  # the old admin is no longer one


# ----------------------------------------------------------------- rent from the Rent sysvar


def test_the_launchpad_funds_its_accounts_from_the_rent_sysvar():
    # a chain whose rent is twice the default: every account the launchpad creates holds the
    # sysvar's minimum (a hard-coded one would leave them short: the runtime refuses that)
    from solders.rent import Rent

    chain = Chain()
    rent2 = Rent.default().with_lamports_per_byte(2 * Rent.default().lamports_per_byte)
    chain.svm.set_rent(rent2)
    assert chain.svm.get_rent().lamports_per_byte == 2 * Rent.default().lamports_per_byte
    creator, mint = chain.create_coin()
    mint = mint.pubkey()
    curve = chain.account(curve_pda(mint))
    assert curve.lamports == rent2.minimum_balance(len(curve.data))
    gov = chain.account(governance_pda(mint))
    assert gov.lamports == rent2.minimum_balance(len(gov.data))
    chain.advance(1, 1)
    user = chain.wallet()
    assert chain.buy(user, mint, SOL).ok
    c = chain.curve(mint)
    assert chain.lamports(curve_pda(mint)) == rent2.minimum_balance(len(curve.data)) + c.real_sol_reserves


# ----------------------------------------------------------------- the proposal slot (issue 35, build item 5)
# One holder of the bond kept the single active-proposal slot for the whole mutability window: at each
# voting end they settled their proposal and created the next. The bond of a proposal now doubles per
# day of voting of each failed proposal before it (per coin, at most x2^32), halves per whole day the
# slot stands free, and a passing proposal resets it (docs/programs.md "The proposal slot").

WEEK = 7 * 86_400
G_BOND = 6114


def _gov():
    from .test_launchpad_governance import Gov

    return Gov()


def _base_bond(g) -> int:
    gov = g.c.governance(g.mint)
    return GM.bond_amount(gov.total_supply, gov.proposal_bond_bps)


def _fail(g, proposer, duration: int):
    """`proposer`'s proposal, nobody votes: settled at its voting end as quorum_not_met."""
    prop, r = g.propose(proposer, ActionKind.FINALIZE_METADATA, duration=duration)
    assert r.ok, r.logs
    g.c.set_clock(g.c.slot + 10, g.c.proposal(prop).voting_ends_at)
    assert g.settle(prop).ok
    assert g.c.proposal(prop).outcome == Outcome.QUORUM_NOT_MET
    return prop


def test_back_to_back_failed_proposals_cost_the_supply_not_rent():
    g = _gov()
    holder = g.holders[0]
    bond = _base_bond(g)
    first = _fail(g, holder, WEEK)
    # the audit's reproduction: at the voting end, the holder takes the slot again -> refused now
    _, r = g.propose(holder, ActionKind.FINALIZE_METADATA, duration=WEEK)
    r.expect(G_BOND)
    gov = g.c.governance(g.mint)
    assert (gov.bond_level, gov.bond_level_at) == (7, g.c.proposal(first).voting_ends_at)
    assert bond << 7 > gov.total_supply  # x128 of a 1% bond: more than the whole supply
    # three whole free days later the bond is x16: too much for the holder, open to a larger one
    g.c.set_clock(g.c.slot + 10, gov.bond_level_at + 3 * 86_400)
    assert g.c.balance(holder.pubkey(), g.mint) < bond << 4
    _, r = g.propose(holder, ActionKind.FINALIZE_METADATA, duration=WEEK)
    r.expect(G_BOND)
    whale = g.c.wallet(200 * SOL)
    assert g.c.buy(whale, g.mint, 60 * SOL).ok
    assert g.c.balance(whale.pubkey(), g.mint) >= bond << 4
    prop, r = g.propose(whale, ActionKind.FINALIZE_METADATA, duration=600)
    assert r.ok, r.logs
    assert g.c.proposal(prop).bond_amount == bond << 4
    assert g.c.governance(g.mint).bond_level == 4  # the decay is stored


def test_a_passing_proposal_resets_the_bond_level():
    g = _gov()
    bond = _base_bond(g)
    _fail(g, g.holders[0], 600)
    _fail(g, g.holders[0], 600)
    assert g.c.governance(g.mint).bond_level == 2
    prop, r = g.propose(g.holders[1], ActionKind.EXTEND_MUTABILITY, additional=86_400)
    assert r.ok, r.logs
    assert g.c.proposal(prop).bond_amount == bond << 2
    assert g.pass_(prop).ok and g.c.proposal(prop).outcome == Outcome.PASSED
    gov = g.c.governance(g.mint)
    assert (gov.bond_level, gov.bond_level_at) == (0, g.c.proposal(prop).voting_ends_at)
    prop, r = g.propose(g.holders[2], ActionKind.FINALIZE_METADATA)
    assert r.ok, r.logs
    assert g.c.proposal(prop).bond_amount == bond


def test_the_bond_level_decays_one_level_per_whole_free_day():
    g = _gov()
    bond = _base_bond(g)
    _fail(g, g.holders[0], 600)
    last = _fail(g, g.holders[0], 600)
    ends = g.c.proposal(last).voting_ends_at
    g.c.set_clock(g.c.slot + 10, ends + 86_399)  # not a whole day: still x4
    prop = _fail(g, g.holders[1], 600)
    assert g.c.proposal(prop).bond_amount == bond << 2
    assert g.c.governance(g.mint).bond_level == 3  # 2 + one day of voting (600 s, rounded up)
    g.c.set_clock(g.c.slot + 10, g.c.proposal(prop).voting_ends_at + 2 * 86_400)  # two whole days: x2
    prop, r = g.propose(g.holders[2], ActionKind.FINALIZE_METADATA)
    assert r.ok, r.logs
    assert g.c.proposal(prop).bond_amount == bond << 1


def test_the_bond_level_is_per_coin_not_per_wallet():
    g = _gov()
    holder = g.holders[0]
    _fail(g, holder, WEEK)
    _, r = g.propose(holder, ActionKind.FINALIZE_METADATA)
    r.expect(G_BOND)
    # every token of the holder moved to a new wallet: the same bond
    fresh = g.c.wallet()
    amount = g.c.balance(holder.pubkey(), g.mint)
    create = Instruction(
        ATA_PROGRAM,
        bytes([1]),
        [
            AccountMeta(holder.pubkey(), True, True),
            AccountMeta(ata(fresh.pubkey(), g.mint), False, True),
            AccountMeta(fresh.pubkey(), False, False),
            AccountMeta(g.mint, False, False),
            AccountMeta(SYSTEM, False, False),
            AccountMeta(TOKEN_2022, False, False),
        ],
    )
    move = Instruction(
        TOKEN_2022,
        bytes([12]) + amount.to_bytes(8, "little") + bytes([6]),
        [
            AccountMeta(ata(holder.pubkey(), g.mint), False, True),
            AccountMeta(g.mint, False, False),
            AccountMeta(ata(fresh.pubkey(), g.mint), False, True),
            AccountMeta(holder.pubkey(), True, False),
        ],
    )
    g.c.send_ok([create, move], holder)
    assert g.c.balance(fresh.pubkey(), g.mint) == amount
    _, r = g.propose(fresh, ActionKind.FINALIZE_METADATA)
    r.expect(G_BOND)


_PROPERTY: dict = {}


@settings(max_examples=30, deadline=None)
@given(
    level=st.integers(0, 32),
    since=st.integers(-2 * 86_400, 40 * 86_400),
    bps=st.one_of(st.integers(0, 300), st.integers(0, 10_000)),
    duration=st.sampled_from([60, 600, 86_399, 86_400, 86_401, WEEK]),
)
def test_the_required_bond_of_python_is_the_programs(level, since, bps, duration):
    """partner.chain.governance_math's required bond (the service's pre-check) against create_proposal:
    the bond it locks, or InsufficientProposalBond exactly when the proposer holds less; and its
    bond_level_after against settle_proposal (a proposal nobody votes on: quorum_not_met)."""
    from partner.chain import layouts as L

    if "g" not in _PROPERTY:
        _PROPERTY["g"] = _gov()
        assert _PROPERTY["g"].c.buy(_PROPERTY["g"].holders[0], _PROPERTY["g"].mint, 80 * SOL).ok
    g = _PROPERTY["g"]
    key = governance_pda(g.mint)
    gov = g.c.governance(g.mint)
    gov.bond_level, gov.bond_level_at, gov.proposal_bond_bps = level, g.c.now - since, bps
    gov.active_proposal = None
    raw = g.c.account(key)
    g.c.svm.set_account(key, Account(raw.lamports, gov.encode(), raw.owner, False, 0))
    now_level = GM.bond_level_now(level, g.c.now - since, g.c.now)
    required = GM.required_bond(gov.total_supply, bps, now_level)
    assert isinstance(g.c.governance(g.mint), L.Governance)
    whale = g.holders[0]
    held = g.c.balance(whale.pubkey(), g.mint)
    prop, r = g.propose(whale, ActionKind.FINALIZE_METADATA, duration=duration)
    if required > held:
        event("refused")
        r.expect(G_BOND)
        return
    event("locked")
    assert r.ok, r.logs
    assert g.c.proposal(prop).bond_amount == required
    assert g.c.governance(g.mint).bond_level == now_level
    assert g.c.balance(whale.pubkey(), g.mint) == held - required
    p = g.c.proposal(prop)
    slot, now = g.c.slot, g.c.now
    g.c.set_clock(slot + 10, p.voting_ends_at)
    assert g.settle(prop).ok
    gov = g.c.governance(g.mint)
    assert (gov.bond_level, gov.bond_level_at) == (
        GM.bond_level_after(now_level, False, p.created_at, p.voting_ends_at),
        p.voting_ends_at,
    )
    g.c.set_clock(slot + 20, now)  # back: the next example's times are relative to it


# ----------------------------------------------------------------- the uri-borne locks (issue 35, build item 5)
# Locking image, description, website, twitter or telegram was not enforced on-chain: all five live in the
# JSON at `uri`, and a description-only proposal could carry a new uri whose JSON changed the locked image.
# The program now commits to a 16-byte digest of each (docs/programs.md "The uri-borne locks").

E_INVALID_INPUT_GOV, G_LOCKED = 6000, 6122
IMAGE, DESCRIPTION, WEBSITE = 4, 8, 16
DOC = {
    "name": "Old Name",
    "symbol": "OLD",
    "image": "ipfs://QmOldImage",
    "description": "old",
    "website": "",
    "twitter": "https://x.com/old",
    "telegram": "",
}


def _digests(**values) -> list[bytes]:
    return GM.content_digests({**DOC, **values})


def _doc_gov():
    """A coin created with DOC's digests, its three holders."""
    from .test_launchpad_governance import Gov

    c = Chain()
    creator, mint = c.create_coin(name="Old Name", symbol="OLD", uri="ipfs://QmOldDoc", document=DOC)
    g = Gov.__new__(Gov)
    g.c, g.creator, g.mint, g.gov = c, creator, mint.pubkey(), governance_pda(mint.pubkey())
    c.advance(1, 1)
    g.holders = [c.wallet() for _ in range(3)]
    for h in g.holders:
        assert c.buy(h, g.mint, 5 * SOL).ok
    return g


def test_create_coin_commits_the_digests_of_its_document():
    g = _doc_gov()
    assert g.c.governance(g.mint).content_digests == GM.content_digests(DOC)
    assert GM.field_digest(None) == GM.field_digest("") == bytes.fromhex("e3b0c44298fc1c149afbf4c8996fb924")


def test_a_locked_image_cannot_change_through_another_fields_uri():
    g = _doc_gov()
    lock, r = g.propose(g.holders[0], ActionKind.FINALIZE_METADATA, mask=IMAGE)
    assert r.ok, r.logs
    assert g.pass_(lock).ok and g.c.governance(g.mint).image_locked
    # the audit's reproduction: a description-only proposal whose new JSON also changes the image
    _, r = g.propose(
        g.holders[1],
        uri="ipfs://QmNewDoc",
        mask=DESCRIPTION,
        digests=_digests(description="new", image="ipfs://QmOtherImage"),
    )
    r.expect(G_LOCKED)
    # the same change with the image's digest kept lands
    prop, r = g.propose(g.holders[1], uri="ipfs://QmNewDoc", mask=DESCRIPTION, digests=_digests(description="new"))
    assert r.ok, r.logs
    assert g.c.proposal(prop).proposed_digests == _digests(description="new")


def test_the_mask_must_declare_exactly_the_changed_digests():
    g = _doc_gov()
    who = g.holders[0]
    cases = [
        (DESCRIPTION, _digests(description="new", website="https://new.example")),  # understated
        (DESCRIPTION | WEBSITE, _digests(description="new")),  # overstated
        (DESCRIPTION, _digests()),  # a new uri that changes no digest
    ]
    for mask, digests in cases:
        _, r = g.propose(who, uri="ipfs://QmNewDoc", mask=mask, digests=digests)
        r.expect(E_INVALID_INPUT_GOV)
    # a changed digest needs a new uri: a name-only proposal keeps all five
    _, r = g.propose(who, name="New Name", mask=1, digests=_digests(description="new"))
    r.expect(E_INVALID_INPUT_GOV)
    # extend / finalize carry none
    _, r = g.propose(who, ActionKind.FINALIZE_METADATA, digests=_digests())
    r.expect(E_INVALID_INPUT_GOV)
    _, r = g.propose(who, ActionKind.EXTEND_MUTABILITY, additional=86_400, digests=[b"\1" * 16] * 5)
    r.expect(E_INVALID_INPUT_GOV)
    prop, r = g.propose(who, name="New Name", mask=1, digests=_digests())
    assert r.ok, r.logs


def test_a_passed_proposal_applies_its_digests_and_a_failed_one_does_not():
    g = _doc_gov()
    new = _digests(description="new", telegram="https://t.me/new")
    prop, r = g.propose(g.holders[0], uri="ipfs://QmNewDoc", mask=DESCRIPTION | 64, digests=new)
    assert r.ok, r.logs
    g.c.advance(10, 601)
    assert g.settle(prop).ok and g.c.proposal(prop).outcome == Outcome.QUORUM_NOT_MET
    assert g.c.governance(g.mint).content_digests == GM.content_digests(DOC)
    g.c.advance(10, 86_400)  # the failed proposal's bond level decays
    prop, r = g.propose(g.holders[0], uri="ipfs://QmNewDoc", mask=DESCRIPTION | 64, digests=new)
    assert r.ok, r.logs
    assert g.pass_(prop).ok and g.c.proposal(prop).executed
    gov = g.c.governance(g.mint)
    assert gov.content_digests == new and gov.content_revision == 1
    assert g.c.mint(g.mint).metadata.uri == "ipfs://QmNewDoc"
