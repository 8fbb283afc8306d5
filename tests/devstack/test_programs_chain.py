"""Integration: the reference launchpad and pool programs on the devstack chain,
driven over JSON-RPC, balances checked exactly against partner.chain quote math."""
from __future__ import annotations

import base64

import httpx
import pytest
from solders.keypair import Keypair
from solders.message import MessageV0
from solders.pubkey import Pubkey
from solders.transaction import VersionedTransaction

from partner.chain import curve as C
from devstack.chain.legacy import instructions as I
from devstack.chain.legacy import layouts as L
from partner.chain import pool_math as PM
from devstack.chain.legacy import programs as P
from partner.chain.errors import ProgramErrorCode as E
from partner.chain.errors import spec_code_for_transaction_error

devstack_programs = pytest.importorskip("devstack.chain.programs")
server = pytest.importorskip("devstack.chain.server")

SIG_FEE = 5000
RENT_TOKEN = P.rent_exempt_minimum(165)
RENT_MINT = P.rent_exempt_minimum(82)
FEE_RECIPIENT = devstack_programs.FEE_RECIPIENT


class RpcError(Exception):
    def __init__(self, error):
        super().__init__(error.get("message"))
        self.error = error


class Chain:
    def __init__(self, handle):
        self.h = handle
        self.http = httpx.Client(timeout=10)

    def call(self, method, *params):
        r = self.http.post(self.h.url, json={"jsonrpc": "2.0", "id": 1, "method": method, "params": list(params)})
        body = r.json()
        if "error" in body:
            raise RpcError(body["error"])
        return body["result"]

    def warp(self, seconds):
        with self.h.bank.lock:
            self.h.bank.warp(seconds)

    def fund(self, kp, sol=500):
        self.call("requestAirdrop", str(kp.pubkey()), sol * 10**9)
        return kp

    def tx(self, payer, ixs, signers):
        bh = self.call("getLatestBlockhash")["value"]["blockhash"]
        from solders.hash import Hash
        msg = MessageV0.try_compile(payer.pubkey(), ixs, [], Hash.from_string(bh))
        return VersionedTransaction(msg, signers)

    def send(self, payer, ixs, signers=None):
        tx = self.tx(payer, ixs, signers or [payer])
        sig = self.call("sendTransaction", base64.b64encode(bytes(tx)).decode(), {"encoding": "base64"})
        st = self.call("getSignatureStatuses", [sig])["value"][0]
        assert st is not None and st["err"] is None, st
        return sig

    def fails(self, payer, ixs, signers=None):
        """Simulate; return the transaction error JSON."""
        tx = self.tx(payer, ixs, signers or [payer])
        v = self.call("simulateTransaction", base64.b64encode(bytes(tx)).decode(),
                      {"encoding": "base64", "sigVerify": True})["value"]
        assert v["err"] is not None, v.get("logs")
        return v["err"]

    def lamports(self, pk) -> int:
        return self.call("getBalance", str(pk))["value"]

    def tokens(self, owner, mint) -> int:
        ata = P.associated_token_address(owner, mint)
        return int(self.call("getTokenAccountBalance", str(ata))["value"]["amount"])

    def data(self, pk) -> bytes:
        v = self.call("getAccountInfo", str(pk), {"encoding": "base64"})["value"]
        return base64.b64decode(v["data"][0]) if v else b""

    def curve(self, mint) -> L.BondingCurve:
        return L.BondingCurve.decode(self.data(P.bonding_curve_pda(mint)[0]))

    def pool(self, mint) -> L.Pool:
        return L.Pool.decode(self.data(P.pool_pda(mint)[0]))


def custom(err, index=None):
    assert "InstructionError" in err, err
    i, inner = err["InstructionError"]
    if index is not None:
        assert i == index
    return inner["Custom"]


@pytest.fixture(scope="module")
def chain():
    h = server.start_chain(port=0, engine="python")  # the Python reference programs (the oracle)
    try:
        yield Chain(h)
    finally:
        h.stop()


def create(chain, creator, name="Test Coin", symbol="TEST", uri="ipfs://bafy", extra=()):
    mint = Keypair()
    ixs = [I.create_coin(creator.pubkey(), mint.pubkey(), name, symbol, uri), *extra]
    return mint, ixs


def test_genesis(chain):
    g = L.Global.decode(chain.data(P.global_pda()[0]))
    assert g.admin == devstack_programs.ADMIN and g.fee_recipient == FEE_RECIPIENT
    assert (g.protocol_fee_bps, g.wallet_cap_bps) == (100, 10_000)
    assert g.initial_virtual_token_reserves == C.INITIAL_VIRTUAL_TOKEN_RESERVES
    info = chain.call("getAccountInfo", str(P.LAUNCHPAD_PROGRAM_ID), {"encoding": "base64"})["value"]
    assert info["executable"]


