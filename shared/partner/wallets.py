"""Users' delegated wallets: ed25519 keypairs whose secrets are sealed with KMS.

Envelope encryption: KMS GenerateDataKey (AES-256) under an encryption context naming
the user and the wallet address; the 32-byte seed is sealed locally with AES-GCM using
the same context as associated data. Only signing functions may call kms:Decrypt, and
the plaintext seed lives for one signature.
"""

from __future__ import annotations

import os
from typing import Protocol

from botocore.exceptions import BotoCoreError, ClientError
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from solders.keypair import Keypair
from solders.pubkey import Pubkey
from solders.signature import Signature

from partner import aws
from partner.errors import ApiError
from partner.settings import get_settings
from partner.store.users import EncryptedSecret, User


def encryption_context(user_id: str, wallet: str) -> dict[str, str]:
    return {"purpose": "partner-wallet", "user_id": user_id, "wallet": wallet}


def _aad(context: dict[str, str]) -> bytes:
    return "|".join(f"{k}={context[k]}" for k in sorted(context)).encode()


def seal(user_id: str, keypair: Keypair) -> EncryptedSecret:
    wallet = str(keypair.pubkey())
    context = encryption_context(user_id, wallet)
    key_id = get_settings().wallet_key_id
    data_key = aws.kms().generate_data_key(KeyId=key_id, KeySpec="AES_256", EncryptionContext=context)
    nonce = os.urandom(12)
    seed = bytes(keypair.secret())
    ciphertext = AESGCM(data_key["Plaintext"]).encrypt(nonce, seed, _aad(context))
    return EncryptedSecret(bytes(data_key["CiphertextBlob"]), nonce, ciphertext, key_id)


def new_wallet(user_id: str) -> tuple[str, EncryptedSecret]:
    keypair = Keypair()
    return str(keypair.pubkey()), seal(user_id, keypair)


class Signer(Protocol):
    """Signs transaction messages for one wallet."""

    @property
    def pubkey(self) -> Pubkey: ...

    def sign(self, message: bytes) -> Signature: ...


class EnvelopeSigner:
    """Signs with a user's KMS-sealed wallet secret (one kms:Decrypt per signature)."""

    def __init__(self, user: User) -> None:
        if user.wallet is None or user.secret is None:
            raise ApiError("invalid_wallet", "The user has no delegated wallet.")
        try:
            self._pubkey = Pubkey.from_string(user.wallet)
        except ValueError as exc:
            raise ApiError("invalid_wallet") from exc
        self._user = user

    @property
    def pubkey(self) -> Pubkey:
        return self._pubkey

    def sign(self, message: bytes) -> Signature:
        user, sealed = self._user, self._user.secret
        assert sealed is not None
        context = encryption_context(user.user_id, str(self._pubkey))
        try:
            plain = aws.kms().decrypt(
                CiphertextBlob=sealed.encrypted_data_key, EncryptionContext=context, KeyId=sealed.key_id
            )["Plaintext"]
            seed = AESGCM(plain).decrypt(sealed.nonce, sealed.ciphertext, _aad(context))
            keypair = Keypair.from_seed(seed)
        except (ClientError, BotoCoreError, ValueError) as exc:
            raise ApiError("wallet_sign_failed") from exc
        except Exception as exc:  # cryptography's InvalidTag and friends
            raise ApiError("wallet_sign_failed") from exc
        if keypair.pubkey() != self._pubkey:
            raise ApiError("wallet_sign_failed", "The sealed secret does not match the wallet address.")
        return keypair.sign_message(message)


class KeypairSigner:
    """Signs with a keypair the service just generated (a new mint) and holds for one request."""

    def __init__(self, keypair: Keypair) -> None:
        self._keypair = keypair

    @property
    def pubkey(self) -> Pubkey:
        return self._keypair.pubkey()

    def sign(self, message: bytes) -> Signature:
        return self._keypair.sign_message(message)
