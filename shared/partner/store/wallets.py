"""Users' delegated wallets: ed25519 keypairs whose secrets are sealed with KMS, behind one `Signer`
interface: `SealedWalletSigner` (the default) and `KmsEd25519Signer` (a native KMS Ed25519 key).
"""

from __future__ import annotations

from concurrent.futures import Future

from botocore.exceptions import BotoCoreError, ClientError
from solders.keypair import Keypair
from solders.pubkey import Pubkey
from solders.signature import Signature

from partner.core import parallel
from partner.core.errors import ApiError
from partner.core.settings import get_settings
from partner.store import aws
from partner.store.users import EncryptedSecret, User


def encryption_context(user_id: str, wallet: str) -> dict[str, str]:
    return {"purpose": "partner-wallet", "user_id": user_id, "wallet": wallet}


def seal(user_id: str, keypair: Keypair) -> EncryptedSecret:
    wallet = str(keypair.pubkey())
    key_id = get_settings().wallet_key_id
    sealed = aws.kms().encrypt(
        KeyId=key_id, Plaintext=bytes(keypair.secret()), EncryptionContext=encryption_context(user_id, wallet)
    )
    return EncryptedSecret(bytes(sealed["CiphertextBlob"]), key_id)


def new_wallet(user_id: str) -> tuple[str, EncryptedSecret]:
    keypair = Keypair()
    return str(keypair.pubkey()), seal(user_id, keypair)


class SealedWalletSigner:
    """Signs with a user's KMS-sealed wallet secret (one kms:Decrypt per signature).

    The 32-byte seed is encrypted by KMS itself (`kms:Encrypt`, a secret this small needs no local
    data key) under an encryption context naming the user and the wallet address, so the ciphertext
    only decrypts for that user and wallet. Only signing functions may call kms:Decrypt.

    `prefetch()` starts that Decrypt at once, on the request's pool (`partner.core.parallel`), so
    that it runs while the write reads the chain and reserves its volume; `sign` then takes its
    outcome, and a failure of it is answered only there (502 wallet_sign_failed, after every check
    of the write). The keypair is then held from the Decrypt to the signature, within
    one request, and never outside this object."""

    def __init__(self, user: User) -> None:
        if user.wallet is None or user.secret is None:
            raise ApiError("invalid_wallet", "The user has no delegated wallet.")
        try:
            self._pubkey = Pubkey.from_string(user.wallet)
        except ValueError as exc:
            raise ApiError("invalid_wallet") from exc
        self._user = user
        self._unsealed: Future[Keypair] | None = None

    @property
    def pubkey(self) -> Pubkey:
        return self._pubkey

    def prefetch(self) -> None:
        """Start the Decrypt of the next signature now (see the class)."""
        if self._unsealed is None:
            self._unsealed = parallel.submit(self._unseal)

    def _unseal(self) -> Keypair:
        user, sealed = self._user, self._user.secret
        assert sealed is not None
        context = encryption_context(user.user_id, str(self._pubkey))
        try:
            seed = aws.kms().decrypt(CiphertextBlob=sealed.ciphertext, EncryptionContext=context, KeyId=sealed.key_id)[
                "Plaintext"
            ]
            keypair = Keypair.from_seed(bytes(seed))
        except (ClientError, BotoCoreError, ValueError) as exc:
            raise ApiError("wallet_sign_failed") from exc
        if keypair.pubkey() != self._pubkey:
            raise ApiError("wallet_sign_failed", "The sealed secret does not match the wallet address.")
        return keypair

    def sign(self, message: bytes) -> Signature:
        unsealed, self._unsealed = self._unsealed, None
        keypair = unsealed.result() if unsealed is not None else self._unseal()
        return keypair.sign_message(message)


KMS_ED25519_KEY_SPEC = "ECC_NIST_EDWARDS25519"
KMS_ED25519_ALGORITHM = "ED25519_SHA_512"
# The DER SubjectPublicKeyInfo of an Ed25519 key: SEQUENCE { SEQUENCE { OID 1.3.101.112 },
# BIT STRING (0 unused bits) } followed by the raw 32-byte key.
ED25519_SPKI_PREFIX = bytes.fromhex("302a300506032b6570032100")
KMS_THROTTLE_CODES = {"ThrottlingException", "LimitExceededException", "RequestLimitExceeded"}
KMS_TRANSIENT_CODES = KMS_THROTTLE_CODES | {
    "KMSInternalException",
    "DependencyTimeoutException",
    "KeyUnavailableException",
    "InternalFailure",
    "ServiceUnavailable",
    "InternalError",
}


