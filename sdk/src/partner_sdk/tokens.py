"""Token storage and the refresh-once store: `TokenStore` refreshes an expired pair once for all its
callers, and stores the rotated pair in one write (`TokenStorage`, pluggable).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Protocol

from .errors import OAuthError, ReauthorizationRequired
from .models import TokenSet


class TokenStorage(Protocol):
    """A database or Redis implementation provides `load`,
    `save` (both values in one write), `delete`, and `lock(user)` (a per-user mutual exclusion that
    spans every process sharing the storage, e.g. a row lock or a Redis lock).
    """

    def load(self, user: str) -> TokenSet | None: ...

    def save(self, user: str, tokens: TokenSet) -> None:
        """Store access and refresh token together (one atomic write)."""

    def delete(self, user: str) -> None: ...

    def lock(self, user: str) -> AbstractContextManager[object]:
        """Mutual exclusion for one user's refresh."""


class InMemoryTokenStorage:
    """Process-local storage: a dict of immutable pairs under a lock, one lock per user."""

    def __init__(self) -> None:
        self._pairs: dict[str, TokenSet] = {}
        self._guard = threading.Lock()
        self._locks: dict[str, threading.Lock] = {}

    def load(self, user: str) -> TokenSet | None:
        with self._guard:
            return self._pairs.get(user)

    def save(self, user: str, tokens: TokenSet) -> None:
        with self._guard:
            self._pairs[user] = tokens  # one reference swap: readers see the old pair or the new one

    def delete(self, user: str) -> None:
        with self._guard:
            self._pairs.pop(user, None)

    @contextmanager
    def lock(self, user: str) -> Iterator[None]:
        with self._guard:
            lock = self._locks.setdefault(user, threading.Lock())
        with lock:
            yield


class Refresher(Protocol):
    def refresh(self, refresh_token: str) -> TokenSet: ...

    def revoke(self, token: str, token_type_hint: str | None = None) -> None: ...


class TokenStore:
    """The spec says never refresh concurrently for one user; refresh tokens rotate on every use (replaying
    a rotated-out one revokes the user's whole grant), so the new access and refresh tokens are
    stored together, atomically. `TokenStore` takes the user's lock, re-reads the stored pair, and
    refreshes only if nobody else already did: twenty callers hitting an expired token cause one
    refresh. `invalid_grant` on refresh deletes the pair and raises `ReauthorizationRequired`.
    """

    def __init__(
        self,
        oauth: Refresher,
        storage: TokenStorage | None = None,
        *,
        refresh_margin: float = 60.0,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.oauth = oauth
        self.storage: TokenStorage = storage if storage is not None else InMemoryTokenStorage()
        self.refresh_margin = refresh_margin
        self.clock = clock

    def save(self, user: str, tokens: TokenSet) -> None:
        self.storage.save(user, tokens)

    def get(self, user: str) -> TokenSet:
        tokens = self.storage.load(user)
        if tokens is None:
            raise ReauthorizationRequired(user)
        return tokens

    def needs_reauthorization(self, user: str) -> bool:
        """True when no usable grant is stored (never connected, revoked, or `invalid_grant`)."""
        return self.storage.load(user) is None

    def access_token(self, user: str) -> str:
        """A current access token, refreshed first (once, whoever asks) when it is about to expire."""
        tokens = self.get(user)
        if tokens.expires_within(self.refresh_margin, self.clock()):
            tokens = self.refresh(user, stale_access=tokens.access_token)
        return tokens.access_token

    def refresh(self, user: str, stale_access: str | None = None) -> TokenSet:
        """Refresh the user's pair under the user's lock. With `stale_access` (the token a caller
        saw fail or expire), a pair that another caller already replaced is returned as is."""
        with self.storage.lock(user):
            current = self.storage.load(user)
            if current is None:
                raise ReauthorizationRequired(user)
            if (
                stale_access is not None
                and current.access_token != stale_access
                and not current.expires_within(self.refresh_margin, self.clock())
            ):
                return current
            try:
                fresh = self.oauth.refresh(current.refresh_token)
            except OAuthError as exc:
                if exc.code == "invalid_grant":
                    self.storage.delete(user)
                    raise ReauthorizationRequired(user, cause=exc) from exc
                raise
            self.storage.save(user, fresh)
            return fresh

    def revoke(self, user: str) -> None:
        """Revoke the user's grant at the server (refresh token: its access tokens go too) and forget it."""
        with self.storage.lock(user):
            tokens = self.storage.load(user)
            self.storage.delete(user)
        if tokens is not None:
            self.oauth.revoke(tokens.refresh_token, "refresh_token")

    def for_user(self, user: str) -> UserTokens:
        return UserTokens(self, user)


class TokenSource(Protocol):
    """What `PartnerClient` needs: a current token, and a refresh after a 401 `invalid_token`."""

    def token(self) -> str: ...

    def refresh(self, stale: str) -> bool: ...


class UserTokens:
    def __init__(self, store: TokenStore, user: str) -> None:
        self.store, self.user = store, user

    def token(self) -> str:
        return self.store.access_token(self.user)

    def refresh(self, stale: str) -> bool:
        self.store.refresh(self.user, stale_access=stale)
        return True


class StaticToken:
    """A bare access token (scripts, tests): a 401 is raised, never refreshed."""

    def __init__(self, access_token: str) -> None:
        self.access_token = access_token

    def token(self) -> str:
        return self.access_token

    def refresh(self, stale: str) -> bool:
        return False
