"""The only module that creates boto3 clients: lazily, once, reused, and kept across SnapStart restores
(`DeferredCredentials`). boto3 honours AWS_ENDPOINT_URL, which is how the devstack points every
client at moto.
"""

from __future__ import annotations

import base64
import contextlib
import json
import threading
from collections.abc import Callable, Iterator
from typing import Any

import boto3  # every function's first request creates a client
import botocore.credentials
import botocore.session
from botocore.awsrequest import AWSResponse
from botocore.config import Config
from botocore.exceptions import NoCredentialsError

from partner.core import settings, snapshot
from partner.store import sigv4

_lock = threading.Lock()
_clients: dict[str, Any] = {}
_session: Any = None  # one boto3 Session for every client: each new Session reloads botocore's data
_credentials: DeferredCredentials | None = None

# the hot path's services, signed by partner.store.sigv4 (S3's presigned POSTs and the rest: botocore)
LEAN_SIGNED = frozenset({"dynamodb", "kms"})
_signer = sigv4.Signer(lambda: _deferred().get_frozen_credentials())

Hook = Callable[..., Any]
HOOKS: list[tuple[str, Hook]] = []


class DeferredCredentials(botocore.credentials.Credentials):
    """Credentials that resolve on first use from botocore's default chain, and `forget`.

    A botocore client keeps the credentials object it was created with; this one holds
    nothing until a request is signed, so a client created before the snapshot carries no
    credentials into it. Whatever the chain returns (static environment keys, or the
    container provider's refreshable credentials) is used as it is, refreshes included.

    Every client signs with the session's `DeferredCredentials`, resolved from
    botocore's default provider chain (environment, container endpoint, ...) on the first
    request, never when a client is created, and forgotten after a SnapStart restore. So the
    clients are made before the snapshot (`warm`) and kept across restores: a snapshot holds
    no credentials and no connection (`restored` closes the pools), and each restored copy
    resolves its own credentials on its first call.
    """

    method = "partner-deferred"

    def __init__(self, botocore_session: botocore.session.Session) -> None:  # no super(): no keys
        self._botocore_session = botocore_session
        self._resolved: botocore.credentials.Credentials | None = None
        self._resolver: Any = None  # botocore's provider chain: reads no credentials until asked
        self._resolve_lock = threading.Lock()

    def prepare(self) -> None:
        """Build the provider chain (its providers, their metadata fetchers and TLS contexts) without
        loading anything from it: before the snapshot, so a restored copy only loads its credentials.
        The providers read the environment (and the container endpoint) when asked, not here."""
        with self._resolve_lock:
            if self._resolver is None:
                session = self._botocore_session
                self._resolver = botocore.credentials.create_credential_resolver(
                    session, region_name=session.get_config_variable("region")
                )

    def _get(self) -> botocore.credentials.Credentials:
        found = self._resolved
        if found is None:
            self.prepare()
            with self._resolve_lock:
                if self._resolved is None:
                    self._resolved = self._resolver.load_credentials()
                    if self._resolved is None:
                        raise NoCredentialsError()
                found = self._resolved
        return found

    @property
    def resolved(self) -> bool:
        return self._resolved is not None

    def forget(self) -> None:
        with self._resolve_lock:
            self._resolved = None

    @contextlib.contextmanager
    def placeholder(self) -> Iterator[None]:
        """Sign with placeholder keys (not credentials) for the block: the dry run before the snapshot."""
        with self._resolve_lock:
            previous, self._resolved = self._resolved, botocore.credentials.Credentials("snapshot", "snapshot")
        try:
            yield
        finally:
            with self._resolve_lock:
                self._resolved = previous

    def get_frozen_credentials(self) -> botocore.credentials.ReadOnlyCredentials:
        return self._get().get_frozen_credentials()

    @property
    def access_key(self) -> str:
        return self._get().access_key

    @property
    def secret_key(self) -> str:
        return self._get().secret_key

    @property
    def token(self) -> str | None:
        return self._get().token

    @property
    def account_id(self) -> str | None:
        return self._get().account_id


class _DeferredProvider:
    """The session's `credential_provider` component: hands out the deferred credentials."""

    def __init__(self, credentials: DeferredCredentials) -> None:
        self.credentials = credentials

    def load_credentials(self) -> DeferredCredentials:
        return self.credentials


def _deferred() -> DeferredCredentials:
    assert _credentials is not None, "a client is made (with its session) before it signs"
    return _credentials


def _new_session() -> Any:
    global _credentials
    core = botocore.session.get_session()
    _credentials = DeferredCredentials(core)
    core.register_component("credential_provider", _DeferredProvider(_credentials))
    return boto3.session.Session(botocore_session=core)


