"""Governance writes through the real handlers against moto and the devstack chain: every row
of the spec's Vote, Proposal and Metadata governance state tables with exact codes, token
balances before and after lock, withdraw and bond return, and the quorum / approval
boundaries exactly at and one base unit below."""

from __future__ import annotations

import base64
import itertools

import pytest
from solders.keypair import Keypair

from testkit.chain import airdrop, new_coin, rpc, token_balance, wait, warp
from testkit.helpers import FEES, connect, invoke, trade

SOL = 10**9
TIP = 1_000_000
PRIO = 10_000
T = 10**6  # one token in base units
SUPPLY = 10**15
BOND = SUPPLY * 100 // 10_000  # 1% of supply
QUORUM = SUPPLY * 500 // 10_000  # 5% of supply
DAY = 86_400
SCOPES = "trade:execute governance:vote governance:propose"
_ips = itertools.count(1)

ENDPOINTS = {
    "vote": ("governance_vote", "votes"),
    "cancel": ("governance_vote_cancel", "votes/cancel"),
    "withdraw": ("governance_vote_withdraw", "votes/withdraw"),
    "settle": ("governance_settle", "proposals/settle"),
    "extend": ("governance_extend_mutability", "proposals/extend-mutability"),
    "finalize": ("governance_finalize_metadata", "proposals/finalize-metadata"),
    "expired": ("governance_finalize_expired", "metadata/finalize-expired"),
    "bond": ("governance_bond_withdraw", "bonds/withdraw"),
}


def gov(conn, name: str, body: dict, *, fees: bool = True):
    function, path = ENDPOINTS[name]
    full = {"priorityFeeLamports": str(PRIO), "tipLamports": str(TIP), **body} if fees else body
    return invoke(
        function,
        "POST",
        f"/partner/v1/governance/{path}",
        headers={**conn.bearer(), "Content-Type": "application/json"},
        body=full,
    )


def ok(result) -> dict:
    assert result.status == 200, result.body
    assert result.json["status"] == "processed"
    return result.json


def refused(result, code: str, status: int = 422) -> dict:
    assert (result.status, result.json.get("error")) == (status, code), result.body
    return result.json


def account(chain, key: str) -> bytes:
    value = rpc(chain.url, "getAccountInfo", [str(key), {"encoding": "base64"}])["value"]
    return base64.b64decode(value["data"][0]) if value else b""


def governance_of(chain, mint: str):
    from partner.chain import layouts as L
    from partner.chain import programs as P

    return L.Governance.decode(account(chain, str(P.governance_pda(mint)[0])))


def proposal_of(chain, proposal: str):
    from partner.chain import layouts as L

    return L.Proposal.decode(account(chain, proposal))


def receipt_of(chain, proposal: str, voter: str):
    from partner.chain import layouts as L
    from partner.chain import programs as P

    return L.VoteReceipt.decode(account(chain, str(P.vote_pda(proposal, voter)[0])))


@pytest.fixture
def app_client(aws_stack):
    from partnerctl import admin

    return admin.create_client(
        admin.NewClient(
            name="Governance App",
            redirect_uri="http://localhost:8080/callback",
            tier="Partner",
            daily_volume_cap_lamports=10**15,
        )
    )


@pytest.fixture
def coin(chain, aws_stack):
    return new_coin(chain.url, "Gov Coin", "GOV")


def buy_tokens(chain, conn, mint: str, tokens: int) -> None:
    result = trade(conn, "buy-exact-out", {"mint": mint, "tokensOut": str(tokens), "maxSolIn": str(3 * SOL), **FEES})
    assert result.status == 200, result.body
    assert wait(chain.url, result.json["signature"])["err"] is None


def member(chain, client, mint: str | None = None, tokens: int = 0, sol: int = 10 * SOL, scope: str = SCOPES):
    """A connected user with SOL and (bought through trades/buy-exact-out) `tokens` of `mint`."""
    from partnerctl import admin

    user = admin.create_user()
    if sol:
        airdrop(chain.url, user["wallet"], sol)
    n = next(_ips)
    conn = connect(client, user, scope=scope, ip=f"172.20.{n >> 8 & 255}.{n & 255}")
    if tokens:
        buy_tokens(chain, conn, mint, tokens)
        assert token_balance(chain.url, user["wallet"], mint) == tokens
    return conn


