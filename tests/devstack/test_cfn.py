"""devstack.cfn: short tags, intrinsic resolution, enumeration."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from devstack.cfn import (
    NO_VALUE,
    CfnResolveError,
    Deployment,
    Template,
    load_template,
    load_yaml,
    resolve,
)

ROOT = Path(__file__).resolve().parents[2]
REAL_TEMPLATE = ROOT / "template.yaml"
FIXTURE_TEMPLATE = Path(__file__).resolve().parent / "fixtures" / "template.yaml"

TAGS_YAML = """
Conditions:
  IsProd: !Equals [!Ref Stage, prod]
  NotProd: !Not [!Condition IsProd]
  Both: !And [!Condition NotProd, !Equals [a, a]]
  Either: !Or [!Condition IsProd, !Equals [a, b]]
Parameters:
  Stage: {Type: String, Default: dev}
Mappings:
  Sizes:
    dev: {mem: 128}
    prod: {mem: 1024}
Values:
  ref: !Ref Stage
  getatt_dot: !GetAtt Table.Arn
  getatt_list: !GetAtt [Table, StreamArn]
  sub: !Sub "${Table}/${Table.Arn}/${AWS::Region}/${AWS::AccountId}/${AWS::Partition}/${!Literal}"
  sub_vars: !Sub ["${x}-${Stage}", {x: !Ref Table}]
  join: !Join [",", [a, !Ref Stage, c]]
  if: !If [IsProd, big, small]
  novalue: !If [IsProd, x, !Ref AWS::NoValue]
  select: !Select [1, !Split ["|", "p|q|r"]]
  findinmap: !FindInMap [Sizes, !Ref Stage, mem]
  azs: !GetAZs ""
  import: !ImportValue shared-vpc
  b64: !Base64 "hi"
  not: !Condition NotProd
  and: !Condition Both
  or: !Condition Either
  cidr: !Cidr ["10.0.0.0/16", 3, 8]
  mapping_form: !Sub
    - "${A}"
    - A: !Ref Stage