def client(name: str) -> Any:
    global _session
    found = _clients.get(name)
    if found is not None:
        return found
    with _lock:
        if name not in _clients:
            if _session is None:
                _session = _new_session()
            created = _session.client(name, config=_config(name))
            # for good: botocore forgets a client's resolved handler lookups when one is (un)registered
            created.meta.events.register_first("before-send", _local_answer)
            if name in LEAN_SIGNED:
                _signer.register(created.meta.events, created.meta.service_model.service_id.hyphenize())
            for event_name, handler in HOOKS:
                created.meta.events.register(event_name, handler)
            _clients[name] = created
        return _clients[name]


def _config(name: str) -> Config:
    # S3: SigV4 named explicitly, or botocore signs presigned POSTs with SigV2, which buckets created
    # after June 24, 2020 refuse (the staging bucket's uploads, partner.store.uploads.presigned_post)
    signing = {"signature_version": "s3v4"} if name == "s3" else {}
    # parameter_validation off: botocore's client-side check of every call's parameters against the
    # service model was 0.4 of 1.0 ms of CPU per DynamoDB call (a trade makes seven, most
    # on its critical path). The layer builds every parameter itself (partner.store.ddb serializes
    # items with boto3's TypeSerializer), and the services still validate each request.
    return Config(
        retries={"max_attempts": 3, "mode": "standard"},
        connect_timeout=2,
        read_timeout=5,
        max_pool_connections=50,
        parameter_validation=False,
        **signing,
    )


def dynamodb() -> Any:
    return client("dynamodb")


def kms() -> Any:
    return client("kms")


def s3() -> Any:
    return client("s3")


def add_hook(event_name: str, handler: Hook) -> None:
    """Register `handler` for `event_name` on every client, existing and future (once).

    `HOOKS` is a list of `(event_name, handler)` pairs (botocore event names such
    as `before-call.kms.Decrypt` or `before-call.dynamodb`) registered on every client when
    it is created; `add_hook` also registers on clients that already exist. Production
    never adds hooks; the devstack (fault injection) and tests (counting calls) do.
    """
    with _lock:
        if (event_name, handler) in HOOKS:
            return
        HOOKS.append((event_name, handler))
        for existing in _clients.values():
            existing.meta.events.register(event_name, handler)


def remove_hook(event_name: str, handler: Hook) -> None:
    """Undo `add_hook` (on every client it was registered on)."""
    with _lock:
        if (event_name, handler) not in HOOKS:
            return
        HOOKS.remove((event_name, handler))
        for existing in _clients.values():
            existing.meta.events.unregister(event_name, handler)


@settings.on_reset
def reset() -> None:
    """Forget the clients and their session (hooks stay: new clients get them)."""
    global _session
    with _lock:
        _clients.clear()
        _session = None
    _signer.forget()


# ---------------------------------------------------------------- SnapStart

_KEY = {"pk": {"S": "snapshot"}}
# every call the layer makes, with placeholder parameters: made once before the snapshot,
# answered locally (nothing is sent)
DRY_CALLS: dict[str, list[tuple[str, dict[str, Any]]]] = {
    "dynamodb": [
        ("get_item", {"TableName": "snapshot", "Key": _KEY}),
        ("put_item", {"TableName": "snapshot", "Item": _KEY}),
        (
            "update_item",
            {
                "TableName": "snapshot",
                "Key": _KEY,
                "UpdateExpression": "SET #a = :v",
                "ExpressionAttributeNames": {"#a": "a"},
                "ExpressionAttributeValues": {":v": {"N": "1"}},
            },
        ),
        (
            "query",
            {
                "TableName": "snapshot",
                "KeyConditionExpression": "pk = :p",
                "ExpressionAttributeValues": {":p": {"S": "snapshot"}},
            },
        ),
        ("batch_get_item", {"RequestItems": {"snapshot": {"Keys": [_KEY]}}}),
        ("batch_write_item", {"RequestItems": {"snapshot": [{"PutRequest": {"Item": _KEY}}]}}),
        (
            "transact_write_items",
            {"TransactItems": [{"Put": {"TableName": "snapshot", "Item": _KEY}}], "ClientRequestToken": "snapshot"},
        ),
    ],
    "kms": [
        ("generate_mac", {"KeyId": "alias/snapshot", "Message": b"snapshot", "MacAlgorithm": "HMAC_SHA_256"}),
        ("encrypt", {"KeyId": "alias/snapshot", "Plaintext": b"snapshot"}),
        ("decrypt", {"CiphertextBlob": b"snapshot"}),
        (
            "sign",
            {
                "KeyId": "alias/snapshot",
                "Message": b"snapshot",
                "MessageType": "RAW",
                "SigningAlgorithm": "ED25519_SHA_512",
            },
        ),
        ("get_public_key", {"KeyId": "alias/snapshot"}),
    ],
    "s3": [
        ("put_object", {"Bucket": "snapshot", "Key": "snapshot", "Body": b"snapshot"}),
    ],
}