def wallet(conn) -> str:
    return conn.user["wallet"]


def tokens(chain, conn, mint: str) -> int:
    return token_balance(chain.url, wallet(conn), mint)


def propose_extend(conn, mint: str, seconds: int = DAY, duration: str | None = "60") -> dict:
    body = {"mint": mint, "additionalSeconds": str(seconds)}
    if duration is not None:
        body["voteDurationSeconds"] = duration
    return ok(gov(conn, "extend", body))


def vote(conn, proposal: str, side: str, amount: int) -> dict:
    return ok(gov(conn, "vote", {"proposal": proposal, "side": side, "amount": str(amount)}))


def vote_on_chain(chain, conn, mint: str, proposal: str, side: str, amount: int) -> None:
    """A vote built directly (the API refuses amounts below minLockAmount; the program does not)."""
    from solders.pubkey import Pubkey

    from partner.chain import instructions as ix
    from partner.chain.rpc import Rpc
    from partner.chain.tx import WriteFees, assemble, land_processed, sign
    from partner.store.users import get_user
    from partner.store.wallets import SealedWalletSigner

    signer = SealedWalletSigner(get_user(conn.user["user_id"]))
    client = Rpc(chain.url)
    blockhash, last_valid = client.latest_blockhash()
    message = assemble(
        signer.pubkey,
        [ix.cast_vote(signer.pubkey, Pubkey.from_string(mint), Pubkey.from_string(proposal), side, amount)],
        fees=WriteFees(PRIO, TIP),
        blockhash=blockhash,
    )
    land_processed(client, sign(message, [signer]), last_valid)


def close_and_settle(chain, conn, proposal: str, seconds: int = 61) -> dict:
    warp(chain.url, seconds)
    return ok(gov(conn, "settle", {"proposal": proposal}))


# ------------------------------------------------------------------ input, scope, delegation


@pytest.mark.parametrize(
    "name,body,field",
    [
        ("vote", {"side": "maybe", "amount": "1000000"}, "side"),
        ("vote", {"side": "yes", "amount": "0"}, "amount"),
        ("vote", {"side": "yes", "amount": "1.5"}, "amount"),
        ("vote", {"side": "yes", "amount": 1000000}, "amount"),
        ("vote", {"side": "yes"}, "amount"),
        ("vote", {"side": "yes", "amount": "1000000", "proposal": "not-a-key"}, "proposal"),
        ("vote", {"side": "yes", "amount": "1000000", "priorityFeeLamports": "999"}, "priorityFeeLamports"),
        ("vote", {"side": "yes", "amount": "1000000", "tipLamports": "999999"}, "tipLamports"),
        (
            "vote",
            {"side": "yes", "amount": "1000000", "priorityFeeLamports": "18446744073709551615"},
            "priorityFeeLamports",
        ),  # issue 17 item 2: was 500 internal (compute-unit price past u64)
        ("settle", {"priorityFeeLamports": "18446744073709551615"}, "priorityFeeLamports"),
        ("vote", {"side": "yes", "amount": "1000000", "mint": "x"}, "mint"),
        ("cancel", {"amount": "1"}, "amount"),
        ("withdraw", {"voter": "0OIl"}, "voter"),
        ("settle", {"proposal": None}, "proposal"),
        ("bond", {"voteDurationSeconds": "0"}, "voteDurationSeconds"),
    ],
)
def test_vote_group_input_errors(aws_stack, chain, app_client, name, body, field):
    conn = member(chain, app_client, sol=0)
    full = {"proposal": str(Keypair().pubkey()), **body}
    result = gov(conn, name, full)
    assert refused(result, "invalid_input", 400)["field"] == field
    assert result.headers["x-ratelimit-limit"] == "60"


