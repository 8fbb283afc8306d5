"""CloudFormation / SAM template reading for the one-machine stack: ``load_template`` (short tags turned
into their long form), ``Template`` (what the devstack needs of it) and ``resolve`` (intrinsic
functions against the resources created). Nothing here talks to AWS.
"""

from __future__ import annotations

import base64
import copy
import ipaddress
import json
import re
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

__all__ = [
    "CfnLoader",
    "CfnResolveError",
    "NO_VALUE",
    "ApiEvent",
    "Function",
    "Template",
    "load_yaml",
    "load_template",
    "resolve",
    "Deployment",
    "DEFAULT_REGION",
    "DEFAULT_ACCOUNT_ID",
    "DEFAULT_PARTITION",
]

DEFAULT_REGION = "us-east-1"
DEFAULT_ACCOUNT_ID = "123456789012"
DEFAULT_PARTITION = "aws"

# --------------------------------------------------------------------------- YAML


class CfnLoader(yaml.SafeLoader):
    """SafeLoader that understands CloudFormation short-form intrinsic tags."""


def _construct_node(loader: yaml.Loader, node: yaml.Node) -> Any:
    if isinstance(node, yaml.ScalarNode):
        return loader.construct_scalar(node)
    if isinstance(node, yaml.SequenceNode):
        return loader.construct_sequence(node, deep=True)
    if isinstance(node, yaml.MappingNode):
        return loader.construct_mapping(node, deep=True)
    raise yaml.constructor.ConstructorError(None, None, f"unexpected node {node!r}", node.start_mark)


def _make_constructor(long_name: str):
    def construct(loader: yaml.Loader, node: yaml.Node) -> Any:
        return {long_name: _construct_node(loader, node)}

    return construct


def _construct_getatt(loader: yaml.Loader, node: yaml.Node) -> Any:
    value = _construct_node(loader, node)
    if isinstance(value, str):
        logical, _, attr = value.partition(".")
        value = [logical, attr]
    return {"Fn::GetAtt": value}


CfnLoader.add_constructor("!Ref", _make_constructor("Ref"))
CfnLoader.add_constructor("!Condition", _make_constructor("Condition"))
CfnLoader.add_constructor("!GetAtt", _construct_getatt)
for _short in (
    "Sub",
    "Join",
    "If",
    "Equals",
    "Select",
    "Split",
    "FindInMap",
    "GetAZs",
    "ImportValue",
    "Base64",
    "Not",
    "And",
    "Or",
    "Cidr",
    "Length",
    "ToJsonString",
    "Transform",
):
    CfnLoader.add_constructor(f"!{_short}", _make_constructor(f"Fn::{_short}"))


def load_yaml(text: str) -> Any:
    """Parse YAML text with CloudFormation short tags as long-form dicts."""
    return yaml.load(text, Loader=CfnLoader)  # CfnLoader is a SafeLoader


def load_template(path: str | Path) -> Template:
    """Load a template file into a :class:`Template`."""
    path = Path(path).resolve()
    data = load_yaml(path.read_text(encoding="utf-8")) or {}
    return Template(data, path=path)


# --------------------------------------------------------------------------- resolution


class CfnResolveError(ValueError):
    """An intrinsic function could not be evaluated."""


class _NoValue:
    _instance = None

    def __new__(cls):
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "NO_VALUE"

    def __bool__(self) -> bool:
        return False


NO_VALUE = _NoValue()  # result of Ref AWS::NoValue; dropped from lists and dicts

_INTRINSICS = {
    "Ref",
    "Condition",
    "Fn::GetAtt",
    "Fn::Sub",
    "Fn::Join",
    "Fn::If",
    "Fn::Equals",
    "Fn::Select",
    "Fn::Split",
    "Fn::FindInMap",
    "Fn::GetAZs",
    "Fn::ImportValue",
    "Fn::Base64",
    "Fn::Not",
    "Fn::And",
    "Fn::Or",
    "Fn::Cidr",
    "Fn::Length",
    "Fn::ToJsonString",
}

_SUB_RE = re.compile(r"\$\{([^}]*)\}")


