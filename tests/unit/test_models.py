"""partner.features.models: pydantic request models, strict types, the first problem's code, field and message,
directly (`models.validate`, as the multipart forms use it) and through Powertools' resolver
(`http.make_app`: `RequestValidationError` mapped by `models.invalid`), with the same answers."""

from __future__ import annotations

import json

import pytest

from devstack.events import ApiRequest, api_event
from partner.core.errors import ApiError
from partner.edge import http
from partner.features import models, trading
from partner.features.governance import content, writes
from partner.features.launch import form as launch

PK = "So11111111111111111111111111111111111111112"
FEES = {"priorityFeeLamports": "1000", "tipLamports": "1000000"}
BUY = {"mint": PK, "maxSolIn": "1000", **FEES}


def error(model, data, special=None) -> tuple[str, str, str]:
    with pytest.raises(ApiError) as info:
        models.validate(model, data, special)
    return info.value.code, info.value.extra.get("field"), info.value.message


def resolved(model, data, special=None) -> dict:
    """`data` POSTed as JSON to a route of `model` on the functions' resolver (no admission)."""
    app = http.make_app()

    def _route(body):
        return http.json_response(200, body.model_dump())

    _route.__annotations__["body"] = model  # the model under test: the route's body
    app.post("/x")(http.before_validation(http.json_body, special)(_route))

    event = api_event(ApiRequest("POST", "/x", body=json.dumps(data), headers={"Content-Type": "application/json"}))
    out = app.resolve(event, None)
    return {"status": out["statusCode"], **json.loads(out["body"])}


@pytest.mark.parametrize(
    "change,expected",
    [
        ({"maxSolIn": None}, ("invalid_input", "maxSolIn", "maxSolIn: Input should be a valid string")),
        ({"maxSolIn": 1000}, ("invalid_input", "maxSolIn", "maxSolIn: Input should be a valid string")),
        ({"maxSolIn": "0"}, ("invalid_input", "maxSolIn", "maxSolIn: Value error, must be greater than 0")),
        (
            {"maxSolIn": "1.5"},
            (
                "invalid_input",
                "maxSolIn",
                "maxSolIn: Value error, must be an integer string of base units (no sign, no decimals) within u64",
            ),
        ),
        (
            {"maxSolIn": "18446744073709551616"},
            (
                "invalid_input",
                "maxSolIn",
                "maxSolIn: Value error, must be an integer string of base units (no sign, no decimals) within u64",
            ),
        ),
        (
            {"priorityFeeLamports": "999"},
            ("invalid_input", "priorityFeeLamports", "priorityFeeLamports: Value error, must be at least 1000"),
        ),
        ({"mint": PK[:-1] + "0"}, ("invalid_input", "mint", "mint: Value error, must be a Base58 public key")),
        ({"slippageBps": None}, ("invalid_input", "slippageBps", "slippageBps: Input should be a valid integer")),
        ({"slippageBps": True}, ("invalid_input", "slippageBps", "slippageBps: Input should be a valid integer")),
        ({"slippageBps": 5.0}, ("invalid_input", "slippageBps", "slippageBps: Input should be a valid integer")),
        ({"slippageBps": "100"}, ("invalid_input", "slippageBps", "slippageBps: Input should be a valid integer")),
        (
            {"slippageBps": -1},
            ("invalid_input", "slippageBps", "slippageBps: Input should be greater than or equal to 0"),
        ),
        (
            {"slippageBps": 5001},
            ("invalid_input", "slippageBps", "slippageBps: Input should be less than or equal to 5000"),
        ),
        (
            {"partnerFeeBps": 10000},
            ("invalid_partner_fee", "partnerFeeBps", "partnerFeeBps: Value error, must be an integer from 0 to 9999"),
        ),
        (
            {"partnerFeeBps": "1.5"},
            ("invalid_partner_fee", "partnerFeeBps", "partnerFeeBps: Value error, must be an integer from 0 to 9999"),
        ),
        (
            {"partnerFeeBps": 1.5},
            ("invalid_partner_fee", "partnerFeeBps", "partnerFeeBps: Input should be a valid integer"),
        ),
        ({"surprise": "x"}, ("invalid_input", "surprise", "surprise: unknown field")),
    ],
)
def test_buy_errors(change, expected):
    assert error(trading.BuyRequest, {**BUY, **change}, trading.SPECIAL_CODES) == expected
    code, field, message = expected
    assert resolved(trading.BuyRequest, {**BUY, **change}, trading.SPECIAL_CODES) == {
        "status": 400,
        "error": code,
        "field": field,
        "message": message,
        "retryable": False,
    }


