"""`jsonParsed` accounts (devstack/chain/accounts.py) as Agave's account-decoder answers them:
sysvars, nonce accounts, BPF Upgradeable Loader accounts, stake accounts, and Token-2022 mints and
accounts with their extensions; every value is checked against what built the account or against
another RPC method, and solders' typed response (what solana-py hands a caller) parses each."""

from __future__ import annotations

import hashlib
import json
import struct

from solders.keypair import Keypair
from solders.pubkey import Pubkey
from solders.rpc.responses import GetAccountInfoMaybeJsonParsedResp
from solders.system_program import CreateAccountParams, create_account, create_nonce_account
from spl.token import instructions as T

from devstack.chain.testing import airdrop, build_tx, latest_blockhash, result
from tests.devstack.test_chain_token import ok

SOL = 1_000_000_000
from devstack.chain.constants import TOKEN_2022_PROGRAM_ID as T22  # noqa: E402

STAKE = Pubkey.from_string("Stake11111111111111111111111111111111111111")
LOADER = Pubkey.from_string("BPFLoaderUpgradeab1e11111111111111111111111")
SYSVAR_RENT = Pubkey.from_string("SysvarRent111111111111111111111111111111111")
SYSVAR_CLOCK = Pubkey.from_string("SysvarC1ock11111111111111111111111111111111")


def parsed(url: str, key: Pubkey | str) -> dict:
    raw = {"jsonrpc": "2.0", "id": 1, "result": result(url, "getAccountInfo", [str(key), {"encoding": "jsonParsed"}])}
    typed = GetAccountInfoMaybeJsonParsedResp.from_json(json.dumps(raw))
    assert typed.value is not None
    value = raw["result"]["value"]
    assert isinstance(value["data"], dict), value["data"]  # parsed, not the base64 fallback
    assert value["data"]["space"] == value["space"]
    return value["data"]


def test_sysvars_parsed_as_the_rpc_reports_them(chain):
    url = chain.url
    rent = parsed(url, SYSVAR_RENT)
    assert rent["program"] == "sysvar" and rent["parsed"]["type"] == "rent"
    info = rent["parsed"]["info"]
    assert set(info) == {"lamportsPerByteYear", "exemptionThreshold", "burnPercent"}
    assert isinstance(info["lamportsPerByteYear"], str)  # a StringAmount
    # SIMD-0194's sysvar (6960 lamports a byte-year, threshold 1.0): the same minimum as 3480 x 2
    per_byte = int(info["lamportsPerByteYear"]) * info["exemptionThreshold"]
    for size in (0, 165):
        assert result(url, "getMinimumBalanceForRentExemption", [size]) == (128 + size) * per_byte
    clock = parsed(url, SYSVAR_CLOCK)["parsed"]
    assert clock["type"] == "clock"
    assert set(clock["info"]) == {"slot", "epoch", "epochStartTimestamp", "leaderScheduleEpoch", "unixTimestamp"}
    assert abs(clock["info"]["slot"] - result(url, "getSlot", [{"commitment": "processed"}])) <= 2
    schedule = parsed(url, "SysvarEpochSchedu1e111111111111111111111111")["parsed"]
    assert schedule == {"type": "epochSchedule", "info": result(url, "getEpochSchedule")}
    hashes = parsed(url, "SysvarS1otHashes111111111111111111111111111")["parsed"]
    assert hashes["type"] == "slotHashes" and hashes["info"] and set(hashes["info"][0]) == {"slot", "hash"}
    assert parsed(url, "SysvarStakeHistory1111111111111111111111111")["parsed"] == {
        "type": "stakeHistory",
        "info": [],
    }


def test_a_nonce_account_parsed_with_its_authority(chain):
    url = chain.url
    payer, nonce, authority = Keypair(), Keypair(), Keypair().pubkey()
    airdrop(url, payer.pubkey(), 2 * SOL)
    ixs = create_nonce_account(payer.pubkey(), nonce.pubkey(), authority, 1_447_680)
    ok(url, build_tx(list(ixs), payer, [nonce], latest_blockhash(url)))
    got = parsed(url, nonce.pubkey())
    assert got["program"] == "nonce" and got["space"] == 80
    assert got["parsed"]["type"] == "initialized"
    info = got["parsed"]["info"]
    assert info["authority"] == str(authority) and info["feeCalculator"] == {"lamportsPerSignature": "5000"}
    assert len(info["blockhash"]) >= 32


def test_an_upgradeable_program_and_its_program_data(chain):
    url = chain.url
    program = parsed(url, STAKE)
    data_address = Pubkey.find_program_address([bytes(STAKE)], LOADER)[0]
    assert program == {
        "program": "bpfUpgradeableLoader",
        "parsed": {"type": "program", "info": {"programData": str(data_address)}},
        "space": 36,
    }
    data = parsed(url, data_address)
    assert data["program"] == "bpfUpgradeableLoader" and data["parsed"]["type"] == "programData"
    info = data["parsed"]["info"]
    assert set(info) == {"slot", "authority", "data"} and info["data"][1] == "base64"
    raw = result(url, "getAccountInfo", [str(data_address), {"encoding": "base64"}])["value"]["data"][0]
    assert info["data"][0] != raw  # the program's bytes after the 45-byte header, not the whole account
    assert info["data"][0].startswith("f0VMRg")  # an ELF ("\x7fELF")