@dataclass(frozen=True)
class Deployment:
    """Where a stack is deployed: the values of its pseudo parameters (``AWS::Region``, ...) and the
    exports of the stacks already there (``Fn::ImportValue``)."""

    region: str = DEFAULT_REGION
    account_id: str = DEFAULT_ACCOUNT_ID
    partition: str = DEFAULT_PARTITION
    stack_name: str = "partner-dev"
    imports: Mapping[str, Any] = field(default_factory=dict)


class _Resolver:
    def __init__(
        self,
        template: Mapping[str, Any] | None,
        refs: Mapping[str, Any] | None,
        parameters: Mapping[str, Any] | None,
        deployment: Deployment,
        strict: bool,
    ) -> None:
        self.template = template or {}
        self.refs = refs or {}
        self.parameters = parameters or {}
        self.region = deployment.region
        self.account_id = deployment.account_id
        self.partition = deployment.partition
        self.stack_name = deployment.stack_name
        self.imports = deployment.imports
        self.strict = strict
        self._conditions: dict[str, bool] = {}
        self._of_resolved = self._intrinsics()

    # -- helpers ---------------------------------------------------------

    def _fail(self, message: str, fallback: Any) -> Any:
        if self.strict:
            raise CfnResolveError(message)
        print(f"devstack.cfn: warning: {message}; using {fallback!r}", file=sys.stderr)
        return fallback

    def pseudo(self, name: str) -> Any:
        return {
            "AWS::Region": self.region,
            "AWS::AccountId": self.account_id,
            "AWS::Partition": self.partition,
            "AWS::StackName": self.stack_name,
            "AWS::StackId": (
                f"arn:{self.partition}:cloudformation:{self.region}:{self.account_id}:"
                f"stack/{self.stack_name}/00000000-0000-0000-0000-000000000000"
            ),
            "AWS::URLSuffix": "amazonaws.com.cn" if self.partition == "aws-cn" else "amazonaws.com",
            "AWS::NotificationARNs": [],
            "AWS::NoValue": NO_VALUE,
        }.get(name, NO_VALUE if name == "AWS::NoValue" else None)

    def ref(self, name: str) -> Any:
        if name.startswith("AWS::"):
            value = self.pseudo(name)
            if value is None and name != "AWS::NoValue":
                return self._fail(f"unknown pseudo parameter {name}", name)
            return value
        if name in self.parameters:
            return self.parameters[name]
        params = self.template.get("Parameters") or {}
        if name in params:
            spec = params[name] or {}
            if "Default" in spec:
                return spec["Default"]
            return self._fail(f"parameter {name} has no Default and no override", "")
        if name in self.refs:
            entry = self.refs[name]
            if isinstance(entry, Mapping):
                if "Ref" in entry:
                    return entry["Ref"]
                return self._fail(f"resource {name} has no Ref value", name)
            return entry
        resources = self.template.get("Resources") or {}
        if name in resources:
            return self._fail(f"resource {name} was not created", name)
        return self._fail(f"unknown reference {name}", name)

    def getatt(self, logical: str, attr: str) -> Any:
        entry = self.refs.get(logical)
        if isinstance(entry, Mapping) and attr in entry:
            return entry[attr]
        rtype = ((self.template.get("Resources") or {}).get(logical) or {}).get("Type", "")
        service = rtype.split("::")[1].lower() if rtype.count("::") >= 2 else "unknown"
        fallback = (
            f"arn:{self.partition}:{service}:{self.region}:{self.account_id}:{logical}"
            if attr == "Arn"
            else f"{logical}.{attr}"
        )
        return self._fail(f"cannot resolve Fn::GetAtt {logical}.{attr}", fallback)

    def condition(self, name: str) -> bool:
        if name in self._conditions:
            return self._conditions[name]
        conditions = self.template.get("Conditions") or {}
        if name not in conditions:
            raise CfnResolveError(f"unknown condition {name}")
        self._conditions[name] = False  # recursion guard
        value = bool(self.resolve(conditions[name]))
        self._conditions[name] = value
        return value

    def as_str(self, value: Any) -> str:
        if isinstance(value, bool):
            return "true" if value else "false"
        if value is NO_VALUE or value is None:
            return ""
        return str(value)

    # -- evaluation ------------------------------------------------------

    def resolve(self, value: Any) -> Any:
        if isinstance(value, list):
            out = [self.resolve(v) for v in value]
            return [v for v in out if v is not NO_VALUE]
        if isinstance(value, Mapping):
            if len(value) == 1:
                ((key, arg),) = value.items()
                if key in _INTRINSICS:
                    return self.intrinsic(key, arg)
            mapped: dict[Any, Any] = {}
            for k, v in value.items():
                r = self.resolve(v)
                if r is not NO_VALUE:
                    mapped[k] = r
            return mapped
        return value

    def intrinsic(self, key: str, arg: Any) -> Any:
        if key == "Fn::Sub":  # the text is not resolved, its variables are
            if isinstance(arg, list):
                return self.sub(arg[0], self.resolve(arg[1] if len(arg) > 1 else {}))
            return self.sub(arg, {})
        if key == "Fn::If":  # only the branch taken is resolved
            cond, yes, no = arg
            return self.resolve(yes) if self.condition(cond) else self.resolve(no)
        if key not in self._of_resolved:
            raise CfnResolveError(f"unsupported intrinsic {key}")  # pragma: no cover
        return self._of_resolved[key](self.resolve(arg))

    def _intrinsics(self) -> dict[str, Callable[[Any], Any]]:
        """The intrinsic functions of their resolved argument."""
        return {
            "Ref": self.ref,
            "Condition": self.condition,
            "Fn::GetAtt": self.getatt_of,
            "Fn::Join": lambda a: self.as_str(a[0]).join(self.as_str(i) for i in a[1]),
            "Fn::Equals": lambda a: self.as_str(a[0]) == self.as_str(a[1]),
            "Fn::Not": lambda a: not bool(a[0] if isinstance(a, list) else a),
            "Fn::And": lambda a: all(bool(i) for i in a),
            "Fn::Or": lambda a: any(bool(i) for i in a),
            "Fn::Select": lambda a: a[1][int(a[0])],
            "Fn::Split": lambda a: self.as_str(a[1]).split(a[0]),
            "Fn::FindInMap": self.find_in_map,
            "Fn::GetAZs": lambda a: [f"{self.as_str(a) or self.region}{suffix}" for suffix in "abc"],
            "Fn::ImportValue": self.import_value,
            "Fn::Base64": lambda a: base64.b64encode(self.as_str(a).encode()).decode(),
            "Fn::Cidr": lambda a: _cidr(self.as_str(a[0]), int(a[1]), int(a[2])),
            "Fn::Length": len,
            "Fn::ToJsonString": lambda a: json.dumps(a, separators=(",", ":")),
        }

    def getatt_of(self, arg: Any) -> Any:
        """``Fn::GetAtt`` of ``"Logical.Attr"`` or ``[Logical, Attr...]``."""
        if isinstance(arg, str):
            logical, _, attr = arg.partition(".")
        else:
            logical, attr = arg[0], ".".join(str(a) for a in arg[1:])
        return self.getatt(logical, attr)

    def find_in_map(self, args: list[Any]) -> Any:
        map_name, top, second = args[0], args[1], args[2]
        try:
            return (self.template.get("Mappings") or {})[map_name][top][second]
        except KeyError:
            if len(args) > 3 and isinstance(args[3], Mapping) and "DefaultValue" in args[3]:
                return args[3]["DefaultValue"]
            raise CfnResolveError(f"Fn::FindInMap {map_name}.{top}.{second} not found") from None

    def import_value(self, name: Any) -> Any:
        if name in self.imports:
            return self.imports[name]
        return self._fail(f"Fn::ImportValue {name} not provided", f"import:{name}")

    def sub(self, text: str, variables: Mapping[str, Any]) -> str:
        def replace(match: re.Match[str]) -> str:
            name = match.group(1)
            if name.startswith("!"):
                return "${" + name[1:] + "}"
            name = name.strip()
            if name in variables:
                return self.as_str(variables[name])
            if name.startswith("AWS::"):
                return self.as_str(self.ref(name))
            if "." in name:
                logical, _, attr = name.partition(".")
                if logical not in (self.template.get("Parameters") or {}):
                    return self.as_str(self.getatt(logical, attr))
            return self.as_str(self.ref(name))

        return _SUB_RE.sub(replace, text)