@pytest.mark.parametrize(
    "body,ctype,message",
    [
        ("[]", "application/json", "The body must be a JSON object."),
        ("{", "application/json", "The body is not valid JSON."),
        ("", "application/json", "The body is not valid JSON."),
        ("[" * 65 + "]" * 65, "application/json", "The JSON body is nested deeper than 64 levels."),
        ("{}", "text/plain", "Content-Type must be application/json."),
        ('{"a":"' + "x" * 65536 + '"}', "application/json", "The JSON body is over 64 KiB."),
    ],
)
def test_the_body_pre_check_answers_before_powertools_parses(body, ctype, message):
    app = http.make_app()

    @app.post("/x")
    @http.before_validation(http.json_body)
    def _route(body: trading.BuyRequest):
        return http.json_response(200, {})

    out = app.resolve(api_event(ApiRequest("POST", "/x", body=body, headers={"Content-Type": ctype})), None)
    assert (out["statusCode"], json.loads(out["body"])["message"]) == (400, message)


def test_a_mixed_case_json_content_type_is_validated_as_json():
    app = http.make_app()

    @app.post("/x")
    @http.before_validation(http.json_body)
    def _route(body: trading.BuyRequest):
        return http.json_response(200, {"mint": body.mint})

    out = app.resolve(
        api_event(ApiRequest("POST", "/x", body=json.dumps(BUY), headers={"content-type": "Application/JSON"})), None
    )
    assert (out["statusCode"], json.loads(out["body"])) == (200, {"mint": PK}), out["body"]


class _Inner(models.Request):
    size: models.IntOrString


class _Nested(models.Request):
    """Made up: a nested model and a list below unions, so that no library label can hide in a path."""

    items: list[models.IntOrString] = []
    inner: _Inner | models.IntOrString | None = None


@pytest.mark.parametrize(
    "model,data,special,field",
    [
        (trading.BuyRequest, {**BUY, "partnerFeeBps": 50.5}, trading.SPECIAL_CODES, "partnerFeeBps"),
        (trading.BuyRequest, {**BUY, "partnerFeeBps": True}, trading.SPECIAL_CODES, "partnerFeeBps"),
        (trading.BuyRequest, {**BUY, "partnerFeeBps": [1]}, trading.SPECIAL_CODES, "partnerFeeBps"),
        (trading.BuyRequest, {**BUY, "partnerFeeBps": None, "mint": 5}, trading.SPECIAL_CODES, "mint"),
        (
            trading.QuoteRequest,
            {"side": "buy", "mint": PK, "maxSolIn": "1", "partnerFeeBps": True},
            trading.SPECIAL_CODES,
            "partnerFeeBps",
        ),
        (trading.QuoteRequest, {"side": "buy", "mint": PK, "maxSolIn": 1.5}, None, "maxSolIn"),
        (trading.QuoteRequest, {"side": "short", "mint": PK}, None, "side"),
        (trading.SellRequest, {**FEES, "mint": PK, "tokensIn": "1", "minSolOut": 3}, None, "minSolOut"),
        (_Nested, {"items": [1, 2.5]}, None, "items.1"),
        (_Nested, {"inner": {"size": 2.5}}, None, "inner.size"),
        (_Nested, {"inner": 2.5}, None, "inner"),
        (_Nested, {"inner": {"size": 1, "extra": 1}}, None, "inner.extra"),
    ],
)
def test_field_is_the_request_field_path_never_a_library_label(model, data, special, field):
    """Issue 39 (low 3): `field` and the message's prefix name the request's field, never a union
    member's label (`partnerFeeBps.int`) or a validator's, directly and through the resolver."""
    code, named, message = error(model, data, special)
    assert named == field and message.startswith(f"{field}: "), (named, message)
    answer = resolved(model, data, special)  # JSON input: pydantic's wording may differ, not the path
    assert (answer["status"], answer["error"], answer["field"]) == (400, code, field)
    assert answer["message"].startswith(f"{field}: ")


