"""Who is calling, and what a route admits: the `Principal` a bearer token resolves to (partner.edge.access
admits it) and a route's `Route` (its bucket and scope). Domain code takes the principal as an argument;
it never reads a token or a header.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from partner.core.errors import ApiError

if TYPE_CHECKING:
    from partner.store.clients import Client
    from partner.store.users import User


@dataclass(frozen=True)
class Route:
    bucket: str
    scope: str | tuple[str, ...] | None = None  # a tuple: any one of these scopes admits

    @property
    def scopes(self) -> tuple[str, ...]:
        if self.scope is None:
            return ()
        return (self.scope,) if isinstance(self.scope, str) else self.scope


@dataclass(frozen=True)
class Principal:
    token_digest: str
    user: User
    client: Client
    scopes: tuple[str, ...]
    key_id: str
    also: dict[str, dict[str, Any]] = field(default_factory=dict)  # extra items read with the token
    grant: dict[str, Any] = field(default_factory=dict)  # the user's grant item (own limits, times)


def require_delegation(principal: Principal) -> None:
    """The check order's step 6, for writes: 403 delegation_missing unless the user enabled 1-click trading."""
    if not principal.user.trading_enabled:
        raise ApiError(
            "delegation_missing",
            action="Ask the user to enable 1-click trading for their wallet.",
        )