def _kms_failure(exc: Exception, what: str) -> ApiError:
    """wallet_sign_failed; retryable when KMS was throttled or briefly unavailable."""
    if isinstance(exc, ClientError):
        code = exc.response.get("Error", {}).get("Code", "")
        retryable = code in KMS_TRANSIENT_CODES
        message = f"The wallet signing service failed ({code or 'error'}) on {what}."
        if code in KMS_THROTTLE_CODES:
            message = f"The wallet signing service was throttled on {what}; retry shortly."
        return ApiError("wallet_sign_failed", message, retryable=retryable)
    return ApiError("wallet_sign_failed", f"The wallet signing service could not be reached on {what}.", retryable=True)


def ed25519_public_key_from_spki(der: bytes) -> Pubkey:
    """The raw key of a DER SubjectPublicKeyInfo holding an Ed25519 key (44 bytes)."""
    der = bytes(der)
    if len(der) != len(ED25519_SPKI_PREFIX) + 32 or not der.startswith(ED25519_SPKI_PREFIX):
        raise ValueError("not an Ed25519 SubjectPublicKeyInfo")
    return Pubkey.from_bytes(der[-32:])


def kms_ed25519_pubkey(key_id: str) -> Pubkey:
    """The wallet address of a native KMS Ed25519 key (GetPublicKey)."""
    try:
        out = aws.kms().get_public_key(KeyId=key_id)
    except (ClientError, BotoCoreError) as exc:
        raise _kms_failure(exc, "GetPublicKey") from exc
    if out.get("KeySpec") not in (None, KMS_ED25519_KEY_SPEC) or out.get("KeyUsage") not in (None, "SIGN_VERIFY"):
        raise ApiError("wallet_sign_failed", f"KMS key {key_id} is not an Ed25519 signing key.", retryable=False)
    try:
        return ed25519_public_key_from_spki(out["PublicKey"])
    except (KeyError, ValueError) as exc:
        raise ApiError("wallet_sign_failed", "KMS returned a public key that is not Ed25519.", retryable=False) from exc


class KmsEd25519Signer:
    """Signs inside KMS with a native Ed25519 key (`ECC_NIST_EDWARDS25519`); the secret never leaves KMS.
    (`ED25519_SHA_512`, `MessageType=RAW`.)

    Each signature is checked against the wallet address before it is used, so a wrong key
    or a corrupted answer never reaches the network.
    """

    def __init__(self, key_id: str, pubkey: Pubkey | str) -> None:
        self._key_id = key_id
        self._pubkey = pubkey if isinstance(pubkey, Pubkey) else Pubkey.from_string(pubkey)

    @classmethod
    def for_key(cls, key_id: str) -> KmsEd25519Signer:
        return cls(key_id, kms_ed25519_pubkey(key_id))

    @property
    def pubkey(self) -> Pubkey:
        return self._pubkey

    def sign(self, message: bytes) -> Signature:
        try:
            out = aws.kms().sign(
                KeyId=self._key_id, Message=bytes(message), MessageType="RAW", SigningAlgorithm=KMS_ED25519_ALGORITHM
            )
        except (ClientError, BotoCoreError) as exc:
            raise _kms_failure(exc, "Sign") from exc
        raw = bytes(out.get("Signature") or b"")
        if len(raw) != 64:
            raise ApiError("wallet_sign_failed", "KMS returned a signature that is not 64 bytes.", retryable=False)
        signature = Signature.from_bytes(raw)
        if not signature.verify(self._pubkey, bytes(message)):
            raise ApiError(
                "wallet_sign_failed", "The KMS signature does not verify against the wallet address.", retryable=False
            )
        return signature


class KeypairSigner:
    """Signs with a keypair the service just generated (a new mint) and holds for one request."""

    def __init__(self, keypair: Keypair) -> None:
        self._keypair = keypair

    @property
    def pubkey(self) -> Pubkey:
        return self._keypair.pubkey()

    def sign(self, message: bytes) -> Signature:
        return self._keypair.sign_message(message)
