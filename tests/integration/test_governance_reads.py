"""GET governance/{mint} and GET governance/proposals/{proposal}/votes through the real handlers."""

from __future__ import annotations

import re

import pytest

from testkit.chain import new_coin, rpc, wait, warp
from testkit.helpers import connect, invoke
from tests.integration.test_update_content import BOND, base_fields, holder, post_form

ISO = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$")
GOVERNANCE_KEYS = {
    "governance",
    "mint",
    "metadata",
    "creator",
    "totalSupply",
    "createdAtUnix",
    "mutableUntilUnix",
    "minVoterCount",
    "minLockAmount",
    "minParticipatingSupplyBps",
    "approvalBps",
    "proposalBondBps",
    "proposalBondLevel",
    "nextProposalBondAmount",
    "finalized",
    "contentRevision",
    "mutabilityExtended",
    "nameLocked",
    "symbolLocked",
    "imageLocked",
    "descriptionLocked",
    "websiteLocked",
    "twitterLocked",
    "telegramLocked",
}
PROPOSAL_KEYS = {
    "proposal",
    "governance",
    "proposer",
    "proposalIndex",
    "baseContentRevision",
    "actionKind",
    "actionName",
    "actionSymbol",
    "actionUri",
    "actionAdditionalSeconds",
    "changedName",
    "changedSymbol",
    "changedImage",
    "changedDescription",
    "changedWebsite",
    "changedTwitter",
    "changedTelegram",
    "createdAtUnix",
    "votingEndsAtUnix",
    "proposalBondAmount",
    "proposalBondWithdrawn",
    "yesVotes",
    "noVotes",
    "participatingSupply",
    "participatingVoters",
    "outcome",
    "executed",
    "settled",
    "metadataUpdated",
    "signature",
    "blockTime",
}
VOTE_KEYS = {"proposal", "voter", "side", "amount", "countedAsVoter", "active", "withdrawn", "signature", "blockTime"}


def read(conn, mint: str):
    return invoke(
        "governance_read",
        "GET",
        f"/partner/v1/governance/{mint}",
        headers=conn.bearer(),
        resource="/partner/v1/governance/{mint}",
    )


def votes(conn, proposal: str, limit=None):
    query = None if limit is None else {"limit": limit}
    return invoke(
        "governance_votes_list",
        "GET",
        f"/partner/v1/governance/proposals/{proposal}/votes",
        headers=conn.bearer(),
        query=query,
        resource="/partner/v1/governance/proposals/{proposal}/votes",
    )


def land(chain_url: str, user: dict, instruction) -> str:
    from partner.chain.rpc import Rpc
    from partner.chain.tx import WriteFees, assemble, land_processed, sign
    from partner.store.users import get_user
    from partner.store.wallets import SealedWalletSigner

    chain = Rpc(chain_url)
    signer = SealedWalletSigner(get_user(user["user_id"]))
    blockhash, last_valid = chain.latest_blockhash()
    message = assemble(signer.pubkey, [instruction], fees=WriteFees(10_000, 1_000_000), blockhash=blockhash)
    return str(land_processed(chain, sign(message, [signer]), last_valid))


def vote(chain_url: str, conn, mint: str, proposal: str, side: str, amount: int) -> str:
    from solders.pubkey import Pubkey

    from partner.chain import instructions as ix

    wallet = Pubkey.from_string(conn.user["wallet"])
    return land(
        chain_url, conn.user, ix.cast_vote(wallet, Pubkey.from_string(mint), Pubkey.from_string(proposal), side, amount)
    )


@pytest.fixture(scope="module")
def scene(chain, pin_server, aws_stack):
    """A coin with two proposals (the first settled) and votes of three holders on the first."""
    from solders.keypair import Keypair
    from solders.pubkey import Pubkey

    from partner.chain import instructions as ix

    mint = new_coin(chain.url, "Read Coin", "READ")
    proposer = holder(chain.url, "10.250.0.1", mint, 3 * BOND)
    voters = [
        holder(chain.url, f"10.250.0.{i + 2}", mint, amount, scope="trade:execute")
        for i, amount in enumerate([5 * 10**12, 7 * 10**12, 500_000])
    ]
    first = post_form(proposer, base_fields(mint, description="First", voteDurationSeconds="60"))
    assert first.status == 200, first.body
    p0 = first.json["proposal"]
    vote_sigs = [
        vote(chain.url, voters[0], mint, p0, "yes", 5 * 10**12),
        vote(chain.url, voters[1], mint, p0, "no", 7 * 10**12),
        vote(chain.url, voters[2], mint, p0, "yes", 400_000),
    ]  # below minLockAmount
    # voter 0 cancels and votes again with less
    land(
        chain.url,
        voters[0].user,
        ix.cancel_vote(Pubkey.from_string(voters[0].user["wallet"]), Pubkey.from_string(mint), Pubkey.from_string(p0)),
    )
    vote_sigs[0] = vote(chain.url, voters[0], mint, p0, "yes", 3 * 10**12)
    warp(chain.url, 61)
    settler = Keypair()
    from testkit.chain import airdrop

    airdrop(chain.url, str(settler.pubkey()), 10**9)
    from partner.chain.rpc import Rpc
    from partner.chain.tx import WriteFees, assemble, land_processed, sign
    from partner.store.wallets import KeypairSigner

    rpc_client = Rpc(chain.url)
    blockhash, last_valid = rpc_client.latest_blockhash()
    message = assemble(
        settler.pubkey(),
        [ix.settle_proposal(settler.pubkey(), Pubkey.from_string(mint), Pubkey.from_string(p0))],
        fees=WriteFees(10_000, 1_000_000),
        blockhash=blockhash,
    )
    land_processed(rpc_client, sign(message, [KeypairSigner(settler)]), last_valid)
    second = post_form(proposer, base_fields(mint, name="Read Coin Two"))
    assert second.status == 200, second.body
    return {
        "mint": mint,
        "proposer": proposer,
        "voters": voters,
        "p0": p0,
        "p1": second.json["proposal"],
        "first": first.json,
        "second": second.json,
        "vote_sigs": vote_sigs,
    }


