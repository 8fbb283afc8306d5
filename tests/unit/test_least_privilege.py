"""Least privilege in template.yaml: what each function may do, the keys, the bucket, encryption.

The expected access map below is derived from the code paths of each function (which
`partner` modules it reaches and which DynamoDB/KMS/S3 calls those make); the template
must grant exactly that, no more:

* every /partner/v1 route authenticates with one BatchGetItem over the auth, clients and
  users tables (`partner.edge.access.authenticate`) and draws on rate-limit windows with
  UpdateItem on counters (`partner.store.ratelimit.take`/`take_tier`); hashing a presented
  token needs kms:GenerateMac on the HashKey once per process (`partner.store.crypto`);
* counters GetItem only where a counter is read: the daily-volume reservation of trades
  (`counters.reserve` -> `read`), the lockout check of /oauth/token and /oauth/revoke,
  the launch slot and bundle records of coins/create (transaction status reads its bundle
  record inside the token's BatchGetItem, so it has BatchGetItem on counters instead);
* kms:Decrypt of wallet secrets only where a transaction is signed (`partner.store.wallets`),
  always under the wallet encryption context;
* s3:PutObject only under `staging/` of the staging bucket, for the two pinning routes;
* staged image uploads (issue 18): the uploads function records the upload (PutItem on the
  uploads table) and signs presigned POSTs, whose reach is its own s3:PutObject, on `uploads/`
  only; the two routes that take `imageUploadId` read and consume the record (GetItem,
  UpdateItem) and may only read and delete objects under `uploads/` (never put one there);
* idempotency table UpdateItem only for the writes (the Idempotency-Key claim); users table
  UpdateItem for the writes too (the slot of the user's last write, with several RPC endpoints);
* the transaction record (issue 11): PutItem on the transactions table for every sending
  route (BatchWriteItem too for coins/create, whose bundle has two records); the status route
  reads the record inside the token's BatchGetItem; the tracker queries only the `open`
  index, updates records, reads clients and bundle records in one BatchGetItem and sends to
  the webhook queue; the delivery function reads the client, decrypts webhook secrets under
  the webhook context only, logs attempts and sends to the queue (retries) or the DLQ.
* the platform API (issue 28, /platform/v1, IAM-authorized): each function reaches the users
  table only as its step needs (the sub link and the user: GetItem; upsert: PutItem in one
  transaction, UpdateItem for the handle; wallet and delegation: UpdateItem); only the wallet
  function may kms:Encrypt (seal a new seed), under the wallet context, and none decrypts;
  none hashes a token (no HashKey) since IAM, not a bearer token, authenticates the caller.
* GET /health (issue 39) takes no credential and reads nothing: it is granted nothing.

A change that makes a function touch something new must change this map too.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from devstack.cfn import load_template

ROOT = Path(__file__).resolve().parents[2]

SSM_SECRET_ARN = "arn:${AWS::Partition}:ssm:${AWS::Region}:${AWS::AccountId}:parameter${OidcClientSecretParameter}"
# a function of this stack by its fixed name (FunctionName: ${AWS::StackName}-<name>), maybe qualified
OWN_FUNCTION_ARN = "arn:${AWS::Partition}:lambda:${AWS::Region}:${AWS::AccountId}:function:${AWS::StackName}-"
AUTHN = {(table, "dynamodb:BatchGetItem") for table in ("AuthTable", "ClientsTable", "UsersTable")}
MAC = {("HashKey", "kms:GenerateMac")}
WINDOWS = {("CountersTable", "dynamodb:UpdateItem")}
READ_COUNTER = {("CountersTable", "dynamodb:GetItem")}
SIGN = {("WalletKey", "kms:Decrypt")}
STAGE = {("StagingBucket/staging/*", "s3:PutObject")}
UPLOAD_READ = {("UploadsTable", action) for action in ("dynamodb:GetItem", "dynamodb:UpdateItem")} | {
    ("StagingBucket/uploads/*", action) for action in ("s3:GetObject", "s3:DeleteObject")
}
RECORD = {("TransactionsTable", "dynamodb:PutItem")}
# Idempotency-Key (partner.edge.idempotency): one UpdateItem claims or returns the stored answer
# (ReturnValuesOnConditionCheckFailure), others record the signatures and store the answer
IDEMPOTENT = {("IdempotencyTable", "dynamodb:UpdateItem")}
# with several RPC endpoints, a write keeps the slot it was answered at on the user's record
# (partner.send.pipeline.remember_slot -> users.raise_write_slot)
WRITE_SLOT = {("UsersTable", "dynamodb:UpdateItem")}

READ_ROUTE = AUTHN | WINDOWS | MAC
GOVERNANCE_WRITE = AUTHN | WINDOWS | MAC | SIGN | IDEMPOTENT | RECORD | WRITE_SLOT
TRADE = AUTHN | WINDOWS | READ_COUNTER | MAC | SIGN | IDEMPOTENT | RECORD | WRITE_SLOT

EXPECTED: dict[str, set[tuple[str, str]]] = {
    "OAuthAuthorizeFunction": {
        ("ClientsTable", "dynamodb:GetItem"),
        ("UsersTable", "dynamodb:GetItem"),
        ("AuthTable", "dynamodb:GetItem"),
        ("AuthTable", "dynamodb:PutItem"),
        # the approve transaction updates the grant (limits, scopes, times) and the apps index (issue 20)
        ("AuthTable", "dynamodb:UpdateItem"),
    }
    | WINDOWS
    | MAC,
    # issuance is one TransactWriteItems (consume, grant check, the new pair): IAM authorizes
    # it by its actions' UpdateItem, ConditionCheckItem and PutItem (issue 17)
    "OAuthTokenFunction": {
        ("ClientsTable", "dynamodb:GetItem"),
        ("AuthTable", "dynamodb:GetItem"),
        ("AuthTable", "dynamodb:UpdateItem"),
        ("AuthTable", "dynamodb:PutItem"),
        ("AuthTable", "dynamodb:ConditionCheckItem"),
    }
    | WINDOWS
    | READ_COUNTER
    | MAC,
    "OAuthRevokeFunction": {
        ("ClientsTable", "dynamodb:GetItem"),
        ("AuthTable", "dynamodb:GetItem"),
        ("AuthTable", "dynamodb:UpdateItem"),
    }
    | WINDOWS
    | READ_COUNTER
    | MAC,
    # issue 20: the user's connected apps, behind the consent page's session
    "AccountAppsFunction": {
        ("ClientsTable", "dynamodb:GetItem"),
        ("UsersTable", "dynamodb:GetItem"),
        ("AuthTable", "dynamodb:GetItem"),
        ("AuthTable", "dynamodb:BatchGetItem"),
        ("AuthTable", "dynamodb:UpdateItem"),
        ("ClientsTable", "dynamodb:BatchGetItem"),
        ("CountersTable", "dynamodb:BatchGetItem"),
        ("WebhookQueue", "sqs:SendMessage"),
    }
    | WINDOWS
    | MAC,
    # issue 28: sign-in through the platform's OpenID provider: the single-use sign-in item, the
    # session, the sub link and user; the client secret from its one SSM parameter
    "AccountSigninFunction": {
        ("UsersTable", "dynamodb:GetItem"),
        ("AuthTable", "dynamodb:PutItem"),
        ("AuthTable", "dynamodb:UpdateItem"),
        ("ssm:OidcClientSecretParameter", "ssm:GetParameter"),
    }
    | WINDOWS
    | MAC,
    # the grant's spend today is read in the token's BatchGetItem (issue 20)
    "MeFunction": READ_ROUTE | {("CountersTable", "dynamodb:BatchGetItem")},
    "GovernanceReadFunction": READ_ROUTE,
    "GovernanceVotesListFunction": READ_ROUTE,
    # the bundle record is read in the token's BatchGetItem (one call, not a second GetItem)
    "TransactionStatusFunction": READ_ROUTE
    | {("CountersTable", "dynamodb:BatchGetItem"), ("TransactionsTable", "dynamodb:BatchGetItem")},
    "FeesEstimateFunction": READ_ROUTE,
    "HealthFunction": set(),  # GET /health: no auth, no data; nothing to reach
    "TradesBuyFunction": TRADE,
    "TradesBuyExactOutFunction": TRADE,
    "TradesSellFunction": TRADE,
    # reads the chain only: nothing signed, counted or stored
    "TradesQuoteFunction": READ_ROUTE,
    "GovernanceVoteFunction": GOVERNANCE_WRITE,
    "GovernanceVoteCancelFunction": GOVERNANCE_WRITE,
    "GovernanceVoteWithdrawFunction": GOVERNANCE_WRITE,
    "GovernanceSettleFunction": GOVERNANCE_WRITE,
    "GovernanceExtendMutabilityFunction": GOVERNANCE_WRITE,
    "GovernanceFinalizeMetadataFunction": GOVERNANCE_WRITE,
    "GovernanceFinalizeExpiredFunction": GOVERNANCE_WRITE,
    "GovernanceBondWithdrawFunction": GOVERNANCE_WRITE,
    "GovernanceUpdateContentFunction": GOVERNANCE_WRITE | STAGE | UPLOAD_READ,
    "CoinsCreateFunction": TRADE | STAGE | UPLOAD_READ | {("TransactionsTable", "dynamodb:BatchWriteItem")},
    # signs presigned POSTs (with its own credentials: s3:PutObject on uploads/ is all they can do)
    "UploadsCreateFunction": READ_ROUTE
    | {("UploadsTable", "dynamodb:PutItem"), ("StagingBucket/uploads/*", "s3:PutObject")},
    # the scheduled crank: reads its own sealed wallet and signs `migrate`
    "MigratorFunction": {("UsersTable", "dynamodb:GetItem")} | SIGN,
    "TrackerFunction": {
        ("TransactionsTable/index/open", "dynamodb:Query"),
        ("TransactionsTable", "dynamodb:UpdateItem"),
        ("TransactionsTable", "dynamodb:BatchWriteItem"),
        ("ClientsTable", "dynamodb:BatchGetItem"),
        ("CountersTable", "dynamodb:BatchGetItem"),
        ("CountersTable", "dynamodb:UpdateItem"),
        ("WebhookQueue", "sqs:SendMessage"),
        # itself, once per other group of index partitions (the scheduled run's fan-out), unqualified
        # and through the alias the schedule invokes
        ("self:tracker", "lambda:InvokeFunction"),
        ("self:tracker:live", "lambda:InvokeFunction"),
    },
    "PlatformUserReadFunction": {("UsersTable", "dynamodb:GetItem")},
    "PlatformUserUpsertFunction": {
        ("UsersTable", "dynamodb:GetItem"),
        ("UsersTable", "dynamodb:PutItem"),
        ("UsersTable", "dynamodb:UpdateItem"),
    },
    "PlatformUserWalletFunction": {
        ("UsersTable", "dynamodb:GetItem"),
        ("UsersTable", "dynamodb:UpdateItem"),
        ("WalletKey", "kms:Encrypt"),
    },
    "PlatformUserDelegationFunction": {("UsersTable", "dynamodb:GetItem"), ("UsersTable", "dynamodb:UpdateItem")},
    "WebhookDeliveryFunction": {
        ("ClientsTable", "dynamodb:GetItem"),
        ("WebhookDeliveriesTable", "dynamodb:PutItem"),
        ("WebhookKey", "kms:Decrypt"),
        ("WebhookQueue", "sqs:SendMessage"),
        ("WebhookDeadLetterQueue", "sqs:SendMessage"),
        ("WebhookQueue", "sqs:ReceiveMessage"),
        ("WebhookQueue", "sqs:DeleteMessage"),
        ("WebhookQueue", "sqs:GetQueueAttributes"),
        ("WebhookQueue", "sqs:ChangeMessageVisibility"),
    },
}
PLATFORM = {name for name in EXPECTED if name.startswith("Platform")}
UNAUTHENTICATED = {"HealthFunction"}  # GET /health: takes no credential, reads nothing
WEBHOOK_CONTEXT = {"kms:EncryptionContext:purpose": "partner-webhook"}

SIGNERS = {name for name, grants in EXPECTED.items() if ("WalletKey", "kms:Decrypt") in grants}
WALLET_CONTEXT = {"kms:EncryptionContext:purpose": "partner-wallet"}
KMS_USE = {
    "kms:Decrypt",
    "kms:Encrypt",
    "kms:GenerateDataKey",
    "kms:GenerateDataKeyWithoutPlaintext",
    "kms:GenerateDataKeyPair",
    "kms:GenerateDataKeyPairWithoutPlaintext",
    "kms:ReEncryptFrom",
    "kms:ReEncryptTo",
    "kms:Sign",
    "kms:Verify",
    "kms:GenerateMac",
    "kms:VerifyMac",
    "kms:CreateGrant",
    "kms:DeriveSharedSecret",
}


@pytest.fixture(scope="module")
def template():
    return load_template(ROOT / "template.yaml")


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def resource_name(value: Any) -> str:
    """A readable name for a policy Resource: the logical id, plus a Sub suffix."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and "Fn::GetAtt" in value:
        logical, attr = value["Fn::GetAtt"]
        assert attr == "Arn", value
        return logical
    if isinstance(value, dict) and "Fn::Sub" in value:
        text = value["Fn::Sub"]
        assert isinstance(text, str), value
        if text == SSM_SECRET_ARN:
            return "ssm:OidcClientSecretParameter"
        if text.startswith(OWN_FUNCTION_ARN):
            return "self:" + text.removeprefix(OWN_FUNCTION_ARN)
        prefix = "${"
        assert text.startswith(prefix) and ".Arn}" in text, value
        logical, _, rest = text[2:].partition(".Arn}")
        return logical + rest
    raise AssertionError(f"unrecognised Resource {value!r}")


