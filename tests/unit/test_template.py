"""template.yaml: alarms, the alarm topic, optional custom domains, SSM configuration, metrics env."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from devstack.cfn import load_template, resolve

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def template():
    return load_template(ROOT / "template.yaml")


def _list(value: Any) -> list:
    return value if isinstance(value, list) else [value]


def _props(template, name: str) -> dict:
    return template.resources[name].get("Properties") or {}


def _conditions_true(template, **params: str) -> set[str]:
    """The conditions that hold for these parameter values (the rest at their defaults)."""
    values = template.parameter_values(params)
    return {
        name
        for name in template.data["Conditions"]
        if resolve({"Condition": name}, {}, template=template, parameters=values)
    }


def test_metrics_namespace_is_set_for_every_function(template):
    env = template.globals["Function"]["Environment"]["Variables"]
    assert env["POWERTOOLS_METRICS_NAMESPACE"] == "PartnerApi"
    assert env["POWERTOOLS_SERVICE_NAME"] == "partner-api"
    assert template.globals["Function"]["Tracing"] == "Active"


def test_api_5xx_alarm_watches_this_api_and_stage(template):
    alarm = _props(template, "Api5xxAlarm")
    assert (alarm["Namespace"], alarm["MetricName"], alarm["Statistic"]) == ("AWS/ApiGateway", "5XXError", "Average")
    dims = {d["Name"]: d["Value"] for d in alarm["Dimensions"]}
    assert dims == {"ApiName": {"Ref": "AWS::StackName"}, "Stage": {"Ref": "StageName"}}
    assert _props(template, "PartnerApi")["Name"] == {"Ref": "AWS::StackName"}  # the ApiName above
    assert 0 < alarm["Threshold"] < 1 and alarm["TreatMissingData"] == "notBreaching"
    assert alarm["AlarmActions"] == [{"Ref": "AlarmTopic"}]


def test_rpc_unavailable_alarm_watches_the_emf_rollup(template):
    alarm = _props(template, "RpcUnavailableAlarm")
    assert (alarm["Namespace"], alarm["MetricName"], alarm["Statistic"]) == ("PartnerApi", "RpcUnavailable", "Sum")
    # the service-only dimension set partner.core.observability publishes RpcUnavailable under
    assert alarm["Dimensions"] == [{"Name": "service", "Value": "partner-api"}]
    assert alarm["Threshold"] == {"Ref": "RpcUnavailableThreshold"}
    assert alarm["AlarmActions"] == [{"Ref": "AlarmTopic"}]


def test_migrator_errors_alarm(template):
    alarm = _props(template, "MigratorErrorsAlarm")
    assert (alarm["Namespace"], alarm["MetricName"]) == ("AWS/Lambda", "Errors")
    # the alias the schedule invokes (SnapStart publishes versions behind it)
    assert alarm["Dimensions"] == [
        {"Name": "FunctionName", "Value": {"Ref": "MigratorFunction"}},
        {"Name": "Resource", "Value": {"Fn::Sub": "${MigratorFunction}:live"}},
    ]


def test_snapstart_on_every_function_behind_the_live_alias(template):
    glob = template.globals["Function"]
    assert glob["AutoPublishAlias"] == "live"
    assert glob["SnapStart"] == {"ApplyOn": "PublishedVersions"}
    assert glob["Runtime"] in ("python3.12", "python3.13")  # SnapStart for Python: 3.12+
    functions = template.resources_of_type("AWS::Serverless::Function")
    assert len(functions) >= 21
    for name, res in functions.items():
        props = res.get("Properties") or {}
        # nothing turns it off or conflicts with it (provisioned concurrency, EFS, > 512 MB /tmp)
        assert "SnapStart" not in props and "AutoPublishAlias" not in props, name
        assert "ProvisionedConcurrencyConfig" not in props and "FileSystemConfigs" not in props, name
        assert (props.get("EphemeralStorage") or {}).get("Size", 512) <= 512, name


def test_sam_wires_api_schedule_and_outputs_to_the_alias():
    """What SAM makes of it (samtranslator from the tools venv, as `make lint` uses)."""
    tools = ROOT / ".venv-tools" / "bin" / "python"
    if not tools.exists():
        pytest.skip("needs .venv-tools (make test / make lint set it up)")
    script = r"""
import json, re, sys
from samtranslator.translator.transform import transform
from samtranslator.yaml_helper import yaml_parse
text = re.sub(r"(CodeUri|ContentUri): \S+", r"\1: s3://bucket/key", open(sys.argv[1]).read())
class Loader:
    def load(self): return {}