@pytest.mark.parametrize(
    "name,body,field",
    [
        ("extend", {"additionalSeconds": "0"}, "additionalSeconds"),
        ("extend", {}, "additionalSeconds"),
        ("extend", {"additionalSeconds": "60", "voteDurationSeconds": 600}, "voteDurationSeconds"),
        ("extend", {"additionalSeconds": "60", "voteDurationSeconds": "-5"}, "voteDurationSeconds"),
        ("finalize", {"voteDurationSeconds": "600.0"}, "voteDurationSeconds"),
        ("finalize", {"mint": "short"}, "mint"),
        ("expired", {"proposal": "x"}, "proposal"),
        ("finalize", {"priorityFeeLamports": "18446744073709551615"}, "priorityFeeLamports"),
    ],
)
def test_propose_group_input_errors(aws_stack, chain, app_client, name, body, field):
    conn = member(chain, app_client, sol=0)
    result = gov(conn, name, {"mint": str(Keypair().pubkey()), **body})
    assert refused(result, "invalid_input", 400)["field"] == field


def test_scope_then_input_then_delegation(aws_stack, chain, app_client):
    from partnerctl import admin

    voter_only = member(chain, app_client, sol=0, scope="governance:vote")
    result = gov(voter_only, "extend", {"mint": "x"})
    refused(result, "insufficient_scope", 403)
    assert 'scope="governance:propose"' in result.headers["www-authenticate"]
    proposer_only = member(chain, app_client, sol=0, scope="governance:propose")
    refused(gov(proposer_only, "vote", {"proposal": "x"}), "insufficient_scope", 403)

    conn = member(chain, app_client, sol=0)
    admin.set_delegation(conn.user["user_id"], False)
    refused(gov(conn, "vote", {"proposal": "x", "side": "yes", "amount": "1"}), "invalid_input", 400)
    for name in ENDPOINTS:
        body = (
            {"proposal": str(Keypair().pubkey()), "side": "yes", "amount": "1000000"}
            if name == "vote"
            else {"proposal": str(Keypair().pubkey())}
            if name in ("cancel", "withdraw", "settle", "bond")
            else {"mint": str(Keypair().pubkey()), "additionalSeconds": "60"}
            if name == "extend"
            else {"mint": str(Keypair().pubkey())}
        )
        refused(gov(conn, name, body), "delegation_missing", 403)


def test_unknown_and_unreadable_targets(chain, coin, app_client):
    from partner.chain import programs as P

    conn = member(chain, app_client)
    unknown = str(Keypair().pubkey())
    not_a_proposal = str(P.governance_pda(coin)[0])  # a launchpad account of another type
    for name in ("vote", "cancel", "withdraw", "settle", "bond"):
        body = {"side": "yes", "amount": "1000000"} if name == "vote" else {}
        refused(gov(conn, name, {"proposal": unknown, **body}), "proposal_not_found")
        refused(gov(conn, name, {"proposal": not_a_proposal, **body}), "invalid_proposal")
    for name in ("extend", "finalize", "expired"):
        body = {"additionalSeconds": "60"} if name == "extend" else {}
        refused(gov(conn, name, {"mint": unknown, **body}), "governance_not_found", 404)
        refused(
            gov(conn, name, {"mint": coin[:-1] + ("1" if coin[-1] != "1" else "2"), **body}),
            "governance_not_found",
            404,
        )


# ------------------------------------------------------------------ Vote and Proposal state tables


def _round_trips(monkeypatch, write):
    """(what `write()` answered, how many JSON-RPC posts it made)."""
    from partner.chain import rpc as rpc_module

    posts: list[str] = []
    real_post = rpc_module.Rpc._post

    def counting(self, payload, **kw):
        posts.append(payload)
        return real_post(self, payload, **kw)

    monkeypatch.setattr(rpc_module.Rpc, "_post", counting)
    try:
        return write(), len(posts)
    finally:
        monkeypatch.setattr(rpc_module.Rpc, "_post", real_post)


