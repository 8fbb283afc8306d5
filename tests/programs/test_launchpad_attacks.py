"""Attacks on the launchpad SBF program, as an auditor would try them: each is refused with
the program's error and leaves every account it touched unchanged."""

from __future__ import annotations

import struct

import pytest
from solders.account import Account
from solders.keypair import Keypair
from solders.pubkey import Pubkey

from partner.chain import curve as C
from partner.chain.governance_math import VoteSide

from .launchpad_chain import (
    LAUNCHPAD_ID,
    SOL,
    SYSTEM,
    TOKEN_2022,
    Chain,
    ata,
    curve_pda,
    global_pda,
    governance_pda,
    meta_ix,
    rent,
    vote_pda,
)
from .test_launchpad_governance import NAME, QUORUM_THIRD, Gov

E_INVALID_INPUT, E_MATH_OVERFLOW, E_INSUFFICIENT_TOKENS = 6000, 6006, 6009
E_INVALID_ACCOUNT, E_ALREADY_INIT = 6018, 6019
G_NOT_FOUND, G_ALREADY_VOTED = 6100, 6101
U64_MAX = 2**64 - 1


@pytest.fixture
def coin():
    chain = Chain()
    creator, mint = chain.create_coin()
    chain.advance(1, 1)
    user = chain.wallet()
    assert chain.buy(user, mint.pubkey(), 3 * SOL).ok
    return chain, mint.pubkey(), user


def refused(chain: Chain, ixs, signers, code, *watch: Pubkey):
    """Send; expect `code`; every watched account unchanged."""
    before = chain.snapshot(*watch)
    chain.send(ixs, *signers).expect(code)
    assert chain.snapshot(*watch) == before


def trade_watch(chain: Chain, mint: Pubkey, user: Pubkey) -> tuple:
    curve = curve_pda(mint)
    return (curve, ata(curve, mint), user, ata(user, mint), chain.fee_recipient.pubkey(), global_pda())


def forge(chain: Chain, key: Pubkey, data: bytes, owner: Pubkey) -> None:
    chain.svm.set_account(key, Account(lamports=rent(len(data)), data=data, owner=owner, executable=False))


def token_account(mint: Pubkey, owner: Pubkey, amount: int) -> bytes:
    """A Token-2022 account (base layout + account type 2), initialized."""
    raw = bytearray(166)
    raw[0:32], raw[32:64] = bytes(mint), bytes(owner)
    struct.pack_into("<Q", raw, 64, amount)
    raw[108], raw[165] = 1, 2
    return bytes(raw)


# ----------------------------------------------------------------- fake vault / curve / global


def test_fake_vault(coin):
    chain, mint, user = coin
    fake = Keypair().pubkey()  # a real-looking vault (owned by the curve PDA) that is not its ATA
    forge(chain, fake, token_account(mint, curve_pda(mint), 10**15), TOKEN_2022)
    for name, args in (("buy", dict(sol_in=SOL, min_tokens_out=0)), ("sell", dict(tokens_in=10**6, min_sol_out=0))):
        ix = chain.trade_ix(name, user.pubkey(), mint, **args)
        refused(
            chain, [meta_ix(ix, 5, key=fake)], [user], E_INVALID_ACCOUNT, fake, *trade_watch(chain, mint, user.pubkey())
        )


def test_fake_curve(coin):
    chain, mint, user = coin
    real = chain.data(curve_pda(mint))
    cheap = bytearray(real)
    struct.pack_into("<Q", cheap, 80, 10**18)  # huge virtual SOL: tokens for nothing
    for owner in (LAUNCHPAD_ID, SYSTEM):
        fake = Keypair().pubkey()
        forge(chain, fake, bytes(cheap), owner)
        ix = meta_ix(chain.trade_ix("buy", user.pubkey(), mint, sol_in=SOL, min_tokens_out=0), 4, key=fake)
        refused(chain, [ix], [user], E_INVALID_ACCOUNT, fake, *trade_watch(chain, mint, user.pubkey()))