def test_a_stake_account_initialized_by_the_stake_program(chain):
    url = chain.url
    payer, stake, staker, withdrawer = Keypair(), Keypair(), Keypair().pubkey(), Keypair().pubkey()
    airdrop(url, payer.pubkey(), 5 * SOL)
    lamports = result(url, "getMinimumBalanceForRentExemption", [200])
    create = create_account(
        CreateAccountParams(
            from_pubkey=payer.pubkey(), to_pubkey=stake.pubkey(), lamports=lamports, space=200, owner=STAKE
        )
    )
    from solders.instruction import AccountMeta, Instruction

    # StakeInstruction::Initialize(Authorized, Lockup), bincode
    data = struct.pack("<I", 0) + bytes(staker) + bytes(withdrawer) + struct.pack("<qQ", 0, 0) + bytes(32)
    init = Instruction(
        STAKE,
        data,
        [
            AccountMeta(stake.pubkey(), False, True),
            AccountMeta(Pubkey.from_string("SysvarRent111111111111111111111111111111111"), False, False),
        ],
    )
    ok(url, build_tx([create, init], payer, [stake], latest_blockhash(url)))
    got = parsed(url, stake.pubkey())
    assert got["program"] == "stake" and got["space"] == 200
    assert got["parsed"] == {
        "type": "initialized",
        "info": {
            "meta": {
                "rentExemptReserve": str(lamports),
                "authorized": {"staker": str(staker), "withdrawer": str(withdrawer)},
                "lockup": {"unixTimestamp": 0, "epoch": 0, "custodian": str(Pubkey.default())},
            },
            "stake": None,
        },
    }


def _discriminator(name: str) -> bytes:
    return hashlib.sha256(f"spl_token_metadata_interface:{name}".encode()).digest()[:8]


def _borsh(s: str) -> bytes:
    return struct.pack("<I", len(s.encode())) + s.encode()


def test_a_token_2022_mint_with_metadata_and_an_account_with_its_extensions(chain):
    from solders.instruction import AccountMeta, Instruction

    url = chain.url
    payer, mint = Keypair(), Keypair()
    airdrop(url, payer.pubkey(), 5 * SOL)
    name, symbol, uri = "Parsed Coin", "PRSD", "ipfs://bafy-parsed"
    full = 318 + len(name) + len(symbol) + len(uri)
    m = mint.pubkey()
    create = create_account(
        CreateAccountParams(
            from_pubkey=payer.pubkey(),
            to_pubkey=m,
            lamports=result(url, "getMinimumBalanceForRentExemption", [full]),
            space=234,
            owner=T22,
        )
    )
    pointer = Instruction(T22, bytes([39, 0]) + bytes(payer.pubkey()) + bytes(m), [AccountMeta(m, False, True)])
    init_mint = Instruction(T22, bytes([20, 6]) + bytes(payer.pubkey()) + bytes([0]), [AccountMeta(m, False, True)])
    metadata = Instruction(
        T22,
        _discriminator("initialize_account") + _borsh(name) + _borsh(symbol) + _borsh(uri),
        [
            AccountMeta(m, False, True),
            AccountMeta(payer.pubkey(), False, False),
            AccountMeta(m, False, False),
            AccountMeta(payer.pubkey(), True, False),
        ],
    )
    ok(url, build_tx([create, pointer, init_mint, metadata], payer, [mint], latest_blockhash(url)))
    got = parsed(url, m)
    assert got["program"] == "spl-token-2022" and got["parsed"]["type"] == "mint"
    info = got["parsed"]["info"]
    assert (info["decimals"], info["supply"], info["mintAuthority"]) == (6, "0", str(payer.pubkey()))
    assert info["extensions"] == [
        {"extension": "metadataPointer", "state": {"authority": str(payer.pubkey()), "metadataAddress": str(m)}},
        {
            "extension": "tokenMetadata",
            "state": {
                "updateAuthority": str(payer.pubkey()),
                "mint": str(m),
                "name": name,
                "symbol": symbol,
                "uri": uri,
                "additionalMetadata": [],
            },
        },
    ]
    holder = Keypair().pubkey()
    ata = T.get_associated_token_address(holder, m, T22)
    ok(
        url,
        build_tx([T.create_associated_token_account(payer.pubkey(), holder, m, T22)], payer, [], latest_blockhash(url)),
    )
    account = parsed(url, ata)
    assert account["program"] == "spl-token-2022" and account["parsed"]["type"] == "account"
    a = account["parsed"]["info"]
    assert (a["mint"], a["owner"], a["tokenAmount"]["amount"]) == (str(m), str(holder), "0")
    assert a["extensions"] == [{"extension": "immutableOwner"}]
    # the same through getProgramAccounts and getMultipleAccounts
    many = result(url, "getMultipleAccounts", [[str(m), str(ata)], {"encoding": "jsonParsed"}])["value"]
    assert [v["data"]["parsed"]["type"] for v in many] == ["mint", "account"]


def test_an_account_no_parser_knows_falls_back_to_base64(chain):
    url = chain.url
    wallet = Keypair().pubkey()
    airdrop(url, wallet, SOL)
    value = result(url, "getAccountInfo", [str(wallet), {"encoding": "jsonParsed"}])["value"]
    assert value["data"] == ["", "base64"]  # a system account without data: Agave's nonce parse fails
