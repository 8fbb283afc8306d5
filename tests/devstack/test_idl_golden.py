"""Golden: real transactions and accounts of the devstack chain, decoded from the IDLs
alone by an independent decoder (anchorpy-idl + construct, tests/idl_decoder.py), agree
with the service's IDL layer and with what was sent.

One coin's life runs through the SBF programs: create + buy in one transaction,
sell, a proposal with a vote, settlement, bond and vote withdrawals, the buy that
completes the curve, migration, and both pool swaps."""

from __future__ import annotations

import base64

import pytest
from solders.keypair import Keypair
from solders.transaction import VersionedTransaction

from devstack.chain import server
from devstack.chain.genesis import FEE_RECIPIENT as FEE
from devstack.chain.testing import build_tx, latest_blockhash, result, send
from partner.chain import governance_math as GM
from partner.chain import instructions as I
from partner.chain import layouts as L
from partner.chain import programs as P
from partner.chain.governance_math import ActionKind
from partner.chain.idls import LAUNCHPAD, POOL
from tests.idl_decoder import Decoder, service_plain

SOL = 10**9


@pytest.fixture(scope="module")
def life():
    """Run the coin's life; -> (chain url, [(signature, [(builder args)...])], named addresses)."""
    h = server.start_chain(port=0)
    url = h.url
    creator, mint = Keypair(), Keypair()
    result(url, "requestAirdrop", [str(creator.pubkey()), 200 * SOL])
    c, m = creator.pubkey(), mint.pubkey()
    governance = P.governance_pda(m)[0]
    proposal = P.proposal_pda(governance, 0)[0]
    sent = []

    def run(ixs, signers=()):
        resp = send(url, build_tx(ixs, creator, [creator, *signers], latest_blockhash(url)))
        assert "result" in resp, resp
        status = result(url, "getSignatureStatuses", [[resp["result"]]])["value"][0]
        assert status and status["err"] is None, status
        sent.append((resp["result"], ixs))

    def warp(seconds):
        with h.bank.lock:
            h.bank.warp(seconds)

    try:
        run([I.create_coin(c, m, "Golden", "GOLD", "ipfs://golden"), I.buy(c, m, FEE, 2 * SOL, 1)], [mint])
        warp(1)
        run([I.sell(c, m, FEE, 10**12, 1)])
        run(
            [
                I.propose_update_content(
                    c,
                    m,
                    0,
                    # a name change keeps the uri-borne digests (no document at create_coin: all absent)
                    I.ContentChange(changed_fields=("name",), name="Golden 2", digests=GM.content_digests({})),
                    base_content_revision=0,
                )
            ]
        )
        run([I.cast_vote(c, m, proposal, "yes", 5 * 10**12)])
        warp(601)
        run([I.settle_proposal(c, m, proposal)])
        run([I.withdraw_vote(c, c, m, proposal), I.withdraw_bond(c, c, m, proposal)])
        run([I.buy(c, m, FEE, 90 * SOL, 0)])
        run([I.migrate(c, m)])
        warp(3)
        run([I.swap(c, m, FEE, False, SOL, 1), I.swap_exact_out(c, m, FEE, 10**9, 2 * SOL)])
        addresses = {
            "Global": P.global_pda()[0],
            "BondingCurve": P.bonding_curve_pda(m)[0],
            "Governance": governance,
            "Proposal": proposal,
            "VoteReceipt": P.vote_pda(proposal, c)[0],
            "Pool": P.pool_pda(m)[0],
        }
        yield url, sent, addresses, (c, m)
    finally:
        h.stop()


def is_writable(message, i: int) -> bool:
    """From the legacy message header: writable signers first, then writable non-signers."""
    h, n = message.header, len(message.account_keys)
    signers = h.num_required_signatures
    return i < signers - h.num_readonly_signed_accounts or signers <= i < n - h.num_readonly_unsigned_accounts