out = transform(yaml_parse(text), {}, Loader())
res = out["Resources"]
fns = [k for k, v in res.items() if v["Type"] == "AWS::Lambda::Function"]
perms = {k: v["Properties"]["FunctionName"] for k, v in res.items() if v["Type"] == "AWS::Lambda::Permission"}
rules = {k: v["Properties"]["Targets"][0]["Arn"] for k, v in res.items() if v["Type"] == "AWS::Events::Rule"}
uris = [op["x-amazon-apigateway-integration"]["uri"]["Fn::Sub"]
        for path in res["PartnerApi"]["Properties"]["Body"]["paths"].values() for op in path.values()]
print(json.dumps({"snap": {k: res[k]["Properties"].get("SnapStart") for k in fns},
                  "aliases": sorted(k for k, v in res.items() if v["Type"] == "AWS::Lambda::Alias"),
                  "perms": perms, "rules": rules, "uris": uris, "out": out["Outputs"]["MigratorFunctionAlias"]}))
"""
    import json
    import os
    import subprocess

    proc = subprocess.run(
        [str(tools), "-c", script, str(ROOT / "template.yaml")],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "AWS_DEFAULT_REGION": "us-east-1"},
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    got = json.loads(proc.stdout)
    assert got["snap"] and all(v == {"ApplyOn": "PublishedVersions"} for v in got["snap"].values())
    assert got["aliases"] == sorted(f"{fn}Aliaslive" for fn in got["snap"])
    assert got["perms"] and all(
        v == {"Ref": k.split("Function")[0] + "FunctionAliaslive"} for k, v in got["perms"].items()
    )
    assert got["rules"] == {
        "MigratorFunctionEveryMinute": {"Ref": "MigratorFunctionAliaslive"},
        "TrackerFunctionEveryMinute": {"Ref": "TrackerFunctionAliaslive"},
    }
    assert got["uris"] and all(u.endswith("Aliaslive}/invocations") for u in got["uris"])
    assert got["out"]["Value"] == {"Ref": "MigratorFunctionAliaslive"}


def test_alarm_topic_is_encrypted_with_a_key_only_cloudwatch_uses(template):
    topic = _props(template, "AlarmTopic")
    assert topic["KmsMasterKeyId"] == {"Fn::GetAtt": ["AlarmTopicKey", "Arn"]}
    statements = _props(template, "AlarmTopicKey")["KeyPolicy"]["Statement"]
    uses = [st for st in statements if {"kms:GenerateDataKey", "kms:Decrypt"} & set(_list(st["Action"]))]
    assert len(uses) == 1 and uses[0]["Principal"] == {"Service": "cloudwatch.amazonaws.com"}
    for st in statements:
        assert st["Effect"] == "Allow" and all("*" not in a for a in _list(st["Action"]))
    subscription = template.resources["AlarmEmailSubscription"]
    assert subscription["Condition"] == "HasAlarmEmail"
    assert subscription["Properties"]["Endpoint"] == {"Ref": "AlarmEmail"}


@pytest.mark.parametrize(
    "name",
    ["BaseDomainName", "AuthDomainName", "CertificateArn", "HostedZoneId", "PlatformTreasuryParameter", "AlarmEmail"],
)
def test_optional_parameters_default_to_empty(template, name):
    assert template.parameters[name]["Default"] == ""


def test_defaults_create_no_domain_record_or_subscription(template):
    assert _conditions_true(template) == set()


def test_domains_need_name_and_certificate_records_need_a_zone(template):
    cert = "arn:aws:acm:us-east-1:123456789012:certificate/abc"
    assert _conditions_true(template, BaseDomainName="api.example.com") == set()  # no certificate
    assert _conditions_true(template, BaseDomainName="api.example.com", CertificateArn=cert) == {"HasBaseDomain"}
    assert _conditions_true(
        template,
        BaseDomainName="api.example.com",
        AuthDomainName="auth.example.com",
        CertificateArn=cert,
        HostedZoneId="Z123",
    ) == {"HasBaseDomain", "HasAuthDomain", "HasHostedZone", "HasBaseDomainRecord", "HasAuthDomainRecord"}
    assert _conditions_true(template, PlatformTreasuryParameter="/p/t", AlarmEmail="ops@example.com") == {
        "HasTreasuryParameter",
        "HasAlarmEmail",
    }


@pytest.mark.parametrize("prefix", ["Base", "Auth"])
def test_domain_resources_are_conditional_and_map_the_api_stage(template, prefix):
    cond = f"Has{prefix}Domain"
    domain = template.resources[f"{prefix}Domain"]
    assert domain["Type"] == "AWS::ApiGateway::DomainName" and domain["Condition"] == cond
    assert domain["Properties"]["RegionalCertificateArn"] == {"Ref": "CertificateArn"}
    assert domain["Properties"]["SecurityPolicy"] == "TLS_1_2"
    mapping = template.resources[f"{prefix}DomainMapping"]
    assert mapping["Condition"] == cond
    assert mapping["Properties"]["RestApiId"] == {"Ref": "PartnerApi"}
    assert mapping["Properties"]["Stage"] == {"Ref": "PartnerApi.Stage"}
    assert "BasePath" not in mapping["Properties"]  # the API at the domain's root
    record = template.resources[f"{prefix}DomainRecord"]
    assert record["Condition"] == f"Has{prefix}DomainRecord"
    assert record["Properties"]["HostedZoneId"] == {"Ref": "HostedZoneId"}


def test_conditional_resources_cover_exactly_the_optional_features(template):
    conditional = {name: res["Condition"] for name, res in template.resources.items() if "Condition" in res}
    assert conditional == {
        "BaseDomain": "HasBaseDomain",
        "BaseDomainMapping": "HasBaseDomain",
        "BaseDomainRecord": "HasBaseDomainRecord",
        "AuthDomain": "HasAuthDomain",
        "AuthDomainMapping": "HasAuthDomain",
        "AuthDomainRecord": "HasAuthDomainRecord",
        "AlarmEmailSubscription": "HasAlarmEmail",
    }


def test_treasury_comes_from_ssm_at_deploy_time_only_for_coin_create(template):
    functions = {fn.logical_id: fn for fn in template.functions()}
    holders = [name for name, fn in functions.items() if "PLATFORM_TREASURY" in fn.environment]
    assert holders == ["CoinsCreateFunction"]
    value = functions["CoinsCreateFunction"].environment["PLATFORM_TREASURY"]
    assert value == {
        "Fn::If": [
            "HasTreasuryParameter",
            {"Fn::Sub": "{{resolve:ssm:${PlatformTreasuryParameter}}}"},
            {"Ref": "AWS::NoValue"},
        ]
    }


def test_only_the_sign_in_function_reads_ssm_at_run_time_and_only_its_secret(template):
    """Configuration comes from SSM at deploy time; the one run-time read is the OIDC client secret
    (issue 28: a secret never goes into the template or the environment), by the sign-in function,
    from its one parameter."""
    for fn in template.functions():
        for policy in _list(fn.properties.get("Policies") or []):
            for st in _list((policy or {}).get("Statement") or []) if isinstance(policy, dict) else []:
                actions = [str(a) for a in _list(st.get("Action", [])) if str(a).startswith("ssm:")]
                if fn.logical_id == "AccountSigninFunction" and actions:
                    assert actions == ["ssm:GetParameter"]
                    assert st["Resource"] == {
                        "Fn::Sub": "arn:${AWS::Partition}:ssm:${AWS::Region}:"
                        "${AWS::AccountId}:parameter${OidcClientSecretParameter}"
                    }
                    continue
                assert not actions, fn.logical_id
    env = template.function("AccountSigninFunction").environment
    assert env["OIDC_CLIENT_SECRET_PARAMETER"] == {"Ref": "OidcClientSecretParameter"}  # a name, not the secret
    assert not any(
        "SECRET" in name and name != "OIDC_CLIENT_SECRET_PARAMETER"
        for fn in template.functions()
        for name in fn.environment
    )


def test_outputs_name_the_urls_and_the_migrator(template):
    outputs = template.data["Outputs"]
    assert outputs["BaseUrl"]["Value"]["Fn::If"][0] == "HasBaseDomain"
    assert outputs["AuthUrl"]["Value"]["Fn::If"][0] == "HasAuthDomain"
    assert outputs["MigratorFunctionName"]["Value"] == {"Ref": "MigratorFunction"}
    assert outputs["MigratorFunctionAlias"]["Value"] == {"Ref": "MigratorFunction.Alias"}
    for name in (
        "ClientsTableName",
        "AuthTableName",
        "UsersTableName",
        "CountersTableName",
        "HashKeyId",
        "WalletKeyId",
    ):
        assert name in outputs  # what partnerctl needs (docs/operations.md)
