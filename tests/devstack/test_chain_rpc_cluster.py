"""The devstack chain's block, cluster and holder methods (issue 36 item 2): each answer parsed by
solders' own typed response (what solana-py hands a caller), and checked against the chain's state:
a mint's largest holders sorted, a landed transaction in its block, the single node's cluster."""

from __future__ import annotations

import time

import pytest
from solders.keypair import Keypair
from solders.rpc import responses as R
from spl.token.constants import TOKEN_PROGRAM_ID

from devstack.chain.testing import airdrop, build_tx, latest_blockhash, rpc
from testkit.chain import mint_to_checked
from tests.devstack.test_chain_token import DEC, make_ata, make_mint, ok

SOL = 1_000_000_000


def typed(url: str, resp_type, method: str, params=None):
    """The raw JSON answer parsed by solders' response type: a shape Agave's clients accept."""
    import json

    raw = rpc(url, method, params)
    assert "error" not in raw, raw
    parsed = resp_type.from_json(json.dumps(raw))
    assert type(parsed).__name__ == resp_type.__name__, parsed
    return raw["result"], parsed


def wait_confirmed(url: str, sig: str) -> int:
    for _ in range(100):
        status = rpc(url, "getSignatureStatuses", [[sig]])["result"]["value"][0]
        if status and status["confirmationStatus"] in ("confirmed", "finalized"):
            return status["slot"]
        time.sleep(0.1)
    raise AssertionError("not confirmed")


def test_token_largest_accounts_sorted_with_amounts(chain):
    url = chain.url
    payer = Keypair()
    airdrop(url, payer.pubkey(), 10 * SOL)
    mint = make_mint(url, payer, payer.pubkey())
    holders = [Keypair().pubkey() for _ in range(3)]
    amounts = [5, 700, 42]
    for owner, n in zip(holders, amounts, strict=True):
        ata = make_ata(url, payer, owner, mint)
        ok(
            url,
            build_tx(
                [mint_to_checked(mint, ata, payer.pubkey(), n, DEC, TOKEN_PROGRAM_ID)], payer, [], latest_blockhash(url)
            ),
        )
    value, parsed = typed(
        url, R.GetTokenLargestAccountsResp, "getTokenLargestAccounts", [str(mint), {"commitment": "processed"}]
    )
    got = [(a["amount"], a["decimals"]) for a in value["value"]]
    assert got == [("700", DEC), ("42", DEC), ("5", DEC)]
    assert value["value"][0]["uiAmountString"] == "0.0007" and len(parsed.value) == 3
    bad = rpc(url, "getTokenLargestAccounts", [str(Keypair().pubkey())])
    assert bad["error"]["code"] == -32602


def test_blocks_and_a_landed_transaction_in_its_block(chain):
    url = chain.url
    wallet = Keypair().pubkey()
    sig = airdrop(url, wallet, SOL)
    slot = wait_confirmed(url, sig)
    blocks, _ = typed(url, R.GetBlocksResp, "getBlocks", [max(slot - 2, 0), slot, {"commitment": "confirmed"}])
    assert blocks == list(range(max(slot - 2, 0), slot + 1))
    limited, _ = typed(url, R.GetBlocksWithLimitResp, "getBlocksWithLimit", [slot, 1, {"commitment": "confirmed"}])
    assert limited == [slot]
    block, parsed = typed(
        url, R.GetBlockResp, "getBlock", [slot, {"commitment": "confirmed", "maxSupportedTransactionVersion": 0}]
    )
    assert block["parentSlot"] == max(slot - 1, 0) and block["blockHeight"] == slot
    assert sig in [t["transaction"]["signatures"][0] for t in block["transactions"]]
    ours = next(t for t in block["transactions"] if t["transaction"]["signatures"][0] == sig)
    assert ours["meta"]["err"] is None and ours["version"] == "legacy"
    assert parsed.value.block_height == slot
    sigs_only = rpc(url, "getBlock", [slot, {"commitment": "confirmed", "transactionDetails": "signatures"}])["result"]
    assert sig in sigs_only["signatures"] and "transactions" not in sigs_only
    accounts = rpc(url, "getBlock", [slot, {"commitment": "confirmed", "transactionDetails": "accounts"}])["result"]
    keys = next(t for t in accounts["transactions"] if t["transaction"]["signatures"][0] == sig)["transaction"]
    payer, to = keys["accountKeys"][0], next(k for k in keys["accountKeys"] if k["pubkey"] == str(wallet))
    assert (payer["signer"], payer["writable"], to["signer"], to["writable"]) == (True, True, False, True)
    future = rpc(url, "getBlock", [slot + 10_000, {"commitment": "confirmed"}])
    assert future["error"]["code"] == -32004
    below = rpc(url, "getBlock", [slot, {"commitment": "processed"}])
    assert below["error"]["code"] == -32602


def test_supply_counts_an_airdrop(chain):
    url = chain.url
    before, _ = typed(url, R.GetSupplyResp, "getSupply", [{"commitment": "processed"}])
    sig = airdrop(url, Keypair().pubkey(), 3 * SOL)
    assert sig
    after, _ = typed(url, R.GetSupplyResp, "getSupply", [{"commitment": "processed"}])
    # the faucet pays the airdrop and its fee: the total moves by the fee burnt at most
    assert 0 <= before["value"]["total"] - after["value"]["total"] <= 10_000
    assert after["value"]["circulating"] == after["value"]["total"] and after["value"]["nonCirculating"] == 0