def test_transactions_decode_alike(life):
    url, sent, _, _ = life
    decoders = {d.address: d for d in (Decoder("launchpad"), Decoder("pool"))}
    ours = {LAUNCHPAD.address: LAUNCHPAD, POOL.address: POOL}
    seen = []
    for signature, ixs in sent:
        tx = result(url, "getTransaction", [signature, {"encoding": "base64", "maxSupportedTransactionVersion": 0}])
        message = VersionedTransaction.from_bytes(base64.b64decode(tx["transaction"][0])).message
        keys = message.account_keys
        landed = [ci for ci in message.instructions if keys[ci.program_id_index] in decoders]
        assert len(landed) == len(ixs)
        for ci, ix in zip(landed, ixs, strict=True):
            program = keys[ci.program_id_index]
            name, args = decoders[program].instruction(bytes(ci.data))
            # the independent decode = the service's decode = what the builder was asked for
            assert (name, args) == (lambda n, a: (n, service_plain(a)))(*ours[program].decode_instruction(ci.data))
            assert bytes(ci.data) == bytes(ix.data)
            flags = decoders[program].account_flags(name)
            assert [keys[i] for i in bytes(ci.accounts)] == [meta.pubkey for meta in ix.accounts]
            assert len(flags) == len(ci.accounts)
            for (acc_name, signer, writable), i in zip(flags, bytes(ci.accounts), strict=True):
                assert not signer or message.is_signer(i), (name, acc_name)
                assert not writable or is_writable(message, i), (name, acc_name)
            seen.append((name, args))
    names = [n for n, _ in seen]
    assert names == [
        "create_coin",
        "buy",
        "sell",
        "create_proposal",
        "cast_vote",
        "settle_proposal",
        "withdraw_vote",
        "withdraw_bond",
        "buy",
        "migrate",
        "swap",
        "swap_exact_out",
    ]
    absent = GM.content_digests({})  # no metadata document: five digests of the empty string
    assert seen[0][1] == {"name": "Golden", "symbol": "GOLD", "uri": "ipfs://golden", "content_digests": absent}
    assert seen[1][1] == {"sol_in": 2 * SOL, "min_tokens_out": 1}
    assert seen[3][1] == {
        "action_kind": "UpdateContent",
        "base_content_revision": 0,
        "vote_duration_seconds": 600,
        "name": "Golden 2",
        "symbol": None,
        "uri": None,
        "additional_seconds": None,
        "changed_fields": 1,
        "content_digests": absent,
    }
    assert seen[4][1] == {"side": "Yes", "amount": 5 * 10**12}
    assert seen[10][1] == {"base_in": False, "amount_in": SOL, "min_amount_out": 1}


def test_accounts_decode_alike(life):
    url, _, addresses, (creator, mint) = life
    decoders = (Decoder("launchpad"), Decoder("pool"))
    decoded = {}
    for name, address in addresses.items():
        info = result(url, "getAccountInfo", [str(address), {"encoding": "base64"}])["value"]
        data = base64.b64decode(info["data"][0])
        decoder = next(d for d in decoders if str(d.address) == info["owner"])
        kind, fields = decoder.account(data)
        ours = L.decode_account(data)
        assert kind == name == type(ours).__name__
        assert fields == service_plain(ours)
        assert len(data) == type(ours).SIZE
        decoded[name] = fields
    assert decoded["BondingCurve"]["mint"] == mint and decoded["BondingCurve"]["migrated"] is True
    mint_info = result(url, "getAccountInfo", [str(mint), {"encoding": "base64"}])["value"]
    assert mint_info["owner"] == str(P.TOKEN_2022_PROGRAM_ID)
    meta = L.TokenMetadata.from_mint(base64.b64decode(mint_info["data"][0]))
    assert meta.name == "Golden"  # one voter: quorum not met, nothing applied
    assert decoded["Proposal"]["outcome"] == "QuorumNotMet" and decoded["Proposal"]["action_name"] == "Golden 2"
    assert decoded["Proposal"]["action_kind"] == "UpdateContent" and decoded["Proposal"]["bond_withdrawn"] is True
    assert decoded["VoteReceipt"]["voter"] == creator and decoded["VoteReceipt"]["withdrawn"] is True
    assert decoded["Governance"]["active_proposal"] is None and decoded["Governance"]["next_proposal_index"] == 1
    assert decoded["Global"]["governance_defaults_set"] is False
    assert decoded["Pool"]["mint"] == mint and decoded["Pool"]["base_reserve"] > 0
    assert ActionKind(0).name == "UPDATE_CONTENT"