def test_missing_fields_in_declaration_order_base_first():
    assert error(trading.BuyRequest, {}) == (
        "invalid_input",
        "priorityFeeLamports",
        "priorityFeeLamports: Field required",
    )
    assert error(trading.BuyRequest, {**FEES})[1] == "mint"
    assert error(trading.BuyRequest, {**FEES, "mint": PK})[1] == "maxSolIn"


def test_special_code_wins_over_an_earlier_problem_and_unknown_fields_come_last():
    data = {**BUY, "mint": "x", "partnerFeeBps": 10000, "aaa": "1"}
    assert error(trading.BuyRequest, data, trading.SPECIAL_CODES)[:2] == ("invalid_partner_fee", "partnerFeeBps")
    assert error(trading.BuyRequest, {**BUY, "aaa": "1", "maxSolIn": "x"})[1] == "maxSolIn"


def test_values_defaults_and_fields_set():
    req = models.validate(trading.BuyRequest, {**BUY, "partnerFeeBps": "25", "minTokensOut": None})
    assert (req.mint, req.maxSolIn, req.minTokensOut, req.slippageBps, req.fee_bps) == (PK, "1000", None, None, 25)
    assert req.model_fields_set == {
        "mint",
        "maxSolIn",
        "minTokensOut",
        "partnerFeeBps",
        "priorityFeeLamports",
        "tipLamports",
    }
    assert not req.slippage_mode
    assert models.validate(trading.BuyRequest, {**BUY, "slippageBps": 0}).slippage_mode
    with pytest.raises(ValueError):  # frozen
        req.mint = "other"


def test_choice_and_optional_address():
    vote = {"proposal": PK, "side": "maybe", "amount": "5", **FEES}
    assert error(writes.VoteRequest, vote)[2] == "side: Input should be 'yes' or 'no'"
    assert models.validate(writes.WithdrawVoteRequest, {"proposal": PK, "voter": None, **FEES}).voter is None
    assert (
        models.validate(writes.ExtendMutabilityRequest, {"mint": PK, "additionalSeconds": "9", **FEES}).vote_duration
        == 600
    )


def test_form_fields_text_defaults():
    form = models.validate(launch.CoinCreateForm, {"initialBuySol": "5"})
    assert (form.name, form.symbol, form.description, form.initialBuySol) == ("", "", None, "5")
    assert (
        error(launch.CoinCreateForm, {"slippageBps": "10001"})[2]
        == "slippageBps: Value error, must be an integer from 0 to 10000"
    )
    assert (
        error(content.UpdateContentFields, {"mint": PK, **FEES, "name": 5})[2] == "name: Input should be a valid string"
    )


def test_fields_are_declared_in_order_with_their_requirement():
    assert list(trading.SellRequest.model_fields) == [
        "priorityFeeLamports",
        "tipLamports",
        "mint",
        "slippageBps",
        "partnerFeeBps",
        "tokensIn",
        "minSolOut",
    ]
    assert {n for n, f in trading.SellRequest.model_fields.items() if f.is_required()} == {
        "priorityFeeLamports",
        "tipLamports",
        "mint",
        "tokensIn",
    }