def statements(fn) -> list[dict[str, Any]]:
    out = []
    for policy in fn.properties.get("Policies") or []:
        out.extend(policy["Statement"])
    return out


def grants(fn) -> set[tuple[str, str]]:
    return {(resource_name(r), a) for st in statements(fn) for a in _list(st["Action"]) for r in _list(st["Resource"])}


def test_functions_are_the_expected_ones(template):
    assert {fn.logical_id for fn in template.functions()} == set(EXPECTED)


def test_every_function_policy_is_an_inline_allow_statement_list(template):
    """No managed policy, SAM policy template or own role can widen what the map says."""
    for fn in template.functions():
        assert "Role" not in fn.properties, fn.logical_id
        for policy in fn.properties.get("Policies") or []:
            assert isinstance(policy, dict) and set(policy) == {"Statement"}, (fn.logical_id, policy)
            for st in policy["Statement"]:
                assert st["Effect"] == "Allow" and set(st) <= {"Effect", "Action", "Resource", "Condition"}, st
    assert not template.resources_of_type("AWS::IAM::Role", "AWS::IAM::Policy", "AWS::IAM::ManagedPolicy")


def test_no_wildcard_action_or_resource_in_any_function_policy(template):
    for fn in template.functions():
        for st in statements(fn):
            for action in _list(st["Action"]):
                assert "*" not in action, (fn.logical_id, action)
            for resource in _list(st["Resource"]):
                name = resource_name(resource)
                # the one exception is an object-key prefix: uploads are staged as
                # staging/<sha256> and uploads/<uploadId>, which no finite list of ARNs can name
                if "*" in name:
                    assert name in ("StagingBucket/staging/*", "StagingBucket/uploads/*"), (fn.logical_id, name)