def test_fake_global(coin):
    chain, mint, user = coin
    g = bytearray(chain.data(global_pda()))
    struct.pack_into("<H", g, 73, 0)  # no protocol fee
    fake = Keypair().pubkey()
    forge(chain, fake, bytes(g), LAUNCHPAD_ID)
    ix = meta_ix(chain.trade_ix("buy", user.pubkey(), mint, sol_in=SOL, min_tokens_out=0), 1, key=fake)
    refused(chain, [ix], [user], E_INVALID_ACCOUNT, *trade_watch(chain, mint, user.pubkey()))


def test_fee_recipient_substituted(coin):
    chain, mint, user = coin
    ix = meta_ix(chain.trade_ix("buy", user.pubkey(), mint, sol_in=SOL, min_tokens_out=0), 2, key=user.pubkey())
    refused(chain, [ix], [user], E_INVALID_ACCOUNT, *trade_watch(chain, mint, user.pubkey()))


# ----------------------------------------------------------------- substituted mint


def test_substituted_mint(coin):
    chain, mint, user = coin
    _, other = chain.create_coin()
    chain.advance(1, 1)
    other = other.pubkey()
    # the curve (and vault) of `mint` with another mint: the curve is not that mint's PDA
    ix = chain.trade_ix("buy", user.pubkey(), other, sol_in=SOL, min_tokens_out=0)
    ix = meta_ix(meta_ix(ix, 4, key=curve_pda(mint)), 5, key=ata(curve_pda(mint), mint))
    refused(chain, [ix], [user], E_INVALID_ACCOUNT, *trade_watch(chain, mint, user.pubkey()))
    # the right curve, the other coin's vault
    ix = meta_ix(
        chain.trade_ix("buy", user.pubkey(), mint, sol_in=SOL, min_tokens_out=0), 5, key=ata(curve_pda(other), other)
    )
    refused(chain, [ix], [user], E_INVALID_ACCOUNT, *trade_watch(chain, mint, user.pubkey()))
    # the user's token account of the other mint
    assert chain.buy(user, other, SOL).ok
    ix = meta_ix(
        chain.trade_ix("sell", user.pubkey(), mint, tokens_in=10**6, min_sol_out=0), 6, key=ata(user.pubkey(), other)
    )
    refused(chain, [ix], [user], E_INVALID_ACCOUNT, *trade_watch(chain, mint, user.pubkey()))


def test_substituted_metadata_mint():
    g = Gov()
    _, other = g.c.create_coin(name="Other Coin", symbol="OTH")
    prop, r = g.propose(g.holders[0], name="X", mask=NAME)
    assert r.ok
    for h in g.holders:
        assert g.vote(h, prop, VoteSide.YES, QUORUM_THIRD).ok
    g.c.advance(10, 601)
    payer = g.c.wallet()
    ix = g.c.ix(
        "settle_proposal",
        {"payer": payer.pubkey(), "proposal": prop, "metadata": other.pubkey(), "governance.mint": g.mint},
    )
    refused(g.c, [ix], [payer], E_INVALID_ACCOUNT, prop, g.gov, other.pubkey(), g.mint)


# ----------------------------------------------------------------- missing signer


def test_missing_signers(coin):
    chain, mint, user = coin
    ix = meta_ix(chain.trade_ix("sell", user.pubkey(), mint, tokens_in=10**6, min_sol_out=0), 0, signer=False)
    refused(chain, [ix], [], "MissingRequiredSignature", *trade_watch(chain, mint, user.pubkey()))
    creator, new_mint = chain.wallet(), Keypair()
    ix = meta_ix(chain.create_coin_ix(creator.pubkey(), new_mint.pubkey()), 1, signer=False)
    refused(chain, [ix], [creator], "MissingRequiredSignature", new_mint.pubkey(), curve_pda(new_mint.pubkey()))
    ix = meta_ix(
        chain.ix(
            "set_params",
            {"admin": chain.admin.pubkey()},
            new_admin=user.pubkey(),
            fee_recipient=user.pubkey(),
            protocol_fee_bps=0,
            wallet_cap_bps=10_000,
            pool_open_delay_seconds=0,
        ),
        0,
        signer=False,
    )
    refused(chain, [ix], [], "MissingRequiredSignature", global_pda())


