"""The IDLs (idl/*.json) are the single source of the on-chain interface: they load as
Anchor IDLs, everything generated from them is in sync, every builder encodes what an
independent decoder reads from the IDL alone, and code that mirrors the IDL (bound
classes, seeds, handlers, error codes) fails here when the two disagree."""

from __future__ import annotations

import copy
import hashlib
import json

import pytest
from solders.pubkey import Pubkey

from partner.chain import errors as ER
from partner.chain import governance_math as GM
from partner.chain import idl as IDL
from partner.chain import idls as IDLS
from partner.chain import instructions as I
from partner.chain import layouts as L
from partner.chain import programs as P
from partner.core.errors import CATALOGUE
from tests.idl_decoder import Decoder, service_plain
from tools import idl as tool

A, B, C = (Pubkey(bytes([n] * 32)) for n in (1, 2, 3))
PARAMS = GM.GovernanceParams(1, 2, 3, 4, 5, 6, 7, 8, 9)


def test_generated_files_are_in_sync():
    for path, text in tool.outputs().items():
        assert path.read_text() == text, f"{path} is stale: run `make idl`"


@pytest.mark.parametrize("program", ["launchpad", "pool"])
def test_idl_is_an_anchor_idl(program):
    raw = json.loads((tool.IDL_DIR / f"{program}.json").read_text())
    assert raw["metadata"]["spec"] == "0.1.0" and raw["metadata"]["name"] == program
    d = Decoder(program)  # anchorpy-idl: Anchor's own IDL types, strict
    for ix in d.idl.instructions:
        assert bytes(ix.discriminator) == hashlib.sha256(f"global:{ix.name}".encode()).digest()[:8]
    for acc in d.idl.accounts:
        assert bytes(acc.discriminator) == hashlib.sha256(f"account:{acc.name}".encode()).digest()[:8]
    codes = [e.code for e in d.idl.errors]
    assert codes == sorted(set(codes))
    for e in d.idl.errors:
        spec, _, message = e.msg.partition(": ")
        assert spec in CATALOGUE and message, e.msg  # every program error names a real API error code


# every instruction of both IDLs, as the service builds it
BUILT = {
    "initialize_global": I.initialize_global(
        A, I.GlobalParams(B, 100, 9000, 3, 10**15, 3 * 10**10, 8 * 10**14, 10**15)
    ),
    "set_params": I.set_params(A, B, C, 200, 5000, 4),
    "accept_admin": I.accept_admin(B),
    "set_governance_params": I.set_governance_params(A, PARAMS),
    "create_coin": I.create_coin(A, B, "Näme", "SYM", "ipfs://x"),
    "buy": I.buy(A, B, C, 10**9, 1),
    "buy_exact_out": I.buy_exact_out(A, B, C, 5, 2**64 - 1),
    "sell": I.sell(A, B, C, 7, 0),
    "migrate": I.migrate(A, B),
    "create_proposal": I.create_proposal(
        A, B, 3, I.ProposalTerms(GM.ActionKind.EXTEND_MUTABILITY, base_content_revision=2, additional_seconds=86_400)
    ),
    "cast_vote": I.cast_vote(A, B, C, "no", 10**6),
    "cancel_vote": I.cancel_vote(A, B, C),
    "withdraw_vote": I.withdraw_vote(A, B, B, C),
    "settle_proposal": I.settle_proposal(A, B, C),
    "finalize_expired": I.finalize_expired(A, B),
    "withdraw_bond": I.withdraw_bond(A, B, B, C),
    "initialize_pool": I.initialize_pool(A, B, I.PoolOpening(10, 20, -5, 100, C, A)),
    "swap": I.swap(A, B, C, True, 10, 1),
    "swap_exact_out": I.swap_exact_out(A, B, C, 10, 20),
}


def test_every_instruction_has_a_builder():
    assert set(BUILT) == set(IDLS.LAUNCHPAD.instructions) | set(IDLS.POOL.instructions)


@pytest.mark.parametrize("name", sorted(BUILT))
def test_builders_decode_independently(name):
    ix = BUILT[name]
    program = IDLS.LAUNCHPAD if name in IDLS.LAUNCHPAD.instructions else IDLS.POOL
    assert ix.program_id == program.address
    decoded_name, args = Decoder(program.name).instruction(bytes(ix.data))
    ours_name, ours = program.decode_instruction(bytes(ix.data))
    assert decoded_name == ours_name == name and args == service_plain(ours)
    flags = Decoder(program.name).account_flags(name)
    assert [(signer, writable) for _, signer, writable in flags] == [(m.is_signer, m.is_writable) for m in ix.accounts]