def test_each_function_is_granted_exactly_what_its_code_path_uses(template):
    actual = {fn.logical_id: grants(fn) for fn in template.functions()}
    for name, expected in EXPECTED.items():
        assert actual[name] == expected, (
            f"{name}: extra {sorted(actual[name] - expected)}, missing {sorted(expected - actual[name])}"
        )


def test_only_signing_functions_decrypt_and_only_under_the_wallet_context(template):
    assert SIGNERS == {
        "TradesBuyFunction",
        "TradesBuyExactOutFunction",
        "TradesSellFunction",
        "GovernanceVoteFunction",
        "GovernanceVoteCancelFunction",
        "GovernanceVoteWithdrawFunction",
        "GovernanceSettleFunction",
        "GovernanceExtendMutabilityFunction",
        "GovernanceFinalizeMetadataFunction",
        "GovernanceFinalizeExpiredFunction",
        "GovernanceBondWithdrawFunction",
        "GovernanceUpdateContentFunction",
        "CoinsCreateFunction",
        "MigratorFunction",
    }
    for fn in template.functions():
        kms_statements = [st for st in statements(fn) if any(a.startswith("kms:") for a in _list(st["Action"]))]
        for st in kms_statements:
            actions = set(_list(st["Action"]))
            if "kms:Encrypt" in actions:
                # sealing a new wallet seed: the platform API's wallet function only, wallet context only
                assert fn.logical_id == "PlatformUserWalletFunction"
                assert actions == {"kms:Encrypt"}
                assert [resource_name(r) for r in _list(st["Resource"])] == ["WalletKey"]
                assert st.get("Condition") == {"StringEquals": WALLET_CONTEXT}
                continue
            assert not actions & (KMS_USE - {"kms:Decrypt", "kms:GenerateMac"}), (fn.logical_id, actions)
            if "kms:Decrypt" in actions and fn.logical_id == "WebhookDeliveryFunction":
                # webhook secrets only, under the webhook context only
                assert actions == {"kms:Decrypt"}
                assert [resource_name(r) for r in _list(st["Resource"])] == ["WebhookKey"]
                assert st.get("Condition") == {"StringEquals": WEBHOOK_CONTEXT}
                continue
            if "kms:Decrypt" in actions:
                assert fn.logical_id in SIGNERS
                assert actions == {"kms:Decrypt"}
                assert [resource_name(r) for r in _list(st["Resource"])] == ["WalletKey"]
                condition = st.get("Condition") or {}
                assert set(condition) == {"StringEquals"}, condition
                context = condition["StringEquals"]
                assert context["kms:EncryptionContext:purpose"] == "partner-wallet"
                if fn.logical_id == "MigratorFunction":
                    assert context == {**WALLET_CONTEXT, "kms:EncryptionContext:user_id": "service-crank"}
                else:
                    assert context == WALLET_CONTEXT


