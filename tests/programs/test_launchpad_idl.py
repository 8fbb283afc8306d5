"""The SBF programs' IDLs (idl/*.json, the service's since the switch-over) differ from the
frozen pre-switch ones of the Python programs (tests/programs/fixtures/pre_switch_idl/*.json) exactly by the token
standard (docs/programs.md "The SBF programs"), and match the programs' own constants."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

from solders.pubkey import Pubkey

ROOT = Path(__file__).resolve().parents[2]
SPL = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA"
T22 = "TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb"


def load(*parts: str) -> dict:
    return json.loads((ROOT.joinpath(*parts)).read_text())


def _strip_docs(obj):
    if isinstance(obj, dict):
        return {k: _strip_docs(v) for k, v in obj.items() if k not in ("docs", "description")}
    if isinstance(obj, list):
        return [_strip_docs(v) for v in obj]
    return obj


def _retoken(obj):
    """Token program and ATA seeds: SPL Token -> Token-2022."""
    spl, t22 = list(bytes(Pubkey.from_string(SPL))), list(bytes(Pubkey.from_string(T22)))
    if isinstance(obj, dict):
        return {
            k: (t22 if k == "value" and v == spl else T22 if k == "address" and v == SPL else _retoken(v))
            for k, v in obj.items()
        }
    if isinstance(obj, list):
        return [_retoken(v) for v in obj]
    return obj


LAUNCHPAD_ID = Pubkey.from_string("JAt1NcDQrQs3NLNqLvq3EbBfxLDeBwkKMb3vM2Dw5Exk")
LOADER = Pubkey.from_string("BPFLoaderUpgradeab1e11111111111111111111111")


def switch_over(old: dict, name: str) -> dict:
    """What the switch-over did to idl/<name>.json, written out step by step."""
    new = _retoken(copy.deepcopy(old))
    if name == "launchpad":
        for ix in new["instructions"]:
            for acc in ix["accounts"]:
                if acc["name"] == "metadata":
                    acc.pop("pda")  # the mint itself, given by the caller
            if ix["name"] == "settle_proposal":
                ix["accounts"].append({"name": "token_program", "address": T22})
            if ix["name"] == "finalize_expired":
                ix["accounts"] += [{"name": "metadata", "writable": True}, {"name": "token_program", "address": T22}]
        for t in new["types"]:  # the curve and the proposal store their vaults (issue 35: no ATA search)
            if t["name"] in ("BondingCurve", "Proposal"):
                t["type"]["fields"][-1:] = [
                    {"name": "vault", "type": "pubkey"},
                    {"name": "reserved", "type": {"array": ["u8", 32]}},
                ]
        for ix in new["instructions"]:
            if ix["name"] == "initialize_global":  # only the upgrade authority may (front-running)
                ix["accounts"].append(
                    {
                        "name": "program_data",
                        "pda": {
                            "seeds": [{"kind": "const", "value": list(bytes(LAUNCHPAD_ID))}],
                            "program": {"kind": "const", "value": list(bytes(LOADER))},
                        },
                    }
                )
        new["accounts"] = [a for a in new["accounts"] if a["name"] != "CoinMetadata"]
        new["types"] = [t for t in new["types"] if t["name"] != "CoinMetadata"]
        # the audit (issue 35): a two-step admin handover, accept_admin and Global.pending_admin
        names = [ix["name"] for ix in new["instructions"]]
        glob = next(ix for ix in new["instructions"] if ix["name"] == "set_params")["accounts"][1]
        new["instructions"].insert(
            names.index("set_governance_params") + 1,
            {
                "name": "accept_admin",
                "discriminator": [112, 42, 45, 90, 116, 181, 13, 170],
                "accounts": [{"name": "new_admin", "signer": True}, glob],
                "args": [],
            },
        )
        fields = next(t for t in new["types"] if t["name"] == "Global")["type"]["fields"]
        fields.insert(len(fields) - 1, {"name": "pending_admin", "type": "pubkey"})
        fields[-1]["type"]["array"][1] -= 32
        # issue 35, build item 5: the proposal slot's bond level, per coin
        fields = next(t for t in new["types"] if t["name"] == "Governance")["type"]["fields"]
        fields[-1:-1] = [{"name": "bond_level", "type": "u8"}, {"name": "bond_level_at", "type": "i64"}]
        fields[-1]["type"]["array"][1] -= 9
        # issue 35, build item 5: the digests of the uri-borne fields (Governance grows by 80 bytes, the
        # Proposal too), create_coin and create_proposal take them
        digests = {"array": [{"array": ["u8", 16]}, 5]}
        fields[-1:-1] = [{"name": "content_digests", "type": digests}]
        fields = next(t for t in new["types"] if t["name"] == "Proposal")["type"]["fields"]
        fields[-1:-1] = [{"name": "proposed_digests", "type": digests}]
        for ix in new["instructions"]:
            if ix["name"] in ("create_coin", "create_proposal"):
                ix["args"].append({"name": "content_digests", "type": digests})
    return new


def test_the_sbf_idls_differ_only_by_the_token_standard():
    for name in ("launchpad", "pool"):
        old, new = load("tests", "programs", "fixtures", "pre_switch_idl", f"{name}.json"), load("idl", f"{name}.json")
        assert _strip_docs(new) == _strip_docs(switch_over(old, name)), name


def test_the_program_constants_match_its_idl():
    """Discriminators, account sizes and error numbers in programs/launchpad/src against the IDL."""
    from partner.chain.idl import Program
    from partner.chain.idls import BINDINGS

    idl = load("idl", "launchpad.json")
    program = Program(idl, BINDINGS)
    src = "\n".join(p.read_text() for p in sorted((ROOT / "programs" / "launchpad" / "src").glob("*.rs")))
    for ix in idl["instructions"]:
        const = "IX_" + ix["name"].upper()
        m = re.search(rf"const {const}: u64 = disc\(\[([\d, ]+)\]\);", src)
        assert m and [int(x) for x in re.findall(r"\d+", m.group(1))] == ix["discriminator"], ix["name"]
    for acc in idl["accounts"]:
        mod = {
            "Global": "global",
            "BondingCurve": "curve",
            "Governance": "gov",
            "Proposal": "prop",
            "VoteReceipt": "receipt",
        }[acc["name"]]
        block = re.search(rf"pub mod {mod} {{(.*?)\n}}", src, re.S).group(1)
        disc = re.search(r"DISC: \[u8; 8\] = \[([\d, ]+)\]", block).group(1)
        assert [int(x) for x in re.findall(r"\d+", disc)] == acc["discriminator"], acc["name"]
        size = int(re.search(r"SIZE: usize = (\d+);", block).group(1))
        from partner.chain import layouts as L

        assert size == getattr(L, acc["name"]).SIZE, acc["name"]
    for code, name, _, _ in program.errors:
        assert re.search(rf"\b{name} = {code},", src), name


def _rust_pubkey(src: str, const: str) -> Pubkey:
    m = re.search(rf"const {const}: Pubkey = \[([\d,\s]+)\];", src)
    assert m, const
    return Pubkey.from_bytes(bytes(int(x) for x in re.findall(r"\d+", m.group(1))))


def test_the_pool_program_constants_match_its_idl():
    """The pool's equivalent: discriminators, the Pool account's discriminator, size and field
    offsets, error numbers in programs/pool/src, and the program ids both programs and their sdk
    hold, against idl/pool.json (and idl/launchpad.json's address)."""
    from partner.chain import layouts as L
    from partner.chain.idl import Program

    idl = load("idl", "pool.json")
    program = Program(idl)
    src = "\n".join(p.read_text() for p in sorted((ROOT / "programs" / "pool" / "src").glob("*.rs")))
    for ix in idl["instructions"]:
        m = re.search(rf"const IX_{ix['name'].upper()}: \[u8; 8\] = \[([\d,\s]+)\];", src)
        assert m and [int(x) for x in re.findall(r"\d+", m.group(1))] == ix["discriminator"], ix["name"]
    assert [a["name"] for a in idl["accounts"]] == ["Pool"]
    block = re.search(r"\nmod layout {(.*?)\n}", src, re.S).group(1)
    disc = re.search(r"DISCRIMINATOR: \[u8; 8\] = \[([\d,\s]+)\]", block).group(1)
    assert [int(x) for x in re.findall(r"\d+", disc)] == idl["accounts"][0]["discriminator"]
    size = re.search(r"SIZE: usize = ([\d +]+);", block).group(1)
    assert sum(int(x) for x in size.split("+")) == L.Pool.SIZE
    offsets = {n.lower(): int(v) for n, v in re.findall(r"pub const (\w+): usize = (\d+);", block)}
    assert offsets == {f: at for f, at in L.Pool.OFFSETS.items() if f != "reserved"}
    codes = {re.sub(r"(?<!^)(?=[A-Z])", "_", name).upper(): code for code, name, _, _ in program.errors}
    used = re.findall(r"const (\w+): ProgramError = ProgramError::Custom\((\d+)\);", src)
    assert used and all(codes.get(name) == int(code) for name, code in used), used
    assert "Custom(" not in re.sub(r"const \w+: ProgramError = ProgramError::Custom\(\d+\);", "", src)

    ids = (ROOT / "programs" / "sdk" / "src" / "ids.rs").read_text()  # generated from the IDLs (make idl)
    assert _rust_pubkey(ids, "POOL_PROGRAM_ID") == program.address
    assert _rust_pubkey(ids, "LAUNCHPAD_PROGRAM_ID") == Pubkey.from_string(load("idl", "launchpad.json")["address"])
    from partner.chain import programs as P

    assert (P.POOL_PROGRAM_ID, P.LAUNCHPAD_PROGRAM_ID) == (program.address, _rust_pubkey(ids, "LAUNCHPAD_PROGRAM_ID"))
    sources = [p for d in ("launchpad", "pool", "sdk") for p in (ROOT / "programs" / d / "src").rglob("*.rs")]
    again = [
        p for p in sources if p.name != "ids.rs" and re.search(r"(LAUNCHPAD|POOL)_PROGRAM\w*: Pubkey", p.read_text())
    ]
    assert not again, again  # the ids are written once, in ids.rs