def test_vote_and_proposal_lifecycle(chain, coin, app_client, monkeypatch):
    from partner.chain import programs as P
    from partner.chain.governance_math import ActionKind, Outcome

    proposer = member(chain, app_client, coin, BOND + 3 * T)
    alice = member(chain, app_client, coin, 5 * T)
    bob = member(chain, app_client, coin, 2 * T)
    carol = member(chain, app_client, coin, 3 * T)
    empty = member(chain, app_client)
    poor = member(chain, app_client, coin, T)
    cranker = member(chain, app_client)
    governance = str(P.governance_pda(coin)[0])

    # Proposal: none -> voting open, only with the token and the bond
    refused(gov(empty, "extend", {"mint": coin, "additionalSeconds": str(DAY)}), "missing_proposal_token_account")
    short = refused(gov(poor, "extend", {"mint": coin, "additionalSeconds": str(DAY)}), "insufficient_proposal_bond")
    assert (short["requiredTokens"], short["availableTokens"]) == (str(BOND), str(T))
    created = propose_extend(proposer, coin, duration=None)  # default 600 s
    proposal = created["proposal"]
    assert proposal == str(P.proposal_pda(governance, 0)[0])
    assert (created["mint"], created["governance"]) == (coin, governance)
    assert tokens(chain, proposer, coin) == 3 * T  # the bond is locked
    p = proposal_of(chain, proposal)
    assert (p.action_kind, p.action_additional_seconds, p.bond_amount) == (ActionKind.EXTEND_MUTABILITY, DAY, BOND)
    assert p.voting_ends_at - p.created_at == 600
    assert str(governance_of(chain, coin).active_proposal) == proposal
    refused(gov(proposer, "extend", {"mint": coin, "additionalSeconds": str(DAY)}), "active_proposal_exists")
    refused(gov(proposer, "finalize", {"mint": coin}), "active_proposal_exists")

    # Vote: none -> active (tokens locked); a second vote fails already_voted
    voted = vote(alice, proposal, "yes", 2 * T)
    assert (voted["mint"], voted["governance"], voted["proposal"]) == (coin, governance, proposal)
    assert tokens(chain, alice, coin) == 3 * T
    receipt = receipt_of(chain, proposal, wallet(alice))
    assert (receipt.amount, receipt.active, receipt.withdrawn, receipt.counted_as_voter) == (2 * T, True, False, True)
    refused(gov(alice, "vote", {"proposal": proposal, "side": "no", "amount": str(T)}), "already_voted")
    # amount below minLockAmount (API rule) or above the balance; no token account at all
    low = refused(gov(bob, "vote", {"proposal": proposal, "side": "yes", "amount": str(T - 1)}), "invalid_vote_amount")
    assert low["minLockAmount"] == str(T)
    refused(gov(bob, "vote", {"proposal": proposal, "side": "yes", "amount": str(2 * T + 1)}), "invalid_vote_amount")
    refused(gov(empty, "vote", {"proposal": proposal, "side": "yes", "amount": str(T)}), "missing_vote_token_account")
    assert tokens(chain, bob, coin) == 2 * T
    vote(bob, proposal, "no", 2 * T)  # exactly the balance, then the account is empty
    assert tokens(chain, bob, coin) == 0
    vote(carol, proposal, "yes", T)  # exactly minLockAmount
    p = proposal_of(chain, proposal)
    assert (p.yes_votes, p.no_votes, p.participating_supply, p.participating_voters) == (3 * T, 2 * T, 5 * T, 3)

    # Vote: active -> cancelled while open (tokens back at once); cancelled cancel -> vote_not_active
    refused(gov(cranker, "cancel", {"proposal": proposal}), "vote_receipt_not_found")
    ok(gov(carol, "cancel", {"proposal": proposal}))
    assert tokens(chain, carol, coin) == 3 * T
    assert receipt_of(chain, proposal, wallet(carol)).active is False
    refused(gov(carol, "cancel", {"proposal": proposal}), "vote_not_active")
    p = proposal_of(chain, proposal)
    assert (p.yes_votes, p.participating_voters) == (2 * T, 2)

    # Proposal: settle while voting is open fails; withdrawals need settlement
    refused(gov(cranker, "settle", {"proposal": proposal}), "proposal_still_open")
    refused(gov(alice, "withdraw", {"proposal": proposal}), "proposal_not_settled")
    refused(gov(cranker, "bond", {"proposal": proposal}), "proposal_not_settled")

    # Proposal: voting open -> closed at votingEndsAtUnix: new votes and cancels fail proposal_closed
    warp(chain.url, 600)
    refused(gov(carol, "vote", {"proposal": proposal, "side": "yes", "amount": str(T)}), "proposal_closed")
    refused(gov(alice, "cancel", {"proposal": proposal}), "proposal_closed")

    # Proposal: closed -> settled by anyone; settled settle fails
    settled = ok(gov(cranker, "settle", {"proposal": proposal}))
    assert (settled["mint"], settled["governance"], settled["proposal"]) == (coin, governance, proposal)
    p = proposal_of(chain, proposal)
    assert (p.settled, p.outcome, p.executed) == (True, Outcome.QUORUM_NOT_MET, False)
    assert governance_of(chain, coin).active_proposal is None
    assert governance_of(chain, coin).mutability_extended is False
    refused(gov(proposer, "settle", {"proposal": proposal}), "proposal_already_settled")
    refused(gov(carol, "vote", {"proposal": proposal, "side": "yes", "amount": str(T)}), "proposal_closed")

    # Vote: active -> withdrawn; the tokens go to the voter, not the caller (a crank)
    ok(gov(cranker, "withdraw", {"proposal": proposal, "voter": wallet(bob)}))
    assert tokens(chain, bob, coin) == 2 * T and tokens(chain, cranker, coin) == 0
    # voter defaults to the caller; two batched reads (the proposal, then its governance and the
    # voter's tokens), the send and its status
    withdrawn, trips = _round_trips(monkeypatch, lambda: gov(alice, "withdraw", {"proposal": proposal}))
    ok(withdrawn)
    assert trips == 4
    assert tokens(chain, alice, coin) == 5 * T
    assert receipt_of(chain, proposal, wallet(alice)).withdrawn is True
    # withdrawn -> withdraw fails; cancelled -> withdraw fails; no vote at all
    refused(gov(alice, "withdraw", {"proposal": proposal}), "vote_already_withdrawn")
    refused(gov(cranker, "withdraw", {"proposal": proposal, "voter": wallet(bob)}), "vote_already_withdrawn")
    refused(gov(carol, "withdraw", {"proposal": proposal}), "vote_not_active")
    refused(gov(cranker, "withdraw", {"proposal": proposal}), "vote_receipt_not_found")

    # Proposal: settled, bond locked -> bond withdrawn to the proposer, whoever cranks it
    # as a vote's withdrawal: the proposer's token account is read with the governance, no read of its own
    bond, trips = _round_trips(
        monkeypatch, lambda: gov(cranker, "bond", {"proposal": proposal, "voteDurationSeconds": "600"})
    )
    ok(bond)
    assert trips == 4
    assert tokens(chain, proposer, coin) == BOND + 3 * T
    assert tokens(chain, cranker, coin) == 0
    assert proposal_of(chain, proposal).bond_withdrawn is True
    refused(gov(proposer, "bond", {"proposal": proposal}), "proposal_bond_already_withdrawn")

    # settlement cleared the active proposal: the next one gets index 1; the failed one (600 s of
    # voting, one day rounded up) doubled the bond until a whole day has passed (the proposal slot)
    short = refused(
        gov(proposer, "extend", {"mint": coin, "additionalSeconds": str(DAY)}), "insufficient_proposal_bond"
    )
    assert (short["requiredTokens"], short["availableTokens"]) == (str(2 * BOND), str(BOND + 3 * T))
    warp(chain.url, DAY)
    again = propose_extend(proposer, coin)
    assert again["proposal"] == str(P.proposal_pda(governance, 1)[0])


