"""The SDK's on-chain models (Governance, Proposal, Vote) against the launchpad IDL, field
by field: every account field the IDL maps to an API field (`api: <name>` in its docs) is
a field of the model under the snake_case name with the JSON type the API sends (u64 and
i64 as integer strings, smaller integers as numbers, enums as strings), and every other
model field is a documented off-chain one. Adding an API-mapped field to the IDL fails
here until the SDK model has it."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from partner_sdk import models

IDL = json.loads((Path(__file__).resolve().parents[2] / "idl" / "launchpad.json").read_text())
TYPES = {t["name"]: t for t in IDL["types"]}

# model -> (IDL account, fields the API adds that are not stored in the account)
MODELS = {
    models.Governance: ("Governance", {"governance", "metadata", "next_proposal_bond_amount"}),
    models.Proposal: ("Proposal", {"proposal", "signature", "block_time"}),
    models.Vote: ("VoteReceipt", {"signature", "block_time"}),
}


def json_type(ty) -> str:
    """The SDK annotation of the JSON value an IDL account field becomes."""
    if isinstance(ty, str):
        return {"pubkey": "str", "u64": "str", "i64": "str", "bool": "bool"}.get(ty, "int")
    t = TYPES[ty["defined"]["name"]]
    if t["type"]["kind"] == "enum":
        return "str"
    names = [f["name"] for f in t["type"]["fields"]]
    if names == ["is_some", "value"]:
        return json_type(t["type"]["fields"][1]["type"]) + " | None"
    assert names == ["len", "data"], t["name"]
    return "str"


def snake(name: str) -> str:
    return "".join("_" + ch.lower() if ch.isupper() else ch for ch in name)


@pytest.mark.parametrize("model", list(MODELS), ids=lambda m: m.__name__)
def test_model_matches_idl(model):
    account, off_chain = MODELS[model]
    expected = {}
    for f in TYPES[account]["type"]["fields"]:
        for doc in f.get("docs", []):
            if doc.startswith("api: "):
                expected[snake(doc[5:])] = json_type(f["type"])
    fields = {f.name: f.type for f in dataclasses.fields(model) if f.name != "raw"}
    assert {name: fields.get(name) for name in expected} == expected
    assert set(fields) - set(expected) == off_chain