def _cidr(block: str, count: int, bits: int) -> list[str]:
    network = ipaddress.ip_network(block, strict=False)
    new_prefix = network.max_prefixlen - bits
    out = []
    for i, subnet in enumerate(network.subnets(new_prefix=new_prefix)):
        if i >= count:
            break
        out.append(str(subnet))
    return out


def resolve(
    value: Any,
    refs: Mapping[str, Any] | None = None,
    *,
    template: Template | Mapping[str, Any] | None = None,
    parameters: Mapping[str, Any] | None = None,
    deployment: Deployment | None = None,
    strict: bool = True,
) -> Any:
    """Evaluate every intrinsic function in ``value``.

    ``refs`` maps logical ids of created resources to either the physical id
    (the value of ``Ref``) or a dict ``{"Ref": physical, "Arn": arn, <Attr>: ...}``
    used for ``Ref`` and ``Fn::GetAtt``.  ``parameters`` overrides template
    parameter Defaults; ``deployment`` (default: ``Deployment()``) gives the pseudo parameters
    and the imports.  ``strict=False`` turns unresolvable references into
    warnings with placeholder values instead of :class:`CfnResolveError`.
    ``value`` is not modified.
    """
    data = template.data if isinstance(template, Template) else template
    resolver = _Resolver(data, refs, parameters, deployment or Deployment(), strict)
    return resolver.resolve(copy.deepcopy(value))


