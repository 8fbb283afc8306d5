"""The native KMS Ed25519 signer, against botocore's Stubber (moto lacks ECC_NIST_EDWARDS25519).

The stubbed Sign answers carry real signatures made by a solders Keypair standing in for
the key inside KMS, so verification is exercised for real.
"""

from __future__ import annotations

import boto3
import pytest
from botocore.exceptions import EndpointConnectionError
from botocore.stub import Stubber
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from solders.hash import Hash
from solders.keypair import Keypair
from solders.message import Message
from solders.pubkey import Pubkey
from solders.system_program import TransferParams, transfer

from partner.chain.signer import Signer
from partner.chain.tx import sign as sign_tx
from partner.core.errors import ApiError
from partner.store import aws
from partner.store.wallets import (
    KmsEd25519Signer,
    ed25519_public_key_from_spki,
    kms_ed25519_pubkey,
)

KEY_ID = "arn:aws:kms:us-east-1:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab"


@pytest.fixture
def kms(monkeypatch):
    client = boto3.session.Session().client(
        "kms",
        region_name="us-east-1",
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
        endpoint_url="https://kms.us-east-1.amazonaws.com",
    )
    monkeypatch.setattr(aws, "kms", lambda: client)
    with Stubber(client) as stubber:
        yield stubber
        stubber.assert_no_pending_responses()


@pytest.fixture
def key() -> Keypair:
    """The Ed25519 key that lives inside KMS."""
    return Keypair()


def _sign_params(message: bytes) -> dict:
    return {"KeyId": KEY_ID, "Message": message, "MessageType": "RAW", "SigningAlgorithm": "ED25519_SHA_512"}


def _sign_answer(signature: bytes) -> dict:
    return {"KeyId": KEY_ID, "Signature": signature, "SigningAlgorithm": "ED25519_SHA_512"}


def _spki(keypair: Keypair) -> bytes:
    private = Ed25519PrivateKey.from_private_bytes(bytes(keypair.secret()))
    return private.public_key().public_bytes(Encoding.DER, PublicFormat.SubjectPublicKeyInfo)


def test_it_is_a_signer(key):
    signer: Signer = KmsEd25519Signer(KEY_ID, key.pubkey())
    assert signer.pubkey == key.pubkey()
    assert KmsEd25519Signer(KEY_ID, str(key.pubkey())).pubkey == key.pubkey()


def test_sign_sends_the_raw_message_and_returns_the_verified_signature(kms, key):
    message = b"a solana message" * 10
    expected = key.sign_message(message)
    kms.add_response("sign", _sign_answer(bytes(expected)), _sign_params(message))
    signature = KmsEd25519Signer(KEY_ID, key.pubkey()).sign(message)
    assert signature == expected
    assert signature.verify(key.pubkey(), message)


def test_signs_a_whole_transaction(kms, key):
    payer = key.pubkey()
    message = Message.new_with_blockhash(
        [transfer(TransferParams(from_pubkey=payer, to_pubkey=Pubkey.new_unique(), lamports=1))], payer, Hash.default()
    )
    data = bytes(message)
    kms.add_response("sign", _sign_answer(bytes(key.sign_message(data))), _sign_params(data))
    tx = sign_tx(message, [KmsEd25519Signer(KEY_ID, payer)])
    assert tx.verify_with_results() == [True]


def test_a_signature_by_another_key_is_rejected(kms, key):
    message = b"message"
    kms.add_response("sign", _sign_answer(bytes(Keypair().sign_message(message))), _sign_params(message))
    with pytest.raises(ApiError) as err:
        KmsEd25519Signer(KEY_ID, key.pubkey()).sign(message)
    assert err.value.code == "wallet_sign_failed" and err.value.status == 502
    assert err.value.retryable is False


def test_a_signature_over_another_message_is_rejected(kms, key):
    message = b"message"
    kms.add_response("sign", _sign_answer(bytes(key.sign_message(b"other"))), _sign_params(message))
    with pytest.raises(ApiError) as err:
        KmsEd25519Signer(KEY_ID, key.pubkey()).sign(message)
    assert err.value.code == "wallet_sign_failed"


@pytest.mark.parametrize("raw", [b"", b"\x01" * 63, b"\x01" * 65, b"\x30\x44" + b"\x02" * 68])
def test_a_signature_of_the_wrong_shape_is_rejected(kms, key, raw):
    kms.add_response("sign", _sign_answer(raw), _sign_params(b"m"))
    with pytest.raises(ApiError) as err:
        KmsEd25519Signer(KEY_ID, key.pubkey()).sign(b"m")
    assert err.value.code == "wallet_sign_failed" and err.value.retryable is False