def test_no_proposal_bond(chain, app_client):
    from devstack.chain import genesis
    from partner.chain import governance_math as GM
    from partner.chain import instructions as ix
    from partner.chain.rpc import Rpc
    from partner.chain.tx import WriteFees, assemble, land_processed, sign
    from partner.store.wallets import KeypairSigner

    admin_key = genesis.ADMIN_KEYPAIR
    airdrop(chain.url, str(admin_key.pubkey()), SOL)
    client = Rpc(chain.url)

    def set_params(params):
        blockhash, last_valid = client.latest_blockhash()
        message = assemble(
            admin_key.pubkey(),
            [ix.set_governance_params(admin_key.pubkey(), params)],
            fees=WriteFees(PRIO, TIP),
            blockhash=blockhash,
        )
        land_processed(client, sign(message, [KeypairSigner(admin_key)]), last_valid)

    set_params(GM.GovernanceParams(proposal_bond_bps=0))
    try:
        mint = new_coin(chain.url, "No Bond", "NOBOND")
    finally:
        set_params(GM.DEFAULT_PARAMS)
    assert governance_of(chain, mint).proposal_bond_bps == 0
    proposer = member(chain, app_client, mint, T)
    proposal = propose_extend(proposer, mint)["proposal"]
    assert tokens(chain, proposer, mint) == T
    refused(gov(proposer, "bond", {"proposal": proposal}), "no_proposal_bond")