def test_only_request_path_functions_derive_the_hash_secret(template):
    with_mac = {fn.logical_id for fn in template.functions() if ("HashKey", "kms:GenerateMac") in grants(fn)}
    api_functions = {fn.logical_id for fn in template.functions() if fn.api_events}
    assert with_mac == api_functions - PLATFORM - UNAUTHENTICATED and "MigratorFunction" not in with_mac
    assert all(EXPECTED[name] == set() for name in UNAUTHENTICATED)
    for fn in template.functions():
        for st in statements(fn):
            if "kms:GenerateMac" in _list(st["Action"]):
                assert _list(st["Action"]) == ["kms:GenerateMac"]
                assert [resource_name(r) for r in _list(st["Resource"])] == ["HashKey"]


# ---------------------------------------------------------------- keys

ROOT_PRINCIPAL = {"AWS": {"Fn::Sub": "arn:${AWS::Partition}:iam::${AWS::AccountId}:root"}}


def key_statements(template, key: str) -> list[dict[str, Any]]:
    return template.resources[key]["Properties"]["KeyPolicy"]["Statement"]


@pytest.mark.parametrize("key", ["HashKey", "WalletKey"])
def test_key_policy_has_no_wildcard_action_and_stays_manageable(template, key):
    sts = key_statements(template, key)
    for st in sts:
        assert st["Effect"] == "Allow"
        assert st["Principal"] == ROOT_PRINCIPAL, st  # only the owning account, through IAM
        assert st["Resource"] == "*"  # in a key policy: this key
        for action in _list(st["Action"]):
            assert action.startswith("kms:") and "*" not in action, action
        assert "kms:CreateGrant" not in _list(st["Action"])  # a grant would bypass the conditions
    admin = [st for st in sts if "kms:PutKeyPolicy" in _list(st["Action"])]
    assert len(admin) == 1 and "Condition" not in admin[0]
    for needed in (
        "kms:DescribeKey",
        "kms:GetKeyPolicy",
        "kms:PutKeyPolicy",
        "kms:EnableKey",
        "kms:DisableKey",
        "kms:TagResource",
        "kms:UntagResource",
        "kms:ScheduleKeyDeletion",
        "kms:CancelKeyDeletion",
    ):
        assert needed in admin[0]["Action"], needed
    assert not set(admin[0]["Action"]) & KMS_USE  # administering never includes using
    for st in sts:
        if set(_list(st["Action"])) & KMS_USE:
            assert st.get("Condition"), st  # every use is conditioned