def test_missing_voter_signature():
    g = Gov()
    prop, r = g.propose(g.holders[0], name="X", mask=NAME)
    assert r.ok
    voter = g.holders[1]
    ix = g.c.ix(
        "cast_vote", {"voter": voter.pubkey(), "mint": g.mint, "proposal": prop}, side=VoteSide.YES, amount=QUORUM_THIRD
    )
    refused(
        g.c,
        [meta_ix(ix, 0, signer=False)],
        [],
        "MissingRequiredSignature",
        prop,
        ata(voter.pubkey(), g.mint),
        vote_pda(prop, voter.pubkey()),
    )


# ----------------------------------------------------------------- owned by another program


def test_global_owned_by_another_program():
    chain = Chain(initialize=False)
    donor = Chain()
    forge(chain, global_pda(), donor.data(global_pda()), SYSTEM)
    creator, mint = chain.wallet(), Keypair()
    refused(
        chain,
        [chain.create_coin_ix(creator.pubkey(), mint.pubkey())],
        [creator, mint],
        E_INVALID_ACCOUNT,
        mint.pubkey(),
        creator.pubkey(),
    )


def test_curve_owned_by_another_program(coin):
    chain, mint, user = coin
    curve = curve_pda(mint)
    acc = chain.account(curve)
    chain.svm.set_account(
        curve, Account(lamports=acc.lamports, data=bytes(acc.data), owner=TOKEN_2022, executable=False)
    )
    refused(
        chain,
        [chain.trade_ix("buy", user.pubkey(), mint, sol_in=SOL, min_tokens_out=0)],
        [user],
        E_INVALID_ACCOUNT,
        *trade_watch(chain, mint, user.pubkey()),
    )


def test_governance_owned_by_another_program():
    g = Gov()
    acc = g.c.account(g.gov)
    g.c.svm.set_account(g.gov, Account(lamports=acc.lamports, data=bytes(acc.data), owner=SYSTEM, executable=False))
    prop, r = g.propose(g.holders[0], name="X", mask=NAME)
    r.expect(G_NOT_FOUND)
    assert g.c.account(prop) is None


# ----------------------------------------------------------------- duplicate mutable accounts


def test_duplicate_mutable_accounts(coin):
    chain, mint, user = coin
    vault = ata(curve_pda(mint), mint)
    for name, args in (("buy", dict(sol_in=SOL, min_tokens_out=0)), ("sell", dict(tokens_in=10**6, min_sol_out=0))):
        ix = meta_ix(chain.trade_ix(name, user.pubkey(), mint, **args), 6, key=vault)  # user ATA = curve vault
        refused(chain, [ix], [user], E_INVALID_ACCOUNT, *trade_watch(chain, mint, user.pubkey()))
    ix = meta_ix(
        chain.trade_ix("sell", user.pubkey(), mint, tokens_in=10**6, min_sol_out=0), 2, key=curve_pda(mint)
    )  # fee recipient = curve
    refused(chain, [ix], [user], E_INVALID_ACCOUNT, *trade_watch(chain, mint, user.pubkey()))
    creator, new_mint = chain.wallet(), Keypair()
    ix = meta_ix(chain.create_coin_ix(creator.pubkey(), new_mint.pubkey()), 9, key=curve_pda(new_mint.pubkey()))
    refused(chain, [ix], [creator, new_mint], E_INVALID_ACCOUNT, new_mint.pubkey(), curve_pda(new_mint.pubkey()))


def test_duplicate_vote_accounts():
    g = Gov()
    prop, r = g.propose(g.holders[0], name="X", mask=NAME)
    assert r.ok
    voter = g.holders[1]
    vault = ata(prop, g.mint)
    ix = g.c.ix(
        "cast_vote", {"voter": voter.pubkey(), "mint": g.mint, "proposal": prop}, side=VoteSide.YES, amount=QUORUM_THIRD
    )
    refused(g.c, [meta_ix(ix, 6, key=vault)], [voter], E_INVALID_ACCOUNT, prop, vault, vote_pda(prop, voter.pubkey()))


# ----------------------------------------------------------------- re-initialization