# --------------------------------------------------------------------------- enumeration


@dataclass(frozen=True)
class ApiEvent:
    """One ``Type: Api`` event of a function."""

    name: str  # the event's key under Events
    path: str  # e.g. /partner/v1/governance/{mint}
    method: str  # upper case; ANY for SAM's "any"
    rest_api_id: Any = None  # raw (usually {"Ref": "PartnerApi"}) or None
    timeout_in_millis: int | None = None  # the event's TimeoutInMillis (integration timeout), if set
    authorizer: str | None = None  # the event's Auth.Authorizer (AWS_IAM: SigV4, devstack.sigv4)


@dataclass
class Function:
    """An ``AWS::Serverless::Function`` with Globals applied."""

    logical_id: str
    code_uri: str  # as written, e.g. functions/me
    code_dir: Path  # absolute
    handler: str  # e.g. app.lambda_handler
    environment: dict[str, Any]  # Globals + function Variables, unresolved
    api_events: list[ApiEvent] = field(default_factory=list)
    events: dict[str, Any] = field(default_factory=dict)  # every event, raw
    memory_size: int = 128
    timeout: int = 3
    runtime: str | None = None
    properties: dict[str, Any] = field(default_factory=dict)  # merged raw properties

    @property
    def handler_module(self) -> str:
        return self.handler.rsplit(".", 1)[0]

    @property
    def handler_function(self) -> str:
        return self.handler.rsplit(".", 1)[1]

    @property
    def module_path(self) -> Path:
        """The handler's source file, e.g. <repo>/functions/me/app.py."""
        return self.code_dir.joinpath(*self.handler_module.split(".")).with_suffix(".py")


def _deep_merge(base: Any, override: Any) -> Any:
    if isinstance(base, dict) and isinstance(override, dict):
        out = dict(base)
        for k, v in override.items():
            out[k] = _deep_merge(base[k], v) if k in base else v
        return out
    return override