def test_governance_object_every_field(chain, scene):
    from partner.chain import programs as P

    mint = scene["mint"]
    result = read(scene["proposer"], mint)
    assert result.status == 200, result.body
    assert result.headers["x-ratelimit-limit"] == "300"
    body = result.json
    assert set(body) == {"governance", "proposals", "viewerVotes"}
    gov = body["governance"]
    assert set(gov) == GOVERNANCE_KEYS
    assert gov["governance"] == str(P.governance_pda(mint)[0]) == scene["first"]["governance"]
    assert gov["mint"] == mint and gov["metadata"] == mint
    assert gov["totalSupply"] == str(10**15)
    assert int(gov["mutableUntilUnix"]) - int(gov["createdAtUnix"]) == 30 * 86_400
    assert (
        gov["minVoterCount"],
        gov["minLockAmount"],
        gov["minParticipatingSupplyBps"],
        gov["approvalBps"],
        gov["proposalBondBps"],
    ) == (3, "1000000", 500, 6000, 100)
    assert gov["finalized"] is False and gov["mutabilityExtended"] is False and gov["contentRevision"] == "0"
    # the first proposal failed its quorum (a 60 s vote: one day, rounded up): the bond doubled
    assert (gov["proposalBondLevel"], gov["nextProposalBondAmount"]) == (1, str(2 * BOND))
    assert all(gov[k] is False for k in GOVERNANCE_KEYS if k.endswith("Locked"))
    creator = rpc(chain.url, "getAccountInfo", [gov["governance"], {"encoding": "base64"}])["value"]
    assert (
        creator is not None and isinstance(gov["creator"], str) and gov["creator"] != scene["proposer"].user["wallet"]
    )


def test_proposals_newest_first_with_every_field(chain, scene):
    body = read(scene["proposer"], scene["mint"]).json
    proposals = body["proposals"]
    assert [p["proposal"] for p in proposals] == [scene["p1"], scene["p0"]]
    assert [p["proposalIndex"] for p in proposals] == ["1", "0"]
    for p in proposals:
        assert set(p) == PROPOSAL_KEYS
        assert p["proposer"] == scene["proposer"].user["wallet"] and p["actionKind"] == "update_content"
        assert ISO.match(p["blockTime"])
    newest, oldest = proposals
    # the first failed its quorum: the second locked twice the bond (the proposal slot)
    assert (newest["proposalBondAmount"], oldest["proposalBondAmount"]) == (str(2 * BOND), str(BOND))
    assert newest["signature"] == scene["second"]["signature"]
    assert oldest["signature"] == scene["first"]["signature"]
    assert newest["actionName"] == "Read Coin Two" and newest["changedName"] is True and newest["actionUri"] is None
    assert newest["outcome"] == "pending" and newest["settled"] is False
    assert oldest["actionUri"] == scene["first"]["metadataUri"] and oldest["changedDescription"] is True
    assert oldest["actionName"] is None and oldest["actionSymbol"] is None and oldest["actionAdditionalSeconds"] is None
    assert oldest["yesVotes"] == str(3 * 10**12 + 400_000) and oldest["noVotes"] == str(7 * 10**12)
    assert oldest["participatingSupply"] == str(10 * 10**12 + 400_000) and oldest["participatingVoters"] == 2
    assert oldest["settled"] is True and oldest["outcome"] == "quorum_not_met"
    assert oldest["executed"] is False and oldest["metadataUpdated"] is False
    assert oldest["proposalBondWithdrawn"] is False
    assert int(oldest["votingEndsAtUnix"]) - int(oldest["createdAtUnix"]) == 60
    status = wait(chain.url, oldest["signature"])
    assert status["err"] is None