def test_create_coin_twice(coin):
    chain = coin[0]
    creator, mint_kp = chain.create_coin()
    mint = mint_kp.pubkey()
    # the same mint again: the mint, its curve and governance exist
    refused(
        chain,
        [chain.create_coin_ix(creator.pubkey(), mint, name="Again")],
        [creator, mint_kp],
        E_ALREADY_INIT,
        mint,
        curve_pda(mint),
        governance_pda(mint),
        creator.pubkey(),
    )
    # a fresh mint whose governance address already holds data
    new_mint = Keypair()
    gov = governance_pda(new_mint.pubkey())
    forge(chain, gov, b"\x01" * 10, LAUNCHPAD_ID)
    refused(
        chain,
        [chain.create_coin_ix(creator.pubkey(), new_mint.pubkey())],
        [creator, new_mint],
        E_ALREADY_INIT,
        gov,
        new_mint.pubkey(),
        curve_pda(new_mint.pubkey()),
    )


def test_vote_twice_and_prefunded_receipt():
    g = Gov()
    prop, r = g.propose(g.holders[0], name="X", mask=NAME)
    assert r.ok
    voter = g.holders[1]
    # someone pre-funds the voter's receipt address: the vote still lands (allocate + assign path)
    rec = vote_pda(prop, voter.pubkey())
    g.c.svm.set_account(rec, Account(lamports=12_345, data=b"", owner=SYSTEM, executable=False))
    assert g.vote(voter, prop, VoteSide.YES, QUORUM_THIRD).ok
    assert g.c.receipt(rec).amount == QUORUM_THIRD and g.c.account(rec).owner == LAUNCHPAD_ID
    refused(
        g.c,
        [g.c.ix("cast_vote", {"voter": voter.pubkey(), "mint": g.mint, "proposal": prop}, side=VoteSide.NO, amount=1)],
        [voter],
        G_ALREADY_VOTED,
        rec,
        prop,
    )


# ----------------------------------------------------------------- wrong PDA bump


def test_wrong_bump(coin):
    chain, mint, user = coin
    curve = curve_pda(mint)
    acc = chain.account(curve)
    data = bytearray(acc.data)
    data[114] = (data[114] - 1) % 256  # BondingCurve.bump
    chain.svm.set_account(curve, Account(lamports=acc.lamports, data=bytes(data), owner=LAUNCHPAD_ID, executable=False))
    refused(
        chain,
        [chain.trade_ix("buy", user.pubkey(), mint, sol_in=SOL, min_tokens_out=0)],
        [user],
        E_INVALID_ACCOUNT,
        *trade_watch(chain, mint, user.pubkey()),
    )


def test_non_canonical_pda():
    chain = Chain()
    _, mint = chain.create_coin()
    chain.advance(1, 1)
    mint = mint.pubkey()
    real = chain.data(curve_pda(mint))
    _, canonical = Pubkey.find_program_address([b"bonding-curve", bytes(mint)], LAUNCHPAD_ID)
    for bump in range(canonical - 1, 0, -1):
        try:
            other = Pubkey.create_program_address([b"bonding-curve", bytes(mint), bytes([bump])], LAUNCHPAD_ID)
            break
        except Exception:
            continue
    data = bytearray(real)
    data[114] = bump
    forge(chain, other, bytes(data), LAUNCHPAD_ID)  # a launchpad-owned curve at a non-canonical PDA
    user = chain.wallet()
    ix = meta_ix(chain.trade_ix("buy", user.pubkey(), mint, sol_in=SOL, min_tokens_out=0), 4, key=other)
    refused(chain, [ix], [user], E_INVALID_ACCOUNT, other, user.pubkey())


# ----------------------------------------------------------------- u64 edges


def test_u64_edges_match_the_service_math(coin):
    chain, mint, user = coin
    refused(
        chain,
        [chain.trade_ix("sell", user.pubkey(), mint, tokens_in=U64_MAX, min_sol_out=0)],
        [user],
        E_INSUFFICIENT_TOKENS,
        *trade_watch(chain, mint, user.pubkey()),
    )
    # u64::MAX lamports in: the fee split and vS + net still fit, the buy is capped to what is left
    whale = chain.wallet(10_000 * SOL)
    q = C.buy(C.CurveState.of(chain.curve(mint)), U64_MAX, 100)
    assert q.capped and q.completes
    lam = chain.lamports(whale.pubkey())
    assert chain.buy(whale, mint, U64_MAX).ok
    assert lam - chain.lamports(whale.pubkey()) == q.sol_in + rent(170)
    assert C.CurveState.of(chain.curve(mint)) == q.state_after