@pytest.mark.parametrize(
    "method,params,resp_type",
    [
        ("getEpochSchedule", None, R.GetEpochScheduleResp),
        ("getLeaderSchedule", None, R.GetLeaderScheduleResp),
        ("getClusterNodes", None, R.GetClusterNodesResp),
        ("getVoteAccounts", None, R.GetVoteAccountsResp),
        ("getStakeMinimumDelegation", None, R.GetStakeMinimumDelegationResp),
        ("getRecentPerformanceSamples", [5], R.GetRecentPerformanceSamplesResp),
        ("getSlotLeader", None, R.GetSlotLeaderResp),
        ("getSlotLeaders", [0, 10], R.GetSlotLeadersResp),
        ("getBlockCommitment", [0], R.GetBlockCommitmentResp),
        ("getBlockProduction", None, R.GetBlockProductionResp),
        ("getInflationGovernor", None, R.GetInflationGovernorResp),
        ("getInflationRate", None, R.GetInflationRateResp),
        ("getLargestAccounts", None, R.GetLargestAccountsResp),
        ("getMaxRetransmitSlot", None, R.GetMaxRetransmitSlotResp),
        ("getMaxShredInsertSlot", None, R.GetMaxShredInsertSlotResp),
    ],
)
def test_cluster_methods_parse_as_agaves(chain, method, params, resp_type):
    typed(chain.url, resp_type, method, params)


def test_cluster_values_of_a_single_node(chain):
    url = chain.url
    identity = rpc(url, "getIdentity")["result"]["identity"]
    schedule = rpc(url, "getLeaderSchedule")["result"]
    assert list(schedule) == [identity] and schedule[identity][:3] == [0, 1, 2]
    assert rpc(url, "getLeaderSchedule", [None, {"identity": str(Keypair().pubkey())}])["result"] == {}
    nodes = rpc(url, "getClusterNodes")["result"]
    assert [n["pubkey"] for n in nodes] == [identity]
    assert nodes[0]["rpc"] == url.removeprefix("http://") and nodes[0]["pubsub"] == chain.ws_url.removeprefix("ws://")
    assert rpc(url, "getVoteAccounts")["result"] == {"current": [], "delinquent": []}
    assert rpc(url, "getStakeMinimumDelegation")["result"]["value"] == 1
    assert rpc(url, "minimumLedgerSlot")["result"] == 0
    assert rpc(url, "getHighestSnapshotSlot")["error"] == {"code": -32008, "message": "No snapshot"}
    assert rpc(url, "getRecentPerformanceSamples", [721])["error"]["code"] == -32602


def test_unknown_methods_refused_as_agave(chain):
    assert rpc(chain.url, "getConfirmedBlock", [1])["error"] == {"code": -32601, "message": "Method not found"}
    assert rpc(chain.url, "noSuchMethod")["error"] == {"code": -32601, "message": "Method not found"}


def test_leaders_production_and_inflation_of_a_single_node(chain):
    url = chain.url
    identity = rpc(url, "getIdentity")["result"]["identity"]
    assert rpc(url, "getSlotLeader")["result"] == identity
    assert rpc(url, "getSlotLeaders", [3, 4])["result"] == [identity] * 4
    assert rpc(url, "getSlotLeaders", [0, 5001])["error"] == {"code": -32602, "message": "Invalid limit; max 5000"}
    assert rpc(url, "getBlockCommitment", [1])["result"] == {"commitment": None, "totalStake": 0}  # no voters
    slot = wait_confirmed(url, airdrop(url, Keypair().pubkey(), SOL))
    got = rpc(url, "getBlockProduction", [{"commitment": "confirmed", "range": {"firstSlot": 0, "lastSlot": slot}}])
    assert got["result"]["value"] == {
        "byIdentity": {identity: [slot + 1, slot + 1]},  # every slot led and produced
        "range": {"firstSlot": 0, "lastSlot": slot},
    }
    other = {"identity": str(Keypair().pubkey()), "range": {"firstSlot": 0, "lastSlot": 0}}
    assert rpc(url, "getBlockProduction", [other])["result"]["value"]["byIdentity"] == {}
    too_far = rpc(url, "getBlockProduction", [{"range": {"firstSlot": 0, "lastSlot": 10**9}}])["error"]
    assert too_far["code"] == -32602 and "cannot be greater than current slot" in too_far["message"]
    governor = rpc(url, "getInflationGovernor")["result"]
    assert governor == {"initial": 0.08, "terminal": 0.015, "taper": 0.15, "foundation": 0.05, "foundationTerm": 7.0}
    # epoch 0 is year 0 of inflation: the initial rate, 5% of it to the foundation
    assert rpc(url, "getInflationRate")["result"] == {
        "total": 0.08,
        "validator": 0.076,
        "foundation": 0.004,
        "epoch": 0,
    }
    # rewards of an epoch not yet ended: Agave's BlockNotAvailable for the next epoch's first slot
    reward = rpc(url, "getInflationReward", [[identity]])["error"]
    assert reward == {"code": -32004, "message": "Block not available for slot 432000"}
    assert rpc(url, "getInflationReward", [["not-a-key"]])["error"]["code"] == -32602
    assert rpc(url, "getMaxShredInsertSlot")["result"] >= slot and rpc(url, "getMaxRetransmitSlot")["result"] >= slot


def test_largest_accounts_sorted_and_holding_an_airdrop(chain):
    url = chain.url
    rich = Keypair().pubkey()
    wait_confirmed(url, airdrop(url, rich, 10_000 * SOL))
    value = rpc(url, "getLargestAccounts", [{"commitment": "confirmed"}])["result"]["value"]
    lamports = [a["lamports"] for a in value]
    assert 0 < len(value) <= 20 and lamports == sorted(lamports, reverse=True)
    assert {"address": str(rich), "lamports": 10_000 * SOL} in value
    assert rpc(url, "getLargestAccounts", [{"filter": "nonCirculating"}])["result"]["value"] == []
    assert rpc(url, "getLargestAccounts", [{"filter": "bogus"}])["error"]["code"] == -32602
