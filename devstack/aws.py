"""The devstack's AWS side: a moto server (server mode: the in-process ``mock_aws`` loses updates when
several threads call it at once) and the template's data resources.

    moto = start_moto()
    stack = create_resources("template.yaml", moto.url, parameters={"RpcUrls": "http://127.0.0.1:8899"})
    env = {**stack.environment(), **aws_env(moto.url)}
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .cfn import (
    DEFAULT_ACCOUNT_ID,
    DEFAULT_PARTITION,
    Deployment,
    Function,
    Template,
    load_template,
)

__all__ = [
    "MotoHandle",
    "Stack",
    "start_moto",
    "create_resources",
    "aws_env",
    "function_environment",
    "TEST_CREDENTIALS",
]

TEST_CREDENTIALS = {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing"}


# --------------------------------------------------------------------------- moto


@dataclass
class MotoHandle:
    server: Any  # moto.server.ThreadedMotoServer
    host: str
    port: int

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def stop(self) -> None:
        self.server.stop()

    def __enter__(self) -> MotoHandle:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()


def _keep_no_instances() -> None:
    """moto tracks every instance of its models (`BaseModel.__new__` appends each to its class's
    `instances_tracked`), only for a reset of its whole state that the devstack never makes: every item
    ever written, overwritten or deleted stayed, and every copy a TransactWriteItems makes of the tables
    it touches (for its rollback) with all their items (a full test run's worker grew by 20 GB). Here
    models are made untracked; moto's behaviour is otherwise the same."""
    from moto.core.common_models import BaseModel

    def untracked(cls: type[BaseModel], *args: Any, **kwargs: Any) -> BaseModel:
        return super(BaseModel, cls).__new__(cls)

    BaseModel.__new__ = untracked  # type: ignore[method-assign]  # moto's own is the tracking


class _AtomicMotoServer:
    """moto's server with each request handled atomically, as DynamoDB handles each request.

    moto's ThreadedMotoServer runs requests on concurrent threads with no lock around the
    backends, so a conditional UpdateItem is a read-check-write that two threads can
    interleave (150 concurrent hits on a 120 budget admitted 121). Real DynamoDB applies
    each request atomically. Here connections are still served on their own threads, but
    one request at a time reaches the backends: callers' multi-request sequences still
    interleave, so concurrency tests race exactly where the service could race in AWS.

    A repeated TransactWriteItems with the same ClientRequestToken is answered as DynamoDB
    answers it (``devstack.ddb_tokens``), and a transaction or single write that overlaps a
    transaction in progress on one of its items is refused as DynamoDB refuses it
    (``devstack.ddb_conflicts``). In front of it all, an S3 browser upload (a multipart POST to a
    bucket) is checked against its
    POST policy as S3 checks it (``devstack.s3post``): signature, expiry, every condition; every
    other call must carry a SigV4 signature by the devstack's key, recomputed as AWS recomputes it.
    """

    def __init__(self, host: str, port: int, verbose: bool) -> None:
        import threading

        from moto.moto_server.threaded_moto_server import MotoRequestHandler
        from moto.moto_server.werkzeug_app import DomainDispatcherApplication, create_backend_app
        from werkzeug.serving import make_server

        from .ddb_conflicts import TransactionConflicts
        from .ddb_tokens import TransactionTokens
        from .latency import model, read_all
        from .s3post import PostPolicyCheck

        _keep_no_instances()
        app = DomainDispatcherApplication(create_backend_app)
        lock = threading.Lock()

        def atomic(environ, start_response):
            if environ.get("HTTP_X_AMZ_TARGET") == "AmazonSQS.ReceiveMessage":
                # a long poll waits (up to WaitTimeSeconds) on moto's own queue condition; under the
                # lock it would hold up every other request, and a poller re-polling at once could
                # starve a waiting DynamoDB write for good
                return app(environ, start_response)
            with lock:
                body = read_all(app(environ, start_response))
            return [body]

        # S3 browser uploads are checked against their POST policy as S3 checks them (moto checks none of it)
        # and a repeated TransactWriteItems (same ClientRequestToken) answered as DynamoDB answers it
        # and transactions that overlap on an item cancelled as DynamoDB cancels them
        # (outside the token cache, which answers one transaction at a time)
        self.conflicts = TransactionConflicts(TransactionTokens(atomic))
        checked = PostPolicyCheck(
            self.conflicts, {TEST_CREDENTIALS["AWS_ACCESS_KEY_ID"]: TEST_CREDENTIALS["AWS_SECRET_ACCESS_KEY"]}
        )
        # outermost: with the latency model on (devstack.latency), each call is held until its
        # kind's time from its arrival, moto's own time and lock included
        self._server = make_server(host, port, model.wsgi(checked), threaded=True, request_handler=MotoRequestHandler)
        self._thread = threading.Thread(target=self._server.serve_forever, name="moto", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def get_host_and_port(self) -> tuple[str, int]:
        return self._server.host, self._server.port

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=10)


def start_moto(host: str = "127.0.0.1", port: int = 0, verbose: bool = False) -> MotoHandle:
    """Start moto in server mode on a background thread (``port=0``: any free port),
    every request applied atomically (see :class:`_AtomicMotoServer`).

    ``verbose=False`` also silences werkzeug's per-request access log.
    """
    import logging

    if not verbose:
        werkzeug_logger = logging.getLogger("werkzeug")
        if werkzeug_logger.level in (logging.NOTSET, logging.DEBUG, logging.INFO):
            werkzeug_logger.setLevel(logging.WARNING)

    server = _AtomicMotoServer(host, port, verbose)
    server.start()
    bound_host, bound_port = server.get_host_and_port()
    if bound_host in ("0.0.0.0", "::", ""):
        bound_host = "127.0.0.1"
    return MotoHandle(server=server, host=bound_host, port=int(bound_port))


def aws_env(endpoint_url: str, region: str = "us-east-1") -> dict[str, str]:
    """Environment variables that make boto3 talk to the moto server."""
    return {
        "AWS_ENDPOINT_URL": endpoint_url,
        **TEST_CREDENTIALS,
        "AWS_DEFAULT_REGION": region,
        "AWS_REGION": region,
    }


# --------------------------------------------------------------------------- stack


class Stack(dict):
    """``{logical_id: {"Type", "Ref", "Arn", ...}}`` for every resource created,
    plus what is needed to resolve functions' environments."""

    def __init__(
        self,
        template: Template,
        *,
        endpoint_url: str,
        region: str,
        prefix: str,
        parameters: Mapping[str, Any],
        account_id: str = DEFAULT_ACCOUNT_ID,
    ) -> None:
        super().__init__()
        self.template = template
        self.endpoint_url = endpoint_url
        self.region = region
        self.prefix = prefix
        self.parameters = dict(parameters)
        self.account_id = account_id

    def resolve(self, value: Any, *, strict: bool = False) -> Any:
        deployment = Deployment(self.region, self.account_id, DEFAULT_PARTITION, stack_name=self.prefix)
        return self.template.resolve(value, self, parameters=self.parameters, deployment=deployment, strict=strict)

    def function_environment(self, fn: Function | str) -> dict[str, str]:
        """The function's Globals + own environment variables, resolved to strings."""
        if isinstance(fn, str):
            fn = self.template.function(fn)
        return _stringify(self.resolve(fn.environment))

    def environment(self) -> dict[str, str]:
        """The union of every function's resolved environment (warns on conflicts)."""
        out: dict[str, str] = {}
        for fn in self.template.functions():
            for k, v in self.function_environment(fn).items():
                if k in out and out[k] != v:
                    print(
                        f"devstack.aws: warning: {fn.logical_id} sets {k}={v!r}, another function {out[k]!r}",
                        file=sys.stderr,
                    )
                out.setdefault(k, v)
        return out

    def physical_id(self, logical_id: str) -> str:
        return self[logical_id]["Ref"]

    def arn(self, logical_id: str) -> str:
        return self[logical_id]["Arn"]


def _stringify(env: Mapping[str, Any]) -> dict[str, str]:
    out = {}
    for k, v in env.items():
        if isinstance(v, bool):
            v = "true" if v else "false"
        out[str(k)] = "" if v is None else str(v)
    return out


def function_environment(stack: Stack, fn: Function | str) -> dict[str, str]:
    """Module-level alias of :meth:`Stack.function_environment`."""
    return stack.function_environment(fn)


def _client(service: str, endpoint_url: str, region: str):
    import boto3

    return boto3.session.Session(
        aws_access_key_id=TEST_CREDENTIALS["AWS_ACCESS_KEY_ID"],
        aws_secret_access_key=TEST_CREDENTIALS["AWS_SECRET_ACCESS_KEY"],
        region_name=region,
    ).client(service, endpoint_url=endpoint_url)


def _warn(message: str) -> None:
    print(f"devstack.aws: warning: {message}", file=sys.stderr)


# Values for the template's parameters without a Default (an operator sets them on AWS,
# docs/operations.md): the devstack's own endpoints.
DEVSTACK_PARAMETERS: dict[str, str] = {"RpcUrls": "http://127.0.0.1:8899"}


def create_resources(
    template: Template | str | Path,
    endpoint_url: str,
    region: str = "us-east-1",
    prefix: str = "partner-dev",
    parameters: Mapping[str, Any] | None = None,
) -> Stack:
    """Create every DynamoDB table, KMS key (and alias) and S3 bucket of the
    template in the AWS endpoint at ``endpoint_url`` (moto), from their own
    Properties.  Physical names are ``{prefix}-{LogicalId}`` (lower-case for
    buckets).  ``parameters`` overrides parameter Defaults (RpcUrls, ...); the parameters
    an operator must set on AWS (no Default) get the devstack's values (DEVSTACK_PARAMETERS).

    Returns a :class:`Stack` (a dict ``logical_id -> {"Type", "Ref", "Arn", ...}``)
    whose ``function_environment(fn)`` / ``environment()`` resolve functions'
    environment variables.  Existing resources with the same names are reused.
    """
    if not isinstance(template, Template):
        template = load_template(template)
    stack = Stack(
        template,
        endpoint_url=endpoint_url,
        region=region,
        prefix=prefix,
        parameters=template.parameter_values({**DEVSTACK_PARAMETERS, **(parameters or {})}),
    )
    # Keys first (tables or buckets may reference them), then tables, buckets.
    if template.kms_keys():
        kms = _client("kms", endpoint_url, region)
        for lid, res in template.kms_keys().items():
            stack[lid] = _create_key(kms, stack, lid, stack.resolve(res.get("Properties") or {}))
        for lid, res in template.resources_of_type("AWS::KMS::Alias").items():
            props = stack.resolve(res.get("Properties") or {})
            try:
                kms.create_alias(AliasName=props["AliasName"], TargetKeyId=props["TargetKeyId"])
            except kms.exceptions.AlreadyExistsException:
                kms.update_alias(AliasName=props["AliasName"], TargetKeyId=props["TargetKeyId"])
            stack[lid] = {"Type": "AWS::KMS::Alias", "Ref": props["AliasName"]}
    if template.tables():
        ddb = _client("dynamodb", endpoint_url, region)
        for lid, res in template.tables().items():
            props = stack.resolve(res.get("Properties") or {})
            stack[lid] = _create_table(ddb, stack, lid, res["Type"], props)
    if template.buckets():
        s3 = _client("s3", endpoint_url, region)
        for lid, res in template.buckets().items():
            stack[lid] = _create_bucket(s3, stack, lid, stack.resolve(res.get("Properties") or {}))
    if template.queues():
        sqs = _client("sqs", endpoint_url, region)
        # dead-letter queues first: a RedrivePolicy names its target's Arn
        ordered = sorted(template.queues().items(), key=lambda kv: "RedrivePolicy" in (kv[1].get("Properties") or {}))
        for lid, res in ordered:
            stack[lid] = _create_queue(sqs, stack, lid, stack.resolve(res.get("Properties") or {}))
    return stack


# --------------------------------------------------------------------------- SQS

_QUEUE_ATTRIBUTES = (
    "DelaySeconds",
    "MaximumMessageSize",
    "MessageRetentionPeriod",
    "ReceiveMessageWaitTimeSeconds",
    "VisibilityTimeout",
    "FifoQueue",
    "ContentBasedDeduplication",
    "SqsManagedSseEnabled",
)


def _create_queue(sqs, stack: Stack, lid: str, props: Mapping[str, Any]) -> dict[str, Any]:
    """A queue from its own Properties (name `{prefix}-{LogicalId}`, or QueueName); the
    RedrivePolicy's target must exist already (create_resources orders dead-letter queues first)."""
    name = props.get("QueueName") or f"{stack.prefix}-{lid}" + (".fifo" if props.get("FifoQueue") else "")
    attributes = {
        k: ("true" if v is True else "false" if v is False else str(v))
        for k, v in props.items()
        if k in _QUEUE_ATTRIBUTES
    }
    if props.get("RedrivePolicy"):
        import json

        attributes["RedrivePolicy"] = json.dumps(props["RedrivePolicy"])
    url = sqs.create_queue(QueueName=name, Attributes=attributes)["QueueUrl"]
    arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    return {"Type": "AWS::SQS::Queue", "Ref": url, "Arn": arn, "QueueName": name, "QueueUrl": url}


# --------------------------------------------------------------------------- KMS


def _create_key(kms, stack: Stack, lid: str, props: Mapping[str, Any]) -> dict[str, Any]:
    alias = f"alias/{stack.prefix}-{lid}"
    try:
        existing = kms.describe_key(KeyId=alias)["KeyMetadata"]
        return {
            "Type": "AWS::KMS::Key",
            "Ref": existing["KeyId"],
            "Arn": existing["Arn"],
            "KeyId": existing["KeyId"],
            "Alias": alias,
        }
    except kms.exceptions.NotFoundException:
        pass
    kwargs: dict[str, Any] = {
        "Description": props.get("Description", f"{stack.prefix} {lid}"),
        "KeySpec": props.get("KeySpec", "SYMMETRIC_DEFAULT"),
        "KeyUsage": props.get("KeyUsage", "ENCRYPT_DECRYPT"),
        "Tags": [{"TagKey": "devstack:logical-id", "TagValue": lid}]
        + [{"TagKey": t["Key"], "TagValue": t["Value"]} for t in props.get("Tags") or []],
    }
    if "MultiRegion" in props:
        kwargs["MultiRegion"] = bool(props["MultiRegion"])
    meta = kms.create_key(**kwargs)["KeyMetadata"]
    key_id = meta["KeyId"]
    kms.create_alias(AliasName=alias, TargetKeyId=key_id)
    if props.get("EnableKeyRotation") and kwargs["KeySpec"] == "SYMMETRIC_DEFAULT":
        try:
            kms.enable_key_rotation(KeyId=key_id)
        except Exception as exc:  # cosmetic locally
            _warn(f"enable_key_rotation {lid}: {exc}")
    if props.get("Enabled") is False:
        kms.disable_key(KeyId=key_id)
    return {"Type": "AWS::KMS::Key", "Ref": key_id, "Arn": meta["Arn"], "KeyId": key_id, "Alias": alias}


# --------------------------------------------------------------------------- DynamoDB

_GSI_KEYS = ("IndexName", "KeySchema", "Projection", "ProvisionedThroughput", "OnDemandThroughput")
_LSI_KEYS = ("IndexName", "KeySchema", "Projection")


def _throughput(pt: Mapping[str, Any] | None) -> dict[str, int]:
    pt = pt or {}
    return {
        "ReadCapacityUnits": int(pt.get("ReadCapacityUnits", 5)),
        "WriteCapacityUnits": int(pt.get("WriteCapacityUnits", 5)),
    }


def _table_kwargs(name: str, rtype: str, props: Mapping[str, Any]) -> dict[str, Any]:
    if rtype == "AWS::Serverless::SimpleTable":
        pk = props.get("PrimaryKey") or {"Name": "id", "Type": "String"}
        attr_type = {"String": "S", "Number": "N", "Binary": "B"}.get(pk.get("Type", "String"), "S")
        kwargs: dict[str, Any] = {
            "TableName": name,
            "KeySchema": [{"AttributeName": pk["Name"], "KeyType": "HASH"}],
            "AttributeDefinitions": [{"AttributeName": pk["Name"], "AttributeType": attr_type}],
        }
        if props.get("ProvisionedThroughput"):
            kwargs["BillingMode"] = "PROVISIONED"
            kwargs["ProvisionedThroughput"] = _throughput(props["ProvisionedThroughput"])
        else:
            kwargs["BillingMode"] = "PAY_PER_REQUEST"
        return kwargs

    billing = props.get("BillingMode", "PROVISIONED")
    kwargs = {
        "TableName": name,
        "KeySchema": list(props["KeySchema"]),
        "AttributeDefinitions": list(props["AttributeDefinitions"]),
        "BillingMode": billing,
    }
    if billing == "PROVISIONED":
        kwargs["ProvisionedThroughput"] = _throughput(props.get("ProvisionedThroughput"))
    gsis = []
    for gsi in props.get("GlobalSecondaryIndexes") or []:
        g = {k: gsi[k] for k in _GSI_KEYS if k in gsi}
        if billing == "PROVISIONED":
            g["ProvisionedThroughput"] = _throughput(gsi.get("ProvisionedThroughput"))
        else:
            g.pop("ProvisionedThroughput", None)
        g.pop("OnDemandThroughput", None)
        gsis.append(g)
    if gsis:
        kwargs["GlobalSecondaryIndexes"] = gsis
    lsis = [{k: lsi[k] for k in _LSI_KEYS if k in lsi} for lsi in props.get("LocalSecondaryIndexes") or []]
    if lsis:
        kwargs["LocalSecondaryIndexes"] = lsis
    stream = props.get("StreamSpecification")
    if stream and stream.get("StreamViewType"):
        kwargs["StreamSpecification"] = {"StreamEnabled": True, "StreamViewType": stream["StreamViewType"]}
    tags = props.get("Tags")
    if tags:
        kwargs["Tags"] = [{"Key": t["Key"], "Value": str(t["Value"])} for t in tags]
    if props.get("TableClass"):
        kwargs["TableClass"] = props["TableClass"]
    return kwargs


def _create_table(ddb, stack: Stack, lid: str, rtype: str, props: Mapping[str, Any]) -> dict[str, Any]:
    name = f"{stack.prefix}-{lid}"
    try:
        ddb.create_table(**_table_kwargs(name, rtype, props))
    except ddb.exceptions.ResourceInUseException:
        pass  # already there (moto reused): keep it
    ddb.get_waiter("table_exists").wait(TableName=name, WaiterConfig={"Delay": 0.05, "MaxAttempts": 200})
    ttl = props.get("TimeToLiveSpecification")
    if ttl and ttl.get("Enabled") and ttl.get("AttributeName"):
        current = ddb.describe_time_to_live(TableName=name)["TimeToLiveDescription"]
        if current.get("TimeToLiveStatus") not in ("ENABLED", "ENABLING"):
            ddb.update_time_to_live(
                TableName=name,
                TimeToLiveSpecification={"Enabled": True, "AttributeName": ttl["AttributeName"]},
            )
    pitr = (props.get("PointInTimeRecoverySpecification") or {}).get("PointInTimeRecoveryEnabled")
    if pitr:
        try:
            ddb.update_continuous_backups(
                TableName=name,
                PointInTimeRecoverySpecification={"PointInTimeRecoveryEnabled": True},
            )
        except Exception as exc:  # cosmetic locally
            _warn(f"point-in-time recovery {lid}: {exc}")
    desc = ddb.describe_table(TableName=name)["Table"]
    entry = {"Type": rtype, "Ref": name, "Arn": desc["TableArn"]}
    if desc.get("LatestStreamArn"):
        entry["StreamArn"] = desc["LatestStreamArn"]
    return entry


# --------------------------------------------------------------------------- S3


def _lifecycle_rules(rules: list[Mapping[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for r in rules:
        rule: dict[str, Any] = {"Status": r.get("Status", "Enabled")}
        if r.get("Id"):
            rule["ID"] = r["Id"]
        flt: dict[str, Any] = {}
        if r.get("Prefix") is not None:
            flt["Prefix"] = r["Prefix"]
        if r.get("TagFilters"):
            flt = {"And": {**flt, "Tags": [{"Key": t["Key"], "Value": t["Value"]} for t in r["TagFilters"]]}}
        rule["Filter"] = flt or {"Prefix": ""}
        if "ExpirationInDays" in r:
            rule["Expiration"] = {"Days": int(r["ExpirationInDays"])}
        elif "ExpirationDate" in r:
            rule["Expiration"] = {"Date": r["ExpirationDate"]}
        elif "ExpiredObjectDeleteMarker" in r:
            rule["Expiration"] = {"ExpiredObjectDeleteMarker": bool(r["ExpiredObjectDeleteMarker"])}
        if "AbortIncompleteMultipartUpload" in r:
            rule["AbortIncompleteMultipartUpload"] = {
                "DaysAfterInitiation": int(r["AbortIncompleteMultipartUpload"]["DaysAfterInitiation"])
            }
        if "NoncurrentVersionExpirationInDays" in r:
            rule["NoncurrentVersionExpiration"] = {"NoncurrentDays": int(r["NoncurrentVersionExpirationInDays"])}
        elif "NoncurrentVersionExpiration" in r:
            rule["NoncurrentVersionExpiration"] = {
                "NoncurrentDays": int(r["NoncurrentVersionExpiration"]["NoncurrentDays"])
            }
        transitions = list(r.get("Transitions") or [])
        if "Transition" in r:
            transitions.append(r["Transition"])
        if transitions:
            rule["Transitions"] = [
                {
                    "StorageClass": t["StorageClass"],
                    **({"Days": int(t["TransitionInDays"])} if "TransitionInDays" in t else {}),
                }
                for t in transitions
            ]
        out.append(rule)
    return out


def _encryption_rule(r: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    default = r.get("ServerSideEncryptionByDefault")
    if default:
        out["ApplyServerSideEncryptionByDefault"] = {
            k: default[k] for k in ("SSEAlgorithm", "KMSMasterKeyID") if k in default
        }
    if "BucketKeyEnabled" in r:
        out["BucketKeyEnabled"] = bool(r["BucketKeyEnabled"])
    return out


def _bucket_settings(props: Mapping[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    """The bucket's settings after its creation: (what, the S3 call, its arguments) each."""

    def nested(name: str, key: str) -> Any:
        return (props.get(name) or {}).get(key)

    pab = props.get("PublicAccessBlockConfiguration") or {}
    flags = ("BlockPublicAcls", "IgnorePublicAcls", "BlockPublicPolicy", "RestrictPublicBuckets")
    rules = _lifecycle_rules(nested("LifecycleConfiguration", "Rules") or [])
    status = nested("VersioningConfiguration", "Status")
    enc = [_encryption_rule(r) for r in nested("BucketEncryption", "ServerSideEncryptionConfiguration") or []]
    owners = nested("OwnershipControls", "Rules")
    cors = [_cors_rule(c) for c in nested("CorsConfiguration", "CorsRules") or []]
    block = {k: bool(pab.get(k, False)) for k in flags}
    settings = [  # (what, the S3 call, its argument, the argument's value or nothing to set)
        ("public access block", "put_public_access_block", "PublicAccessBlockConfiguration", pab and block),
        ("lifecycle", "put_bucket_lifecycle_configuration", "LifecycleConfiguration", rules and {"Rules": rules}),
        ("versioning", "put_bucket_versioning", "VersioningConfiguration", status and {"Status": status}),
        ("encryption", "put_bucket_encryption", "ServerSideEncryptionConfiguration", enc and {"Rules": enc}),
        ("ownership controls", "put_bucket_ownership_controls", "OwnershipControls", owners and {"Rules": owners}),
        ("cors", "put_bucket_cors", "CORSConfiguration", cors and {"CORSRules": cors}),
    ]
    return [(what, call, {argument: value}) for what, call, argument, value in settings if value]


def _cors_rule(c: Mapping[str, Any]) -> dict[str, Any]:
    rule = {k: c[k] for k in ("AllowedMethods", "AllowedOrigins", "AllowedHeaders") if k in c}
    if "ExposedHeaders" in c:
        rule["ExposeHeaders"] = c["ExposedHeaders"]
    if "MaxAge" in c:
        rule["MaxAgeSeconds"] = int(c["MaxAge"])
    if "Id" in c:
        rule["ID"] = c["Id"]
    return rule


def _create_bucket(s3, stack: Stack, lid: str, props: Mapping[str, Any]) -> dict[str, Any]:
    name = f"{stack.prefix}-{lid}".lower()
    kwargs: dict[str, Any] = {"Bucket": name}
    if stack.region != "us-east-1":
        kwargs["CreateBucketConfiguration"] = {"LocationConstraint": stack.region}
    try:
        s3.create_bucket(**kwargs)
    except (s3.exceptions.BucketAlreadyOwnedByYou, s3.exceptions.BucketAlreadyExists):
        pass
    for what, operation, settings in _bucket_settings(props):
        try:
            getattr(s3, operation)(Bucket=name, **settings)
        except Exception as exc:  # optional locally
            _warn(f"{what} on {name}: {exc}")
    return {
        "Type": "AWS::S3::Bucket",
        "Ref": name,
        "Arn": f"arn:{DEFAULT_PARTITION}:s3:::{name}",
        "DomainName": f"{name}.s3.amazonaws.com",
        "RegionalDomainName": f"{name}.s3.{stack.region}.amazonaws.com",
        "WebsiteURL": f"http://{name}.s3-website-{stack.region}.amazonaws.com",
    }