def test_no_key_policy_grants_a_wildcard_action(template):
    for name, res in template.kms_keys().items():
        for st in res["Properties"]["KeyPolicy"]["Statement"]:
            actions = _list(st["Action"])
            assert all("*" not in a for a in actions), (name, actions)
            if st["Effect"] == "Allow" and st["Principal"] == ROOT_PRINCIPAL:
                assert "kms:CreateGrant" not in actions, name


def test_wallet_key_use_is_bound_to_the_wallet_context(template):
    uses = [st for st in key_statements(template, "WalletKey") if set(_list(st["Action"])) & KMS_USE]
    assert {a for st in uses for a in _list(st["Action"])} == {"kms:Encrypt", "kms:GenerateDataKey", "kms:Decrypt"}
    for st in uses:
        assert st["Condition"] == {"StringEquals": WALLET_CONTEXT}
    assert template.resources["WalletKey"]["Properties"]["EnableKeyRotation"] is True


def test_hash_key_use_is_generate_mac_only(template):
    uses = [st for st in key_statements(template, "HashKey") if set(_list(st["Action"])) & KMS_USE]
    assert [_list(st["Action"]) for st in uses] == [["kms:GenerateMac"]]
    assert uses[0]["Condition"] == {"StringEquals": {"kms:MacAlgorithm": "HMAC_SHA_256"}}