_B64 = base64.b64encode(b"snapshot").decode()
_ITEM = {  # one attribute of each type: parsing it resolves every member of DynamoDB's AttributeValue
    "pk": {"S": "snapshot"},
    "n": {"N": "1"},
    "b": {"B": _B64},
    "ss": {"SS": ["snapshot"]},
    "ns": {"NS": ["1"]},
    "bs": {"BS": [_B64]},
    "m": {"M": {"s": {"S": "snapshot"}}},
    "l": {"L": [{"S": "snapshot"}]},
    "t": {"BOOL": True},
    "z": {"NULL": True},
}
# what each dry call is answered with: the shapes a real answer has, so that parsing it before the
# snapshot resolves the output shapes a restored copy's first answers need (botocore caches them)
DRY_ANSWERS: dict[str, dict[str, Any]] = {
    "GetItem": {"Item": _ITEM},
    "PutItem": {"Attributes": _ITEM},
    "UpdateItem": {"Attributes": _ITEM},
    "Query": {"Items": [_ITEM], "Count": 1, "ScannedCount": 1, "LastEvaluatedKey": _KEY},
    "BatchGetItem": {"Responses": {"snapshot": [_ITEM]}, "UnprocessedKeys": {"snapshot": {"Keys": [_KEY]}}},
    "BatchWriteItem": {"UnprocessedItems": {"snapshot": [{"PutRequest": {"Item": _KEY}}]}},
    "TransactWriteItems": {},
    "GenerateMac": {"Mac": _B64, "KeyId": "snapshot", "MacAlgorithm": "HMAC_SHA_256"},
    "Encrypt": {"CiphertextBlob": _B64, "KeyId": "snapshot", "EncryptionAlgorithm": "SYMMETRIC_DEFAULT"},
    "Decrypt": {"Plaintext": _B64, "KeyId": "snapshot", "EncryptionAlgorithm": "SYMMETRIC_DEFAULT"},
    "Sign": {"Signature": _B64, "KeyId": "snapshot", "SigningAlgorithm": "ED25519_SHA_512"},
    "GetPublicKey": {"PublicKey": _B64, "KeyId": "snapshot", "KeySpec": "ECC_NIST_EDWARDS25519"},
}


_dry = threading.local()  # .running: this thread is making a dry run


def _local_answer(request: Any, event_name: str = "", **_: Any) -> AWSResponse | None:
    """Every client's first `before-send` handler. Inside a dry run (on its thread) it answers, and botocore
    takes that as the response and sends nothing; otherwise it returns None and the request is sent."""
    if not getattr(_dry, "running", False):
        return None
    response = AWSResponse(request.url, 200, {}, None)
    if "amz-json" in str(request.headers.get("Content-Type", "")):
        response._content = json.dumps(DRY_ANSWERS.get(event_name.rsplit(".", 1)[-1], {})).encode()
    else:
        response._content = b""
    return response


@snapshot.before_snapshot
def warm() -> None:
    """Create the clients of the services the layer calls (botocore's service models,
    endpoint rules and partitions loaded) and make each call the layer makes once, signed
    with placeholder keys and answered locally (`_local_answer`): operation models,
    serializers, parsers (each answered with the shapes of a real answer), endpoint resolution and
    the event hooks' lookups are warm, no credentials are resolved and nothing is sent. Also what a
    restored copy's first request would otherwise do first: build the credential provider chain (no
    credentials loaded, `DeferredCredentials.prepare`) and load the IDNA codec, which the first new
    connection to a host name uses (urllib3 encodes the host with it)."""
    "snapshot.invalid".encode("idna")
    for name, calls in DRY_CALLS.items():
        dry_run(name, calls)
    assert _credentials is not None
    _credentials.prepare()


def dry_run(name: str, calls: list[tuple[str, dict[str, Any]]]) -> None:
    """Make the client `name` and each of `calls` once, signed with placeholder keys and answered
    locally (`_local_answer`): nothing is sent and no credentials are resolved. `warm` does this for the
    services every function calls; a function calling another service does it in its own hook."""
    made = client(name)  # the session, and so _credentials, exist from here
    assert _credentials is not None
    _dry.running = True  # `_local_answer` answers (registered with the client, so its lookups stay warm)
    try:
        with _credentials.placeholder():
            for operation, params in calls:
                getattr(made, operation)(**params)
    finally:
        _dry.running = False
        _signer.forget()  # the placeholder keys' signing key


@snapshot.after_restore
def restored() -> None:
    """Keep the session and its clients (their loaded models); close their connection
    pools (connections made before the snapshot) and forget the credentials (resolved again
    on the first request of this copy)."""
    with _lock:
        for existing in _clients.values():
            existing.close()
        if _credentials is not None:
            _credentials.forget()
    _signer.forget()