def test_full_lifecycle(chain):
    creator, alice, bob, crank = (chain.fund(Keypair()) for _ in range(4))
    fee0 = chain.lamports(FEE_RECIPIENT)
    fees = 0

    # --- create + creator's first buy in the same transaction (same slot allowed for the creator)
    first = 25_000_000 * 10**6
    mint_kp = Keypair()
    mint = mint_kp.pubkey()
    sol_first, fee_first = C.buy_exact_out_quote(C.INITIAL_CURVE, first)
    before = chain.lamports(creator.pubkey())
    chain.send(creator, [I.create_coin(creator.pubkey(), mint, "Test Coin", "TEST", "ipfs://bafy"),
                         I.buy_exact_out(creator.pubkey(), mint, FEE_RECIPIENT, first, sol_first)],
               [creator, mint_kp])
    fees += fee_first
    rent = (RENT_MINT + P.rent_exempt_minimum(L.BondingCurve.SIZE) + P.rent_exempt_minimum(L.CoinMetadata.SIZE)
            + P.rent_exempt_minimum(L.Governance.SIZE) + 2 * RENT_TOKEN)
    assert chain.lamports(creator.pubkey()) == before - rent - sol_first - 2 * SIG_FEE
    assert chain.tokens(creator.pubkey(), mint) == first
    m = L.SplMint.decode(chain.data(mint))
    assert (m.supply, m.decimals, m.mint_authority, m.freeze_authority) == (10**15, 6, None, None)
    meta = L.CoinMetadata.decode(chain.data(P.metadata_pda(mint)[0]))
    assert (meta.name, meta.symbol, meta.uri, meta.creator) == ("Test Coin", "TEST", "ipfs://bafy", creator.pubkey())
    c = chain.curve(mint)
    state = C.buy_exact_out(C.INITIAL_CURVE, first).state_after
    assert C.CurveState.of(c) == state
    curve_pk = P.bonding_curve_pda(mint)[0]
    assert chain.tokens(curve_pk, mint) == 10**15 - first
    assert chain.lamports(curve_pk) == P.rent_exempt_minimum(L.BondingCurve.SIZE) + state.real_sol_reserves

    # --- a non-creator in the creation slot is blocked (same transaction = same slot)
    other_mint = Keypair()
    err = chain.fails(creator, [I.create_coin(creator.pubkey(), other_mint.pubkey(), "B", "B", ""),
                                I.buy(alice.pubkey(), other_mint.pubkey(), FEE_RECIPIENT, 10**8, 0)],
                      [creator, other_mint, alice])
    assert custom(err, 1) == E.SameSlotTradingBlocked
    assert spec_code_for_transaction_error(err) == "same_slot_trading_blocked"
    chain.warp(1)

    # --- alice buys 1 SOL (ATA created by the program)
    r = C.buy(state, 10**9)
    before = chain.lamports(alice.pubkey())
    chain.send(alice, [I.buy(alice.pubkey(), mint, FEE_RECIPIENT, 10**9, r.tokens_out)])
    fees += r.fee
    state = r.state_after
    assert chain.tokens(alice.pubkey(), mint) == r.tokens_out
    assert chain.lamports(alice.pubkey()) == before - 10**9 - RENT_TOKEN - SIG_FEE
    assert C.CurveState.of(chain.curve(mint)) == state

    # --- slippage, zero amounts
    q, _ = C.buy_quote(state, 10**9)
    err = chain.fails(alice, [I.buy(alice.pubkey(), mint, FEE_RECIPIENT, 10**9, q + 1)])
    assert custom(err, 0) == E.SlippageExceeded
    err = chain.fails(alice, [I.buy(alice.pubkey(), mint, FEE_RECIPIENT, 0, 0)])
    assert custom(err) == E.InvalidInput
    assert C.buy_quote(state, 1)[0] == 0
    err = chain.fails(alice, [I.buy(alice.pubkey(), mint, FEE_RECIPIENT, 1, 0)])  # nothing out
    assert custom(err) == E.InvalidInput
    sol_need, _ = C.buy_exact_out_quote(state, 10**12)
    err = chain.fails(alice, [I.buy_exact_out(alice.pubkey(), mint, FEE_RECIPIENT, 10**12, sol_need - 1)])
    assert custom(err) == E.SlippageExceeded

    # --- buy_exact_out with compute budget instructions (priority fee charged exactly)
    r = C.buy_exact_out(state, 5_000_000 * 10**6)
    before = chain.lamports(alice.pubkey())
    tokens_before = chain.tokens(alice.pubkey(), mint)
    chain.send(alice, [*I.compute_budget_instructions(12_345, 70_000),
                       I.buy_exact_out(alice.pubkey(), mint, FEE_RECIPIENT, 5_000_000 * 10**6, r.sol_in)])
    fees += r.fee
    state = r.state_after
    assert chain.lamports(alice.pubkey()) == before - r.sol_in - SIG_FEE - 12_345
    assert chain.tokens(alice.pubkey(), mint) == tokens_before + 5_000_000 * 10**6

    # --- sell half
    held = chain.tokens(alice.pubkey(), mint)
    s = C.sell(state, held // 2)
    before = chain.lamports(alice.pubkey())
    chain.send(alice, [I.sell(alice.pubkey(), mint, FEE_RECIPIENT, held // 2, s.sol_out)])
    fees += s.fee
    state = s.state_after
    assert chain.lamports(alice.pubkey()) == before + s.sol_out - SIG_FEE
    assert chain.tokens(alice.pubkey(), mint) == held - held // 2
    assert C.CurveState.of(chain.curve(mint)) == state

    # --- sell errors
    err = chain.fails(alice, [I.sell(alice.pubkey(), mint, FEE_RECIPIENT, held, 0)])
    assert custom(err) == E.InsufficientTokens
    err = chain.fails(bob, [I.sell(bob.pubkey(), mint, FEE_RECIPIENT, 1, 0)])
    assert custom(err) == E.MissingSellTokenAccount
    err = chain.fails(alice, [I.sell(alice.pubkey(), mint, alice.pubkey(), 1, 0)])
    assert custom(err) == E.InvalidAccount

    # --- not enough SOL
    poor = chain.fund(Keypair(), 1)
    err = chain.fails(poor, [I.buy(poor.pubkey(), mint, FEE_RECIPIENT, 2 * 10**9, 0)])
    assert custom(err) == E.InsufficientSol

    # --- migrate before completion fails
    err = chain.fails(crank, [I.migrate(crank.pubkey(), mint)])
    assert custom(err) == E.CurveNotComplete

    # --- bob buys to completion: capped to the remaining tokens, charged only for them
    need = C.sol_to_complete(state)
    r = C.buy(state, need + 5 * 10**9)
    assert r.capped and r.sol_in == need
    before = chain.lamports(bob.pubkey())
    chain.send(bob, [I.buy(bob.pubkey(), mint, FEE_RECIPIENT, need + 5 * 10**9, 0)])
    fees += r.fee
    state = r.state_after
    assert chain.lamports(bob.pubkey()) == before - need - RENT_TOKEN - SIG_FEE
    assert chain.tokens(bob.pubkey(), mint) == r.tokens_out
    c = chain.curve(mint)
    assert c.complete and not c.migrated and c.real_token_reserves == 0
    assert C.CurveState.of(c) == state

    # --- trades now fail: curve_complete on the curve, migration_pending on the pool
    err = chain.fails(alice, [I.buy(alice.pubkey(), mint, FEE_RECIPIENT, 10**9, 0)])
    assert custom(err) == E.CurveComplete
    assert spec_code_for_transaction_error(err) == "curve_complete"
    err = chain.fails(alice, [I.sell(alice.pubkey(), mint, FEE_RECIPIENT, 10, 0)])
    assert custom(err) == E.CurveComplete
    err = chain.fails(alice, [I.swap(alice.pubkey(), mint, FEE_RECIPIENT, False, 10**9, 0)])
    assert custom(err) == E.MigrationPending

    # --- migrate (permissionless crank)
    vault_tokens = chain.tokens(curve_pk, mint)
    assert vault_tokens == 10**15 - C.INITIAL_REAL_TOKEN_RESERVES  # the LP reserve
    chain.send(crank, [I.migrate(crank.pubkey(), mint)])
    c = chain.curve(mint)
    assert c.migrated and c.real_sol_reserves == 0
    assert chain.lamports(curve_pk) == P.rent_exempt_minimum(L.BondingCurve.SIZE)
    assert chain.tokens(curve_pk, mint) == 0
    pool_pk = P.pool_pda(mint)[0]
    pool = chain.pool(mint)
    assert (pool.base_reserve, pool.quote_reserve) == (vault_tokens, state.real_sol_reserves)
    assert 0 < pool.open_time - chain.h.bank.unix_timestamp <= 2
    assert pool.fee_bps == 100 and pool.fee_recipient == FEE_RECIPIENT and pool.creator == creator.pubkey()
    assert chain.tokens(pool_pk, mint) == vault_tokens
    assert chain.lamports(pool_pk) == P.rent_exempt_minimum(L.Pool.SIZE) + state.real_sol_reserves
    err = chain.fails(crank, [I.migrate(crank.pubkey(), mint)])
    assert custom(err) == E.AlreadyMigrated

    # --- pool not open yet (open_time = now + 2 s)
    err = chain.fails(alice, [I.swap(alice.pubkey(), mint, FEE_RECIPIENT, False, 10**9, 0)])
    assert custom(err) == E.PoolNotOpen
    assert spec_code_for_transaction_error(err) == "pool_not_open"
    chain.warp(3)

    # --- pool swaps
    ps = PM.PoolState.of(pool)
    r = PM.swap_quote_in(ps, 10**9)
    before = chain.lamports(alice.pubkey())
    tb = chain.tokens(alice.pubkey(), mint)
    chain.send(alice, [I.swap(alice.pubkey(), mint, FEE_RECIPIENT, False, 10**9, r.amount_out)])
    fees += r.fee
    ps = r.state_after
    assert chain.lamports(alice.pubkey()) == before - 10**9 - SIG_FEE
    assert chain.tokens(alice.pubkey(), mint) == tb + r.amount_out
    assert PM.PoolState.of(chain.pool(mint)) == ps

    r = PM.swap_base_out(ps, 10**12)
    before = chain.lamports(alice.pubkey())
    chain.send(alice, [I.swap_exact_out(alice.pubkey(), mint, FEE_RECIPIENT, 10**12, r.amount_in)])
    fees += r.fee
    ps = r.state_after
    assert chain.lamports(alice.pubkey()) == before - r.amount_in - SIG_FEE

    sell_amt = chain.tokens(bob.pubkey(), mint) // 3
    r = PM.swap_base_in(ps, sell_amt)
    before = chain.lamports(bob.pubkey())
    chain.send(bob, [I.swap(bob.pubkey(), mint, FEE_RECIPIENT, True, sell_amt, r.amount_out)])
    fees += r.fee
    ps = r.state_after
    assert chain.lamports(bob.pubkey()) == before + r.amount_out - SIG_FEE
    assert PM.PoolState.of(chain.pool(mint)) == ps
    assert chain.lamports(pool_pk) == P.rent_exempt_minimum(L.Pool.SIZE) + ps.quote_reserve
    assert chain.tokens(pool_pk, mint) == ps.base_reserve

    # pool errors
    q, _ = PM.buy_quote(ps, 10**9)
    err = chain.fails(alice, [I.swap(alice.pubkey(), mint, FEE_RECIPIENT, False, 10**9, q + 1)])
    assert custom(err) == E.SlippageExceeded
    err = chain.fails(alice, [I.swap_exact_out(alice.pubkey(), mint, FEE_RECIPIENT, ps.base_reserve, 2**64 - 1)])
    assert custom(err) == E.InsufficientLiquidity
    err = chain.fails(crank, [I.swap(crank.pubkey(), mint, FEE_RECIPIENT, True, 1, 0)])
    assert custom(err) == E.MissingSellTokenAccount

    # every protocol fee reached the fee recipient
    assert chain.lamports(FEE_RECIPIENT) == fee0 + fees


def test_create_coin_validation(chain):
    creator = chain.fund(Keypair())
    mint = Keypair()
    bad = I.create_coin(creator.pubkey(), mint.pubkey(), "ok", "OK", "u")
    from solders.instruction import Instruction
    import struct

    def with_args(name: bytes, symbol: bytes, uri: bytes):
        data = I.IX_CREATE_COIN + b"".join(struct.pack("<I", len(x)) + x for x in (name, symbol, uri))
        return Instruction(bad.program_id, data, bad.accounts)

    for args, code in [((b"x" * 33, b"S", b""), E.NameTooLong), ((b"  ", b"S", b""), E.NameEmpty),
                       ((b"N", b"S" * 11, b""), E.SymbolTooLong), ((b"N", b"", b""), E.SymbolEmpty),
                       ((b"N", b"S", b"u" * 201), E.UriTooLong)]:
        err = chain.fails(creator, [with_args(*args)], [creator, mint])
        assert custom(err) == code
    # mint must sign
    with pytest.raises(Exception):
        chain.tx(creator, [bad], [creator])


def test_wallet_cap_and_set_params():
    h = server.start_chain(port=0, engine="python")  # the Python reference programs (the oracle)
    try:
        ch = Chain(h)
        admin = devstack_programs.ADMIN_KEYPAIR
        ch.fund(admin, 10)
        alice, creator = ch.fund(Keypair()), ch.fund(Keypair())
        err = ch.fails(alice, [I.set_params(alice.pubkey(), alice.pubkey(), FEE_RECIPIENT, 100, 100, 2)])
        assert custom(err) == E.Unauthorized
        err = ch.fails(admin, [I.set_params(admin.pubkey(), admin.pubkey(), FEE_RECIPIENT, 5000, 100, 2)])
        assert custom(err) == E.InvalidFeeBps
        ch.send(admin, [I.set_params(admin.pubkey(), admin.pubkey(), FEE_RECIPIENT, 50, 100, 2)])
        g = L.Global.decode(ch.data(P.global_pda()[0]))
        assert (g.protocol_fee_bps, g.wallet_cap_bps) == (50, 100)
        mint = Keypair()
        ch.send(creator, [I.create_coin(creator.pubkey(), mint.pubkey(), "Cap", "CAP", "")], [creator, mint])
        ch.warp(1)
        cap = 10**15 * 100 // 10_000  # 1% of supply
        ok = C.buy_exact_out(C.INITIAL_CURVE, cap, 50)
        err = ch.fails(alice, [I.buy_exact_out(alice.pubkey(), mint.pubkey(), FEE_RECIPIENT, cap + 1, 2**63)])
        assert custom(err) == E.BuyLimitExceeded
        assert spec_code_for_transaction_error(err) == "buy_limit_exceeded"
        ch.send(alice, [I.buy_exact_out(alice.pubkey(), mint.pubkey(), FEE_RECIPIENT, cap, ok.sol_in)])
        assert ch.tokens(alice.pubkey(), mint.pubkey()) == cap
        err = ch.fails(alice, [I.buy(alice.pubkey(), mint.pubkey(), FEE_RECIPIENT, 10**6, 0)])
        assert custom(err) == E.BuyLimitExceeded
        err = ch.fails(alice, [I.buy(alice.pubkey(), mint.pubkey(), FEE_RECIPIENT, 2**64 - 1, 0)])
        assert custom(err) in (E.BuyLimitExceeded, E.InsufficientSol)
    finally:
        h.stop()


def test_launch_bundle_with_creator_first_buy(chain):
    """Coin create as the service sends it: launch tx + first-buy tx in one bundle."""
    creator = chain.fund(Keypair())
    mint = Keypair()
    first_sol = 10**9
    r = C.buy(C.INITIAL_CURVE, first_sol)
    tip_account = Pubkey.from_string(chain.http.post(chain.h.bundle_url, json={
        "jsonrpc": "2.0", "id": 1, "method": "getTipAccounts", "params": []}).json()["result"][0])
    launch = chain.tx(creator, [*I.compute_budget_instructions(1000, 200_000),
                                I.create_coin(creator.pubkey(), mint.pubkey(), "Bundle", "BNDL", "ipfs://x")],
                      [creator, mint])
    buy = chain.tx(creator, [*I.compute_budget_instructions(1000, 200_000),
                             I.tip_transfer(creator.pubkey(), tip_account, 1_000_000),
                             I.buy(creator.pubkey(), mint.pubkey(), FEE_RECIPIENT, first_sol, r.tokens_out)],
                   [creator])
    before = chain.lamports(creator.pubkey())
    body = chain.http.post(chain.h.bundle_url, json={
        "jsonrpc": "2.0", "id": 1, "method": "sendBundle",
        "params": [[base64.b64encode(bytes(t)).decode() for t in (launch, buy)], {"encoding": "base64"}]}).json()
    assert "result" in body, body
    from devstack.chain.testing import wait_bundle

    assert wait_bundle(chain.h.bundle_url, body["result"])["status"] == "Landed"
    st = chain.http.post(chain.h.bundle_url, json={
        "jsonrpc": "2.0", "id": 1, "method": "getBundleStatuses", "params": [[body["result"]]]}).json()
    assert st["result"]["value"][0] is not None, st
    assert chain.tokens(creator.pubkey(), mint.pubkey()) == r.tokens_out
    rent = (RENT_MINT + P.rent_exempt_minimum(L.BondingCurve.SIZE) + P.rent_exempt_minimum(L.CoinMetadata.SIZE)
            + P.rent_exempt_minimum(L.Governance.SIZE) + 2 * RENT_TOKEN)
    sig_fees = 3 * SIG_FEE + 2 * 1000
    assert chain.lamports(creator.pubkey()) == before - rent - first_sol - 1_000_000 - sig_fees