def test_wallet_secrets_carry_the_context_the_policies_require():
    from partner.store import wallets

    context = wallets.encryption_context("u1", "W1")
    assert context["purpose"] == WALLET_CONTEXT["kms:EncryptionContext:purpose"]
    assert set(context) == {"purpose", "user_id", "wallet"}


# ---------------------------------------------------------------- bucket, tables, topics


def test_staging_bucket_is_private_tls_only_encrypted_and_expiring(template):
    props = template.resources["StagingBucket"]["Properties"]
    assert props["PublicAccessBlockConfiguration"] == {
        "BlockPublicAcls": True,
        "BlockPublicPolicy": True,
        "IgnorePublicAcls": True,
        "RestrictPublicBuckets": True,
    }
    assert props["OwnershipControls"]["Rules"] == [{"ObjectOwnership": "BucketOwnerEnforced"}]
    (sse,) = props["BucketEncryption"]["ServerSideEncryptionConfiguration"]
    assert sse["ServerSideEncryptionByDefault"]["SSEAlgorithm"] == "aws:kms"
    rules = [r for r in props["LifecycleConfiguration"]["Rules"] if r["Status"] == "Enabled"]
    assert any(int(r.get("ExpirationInDays", 0)) > 0 and "Prefix" not in r and "Filter" not in r for r in rules)
    assert any(r.get("AbortIncompleteMultipartUpload") for r in rules)
    # staged image uploads are deleted after a day
    assert any(r.get("Prefix") == "uploads/" and int(r["ExpirationInDays"]) == 1 for r in rules)

    policies = [
        res["Properties"]
        for res in template.resources_of_type("AWS::S3::BucketPolicy").values()
        if res["Properties"]["Bucket"] == {"Ref": "StagingBucket"}
    ]
    assert len(policies) == 1
    (deny,) = [
        st
        for st in policies[0]["PolicyDocument"]["Statement"]
        if st["Effect"] == "Deny" and st.get("Condition") == {"Bool": {"aws:SecureTransport": "false"}}
    ]
    assert deny["Principal"] == "*" and deny["Action"] == "s3:*"
    assert {resource_name(r) for r in deny["Resource"]} == {"StagingBucket", "StagingBucket/*"}
    # the bucket policy allows nothing to anyone
    assert all(st["Effect"] == "Deny" for st in policies[0]["PolicyDocument"]["Statement"])