def test_builder_values_reach_the_wire():
    assert Decoder("launchpad").instruction(bytes(BUILT["create_proposal"].data))[1] == {
        "action_kind": "ExtendMutability",
        "base_content_revision": 2,
        "vote_duration_seconds": 600,
        "name": None,
        "symbol": None,
        "uri": None,
        "additional_seconds": 86_400,
        "changed_fields": 0,
        "content_digests": [bytes(16)] * 5,
    }
    # create_coin commits to its metadata JSON's uri-borne fields (absent: the empty string's digest)
    document = {"image": "ipfs://img", "description": "d"}
    created = Decoder("launchpad").instruction(bytes(I.create_coin(A, B, "N", "S", "ipfs://x", document).data))[1]
    assert created["content_digests"] == GM.content_digests(document)
    assert created["content_digests"][2] == hashlib.sha256(b"").digest()[:16]
    assert created["content_digests"][0] == hashlib.sha256(b"ipfs://img").digest()[:16]
    assert Decoder("launchpad").instruction(bytes(BUILT["set_governance_params"].data))[1] == {"params": vars(PARAMS)}
    assert Decoder("pool").instruction(bytes(BUILT["initialize_pool"].data))[1] == {
        "base_amount": 10,
        "quote_amount": 20,
        "open_time": -5,
        "fee_bps": 100,
        "fee_recipient": C,
        "creator": A,
    }
    # the PDAs the IDL seeds derive are the ones programs.py derives
    proposal = P.proposal_pda(P.governance_pda(B)[0], 3)[0]
    assert BUILT["create_proposal"].accounts[4].pubkey == proposal
    assert BUILT["settle_proposal"].accounts[1].pubkey == P.governance_pda(B)[0]
    assert BUILT["settle_proposal"].accounts[3].pubkey == B  # the mint carries its TokenMetadata
    assert BUILT["initialize_pool"].accounts[1].pubkey == P.bonding_curve_pda(B)[0]
    assert BUILT["initialize_pool"].accounts[5].pubkey == P.bonding_curve_vault(B)


def test_decoder_rejects_bad_data():
    data = bytes(BUILT["buy"].data)
    for bad in (data[:-1], data + b"\0", bytes(8) + data[8:]):
        with pytest.raises(IDL.LayoutError):
            IDLS.LAUNCHPAD.decode_instruction(bad)
    vote = bytearray(BUILT["cast_vote"].data)
    vote[8] = 2  # not a VoteSide
    with pytest.raises(IDL.LayoutError):
        IDLS.LAUNCHPAD.decode_instruction(bytes(vote))
    with pytest.raises(ValueError, match="outside u64"):
        I.buy(A, B, C, 2**64, 0)
    with pytest.raises(IDL.LayoutError, match="must be given"):
        IDLS.LAUNCHPAD.instruction("buy", {"user": A}, sol_in=1, min_tokens_out=1)
    with pytest.raises(IDL.LayoutError, match="expected"):
        IDLS.LAUNCHPAD.instruction("buy", {"user": A, "mint": B, "fee_recipient": C}, sol_in=1)


# ----------------------------------------------------------------- code that mirrors the IDL


def test_bound_classes_match_the_idl():
    for name, cls in IDLS.BINDINGS.items():
        IDL.check_binding(IDLS.LAUNCHPAD.types[name], cls)


def test_a_disagreeing_binding_fails():
    raw = copy.deepcopy(IDLS.LAUNCHPAD.idl)
    types = {t["name"]: t for t in raw["types"]}
    types["VoteSide"]["type"]["variants"].append({"name": "Abstain"})
    types["GovernanceParams"]["type"]["fields"].append({"name": "quorum_bps", "type": "u16"})
    program = IDL.Program(raw, IDLS.BINDINGS)
    with pytest.raises(IDL.IdlMismatch):
        program.defined("VoteSide")
    with pytest.raises(IDL.IdlMismatch):
        program.defined("GovernanceParams")


def test_a_new_idl_field_reaches_the_account_class():
    raw = copy.deepcopy(IDLS.LAUNCHPAD.idl)
    pool_like = next(t for t in raw["types"] if t["name"] == "BondingCurve")
    pool_like["type"]["fields"].insert(-1, {"name": "launch_fee_paid", "type": "u64"})
    program = IDL.Program(raw)

    class BondingCurve(IDL.IdlAccount, program=program):
        pass

    assert BondingCurve.SIZE == L.BondingCurve.SIZE + 8 and BondingCurve.OFFSETS["reserved"] == 163 + 8
    x = BondingCurve(mint=A, launch_fee_paid=7)
    assert BondingCurve.decode(x.encode()) == x and x.encode()[163:171] == (7).to_bytes(8, "little")


