"""Limits as template parameters and the required RPC endpoints (issue 26 items 3 and 6)."""

from __future__ import annotations

import re
import tomllib

import pytest

from devstack.cfn import load_template
from testkit.helpers import ROOT

TRADES = ("TradesBuyFunction", "TradesBuyExactOutFunction", "TradesSellFunction")


@pytest.fixture(scope="module")
def template():
    return load_template(ROOT / "template.yaml")


def test_limit_parameters_have_safe_defaults(template):
    p = template.parameters
    assert p["ApiThrottleRateLimit"]["Default"] == 200 and p["ApiThrottleBurstLimit"]["Default"] == 500
    assert p["TradeReservedConcurrency"]["Default"] == 0  # none: the account's unreserved pool, as before
    assert p["WebhookMaxConcurrency"]["Default"] == 10
    assert p["WebhookMaxConcurrency"]["MinValue"] == 2 and p["WebhookMaxConcurrency"]["MaxValue"] == 1000


def test_the_stage_throttle_comes_from_the_parameters(template):
    settings = template.resources["PartnerApi"]["Properties"]["MethodSettings"]
    assert {
        "ResourcePath": "/*",
        "HttpMethod": "*",
        "ThrottlingBurstLimit": {"Ref": "ApiThrottleBurstLimit"},
        "ThrottlingRateLimit": {"Ref": "ApiThrottleRateLimit"},
    } in settings
    # the devstack gateway reads the same values: the defaults, or a deploy's overrides
    assert template.method_throttle() == (200.0, 500.0)
    assert template.method_throttle(None, {"ApiThrottleRateLimit": 1500, "ApiThrottleBurstLimit": 3000}) == (
        1500.0,
        3000.0,
    )


def test_trade_functions_reserve_concurrency_only_when_asked(template):
    for name in TRADES:
        props = template.resources[name]["Properties"]
        assert props["ReservedConcurrentExecutions"] == {
            "Fn::If": ["HasTradeReservedConcurrency", {"Ref": "TradeReservedConcurrency"}, {"Ref": "AWS::NoValue"}]
        }
    assert template.data["Conditions"]["HasTradeReservedConcurrency"] == {
        "Fn::Not": [{"Fn::Equals": [{"Ref": "TradeReservedConcurrency"}, 0]}]
    }
    from devstack.cfn import resolve

    condition = template.data["Conditions"]["HasTradeReservedConcurrency"]
    assert resolve(condition, template=template) is False
    assert resolve(condition, template=template, parameters={"TradeReservedConcurrency": 300}) is True


def test_the_webhook_consumer_has_a_maximum_concurrency(template):
    queue = template.resources["WebhookDeliveryFunction"]["Properties"]["Events"]["Queue"]["Properties"]
    assert queue["ScalingConfig"] == {"MaximumConcurrency": {"Ref": "WebhookMaxConcurrency"}}


def test_rpc_urls_is_required_and_checked(template):
    spec = template.parameters["RpcUrls"]
    assert "Default" not in spec  # `sam deploy` without it: "Parameters: [RpcUrls] must have values"
    assert "RpcUrl" not in template.parameters
    pattern = re.compile(spec["AllowedPattern"])  # CloudFormation matches the whole value
    for good in ("https://rpc-a.example.com/k", "https://a.example.com,http://127.0.0.1:8899"):
        assert pattern.fullmatch(good)
    for bad in ("", "rpc.example.com", "https://a, https://b", "https://a,,https://b", "https://a,"):
        assert not pattern.fullmatch(bad)
    rule = template.data["Rules"]["NoPublicRpcEndpoint"]["Assertions"][0]["Assert"]
    assert rule == {"Fn::Not": [{"Fn::Equals": [{"Ref": "RpcUrls"}, "https://api.mainnet-beta.solana.com"]}]}
    for fn in template.functions():
        assert fn.environment["RPC_URLS"] == {"Ref": "RpcUrls"}


def test_prod_config_names_no_public_endpoint():
    config = tomllib.loads((ROOT / "samconfig.toml").read_text())
    prod = config["prod"]["deploy"]["parameters"]["parameter_overrides"]
    assert not any(item.startswith(("RpcUrl=", "RpcUrls=")) for item in prod)  # the operator sets it
    assert not any("api.mainnet-beta.solana.com" in item for item in prod)
    dev = config["dev"]["deploy"]["parameters"]["parameter_overrides"]
    assert any(item.startswith("RpcUrls=") for item in dev)
