"""The pool program (programs/pool) in LiteSVM, deployed through BPF Loader Upgradeable at
idl/pool.json's address: each instruction, and each attack class an auditor would try,
refused with the program's error (idl/pool.json numbering) and no state change."""

from __future__ import annotations

import struct

import pytest
from solders.account import Account
from solders.keypair import Keypair
from solders.pubkey import Pubkey

from partner.chain import pool_math as PM
from partner.chain import programs as P
from partner.chain.errors import ProgramErrorCode as E
from tests.programs.pool_env import (
    POOL_SIZE,
    PoolEnv,
)
from tests.programs.svm import SOL, SYSTEM, TOKEN_2022, ata, ix

U64 = 2**64 - 1
MISSING_SIGNATURE = "MissingRequiredSignature"


@pytest.fixture
def env():
    return PoolEnv()


def refused(env: PoolEnv, outcome, code: int | str) -> None:
    assert not outcome.ok, outcome.logs
    if isinstance(code, str):
        assert code in str(outcome.err), outcome.err
    else:
        assert outcome.custom == int(code), (outcome.err, outcome.logs)


def holder(env: PoolEnv, sol: int = 10 * SOL) -> Keypair:
    """A trader who bought once (holds tokens and has the ATA)."""
    u = env.s.funded(100 * SOL)
    assert env.buy(u, sol).ok
    return u


# ------------------------------------------------------------------ initialize_pool


def test_initialize_pool(env):
    st = env.state()
    assert (st.mint, st.base_vault, st.creator, st.fee_recipient) == (
        env.mint,
        env.base_vault,
        env.creator,
        env.fee_recipient,
    )
    assert (st.base_reserve, st.quote_reserve, st.fee_bps, st.open_time) == (
        env.base_amount,
        env.quote_amount,
        env.fee_bps,
        env.open_time,
    )
    assert st.bump == P.pool_pda(env.mint)[1] and st.created_slot == env.svm.get_clock().slot
    pool = env.svm.get_account(env.pool)
    assert pool.owner == P.POOL_PROGRAM_ID and len(pool.data) == POOL_SIZE
    assert pool.lamports == env.svm.minimum_balance_for_rent_exemption(POOL_SIZE) + env.quote_amount
    vault = env.svm.get_account(env.base_vault)
    assert vault.owner == TOKEN_2022 and env.tokens(env.pool) == env.base_amount
    assert env.tokens(env.curve) == 0


def test_reinitialisation_refused(env):
    before = env.snapshot()
    refused(env, env.initialize(), E.AlreadyInitialized)
    assert env.snapshot() == before


def test_initialize_needs_the_curve_pda_of_the_mint():
    env = PoolEnv(initialize=False)
    data, accounts = env.initialize_ix()
    impostor = env.s.funded()
    accounts[1] = (impostor.pubkey(), True, False)  # signs, but is not the curve PDA
    refused(env, env.s.send(ix(env.program, data, accounts), impostor), E.Unauthorized)
    accounts[1] = (env.curve, False, False)  # the right key, not signing
    refused(env, env.s.send(ix(env.program, data, accounts)), MISSING_SIGNATURE)
    assert env.svm.get_account(env.pool) is None


@pytest.mark.parametrize("what", ["pool", "base_vault", "token_program"])
def test_initialize_wrong_accounts(what):
    env = PoolEnv(initialize=False)
    other = env.new_mint()
    data, accounts = env.initialize_ix()
    if what == "pool":
        accounts[3] = (P.pool_pda(other)[0], False, True)
    elif what == "base_vault":
        accounts[4] = (ata(env.pool, other), False, True)
    else:
        accounts[7] = (Pubkey.from_string("TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA"), False, False)
    refused(env, env.s.send(env.via_curve(data, accounts)), E.InvalidAccount)
    assert env.svm.get_account(env.pool) is None


@pytest.mark.parametrize("field", ["base_amount", "quote_amount"])
def test_initialize_empty_pool_refused(field):
    env = PoolEnv(initialize=False)
    data, accounts = env.initialize_ix(**{field: 0})
    refused(env, env.s.send(env.via_curve(data, accounts)), E.InvalidInput)


def test_initialize_prefunded_pool_address():
    """Lamports sent to the pool address beforehand do not block the migration."""
    env = PoolEnv(initialize=False)
    env.svm.airdrop(env.pool, 12345)
    assert env.initialize().ok
    assert env.state().base_reserve == env.base_amount