"""


def test_short_tags_parse_to_long_form():
    doc = load_yaml(TAGS_YAML)
    v = doc["Values"]
    assert v["ref"] == {"Ref": "Stage"}
    assert v["getatt_dot"] == {"Fn::GetAtt": ["Table", "Arn"]}
    assert v["getatt_list"] == {"Fn::GetAtt": ["Table", "StreamArn"]}
    assert v["sub"] == {
        "Fn::Sub": "${Table}/${Table.Arn}/${AWS::Region}/${AWS::AccountId}/${AWS::Partition}/${!Literal}"
    }
    assert v["sub_vars"] == {"Fn::Sub": ["${x}-${Stage}", {"x": {"Ref": "Table"}}]}
    assert v["join"] == {"Fn::Join": [",", ["a", {"Ref": "Stage"}, "c"]]}
    assert v["if"] == {"Fn::If": ["IsProd", "big", "small"]}
    assert v["select"] == {"Fn::Select": [1, {"Fn::Split": ["|", "p|q|r"]}]}
    assert v["findinmap"] == {"Fn::FindInMap": ["Sizes", {"Ref": "Stage"}, "mem"]}
    assert v["azs"] == {"Fn::GetAZs": ""}
    assert v["import"] == {"Fn::ImportValue": "shared-vpc"}
    assert v["b64"] == {"Fn::Base64": "hi"}
    assert v["not"] == {"Condition": "NotProd"}
    assert doc["Conditions"]["NotProd"] == {"Fn::Not": [{"Condition": "IsProd"}]}
    assert doc["Conditions"]["Both"]["Fn::And"][1] == {"Fn::Equals": ["a", "a"]}
    assert doc["Conditions"]["Either"]["Fn::Or"][0] == {"Condition": "IsProd"}
    assert v["cidr"] == {"Fn::Cidr": ["10.0.0.0/16", 3, 8]}


def test_resolution_of_every_intrinsic():
    doc = load_yaml(TAGS_YAML)
    refs = {"Table": {"Ref": "t-1", "Arn": "arn:aws:dynamodb:us-east-1:123456789012:table/t-1", "StreamArn": "s-arn"}}
    out = resolve(doc["Values"], refs, template=doc, deployment=Deployment(imports={"shared-vpc": "vpc-1"}))
    assert out["ref"] == "dev"
    assert out["getatt_dot"] == refs["Table"]["Arn"]
    assert out["getatt_list"] == "s-arn"
    assert out["sub"] == f"t-1/{refs['Table']['Arn']}/us-east-1/123456789012/aws/${{Literal}}"
    assert out["sub_vars"] == "t-1-dev"
    assert out["join"] == "a,dev,c"
    assert out["if"] == "small"
    assert "novalue" not in out  # AWS::NoValue removes the key
    assert out["select"] == "q"
    assert out["findinmap"] == 128
    assert out["azs"] == ["us-east-1a", "us-east-1b", "us-east-1c"]
    assert out["import"] == "vpc-1"
    assert base64.b64decode(out["b64"]) == b"hi"
    assert out["not"] is True and out["and"] is True and out["or"] is False
    assert out["cidr"] == ["10.0.0.0/24", "10.0.1.0/24", "10.0.2.0/24"]
    assert out["mapping_form"] == "dev"
    # parameter overrides, region / account overrides, plain-string refs
    out = resolve(
        doc["Values"],
        {"Table": "plain"},
        template=doc,
        parameters={"Stage": "prod"},
        deployment=Deployment(region="eu-west-1", account_id="999", imports={"shared-vpc": "v"}),
        strict=False,
    )
    assert out["ref"] == "prod" and out["if"] == "big" and out["novalue"] == "x"
    assert out["sub_vars"] == "plain-prod" and out["findinmap"] == 1024
    assert out["azs"][0] == "eu-west-1a"


def test_strict_and_lenient_unresolved_references():
    tpl = {"Resources": {"Q": {"Type": "AWS::SQS::Queue"}}}
    with pytest.raises(CfnResolveError):
        resolve({"Ref": "Q"}, {}, template=tpl)
    with pytest.raises(CfnResolveError):
        resolve({"Fn::GetAtt": ["Q", "Arn"]}, {}, template=tpl)
    assert resolve({"Ref": "Q"}, {}, template=tpl, strict=False) == "Q"
    assert resolve({"Fn::GetAtt": ["Q", "Arn"]}, {}, template=tpl, strict=False).startswith("arn:aws:sqs:")
    assert resolve({"Ref": "AWS::NoValue"}) is NO_VALUE
    assert resolve([1, {"Ref": "AWS::NoValue"}, 2]) == [1, 2]


def test_resolve_does_not_mutate_input():
    value = {"a": {"Ref": "P"}}
    tpl = {"Parameters": {"P": {"Default": "x"}}}
    assert resolve(value, template=tpl) == {"a": "x"}
    assert value == {"a": {"Ref": "P"}}


def test_real_template_functions_and_resources():
    t = load_template(REAL_TEMPLATE)
    fns = {f.logical_id: f for f in t.functions()}
    assert fns, "template.yaml has no functions"
    for f in fns.values():
        assert f.handler == "app.lambda_handler"  # from Globals
        assert f.module_path == ROOT / f.code_uri / "app.py"
        assert f.code_uri.startswith("functions/")
        # Globals environment merged in, unresolved
        assert f.environment["CLIENTS_TABLE"] == {"Ref": "ClientsTable"}
        assert f.environment["RPC_URLS"] == {"Ref": "RpcUrls"}
        for ev in f.api_events:
            assert ev.path.startswith("/") and ev.method == ev.method.upper()
    if "OAuthAuthorizeFunction" in fns:
        routes = {(e.method, e.path) for e in fns["OAuthAuthorizeFunction"].api_events}
        assert routes == {("GET", "/oauth/authorize"), ("POST", "/oauth/authorize")}
    assert {"ClientsTable", "AuthTable", "UsersTable", "CountersTable"} <= set(t.tables())
    assert {"HashKey", "WalletKey"} <= set(t.kms_keys())
    assert "StagingBucket" in t.buckets()
    assert set(t.binary_media_types()) >= {"multipart/form-data", "application/octet-stream"}
    assert t.stage_name() == "api"
    assert ROOT / "shared" in t.layer_dirs()
    # a resolved Output
    url = t.resolve(t.data["Outputs"]["ApiUrl"]["Value"], {"PartnerApi": "abc123"})
    assert url == "https://abc123.execute-api.us-east-1.amazonaws.com/api"
    # the bucket policy's !GetAtt / !Sub
    res = t.resolve(
        t.resources["StagingBucketPolicy"]["Properties"]["PolicyDocument"]["Statement"][0]["Resource"],
        {"StagingBucket": {"Ref": "b", "Arn": "arn:aws:s3:::b"}},
    )
    assert res == ["arn:aws:s3:::b", "arn:aws:s3:::b/*"]


def test_fixture_functions():
    t = load_template(FIXTURE_TEMPLATE)
    fns = {f.logical_id: f for f in t.functions()}
    assert set(fns) == {"EchoFunction", "SpecialFunction", "BoomFunction", "ScheduledFunction"}
    echo, special = fns["EchoFunction"], fns["SpecialFunction"]
    assert echo.handler == "app.lambda_handler" and echo.memory_size == 256 and echo.timeout == 10
    assert special.handler == "handler.main" and special.memory_size == 1024
    assert special.handler_module == "handler" and special.handler_function == "main"
    assert special.module_path == FIXTURE_TEMPLATE.parent / "functions" / "special" / "handler.py"
    assert ("POST", "/items/{id}") in {(e.method, e.path) for e in echo.api_events}  # "post" upper-cased
    assert ("ANY", "/any/{proxy+}") in {(e.method, e.path) for e in echo.api_events}
    assert fns["ScheduledFunction"].api_events == []
    assert "Tick" in fns["ScheduledFunction"].events
    # Globals + function environment merged; function's own variables only on it
    assert set(echo.environment) >= {"FIXTURE_TABLE", "FIXTURE_GREETING", "FIXTURE_TABLE_ARN"}
    assert "FIXTURE_TABLE_ARN" not in special.environment
    env = t.resolve(
        echo.environment,
        {
            "ItemsTable": {"Ref": "tbl", "Arn": "arn:tbl"},
            "SigningKey": "k",
            "FilesBucket": {"Ref": "b", "Arn": "arn:aws:s3:::b"},
        },
        parameters={"Greeting": "yo"},
    )
    assert env == {
        "FIXTURE_TABLE": "tbl",
        "FIXTURE_GREETING": "yo",
        "FIXTURE_KEY_ID": "k",
        "FIXTURE_BUCKET": "b",
        "FIXTURE_MODE": "development",
        "FIXTURE_TABLE_ARN": "arn:tbl",
        "FIXTURE_BUCKET_OBJECTS": "arn:aws:s3:::b/*",
    }
    assert t.binary_media_types() == ["multipart/form-data", "image/*"]
    assert t.stage_name() == "dev" and t.stage_name(parameters={"StageName": "v2"}) == "v2"
    assert set(t.tables()) == {"ItemsTable"} and set(t.kms_keys()) == {"SigningKey"}
    assert set(t.buckets()) == {"FilesBucket"}


def test_template_from_dict_without_path():
    t = Template({"Resources": {"F": {"Type": "AWS::Serverless::Function", "Properties": {"Handler": "m.h"}}}})
    (f,) = t.functions()
    assert f.handler == "m.h" and f.api_events == [] and f.environment == {}
