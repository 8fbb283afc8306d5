"""partner.store.ddb's item decoding: `from_item` gives what boto3's TypeDeserializer gives, with numbers
as int (whole) or float, binary as bytes."""

from __future__ import annotations

from boto3.dynamodb.types import TypeDeserializer

from partner.store import ddb


def _reference(item: dict) -> dict:
    """The general path, attribute by attribute (boto3's deserializer, then plain Python values)."""
    out = {}
    for k, v in item.items():
        value = TypeDeserializer().deserialize(v)
        if type(value).__name__ == "Binary":
            value = bytes(value.value)
        out[k] = ddb._plain(value)
    return out


ITEM = {
    "s": {"S": "text"},
    "empty": {"S": ""},
    "n": {"N": "1764230000"},
    "neg": {"N": "-42"},
    "zero": {"N": "-0"},
    "lead": {"N": "007"},
    "big": {"N": "1000000000000000000000000000000000000"},
    "frac": {"N": "1.5"},
    "whole": {"N": "2.0"},
    "exp": {"N": "1E+3"},
    "t": {"BOOL": True},
    "f": {"BOOL": False},
    "z": {"NULL": True},
    "b": {"B": b"raw"},
    "ss": {"SS": ["a", "b"]},
    "ns": {"NS": ["1", "2.5"]},
    "m": {"M": {"n": {"N": "3"}, "s": {"S": "x"}, "l": {"L": [{"N": "4"}, {"BOOL": True}]}}},
    "l": {"L": [{"S": "x"}, {"N": "5"}]},
}


def test_from_item_decodes_every_type_as_the_general_path():
    got = ddb.from_item(ITEM)
    assert got == _reference(ITEM)
    assert (got["n"], got["neg"], got["zero"], got["lead"]) == (1764230000, -42, 0, 7)
    assert (got["whole"], got["exp"]) == (2, 1000)
    assert type(got["n"]) is int and got["frac"] == 1.5 and got["b"] == b"raw" and got["z"] is None
    assert got["big"] == 10**36 and got["f"] is False and got["ns"] == {1, 2.5}
    assert ddb.from_item(None) is None and ddb.from_item({}) == {}