def test_account_classes_cover_the_idl():
    idl_accounts = {(p.name, n) for p in IDLS.PROGRAMS for n in p.account_discriminators}
    classes = {(cls.PROGRAM.name, cls.NAME) for cls in L.ACCOUNT_TYPES.values()}
    assert classes == idl_accounts


def test_programs_module_matches_the_idl():
    assert P.LAUNCHPAD_PROGRAM_ID == IDLS.LAUNCHPAD.address and P.POOL_PROGRAM_ID == IDLS.POOL.address
    const_seeds = {
        bytes(s["value"])
        for p in IDLS.PROGRAMS
        for ix in p.instructions.values()
        for a in ix["accounts"]
        if "pda" in a
        for s in a["pda"]["seeds"]
        if s["kind"] == "const"
    }
    named = {P.GLOBAL_SEED, P.BONDING_CURVE_SEED, P.POOL_SEED, P.GOVERNANCE_SEED, P.PROPOSAL_SEED, P.VOTE_SEED}
    assert named <= const_seeds
    # the ATA seed; the launchpad's id, the seed of its ProgramData (initialize_global)
    assert const_seeds - named == {bytes(P.TOKEN_2022_PROGRAM_ID), bytes(P.LAUNCHPAD_PROGRAM_ID)}
    addresses = {
        a["address"] for p in IDLS.PROGRAMS for ix in p.instructions.values() for a in ix["accounts"] if "address" in a
    }
    assert addresses == {
        str(P.SYSTEM_PROGRAM_ID),
        str(P.TOKEN_2022_PROGRAM_ID),
        str(P.ASSOCIATED_TOKEN_PROGRAM_ID),
        str(P.POOL_PROGRAM_ID),
    }


def test_error_tables_come_from_the_idl():
    launchpad = {e[0]: e for e in IDLS.LAUNCHPAD.errors}
    for e in IDLS.POOL.errors:  # one numbering for both programs
        assert launchpad[e[0]] == e
    assert {int(c) for c in ER.ProgramErrorCode} | {int(c) for c in ER.GovernanceErrorCode} == set(launchpad)
    for code, name, spec, message in IDLS.LAUNCHPAD.errors:
        enum = ER.ProgramErrorCode if code < 6100 else ER.GovernanceErrorCode
        assert enum[name] == code and ER.spec_code_for_program_error(code) == spec
        assert ER.error_message(code) == message


def test_string_capacities_come_from_the_idl():
    assert (L.NAME_MAX_BYTES, L.SYMBOL_MAX_BYTES, L.URI_MAX_BYTES) == (32, 10, 200)
    with pytest.raises(ValueError, match="name over 32 bytes"):
        I.create_coin(A, B, "é" * 17, "S", "u")


def test_nested_structs_and_arrays_without_a_bound_class():
    raw = copy.deepcopy(IDLS.POOL.idl)
    raw["types"].append(
        {
            "name": "Pair",
            "type": {
                "kind": "struct",
                "fields": [{"name": "a", "type": "u16"}, {"name": "b", "type": {"defined": {"name": "OptionalU8"}}}],
            },
        }
    )
    raw["types"].append(
        {
            "name": "OptionalU8",
            "type": {
                "kind": "struct",
                "fields": [{"name": "is_some", "type": "bool"}, {"name": "value", "type": "u8"}],
            },
        }
    )
    pool = next(t for t in raw["types"] if t["name"] == "Pool")
    pool["type"]["fields"][-1:-1] = [
        {"name": "pair", "type": {"defined": {"name": "Pair"}}},
        {"name": "history", "type": {"array": ["u32", 3]}},
    ]
    program = IDL.Program(raw)

    class Pool(IDL.IdlAccount, program=program):
        pass

    x, y = Pool(), Pool()
    x.pair["a"], x.history[1] = 7, 9
    assert y.pair == {"a": 0, "b": None} and y.history == [0, 0, 0]  # defaults are not shared
    assert Pool.decode(x.encode()) == x

    raw["types"][-2]["type"]["fields"][1]["type"] = {"option": "u8"}  # Borsh option: variable size
    with pytest.raises(IDL.IdlMismatch, match="fixed size"):

        class Pool(IDL.IdlAccount, program=IDL.Program(raw)):
            pass