def test_viewer_votes(scene):
    mint = scene["mint"]
    assert read(scene["proposer"], mint).json["viewerVotes"] == []
    mine = read(scene["voters"][0], mint).json["viewerVotes"]
    assert len(mine) == 1 and set(mine[0]) == VOTE_KEYS
    assert mine[0] | {"blockTime": None} == {
        "proposal": scene["p0"],
        "voter": scene["voters"][0].user["wallet"],
        "side": "yes",
        "amount": str(3 * 10**12),
        "countedAsVoter": True,
        "active": True,
        "withdrawn": False,
        "signature": scene["vote_sigs"][0],
        "blockTime": None,
    }
    assert ISO.match(mine[0]["blockTime"])
    small = read(scene["voters"][2], mint).json["viewerVotes"]
    assert small[0]["countedAsVoter"] is False and small[0]["amount"] == "400000"


def test_votes_largest_stake_first(scene):
    result = votes(scene["proposer"], scene["p0"])
    assert result.status == 200 and result.headers["x-ratelimit-limit"] == "300"
    listed = result.json["votes"]
    assert [v["amount"] for v in listed] == [str(7 * 10**12), str(3 * 10**12), "400000"]
    assert [v["side"] for v in listed] == ["no", "yes", "yes"]
    assert [v["signature"] for v in listed] == [scene["vote_sigs"][1], scene["vote_sigs"][0], scene["vote_sigs"][2]]
    assert all(set(v) == VOTE_KEYS and ISO.match(v["blockTime"]) for v in listed)
    assert votes(scene["proposer"], scene["p1"]).json == {"votes": []}


@pytest.mark.parametrize(
    "limit, count",
    [
        (None, 3),
        ("1", 1),
        ("2", 2),
        ("0", 3),
        ("-1", 3),
        ("abc", 3),
        ("", 3),
        ("1.5", 3),
        ("999", 3),
        ("99999999999999999999999", 3),
    ],
)
def test_votes_limit_never_400(scene, limit, count):
    result = votes(scene["proposer"], scene["p0"], limit)
    assert result.status == 200 and len(result.json["votes"]) == count


def test_votes_limit_rules_unit():
    from partner.features.governance.reads import parse_limit

    assert [parse_limit(v) for v in (None, "", "0", "-5", "x", "1.5", "7", "200", "201", "10" * 20)] == [
        50,
        50,
        50,
        50,
        50,
        50,
        7,
        200,
        200,
        200,
    ]


@pytest.mark.parametrize("proposal", ["not-a-key", "0OIl", "So11111111111111111111111111111111111111112"])
def test_votes_malformed_or_unknown_proposal_is_empty(scene, proposal):
    result = votes(scene["proposer"], proposal)
    assert result.status == 200 and result.json == {"votes": []}


@pytest.mark.parametrize("mint", ["not-a-key", "0OIl", "So11111111111111111111111111111111111111112", "x" * 60])
def test_unknown_or_malformed_mint_is_404(scene, mint):
    result = read(scene["proposer"], mint)
    assert result.status == 404 and result.json["error"] == "governance_not_found"


def test_a_coin_without_proposals(chain, scene):
    mint = new_coin(chain.url, "Quiet Coin", "QUIET")
    body = read(scene["proposer"], mint).json
    assert body["proposals"] == [] and body["viewerVotes"] == [] and body["governance"]["mint"] == mint


def test_reads_need_a_valid_token_but_no_scope(scene):
    from partnerctl import admin

    bad = invoke(
        "governance_read",
        "GET",
        f"/partner/v1/governance/{scene['mint']}",
        headers={"Authorization": "Bearer app_at_nope"},
        resource="/partner/v1/governance/{mint}",
    )
    assert bad.status == 401 and bad.json["error"] == "invalid_token"
    bad = invoke(
        "governance_votes_list",
        "GET",
        f"/partner/v1/governance/proposals/{scene['p0']}/votes",
        resource="/partner/v1/governance/proposals/{proposal}/votes",
    )
    assert bad.status == 401 and bad.json["error"] == "invalid_token"
    client = admin.create_client(admin.NewClient(name="Reader", redirect_uri="http://localhost:8080/callback"))
    reader = connect(client, admin.create_user(), scope="profile:read", ip="10.250.1.1")
    assert read(reader, scene["mint"]).status == 200


def test_round_trips_are_batched(scene, ports):
    from partner.chain.rpc import Rpc

    made: list[Rpc] = []

    def counting(timeout: float | None = None) -> Rpc:
        made.append(ports.settings_rpc(timeout))
        return made[-1]

    ports.install(rpc=counting)
    assert read(scene["voters"][0], scene["mint"]).status == 200
    assert made[-1].round_trips == 2
    assert votes(scene["proposer"], scene["p0"]).status == 200
    assert made[-1].round_trips == 2