# ------------------------------------------------------------------ quorum and approval boundaries


def test_quorum_and_approval_boundaries(chain, coin, app_client):
    from partner.chain.governance_math import Outcome

    proposer = member(chain, app_client, coin, BOND)
    a = member(chain, app_client, coin, 30_000_000 * T)
    b = member(chain, app_client, coin, 20_000_000 * T)
    c = member(chain, app_client, coin, 2 * T)
    small = member(chain, app_client, coin, T // 2)
    holders = {"a": 30_000_000 * T, "b": 20_000_000 * T, "c": 2 * T, "small": T // 2}
    conns = {"a": a, "b": b, "c": c, "small": small}

    def cycle(votes, expected, direct=()):
        warp(chain.url, governance_of(chain, coin).bond_level * DAY)  # a failed proposal's bond level decays
        proposal = propose_extend(proposer, coin, seconds=DAY)["proposal"]
        assert tokens(chain, proposer, coin) == 0
        for name, side, amount in votes:
            vote(conns[name], proposal, side, amount)
            assert tokens(chain, conns[name], coin) == holders[name] - amount
        for name, side, amount in direct:
            vote_on_chain(chain, conns[name], coin, proposal, side, amount)
        close_and_settle(chain, proposer, proposal)
        p = proposal_of(chain, proposal)
        assert p.outcome == expected, (p.outcome, expected)
        for name, *_ in (*votes, *direct):
            ok(gov(conns[name], "withdraw", {"proposal": proposal}))
            assert tokens(chain, conns[name], coin) == holders[name]
        ok(gov(proposer, "bond", {"proposal": proposal}))
        assert tokens(chain, proposer, coin) == BOND
        return p

    # participating supply one base unit below 5% of supply, three counted voters, all yes
    p = cycle(
        [("a", "yes", 30_000_000 * T), ("b", "yes", 20_000_000 * T - T - 1), ("c", "yes", T)], Outcome.QUORUM_NOT_MET
    )
    assert (p.participating_supply, p.participating_voters) == (QUORUM - 1, 3)
    assert governance_of(chain, coin).mutability_extended is False

    # supply exactly at quorum but only two counted voters: the third vote is below minLockAmount,
    # cast directly on-chain (the API refuses it); it carries weight, countedAsVoter false
    refused(
        gov(small, "vote", {"proposal": str(Keypair().pubkey()), "side": "yes", "amount": str(T // 2)}),
        "proposal_not_found",
    )
    p = cycle(
        [("a", "yes", 30_000_000 * T), ("b", "yes", 20_000_000 * T - T // 2)],
        Outcome.QUORUM_NOT_MET,
        direct=[("small", "yes", T // 2)],
    )
    assert (p.participating_supply, p.participating_voters, p.yes_votes) == (QUORUM, 2, QUORUM)
    assert receipt_of(chain, str(p_key(coin, 1)), wallet(small)).counted_as_voter is False

    # quorum met exactly, yes one base unit below 60%
    p = cycle([("a", "yes", 30_000_000 * T - 1), ("b", "no", 20_000_000 * T - T + 1), ("c", "no", T)], Outcome.REJECTED)
    assert (p.participating_supply, p.participating_voters) == (QUORUM, 3)
    assert p.yes_votes * 10_000 == p.participating_supply * 6_000 - 10_000
    assert governance_of(chain, coin).mutability_extended is False

    # quorum and approval both exactly at the threshold: passes and executes
    before = governance_of(chain, coin).mutable_until
    p = cycle([("a", "yes", 30_000_000 * T), ("b", "no", 20_000_000 * T - T), ("c", "no", T)], Outcome.PASSED)
    assert p.yes_votes * 10_000 == p.participating_supply * 6_000 and p.participating_supply == QUORUM
    g = governance_of(chain, coin)
    assert p.executed and g.mutability_extended and g.mutable_until == before + DAY


def p_key(mint: str, index: int):
    from partner.chain import programs as P

    return P.proposal_pda(P.governance_pda(mint)[0], index)[0]


# ------------------------------------------------------------------ Metadata governance state table


def _quorum(chain, app_client, coin) -> list:
    """Three members holding QUORUM between them: (conn, amount) each."""
    return [(member(chain, app_client, coin, amount), amount) for amount in (QUORUM - 2 * T, T, T)]


def _pass(chain, coin, proposer, voters, proposal):
    for conn, amount in voters:
        vote(conn, proposal, "yes", amount)
    close_and_settle(chain, proposer, proposal)


def test_extend_once_and_capped(chain, coin, app_client):
    from partner.chain.governance_math import Outcome

    proposer = member(chain, app_client, coin, BOND)
    voters = _quorum(chain, app_client, coin)
    # over the cap (90 days) fails before anything is locked
    refused(
        gov(proposer, "extend", {"mint": coin, "additionalSeconds": str(90 * DAY + 1)}),
        "mutability_extension_exceeds_cap",
    )
    assert tokens(chain, proposer, coin) == BOND
    before = governance_of(chain, coin).mutable_until
    proposal = propose_extend(proposer, coin, seconds=90 * DAY)["proposal"]  # exactly the cap
    _pass(chain, coin, proposer, voters, proposal)
    p = proposal_of(chain, proposal)
    assert (p.outcome, p.executed) == (Outcome.PASSED, True)
    g = governance_of(chain, coin)
    assert g.mutability_extended and g.mutable_until == before + 90 * DAY
    ok(gov(proposer, "bond", {"proposal": proposal}))
    refused(gov(proposer, "extend", {"mint": coin, "additionalSeconds": "60"}), "mutability_already_extended")


def test_content_proposal_then_finalize_metadata(chain, coin, app_client):
    """mutable -> content proposal passes (contentRevision + 1) -> finalize-metadata passes -> finalized."""
    from solders.pubkey import Pubkey

    from partner.chain import instructions as ix
    from partner.chain import layouts as L
    from partner.chain.governance_math import ALL_FIELDS_MASK
    from partner.chain.rpc import Rpc
    from partner.chain.tx import WriteFees, assemble, land_processed, sign
    from partner.store.users import get_user
    from partner.store.wallets import SealedWalletSigner

    proposer = member(chain, app_client, coin, BOND)
    voters = _quorum(chain, app_client, coin)
    # a content proposal (its endpoint is multipart update-content; built directly here)
    signer = SealedWalletSigner(get_user(proposer.user["user_id"]))
    client = Rpc(chain.url)
    blockhash, last_valid = client.latest_blockhash()
    instruction = ix.propose_update_content(
        signer.pubkey,
        Pubkey.from_string(coin),
        0,
        # a name change keeps the uri-borne digests, the Governance's
        ix.ContentChange(
            changed_fields=("name",), name="Renamed Coin", digests=governance_of(chain, coin).content_digests
        ),
        base_content_revision=0,
        vote_duration_seconds=60,
    )
    land_processed(
        client,
        sign(assemble(signer.pubkey, [instruction], fees=WriteFees(PRIO, TIP), blockhash=blockhash), [signer]),
        last_valid,
    )
    content = str(p_key(coin, 0))
    _pass(chain, coin, proposer, voters, content)
    assert governance_of(chain, coin).content_revision == 1
    meta = L.TokenMetadata.from_mint(account(chain, coin))
    assert meta.name == "Renamed Coin"
    for conn, _ in voters:
        ok(gov(conn, "withdraw", {"proposal": content}))
    ok(gov(proposer, "bond", {"proposal": content}))

    final = ok(gov(proposer, "finalize", {"mint": coin, "voteDurationSeconds": "60"}))["proposal"]
    assert final == str(p_key(coin, 1))
    assert proposal_of(chain, final).base_content_revision == 1
    _pass(chain, coin, proposer, voters, final)
    g = governance_of(chain, coin)
    assert g.finalized and not g.finalized_by_expiry and g.locked_mask == ALL_FIELDS_MASK
    ok(gov(proposer, "bond", {"proposal": final}))
    assert tokens(chain, proposer, coin) == BOND
    # finalized: no further proposals, no finalize-expired
    refused(gov(proposer, "extend", {"mint": coin, "additionalSeconds": "60"}), "governance_finalized")
    refused(gov(proposer, "finalize", {"mint": coin}), "governance_finalized")
    refused(gov(proposer, "expired", {"mint": coin}), "governance_finalized")


def test_vote_durations_and_mutability_expiry(chain, coin, app_client):
    proposer = member(chain, app_client, coin, BOND)
    g = governance_of(chain, coin)
    refused(
        gov(proposer, "extend", {"mint": coin, "additionalSeconds": "60", "voteDurationSeconds": "59"}),
        "invalid_vote_duration",
    )
    refused(gov(proposer, "finalize", {"mint": coin, "voteDurationSeconds": str(7 * DAY + 1)}), "invalid_vote_duration")
    refused(gov(proposer, "expired", {"mint": coin}), "metadata_still_mutable")
    assert tokens(chain, proposer, coin) == BOND

    now = warp(chain.url, 0)["unixTimestamp"]
    warp(chain.url, g.mutable_until - now - 1000)
    refused(
        gov(proposer, "extend", {"mint": coin, "additionalSeconds": "60", "voteDurationSeconds": "1200"}),
        "vote_duration_exceeds_window",
    )
    warp(chain.url, 960)  # fewer than 60 s remain
    refused(gov(proposer, "finalize", {"mint": coin, "voteDurationSeconds": "60"}), "proposal_window_closing")
    warp(chain.url, 60)  # the window lapsed
    refused(gov(proposer, "extend", {"mint": coin, "additionalSeconds": "60"}), "mutability_expired")
    refused(gov(proposer, "finalize", {"mint": coin}), "metadata_not_mutable")
    assert governance_of(chain, coin).finalized is False
    done = ok(gov(proposer, "expired", {"mint": coin, "voteDurationSeconds": "1"}))  # accepted but ignored
    assert "proposal" not in done and done["mint"] == coin
    g = governance_of(chain, coin)
    assert g.finalized and g.finalized_by_expiry
    refused(gov(proposer, "expired", {"mint": coin}), "governance_finalized")
    assert tokens(chain, proposer, coin) == BOND


def test_program_is_the_backstop_for_a_stale_read(chain, coin, app_client, monkeypatch):
    """When the chain moved between the read and landing, the program's error maps to the spec code."""
    from partner.features.governance import writes

    proposer = member(chain, app_client, coin, BOND)
    voter = member(chain, app_client, coin, 2 * T)
    late = member(chain, app_client, coin, T)
    proposal = propose_extend(proposer, coin)["proposal"]
    vote(voter, proposal, "yes", T)
    warp(chain.url, 601)
    monkeypatch.setattr(writes.ProposalState, "voting_closed", lambda self: False)
    refused(gov(voter, "cancel", {"proposal": proposal}), "proposal_closed")  # program error 6107
    refused(gov(late, "vote", {"proposal": proposal, "side": "yes", "amount": str(T)}), "proposal_closed")
    assert tokens(chain, voter, coin) == T and tokens(chain, late, coin) == T
    p = proposal_of(chain, proposal)
    assert (p.yes_votes, p.participating_voters) == (T, 1)


def test_a_vote_right_after_a_proposal_works_while_finalized_lags(chain, coin, app_client):
    """Issue 25: the state a governance write decides on is read at `processed`. The node's default,
    `finalized` (~32 slots behind), does not yet hold the proposal just created: a vote deciding
    on it would answer 404 proposal_not_found."""
    from devstack.chain.testing import rpc as raw_rpc

    proposer = member(chain, app_client, coin, BOND)
    voter = member(chain, app_client, coin, 2 * T)
    proposal = propose_extend(proposer, coin)["proposal"]

    def finalized() -> object:
        return raw_rpc(chain.url, "getAccountInfo", [proposal, {"encoding": "base64"}], raw=True)["result"]["value"]

    assert finalized() is None  # finalized: no proposal yet
    voted = vote(voter, proposal, "yes", T)
    assert voted["proposal"] == proposal
    assert finalized() is None  # the vote was decided and landed while finalized still lacked the proposal
    receipt = receipt_of(chain, proposal, wallet(voter))
    assert (receipt.amount, receipt.active) == (T, True)
    assert tokens(chain, voter, coin) == T