def test_every_table_is_encrypted_at_rest(template):
    tables = template.tables()
    assert set(tables) >= {"ClientsTable", "AuthTable", "UsersTable", "CountersTable"}
    for name, res in tables.items():
        assert res["Properties"]["SSESpecification"]["SSEEnabled"] is True, name
    for name in ("ClientsTable", "AuthTable", "UsersTable"):  # counters are rebuilt in a minute
        assert tables[name]["Properties"]["PointInTimeRecoverySpecification"]["PointInTimeRecoveryEnabled"] is True


def test_every_bucket_topic_and_queue_is_encrypted(template):
    for name, res in template.buckets().items():
        assert res["Properties"]["BucketEncryption"], name
    for name, res in template.resources_of_type("AWS::SNS::Topic").items():
        assert (res.get("Properties") or {}).get("KmsMasterKeyId"), f"{name}: SNS topic without KmsMasterKeyId"
    for name, res in template.resources_of_type("AWS::SQS::Queue").items():
        props = res.get("Properties") or {}
        assert props.get("KmsMasterKeyId") or props.get("SqsManagedSseEnabled") is not False, name


def test_only_the_uploads_function_may_put_under_uploads_and_readers_only_read_and_delete(template):
    """A presigned POST can do what its signer can: the uploads function puts under uploads/ only,
    and nothing else may put there; the imageUploadId routes read and delete there, nothing more."""
    by_resource: dict[str, set[tuple[str, str]]] = {}
    for fn in template.functions():
        for resource, action in grants(fn):
            if resource.startswith("StagingBucket"):
                by_resource.setdefault(resource, set()).add((fn.logical_id, action))
    assert by_resource["StagingBucket/uploads/*"] == {
        ("UploadsCreateFunction", "s3:PutObject"),
        ("CoinsCreateFunction", "s3:GetObject"),
        ("CoinsCreateFunction", "s3:DeleteObject"),
        ("GovernanceUpdateContentFunction", "s3:GetObject"),
        ("GovernanceUpdateContentFunction", "s3:DeleteObject"),
    }
    assert not any(fn == "UploadsCreateFunction" for fn, _ in by_resource["StagingBucket/staging/*"])


# ---------------------------------------------------------------- the platform API (issue 28)


def test_platform_routes_are_iam_authorized_and_nothing_else_is(template):
    """Every /platform/v1 route is AWS_IAM (SigV4, invoked through the function's resource policy,
    never the caller's credentials); no partner or OAuth route is, and no platform function serves
    any other path."""
    for fn in template.functions():
        for ev in fn.events.values():
            if (ev or {}).get("Type") != "Api":
                continue
            props = ev["Properties"]
            auth = props.get("Auth")
            if props["Path"].startswith("/platform/v1/"):
                assert fn.logical_id in PLATFORM
                assert auth == {"Authorizer": "AWS_IAM", "InvokeRole": "NONE"}, (fn.logical_id, auth)
            else:
                assert fn.logical_id not in PLATFORM and auth is None, (fn.logical_id, props["Path"])
    api = template.resources["PartnerApi"]["Properties"]
    assert "Auth" not in api  # no default authorizer would put partner routes behind IAM or open platform ones


def test_platform_functions_never_decrypt_a_wallet(template):
    for name in PLATFORM:
        assert not {a for _, a in grants(template.function(name))} & {"kms:Decrypt", "kms:GenerateMac"}


def test_only_the_tracker_invokes_a_function_and_only_itself(template):
    """The tracker's scheduled run invokes its own function per group of partitions (by its fixed
    name, unqualified or through its alias); no other function may invoke any."""
    invokers = {
        fn.logical_id: fn.properties.get("FunctionName")
        for fn in template.functions()
        if any(action.startswith("lambda:") for _resource, action in grants(fn))
    }
    assert invokers == {"TrackerFunction": {"Fn::Sub": "${AWS::StackName}-tracker"}}
