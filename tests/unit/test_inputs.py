"""partner.inputs: declared request fields, strict types, the first problem's code, field and message.

The expected messages are those of the pydantic models the declarations replaced (the
switch was checked with a 4549-case differential run over every write model)."""

from __future__ import annotations

import pytest

from partner import inputs, launch, trading
from partner.errors import ApiError
from partner.governance import content, writes

PK = "So11111111111111111111111111111111111111112"
FEES = {"priorityFeeLamports": "1000", "tipLamports": "1000000"}
BUY = {"mint": PK, "maxSolIn": "1000", **FEES}


def error(model, data, special=None) -> tuple[str, str, str]:
    with pytest.raises(ApiError) as info:
        inputs.validate(model, data, special)
    return info.value.code, info.value.extra.get("field"), info.value.message


@pytest.mark.parametrize("change,expected", [
    ({"maxSolIn": None}, ("invalid_input", "maxSolIn", "maxSolIn: Input should be a valid string")),
    ({"maxSolIn": 1000}, ("invalid_input", "maxSolIn", "maxSolIn: Input should be a valid string")),
    ({"maxSolIn": "0"}, ("invalid_input", "maxSolIn", "maxSolIn: Value error, must be greater than 0")),
    ({"maxSolIn": "1.5"}, ("invalid_input", "maxSolIn", "maxSolIn: Value error, must be an integer string of "
                                                        "base units (no sign, no decimals) within u64")),
    ({"maxSolIn": "18446744073709551616"}, ("invalid_input", "maxSolIn", "maxSolIn: Value error, must be an "
                                            "integer string of base units (no sign, no decimals) within u64")),
    ({"priorityFeeLamports": "999"}, ("invalid_input", "priorityFeeLamports",
                                      "priorityFeeLamports: Value error, must be at least 1000")),
    ({"mint": PK[:-1] + "0"}, ("invalid_input", "mint", "mint: Value error, must be a Base58 public key")),
    ({"slippageBps": None}, ("invalid_input", "slippageBps", "slippageBps: Input should be a valid integer")),
    ({"slippageBps": True}, ("invalid_input", "slippageBps", "slippageBps: Input should be a valid integer")),
    ({"slippageBps": 5.0}, ("invalid_input", "slippageBps", "slippageBps: Input should be a valid integer")),
    ({"slippageBps": "100"}, ("invalid_input", "slippageBps", "slippageBps: Input should be a valid integer")),
    ({"slippageBps": -1}, ("invalid_input", "slippageBps",
                           "slippageBps: Input should be greater than or equal to 0")),
    ({"slippageBps": 5001}, ("invalid_input", "slippageBps",
                             "slippageBps: Input should be less than or equal to 5000")),
    ({"partnerFeeBps": 10000}, ("invalid_partner_fee", "partnerFeeBps",
                                "partnerFeeBps: Value error, must be an integer from 0 to 9999")),
    ({"partnerFeeBps": "1.5"}, ("invalid_partner_fee", "partnerFeeBps",
                                "partnerFeeBps: Value error, must be an integer from 0 to 9999")),
    ({"partnerFeeBps": 1.5}, ("invalid_partner_fee", "partnerFeeBps.int",
                              "partnerFeeBps.int: Input should be a valid integer")),
    ({"surprise": "x"}, ("invalid_input", "surprise", "surprise: unknown field")),
])
def test_buy_errors(change, expected):
    assert error(trading.BuyRequest, {**BUY, **change}, trading.SPECIAL_CODES) == expected


def test_missing_fields_in_declaration_order_base_first():
    assert error(trading.BuyRequest, {}) == ("invalid_input", "priorityFeeLamports",
                                             "priorityFeeLamports: Field required")
    assert error(trading.BuyRequest, {**FEES})[1] == "mint"
    assert error(trading.BuyRequest, {**FEES, "mint": PK})[1] == "maxSolIn"


def test_special_code_wins_over_an_earlier_problem_and_unknown_fields_come_last():
    data = {**BUY, "mint": "x", "partnerFeeBps": 10000, "aaa": "1"}
    assert error(trading.BuyRequest, data, trading.SPECIAL_CODES)[:2] == ("invalid_partner_fee", "partnerFeeBps")
    assert error(trading.BuyRequest, {**BUY, "aaa": "1", "maxSolIn": "x"})[1] == "maxSolIn"


def test_values_defaults_and_fields_set():
    req = inputs.validate(trading.BuyRequest, {**BUY, "partnerFeeBps": "25", "minTokensOut": None})
    assert (req.mint, req.maxSolIn, req.minTokensOut, req.slippageBps, req.fee_bps) == (PK, "1000", None, None, 25)
    assert req.fields_set == {"mint", "maxSolIn", "minTokensOut", "partnerFeeBps", "priorityFeeLamports",
                              "tipLamports"}
    assert not req.slippage_mode
    assert inputs.validate(trading.BuyRequest, {**BUY, "slippageBps": 0}).slippage_mode
    with pytest.raises(AttributeError):
        req.mint = "other"


def test_choice_and_optional_address():
    vote = {"proposal": PK, "side": "maybe", "amount": "5", **FEES}
    assert error(writes.VoteRequest, vote)[2] == "side: Input should be 'yes' or 'no'"
    assert inputs.validate(writes.WithdrawVoteRequest, {"proposal": PK, "voter": None, **FEES}).voter is None
    assert inputs.validate(writes.ExtendMutabilityRequest, {"mint": PK, "additionalSeconds": "9", **FEES}) \
        .vote_duration == 600


def test_form_fields_text_defaults():
    form = inputs.validate(launch._Fields, {"initialBuySol": "5"})
    assert (form.name, form.symbol, form.description, form.initialBuySol) == ("", "", None, "5")
    assert error(launch._Fields, {"slippageBps": "10001"})[2] == \
        "slippageBps: Value error, must be an integer from 0 to 10000"
    assert error(content._Fields, {"mint": PK, **FEES, "name": 5})[2] == "name: Input should be a valid string"


def test_fields_are_declared_in_order_with_their_requirement():
    assert list(trading.SellRequest.fields) == ["priorityFeeLamports", "tipLamports", "mint", "slippageBps",
                                                "partnerFeeBps", "tokensIn", "minSolOut"]
    assert {n for n, f in trading.SellRequest.fields.items() if f.required} == \
        {"priorityFeeLamports", "tipLamports", "mint", "tokensIn"}