def test_u64_edges_on_a_huge_curve():
    vs = U64_MAX - 2 * 10**12
    chain = Chain(initial_virtual_sol_reserves=vs)
    creator, mint_kp = chain.create_coin()
    chain.advance(1, 1)
    mint = mint_kp.pubkey()
    user = chain.wallet(10_000 * SOL)
    state = C.CurveState.of(chain.curve(mint))
    with pytest.raises(C.MathOverflow):
        C.buy(state, 3 * 10**12, 100)  # vS + net past u64
    refused(
        chain,
        [chain.trade_ix("buy", user.pubkey(), mint, sol_in=3 * 10**12, min_tokens_out=0)],
        [user],
        E_MATH_OVERFLOW,
        *trade_watch(chain, mint, user.pubkey()),
    )
    with pytest.raises(C.MathOverflow):
        C.buy_exact_out(state, C.INITIAL_REAL_TOKEN_RESERVES, 100)  # the cost itself past u64
    refused(
        chain,
        [
            chain.trade_ix(
                "buy_exact_out", user.pubkey(), mint, tokens_out=C.INITIAL_REAL_TOKEN_RESERVES, max_sol_in=U64_MAX
            )
        ],
        [user],
        E_MATH_OVERFLOW,
        *trade_watch(chain, mint, user.pubkey()),
    )
    q = C.buy(state, 10**12, 100)  # just below the edge: 128-bit products, exact
    assert chain.buy(user, mint, 10**12).ok
    assert C.CurveState.of(chain.curve(mint)) == q.state_after
    assert chain.balance(user.pubkey(), mint) == q.tokens_out > 0
    s = C.sell(q.state_after, q.tokens_out, 100)
    lam = chain.lamports(user.pubkey())
    assert chain.sell(user, mint, q.tokens_out).ok
    assert chain.lamports(user.pubkey()) - lam == s.sol_out
    assert C.CurveState.of(chain.curve(mint)) == s.state_after


def test_bad_instruction_data(coin):
    chain, mint, user = coin
    ix = chain.trade_ix("buy", user.pubkey(), mint, sol_in=SOL, min_tokens_out=0)
    from solders.instruction import Instruction

    for data in (bytes(ix.data)[:-1], bytes(ix.data) + b"\0", b"\1" * 8, b""):
        refused(
            chain,
            [Instruction(ix.program_id, data, ix.accounts)],
            [user],
            E_INVALID_INPUT,
            *trade_watch(chain, mint, user.pubkey()),
        )


# ------------------------------------------------- front-running initialize_global

E_UNAUTHORIZED = 6017
LOADER = Pubkey.from_string("BPFLoaderUpgradeab1e11111111111111111111111")


def _initialize(chain: Chain, admin: Keypair, program_data: Pubkey | None = None):
    ix = chain.global_ix(admin, fee_recipient=admin.pubkey())
    if program_data is not None:
        ix.accounts = [*ix.accounts[:3], type(ix.accounts[3])(program_data, False, False)]
    return ix


def test_a_stranger_cannot_initialize_global_after_the_deploy():
    """Between the deploy and the deployer's initialize_global, whoever sends it first would
    become the admin (fees, parameters): only the upgrade authority named by the program's
    ProgramData may."""
    chain = Chain(initialize=False)
    stranger = chain.wallet()
    chain.send([_initialize(chain, stranger)], stranger).expect(E_UNAUTHORIZED)
    assert chain.account(global_pda()) is None
    chain.send_ok([_initialize(chain, chain.admin)], chain.admin)
    assert chain.global_().admin == chain.admin.pubkey()


def test_a_forged_program_data_is_refused():
    """An account laid out as ProgramData naming the stranger, at another address (even owned
    by the loader), is not this program's ProgramData."""
    chain = Chain(initialize=False)
    stranger = chain.wallet()
    forged = Keypair().pubkey()
    data = struct.pack("<IQB", 3, 0, 1) + bytes(stranger.pubkey())
    for owner in (LOADER, LAUNCHPAD_ID):
        chain.svm.set_account(forged, Account(lamports=rent(len(data)), data=data, owner=owner, executable=False))
        chain.send([_initialize(chain, stranger, forged)], stranger).expect(E_INVALID_ACCOUNT)
        assert chain.account(global_pda()) is None