class Template:
    """A parsed template plus the file it came from."""

    def __init__(self, data: Mapping[str, Any], path: str | Path | None = None) -> None:
        self.data: dict[str, Any] = dict(data)
        self.path = Path(path).resolve() if path is not None else None
        self.base_dir = self.path.parent if self.path is not None else Path.cwd()

    # -- raw sections ----------------------------------------------------

    @property
    def resources(self) -> dict[str, Any]:
        return self.data.get("Resources") or {}

    @property
    def parameters(self) -> dict[str, Any]:
        return self.data.get("Parameters") or {}

    @property
    def globals(self) -> dict[str, Any]:
        return self.data.get("Globals") or {}

    def parameter_values(self, overrides: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Parameter name -> Default, with ``overrides`` applied."""
        out = {name: spec.get("Default") for name, spec in self.parameters.items() if "Default" in (spec or {})}
        out.update(overrides or {})
        return out

    def resources_of_type(self, *types: str) -> dict[str, dict[str, Any]]:
        return {lid: res for lid, res in self.resources.items() if (res or {}).get("Type") in types}

    def resolve(self, value: Any, refs: Mapping[str, Any] | None = None, **kwargs: Any) -> Any:
        return resolve(value, refs, template=self, **kwargs)

    # -- enumeration -----------------------------------------------------

    def functions(self) -> list[Function]:
        gfun = self.globals.get("Function") or {}
        out = []
        for lid, res in self.resources_of_type("AWS::Serverless::Function").items():
            props = res.get("Properties") or {}
            merged = _deep_merge(
                {k: v for k, v in gfun.items() if k != "Environment"},
                {k: v for k, v in props.items() if k != "Environment"},
            )
            env: dict[str, Any] = {}
            env.update(((gfun.get("Environment") or {}).get("Variables")) or {})
            env.update(((props.get("Environment") or {}).get("Variables")) or {})
            merged["Environment"] = {"Variables": env}
            code_uri = merged.get("CodeUri") or "."
            if not isinstance(code_uri, str):  # S3 location dict etc.
                code_uri = "."
            events = props.get("Events") or {}
            api_events = []
            for name, ev in events.items():
                ev = ev or {}
                if ev.get("Type") != "Api":
                    continue
                ep = ev.get("Properties") or {}
                method = str(ep.get("Method", "ANY")).upper()
                timeout = ep.get("TimeoutInMillis")
                authorizer = (ep.get("Auth") or {}).get("Authorizer")
                api_events.append(
                    ApiEvent(
                        name=name,
                        path=str(ep.get("Path", "/")),
                        method=method,
                        rest_api_id=ep.get("RestApiId"),
                        timeout_in_millis=int(timeout) if timeout is not None else None,
                        authorizer=str(authorizer) if authorizer else None,
                    )
                )
            out.append(
                Function(
                    logical_id=lid,
                    code_uri=code_uri,
                    code_dir=(self.base_dir / code_uri).resolve(),
                    handler=str(merged.get("Handler") or "app.lambda_handler"),
                    environment=env,
                    api_events=api_events,
                    events=events,
                    memory_size=int(merged.get("MemorySize") or 128),
                    timeout=int(merged.get("Timeout") or 3),
                    runtime=merged.get("Runtime"),
                    properties=merged,
                )
            )
        return out

    def function(self, logical_id: str) -> Function:
        for fn in self.functions():
            if fn.logical_id == logical_id:
                return fn
        raise KeyError(logical_id)

    def tables(self) -> dict[str, dict[str, Any]]:
        return self.resources_of_type("AWS::DynamoDB::Table", "AWS::Serverless::SimpleTable")

    def kms_keys(self) -> dict[str, dict[str, Any]]:
        return self.resources_of_type("AWS::KMS::Key")

    def buckets(self) -> dict[str, dict[str, Any]]:
        return self.resources_of_type("AWS::S3::Bucket")

    def queues(self) -> dict[str, dict[str, Any]]:
        return self.resources_of_type("AWS::SQS::Queue")

    def apis(self) -> dict[str, dict[str, Any]]:
        return self.resources_of_type("AWS::Serverless::Api")

    def layer_dirs(self) -> list[Path]:
        """Existing local ContentUri folders of the template's layers."""
        out = []
        for res in self.resources_of_type("AWS::Serverless::LayerVersion", "AWS::Lambda::LayerVersion").values():
            props = res.get("Properties") or {}
            uri = props.get("ContentUri") or props.get("Content")
            if isinstance(uri, str):
                p = (self.base_dir / uri).resolve()
                if p.is_dir():
                    out.append(p)
        return out

    def _api_for(self, rest_api_id: Any = None) -> dict[str, Any]:
        apis = self.apis()
        if isinstance(rest_api_id, Mapping) and "Ref" in rest_api_id and rest_api_id["Ref"] in apis:
            return apis[rest_api_id["Ref"]].get("Properties") or {}
        if isinstance(rest_api_id, str) and rest_api_id in apis:
            return apis[rest_api_id].get("Properties") or {}
        if apis:
            return next(iter(apis.values())).get("Properties") or {}
        return {}

    def _api_logical_id(self, rest_api_id: Any = None) -> str | None:
        apis = self.apis()
        if isinstance(rest_api_id, Mapping) and rest_api_id.get("Ref") in apis:
            return str(rest_api_id["Ref"])
        if isinstance(rest_api_id, str) and rest_api_id in apis:
            return rest_api_id
        return next(iter(apis), None)

    def binary_media_types(self, rest_api_id: Any = None) -> list[str]:
        """The API's BinaryMediaTypes with ``~1`` unescaped to ``/``."""
        props = _deep_merge(self.globals.get("Api") or {}, self._api_for(rest_api_id))
        types = self.resolve(props.get("BinaryMediaTypes") or [], strict=False)
        return [str(t).replace("~1", "/") for t in types]

    def gateway_responses(self, rest_api_id: Any = None) -> dict[str, dict[str, Any]]:
        """The API's gateway responses by type (``DEFAULT_4XX``, ``THROTTLED``, ...), each as
        ``{"StatusCode": int | None, "Headers": {name: mapping expression}, "Templates": {media type: text}}``.

        Read from the SAM Api's ``GatewayResponses`` property and from
        ``AWS::ApiGateway::GatewayResponse`` resources whose ``RestApiId`` names the API
        (``ResponseParameters`` ``gatewayresponse.header.NAME`` keys)."""
        props = _deep_merge(self.globals.get("Api") or {}, self._api_for(rest_api_id))
        out: dict[str, dict[str, Any]] = {}
        for kind, spec in (self.resolve(props.get("GatewayResponses") or {}, strict=False) or {}).items():
            spec = spec or {}
            params = spec.get("ResponseParameters") or {}
            out[str(kind)] = {
                "StatusCode": int(spec["StatusCode"]) if spec.get("StatusCode") not in (None, "") else None,
                "Headers": {str(k): str(v) for k, v in (params.get("Headers") or {}).items()},
                "Templates": {str(k): str(v) for k, v in (spec.get("ResponseTemplates") or {}).items()},
            }
        api_id = self._api_logical_id(rest_api_id)
        for res in self.resources_of_type("AWS::ApiGateway::GatewayResponse").values():
            rp = res.get("Properties") or {}
            target = rp.get("RestApiId")
            if isinstance(target, Mapping) and target.get("Ref") != api_id:
                continue
            spec = self.resolve(rp, strict=False) or {}
            out[str(spec.get("ResponseType"))] = {
                "StatusCode": int(spec["StatusCode"]) if spec.get("StatusCode") not in (None, "") else None,
                "Headers": {
                    k[len("gatewayresponse.header.") :]: str(v)
                    for k, v in (spec.get("ResponseParameters") or {}).items()
                    if k.startswith("gatewayresponse.header.")
                },
                "Templates": {str(k): str(v) for k, v in (spec.get("ResponseTemplates") or {}).items()},
            }
        return out

    def method_throttle(
        self, rest_api_id: Any = None, parameters: Mapping[str, Any] | None = None
    ) -> tuple[float, float] | None:
        """(ThrottlingRateLimit, ThrottlingBurstLimit) of the API's ``MethodSettings`` entry
        for every method (``ResourcePath: /*``, ``HttpMethod: *``), or None. Values may be
        parameters (``parameters`` overrides their Defaults)."""
        props = _deep_merge(self.globals.get("Api") or {}, self._api_for(rest_api_id))
        for setting in self.resolve(props.get("MethodSettings") or [], parameters=parameters, strict=False) or []:
            if setting.get("ResourcePath") == "/*" and setting.get("HttpMethod") == "*":
                rate, burst = setting.get("ThrottlingRateLimit"), setting.get("ThrottlingBurstLimit")
                if rate is not None and burst is not None:
                    return float(rate), float(burst)
        return None

    def stage_name(self, rest_api_id: Any = None, parameters: Mapping[str, Any] | None = None) -> str:
        props = _deep_merge(self.globals.get("Api") or {}, self._api_for(rest_api_id))
        if "StageName" not in props:
            return "Prod"  # SAM's implicit API stage
        return str(self.resolve(props["StageName"], parameters=parameters, strict=False))
