"""`jsonParsed` transactions (devstack/chain/parsed.py): getTransaction and getBlock answer Agave's
UiParsedMessage, parsed for System, SPL Token, Token-2022, ATA and Memo instructions, partially
decoded for the rest; solders' typed responses (what solana-py hands a caller) parse them."""

from __future__ import annotations

import json

from solders.keypair import Keypair
from solders.rpc.responses import GetTransactionResp
from spl.token.constants import TOKEN_PROGRAM_ID

from devstack.chain.testing import airdrop, build_tx, latest_blockhash, rpc
from testkit.chain import mint_to_checked, transfer_checked
from tests.devstack.test_chain_token import DEC, make_ata, make_mint, ok

SOL = 1_000_000_000
SYSTEM = "11111111111111111111111111111111"
COMPUTE_BUDGET = "ComputeBudget111111111111111111111111111111"


def parsed_tx(url: str, sig: str) -> dict:
    raw = rpc(url, "getTransaction", [sig, {"encoding": "jsonParsed", "commitment": "confirmed"}])
    assert "error" not in raw and raw["result"] is not None, raw
    typed = GetTransactionResp.from_json(json.dumps(raw))
    assert type(typed).__name__ == "GetTransactionResp" and typed.value is not None
    return raw["result"]


def test_a_system_transfer_parsed_and_compute_budget_partially_decoded(chain):
    wallet = Keypair().pubkey()
    sig = airdrop(chain.url, wallet, 2 * SOL)
    tx = parsed_tx(chain.url, sig)
    msg = tx["transaction"]["message"]
    payer = msg["accountKeys"][0]
    assert set(payer) == {"pubkey", "signer", "source", "writable"} and payer["signer"] and payer["writable"]
    budget, transfer = msg["instructions"]
    assert budget["programId"] == COMPUTE_BUDGET and set(budget) == {"programId", "accounts", "data", "stackHeight"}
    assert transfer == {
        "parsed": {
            "info": {"source": payer["pubkey"], "destination": str(wallet), "lamports": 2 * SOL},
            "type": "transfer",
        },
        "program": "system",
        "programId": SYSTEM,
        "stackHeight": None,
    }
    # the json encoding is unchanged: compiled instructions
    plain = rpc(chain.url, "getTransaction", [sig, {"encoding": "json", "commitment": "confirmed"}])["result"]
    assert "programIdIndex" in plain["transaction"]["message"]["instructions"][0]


def test_token_instructions_parsed_with_their_amounts(chain):
    url = chain.url
    payer = Keypair()
    airdrop(url, payer.pubkey(), 10 * SOL)
    mint = make_mint(url, payer, payer.pubkey())
    alice, bob = Keypair().pubkey(), Keypair().pubkey()
    src = make_ata(url, payer, payer.pubkey(), mint)
    dst = make_ata(url, payer, bob, mint)
    assert alice != bob
    ok(
        url,
        build_tx(
            [mint_to_checked(mint, src, payer.pubkey(), 1_000, DEC, TOKEN_PROGRAM_ID)], payer, [], latest_blockhash(url)
        ),
    )
    sig = ok(
        url,
        build_tx(
            [transfer_checked(src, mint, dst, payer.pubkey(), 250, DEC, TOKEN_PROGRAM_ID)],
            payer,
            [],
            latest_blockhash(url),
        ),
    )
    ix = parsed_tx(url, sig)["transaction"]["message"]["instructions"][-1]
    assert ix["program"] == "spl-token" and ix["parsed"]["type"] == "transferChecked"
    info = ix["parsed"]["info"]
    assert (info["source"], info["destination"], info["mint"], info["authority"]) == (
        str(src),
        str(dst),
        str(mint),
        str(payer.pubkey()),
    )
    assert info["tokenAmount"] == {"amount": "250", "decimals": DEC, "uiAmount": 0.00025, "uiAmountString": "0.00025"}
