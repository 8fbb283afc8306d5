"""Wallet seeds are encrypted by KMS under a context naming the user and the wallet."""

from __future__ import annotations

import dataclasses

import pytest


def test_sealed_seed_signs_for_its_own_wallet(aws_stack):
    from solders.signature import Signature

    from partner.store.users import get_user
    from partner.store.wallets import SealedWalletSigner
    from partnerctl import admin

    user = get_user(admin.create_user()["user_id"])
    signature = SealedWalletSigner(user).sign(b"message")
    assert isinstance(signature, Signature)
    assert signature.verify(SealedWalletSigner(user).pubkey, b"message")
    assert b"message" not in user.secret.ciphertext and len(user.secret.ciphertext) > 32


@pytest.mark.parametrize("swap", ["user_id", "wallet"])
def test_a_seed_moved_to_another_user_or_wallet_does_not_decrypt(aws_stack, swap):
    from partner.core.errors import ApiError
    from partner.store.users import get_user
    from partner.store.wallets import SealedWalletSigner
    from partnerctl import admin

    alice = get_user(admin.create_user()["user_id"])
    bob = get_user(admin.create_user()["user_id"])
    # bob's record carrying alice's ciphertext: the encryption context names bob (or bob's wallet)
    forged = (
        dataclasses.replace(bob, secret=alice.secret)
        if swap == "user_id"
        else dataclasses.replace(alice, wallet=bob.wallet)
    )
    with pytest.raises(ApiError) as refused:
        SealedWalletSigner(forged).sign(b"message")
    assert refused.value.code == "wallet_sign_failed"