# ------------------------------------------------------------------ swap (buy / sell) and swap_exact_out


def test_buy_matches_pool_math(env):
    u = env.s.funded(100 * SOL)
    st0, fee0, pool0, user0 = (
        env.state(),
        env.lamports(env.fee_recipient),
        env.lamports(env.pool),
        env.lamports(u.pubkey()),
    )
    expect = PM.swap_quote_in(PM.PoolState(st0.base_reserve, st0.quote_reserve), 3 * SOL, env.fee_bps)
    o = env.buy(u, 3 * SOL, expect.amount_out)
    assert o.ok, o.logs
    ata_rent = env.svm.minimum_balance_for_rent_exemption(170)
    assert env.tokens(u.pubkey()) == expect.amount_out
    assert env.lamports(env.fee_recipient) - fee0 == expect.fee
    assert env.lamports(env.pool) - pool0 == expect.amount_in - expect.fee
    assert user0 - env.lamports(u.pubkey()) == expect.amount_in + ata_rent
    st = env.state()
    assert (st.base_reserve, st.quote_reserve) == (expect.state_after.base_reserve, expect.state_after.quote_reserve)
    assert env.tokens(env.pool) == st.base_reserve


def test_sell_matches_pool_math(env):
    u = holder(env)
    held = env.tokens(u.pubkey())
    st0, fee0, pool0, user0 = (
        env.state(),
        env.lamports(env.fee_recipient),
        env.lamports(env.pool),
        env.lamports(u.pubkey()),
    )
    expect = PM.swap_base_in(PM.PoolState(st0.base_reserve, st0.quote_reserve), held // 3, env.fee_bps)
    assert env.sell(u, held // 3, expect.amount_out).ok
    assert env.tokens(u.pubkey()) == held - held // 3
    assert env.lamports(u.pubkey()) - user0 == expect.amount_out
    assert env.lamports(env.fee_recipient) - fee0 == expect.fee
    assert pool0 - env.lamports(env.pool) == expect.amount_out + expect.fee
    st = env.state()
    assert (st.base_reserve, st.quote_reserve) == (expect.state_after.base_reserve, expect.state_after.quote_reserve)


def test_swap_exact_out_matches_pool_math(env):
    u = holder(env)
    st0, tokens0, user0 = env.state(), env.tokens(u.pubkey()), env.lamports(u.pubkey())
    expect = PM.swap_base_out(PM.PoolState(st0.base_reserve, st0.quote_reserve), 5 * 10**12, env.fee_bps)
    refused(env, env.buy_exact(u, 5 * 10**12, expect.amount_in - 1), E.SlippageExceeded)
    assert env.buy_exact(u, 5 * 10**12, expect.amount_in).ok
    assert env.tokens(u.pubkey()) - tokens0 == 5 * 10**12
    assert user0 - env.lamports(u.pubkey()) == expect.amount_in
    st = env.state()
    assert (st.base_reserve, st.quote_reserve) == (expect.state_after.base_reserve, expect.state_after.quote_reserve)


def test_slippage_and_small_amounts(env):
    u = holder(env)
    st = env.state()
    out = PM.swap_quote_in(PM.PoolState(st.base_reserve, st.quote_reserve), SOL, env.fee_bps).amount_out
    before = env.snapshot()
    refused(env, env.buy(u, SOL, out + 1), E.SlippageExceeded)
    sol_out = PM.swap_base_in(PM.PoolState(st.base_reserve, st.quote_reserve), 10**9, env.fee_bps).amount_out
    refused(env, env.sell(u, 10**9, sol_out + 1), E.SlippageExceeded)
    refused(env, env.sell(u, 1), E.InvalidInput)  # one base unit gives no SOL
    refused(env, env.buy(u, 0), E.InvalidInput)
    refused(env, env.buy_exact(u, 0, SOL), E.InvalidInput)
    assert env.snapshot() == before


def test_bad_instruction_data(env):
    u = env.s.funded()
    good = env.swap_ix(u.pubkey(), False, SOL, 0)
    for data in (
        bytes(good.data) + b"\0",
        bytes(good.data)[:-1],
        bytes(good.data)[:8] + b"\2" + bytes(good.data)[9:],
        b"\1" * 8 + bytes(good.data)[8:],
        b"\0" * 4,
    ):
        refused(env, env.s.send(ix(env.program, data, env.swap_accounts(u.pubkey())), u), E.InvalidInput)


def test_pool_not_open_and_not_created():
    env = PoolEnv(open_time=10**12)
    u = env.s.funded()
    refused(env, env.buy(u, SOL), E.PoolNotOpen)
    env2 = PoolEnv(initialize=False)
    refused(env2, env2.buy(u, SOL), E.MigrationPending)


def test_sell_needs_tokens(env):
    u = env.s.funded()
    refused(env, env.sell(u, 10), E.MissingSellTokenAccount)
    h = holder(env)
    refused(env, env.sell(h, env.tokens(h.pubkey()) + 1), E.InsufficientTokens)


def test_buy_needs_sol_for_amount_and_token_account_rent(env):
    rent = env.svm.minimum_balance_for_rent_exemption(170)
    u = env.s.funded(SOL + rent - 1)
    refused(env, env.buy(u, SOL), E.InsufficientSol)
    assert env.s.send(env.swap_ix(u.pubkey(), False, SOL // 2), u).ok


# ------------------------------------------------------------------ attacks


def test_attack_fake_vault(env):
    """The attacker's own token account of the mint posing as the pool's vault."""
    u = holder(env)
    before = env.snapshot()
    fake = ata(u.pubkey(), env.mint)
    refused(env, env.buy(u, SOL, base_vault=fake), E.InvalidAccount)
    refused(env, env.sell(u, 10**9, base_vault=fake), E.InvalidAccount)
    refused(env, env.buy_exact(u, 10**9, SOL, base_vault=fake), E.InvalidAccount)
    assert env.snapshot() == before


def test_attack_substituted_mint(env):
    """Another mint (one the attacker controls) with this pool, or with its own fake pool account."""
    u = holder(env)
    other = env.new_mint()
    before = env.snapshot()
    refused(env, env.buy(u, SOL, mint=other), E.InvalidAccount)
    refused(env, env.sell(u, 10**9, mint=other, user_token_account=ata(u.pubkey(), other)), E.InvalidAccount)
    # a copy of the pool's state planted at the other mint's pool address (owned by another program)
    fake_pool = P.pool_pda(other)[0]
    env.svm.set_account(fake_pool, Account(lamports=10 * SOL, data=env.s.data(env.pool), owner=SYSTEM))
    refused(
        env, env.buy(u, SOL, mint=other, pool=fake_pool, user_token_account=ata(u.pubkey(), other)), E.MigrationPending
    )
    assert env.snapshot() == before


def test_attack_missing_signer(env):
    u = holder(env)
    before = env.snapshot()
    accounts = env.swap_accounts(u.pubkey(), user=(u.pubkey(), False, True))
    for data in (
        env.swap_ix(u.pubkey(), True, 10**9).data,
        env.swap_ix(u.pubkey(), False, SOL).data,
        env.exact_out_ix(u.pubkey(), 10**9, SOL).data,
    ):
        refused(env, env.s.send(ix(env.program, bytes(data), accounts)), MISSING_SIGNATURE)
    assert env.snapshot() == before


def test_attack_wrong_owner(env):
    """The pool's address holding its bytes but owned by another program; a seller's token
    account owned by the legacy Token program (same bytes)."""
    u = holder(env)
    real = env.svm.get_account(env.pool)
    env.svm.set_account(env.pool, Account(lamports=real.lamports, data=bytes(real.data), owner=SYSTEM))
    refused(env, env.buy(u, SOL), E.MigrationPending)
    env.svm.set_account(env.pool, real)
    before = env.snapshot()
    user_ata = ata(u.pubkey(), env.mint)
    acc = env.svm.get_account(user_ata)
    env.svm.set_account(
        user_ata,
        Account(
            lamports=acc.lamports,
            data=bytes(acc.data),
            owner=Pubkey.from_string("TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA"),
        ),
    )
    refused(env, env.sell(u, 10**9), E.MissingSellTokenAccount)
    assert env.snapshot() == before


def test_attack_duplicate_mutable_accounts(env):
    u = holder(env)
    before = env.snapshot()
    refused(env, env.sell(u, 10**9, user_token_account=env.base_vault), E.InvalidAccount)  # vault as user ATA
    refused(env, env.buy(u, SOL, fee_recipient=env.pool), E.InvalidAccount)  # pool as fee recipient
    refused(env, env.buy(u, SOL, base_vault=env.pool), E.InvalidAccount)
    refused(env, env.buy(u, SOL, pool=env.base_vault), E.InvalidAccount)
    assert env.snapshot() == before


def test_attack_wrong_bump(env):
    """A pool whose stored bump was tampered with no longer derives its own address."""
    u = holder(env)
    real = env.svm.get_account(env.pool)
    data = bytearray(real.data)
    data[170] = (data[170] - 1) % 256
    env.svm.set_account(env.pool, Account(lamports=real.lamports, data=bytes(data), owner=real.owner))
    before = env.snapshot()
    refused(env, env.buy(u, SOL), E.InvalidAccount)
    refused(env, env.sell(u, 10**9), E.InvalidAccount)
    assert env.snapshot() == before


def test_attack_u64_edges(env):
    u = holder(env)
    st = env.state()
    before = env.snapshot()
    # exact-out of all but one token: the SOL needed passes u64
    refused(env, env.buy_exact(u, st.base_reserve - 1, U64), E.MathOverflow)
    refused(env, env.buy_exact(u, st.base_reserve, U64), E.InsufficientLiquidity)
    refused(env, env.buy_exact(u, U64, U64), E.InsufficientLiquidity)
    # the whole u64 of SOL: the math holds, the wallet does not
    PM.swap_quote_in(PM.PoolState(st.base_reserve, st.quote_reserve), U64, env.fee_bps)
    refused(env, env.buy(u, U64), E.InsufficientSol)
    refused(env, env.sell(u, U64), E.InsufficientTokens)
    assert env.snapshot() == before
    # a pool near the top of u64 (state planted): selling pushes the base reserve past it
    real = env.svm.get_account(env.pool)
    data = bytearray(real.data)
    data[136:144] = struct.pack("<Q", U64 - 5)
    env.svm.set_account(env.pool, Account(lamports=real.lamports, data=bytes(data), owner=real.owner))
    with pytest.raises(PM.MathOverflow):
        PM.swap_base_in(PM.PoolState(U64 - 5, st.quote_reserve), 10, env.fee_bps)
    refused(env, env.sell(u, 10), E.MathOverflow)


@pytest.mark.parametrize("fee_bps", [0, 9_999])
def test_fee_bps_edges(fee_bps):
    env = PoolEnv(fee_bps=fee_bps)
    u = env.s.funded(100 * SOL)
    st = env.state()
    expect = PM.swap_quote_in(PM.PoolState(st.base_reserve, st.quote_reserve), SOL, fee_bps)
    f0 = env.lamports(env.fee_recipient)
    assert env.buy(u, SOL).ok
    assert env.tokens(u.pubkey()) == expect.amount_out and env.lamports(env.fee_recipient) - f0 == expect.fee


def test_fee_bps_out_of_range_refused():
    env = PoolEnv(fee_bps=10_000)
    refused(env, env.buy(env.s.funded(), SOL), E.InvalidInput)


def test_sell_cannot_drain_the_pool_below_rent(env):
    """A pool whose recorded quote reserve exceeds its lamports pays out no more than it holds."""
    u = holder(env)
    real = env.svm.get_account(env.pool)
    rent = env.svm.minimum_balance_for_rent_exemption(POOL_SIZE)
    env.svm.set_account(env.pool, Account(lamports=rent + 10, data=bytes(real.data), owner=real.owner))
    refused(env, env.sell(u, env.tokens(u.pubkey())), E.InsufficientLiquidity)
    assert env.lamports(env.pool) == rent + 10


@pytest.mark.parametrize("name", ["pool", "base_vault", "user_token_account", "fee_recipient"])
def test_accounts_that_change_must_be_writable(env, name):
    u = holder(env)
    before = env.snapshot()
    key = dict(
        pool=env.pool,
        base_vault=env.base_vault,
        user_token_account=ata(u.pubkey(), env.mint),
        fee_recipient=env.fee_recipient,
    )[name]
    refused(env, env.buy(u, SOL, **{name: (key, False, False)}), E.InvalidAccount)
    refused(env, env.sell(u, 10**9, **{name: (key, False, False)}), E.InvalidAccount)
    assert env.snapshot() == before


def test_initialize_accounts_must_be_writable():
    env = PoolEnv(initialize=False)
    data, accounts = env.initialize_ix()
    accounts[5] = (accounts[5][0], False, False)  # the curve vault (source), read-only
    refused(env, env.s.send(env.via_curve(data, accounts)), E.InvalidAccount)
    assert env.svm.get_account(env.pool) is None