def _sign_error(kms, key, code: str, http_status: int, message: str = "") -> ApiError:
    """The signer's error when KMS answers its Sign with the error `code`."""
    kms.add_client_error(
        "sign",
        service_error_code=code,
        http_status_code=http_status,
        service_message=message,
        expected_params=_sign_params(b"m"),
    )
    with pytest.raises(ApiError) as err:
        KmsEd25519Signer(KEY_ID, key.pubkey()).sign(b"m")
    return err.value


def test_access_denied_is_wallet_sign_failed_not_retryable(kms, key):
    error = _sign_error(kms, key, "AccessDeniedException", 400, "not authorized to perform kms:Sign")
    assert error.code == "wallet_sign_failed" and error.status == 502
    assert error.retryable is False
    body = error.body()
    assert body["error"] == "wallet_sign_failed" and body["retryable"] is False


def test_throttling_is_wallet_sign_failed_retryable(kms, key):
    error = _sign_error(kms, key, "ThrottlingException", 400, "Rate exceeded")
    assert error.code == "wallet_sign_failed" and error.status == 502
    assert error.retryable is True


@pytest.mark.parametrize("code", ["KMSInternalException", "DependencyTimeoutException", "KeyUnavailableException"])
def test_transient_kms_errors_are_retryable(kms, key, code):
    error = _sign_error(kms, key, code, 500)
    assert error.code == "wallet_sign_failed" and error.retryable is True


@pytest.mark.parametrize(
    "code", ["NotFoundException", "DisabledException", "InvalidKeyUsageException", "KMSInvalidStateException"]
)
def test_permanent_kms_errors_are_not_retryable(kms, key, code):
    error = _sign_error(kms, key, code, 400)
    assert error.code == "wallet_sign_failed" and error.retryable is False


def test_unreachable_kms_is_retryable(monkeypatch, key):
    class Down:
        def sign(self, **_):
            raise EndpointConnectionError(endpoint_url="https://kms.us-east-1.amazonaws.com")

    monkeypatch.setattr(aws, "kms", lambda: Down())
    with pytest.raises(ApiError) as err:
        KmsEd25519Signer(KEY_ID, key.pubkey()).sign(b"m")
    assert err.value.code == "wallet_sign_failed" and err.value.retryable is True


def test_public_key_is_the_last_32_bytes_of_the_spki(key):
    der = _spki(key)
    assert len(der) == 44
    assert der[-32:] == bytes(key.pubkey())
    assert ed25519_public_key_from_spki(der) == key.pubkey()


@pytest.mark.parametrize(
    "der",
    [
        b"",
        bytes(32),
        bytes.fromhex("302b300506032b6570032200") + bytes(33),  # a 33-byte key
        bytes.fromhex("302a300506032b6570032100") + bytes(31),  # truncated
        bytes.fromhex("302a300506032b6571032100") + bytes(32),  # OID 1.3.101.113 (Ed448), not Ed25519
    ],
)
def test_non_ed25519_spki_is_refused(der):
    with pytest.raises(ValueError):
        ed25519_public_key_from_spki(der)


def test_get_public_key_and_sign_with_it(kms, key):
    kms.add_response(
        "get_public_key",
        {
            "KeyId": KEY_ID,
            "PublicKey": _spki(key),
            "KeySpec": "ECC_NIST_EDWARDS25519",
            "KeyUsage": "SIGN_VERIFY",
            "SigningAlgorithms": ["ED25519_SHA_512", "ED25519_PH_SHA_512"],
        },
        {"KeyId": KEY_ID},
    )
    kms.add_response("sign", _sign_answer(bytes(key.sign_message(b"m"))), _sign_params(b"m"))
    signer = KmsEd25519Signer.for_key(KEY_ID)
    assert signer.pubkey == key.pubkey()
    assert signer.sign(b"m").verify(key.pubkey(), b"m")


def test_get_public_key_of_another_key_spec_is_refused(kms):
    p256 = bytes.fromhex("3059301306072a8648ce3d020106082a8648ce3d030107034200") + bytes(65)
    kms.add_response(
        "get_public_key",
        {"KeyId": KEY_ID, "PublicKey": p256, "KeySpec": "ECC_NIST_P256", "KeyUsage": "SIGN_VERIFY"},
        {"KeyId": KEY_ID},
    )
    with pytest.raises(ApiError) as err:
        kms_ed25519_pubkey(KEY_ID)
    assert err.value.code == "wallet_sign_failed" and err.value.retryable is False


def test_get_public_key_denied(kms):
    kms.add_client_error(
        "get_public_key",
        service_error_code="AccessDeniedException",
        http_status_code=400,
        expected_params={"KeyId": KEY_ID},
    )
    with pytest.raises(ApiError) as err:
        kms_ed25519_pubkey(KEY_ID)
    assert err.value.code == "wallet_sign_failed" and err.value.retryable is False
