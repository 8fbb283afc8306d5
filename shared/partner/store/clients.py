"""Clients (registered apps) and their API keys. One item per client in the clients table."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from partner.core import clock
from partner.core.settings import get_settings
from partner.store import ddb

TIERS = ("Basic", "Partner")
STATUSES = ("development", "live", "suspended")


@dataclass(frozen=True)
class ApiKey:
    key_id: str
    digest: str
    status: str  # active | revoked
    created_at: int


@dataclass(frozen=True)
class Client:
    client_id: str
    name: str
    redirect_uri: str
    tier: str
    status: str
    scopes: tuple[str, ...]
    fee_wallet: str | None
    max_trade_lamports: int
    daily_volume_cap_lamports: int
    keys: dict[str, ApiKey] = field(default_factory=dict)
    # ceiling on priorityFeeLamports + tipLamports per transaction (a launch bundle: its total);
    # default: the `default_max_fee_lamports` setting (also for items written before it existed)
    max_fee_lamports: int = field(default_factory=lambda: default_max_fee_lamports())
    website: str | None = None  # shown to users on /account/apps

    @property
    def suspended(self) -> bool:
        return self.status == "suspended"

    def active_key(self, key_id: str) -> bool:
        key = self.keys.get(key_id)
        return key is not None and key.status == "active"

    @classmethod
    def from_item(cls, item: dict[str, Any]) -> Client:
        keys = {
            kid: ApiKey(kid, k["digest"], k["status"], int(k["created_at"]))
            for kid, k in (item.get("keys") or {}).items()
        }
        return cls(
            client_id=item["pk"],
            name=item["name"],
            redirect_uri=item["redirect_uri"],
            tier=item["tier"],
            status=item["status"],
            scopes=tuple(item.get("scopes") or ()),
            fee_wallet=item.get("fee_wallet"),
            max_trade_lamports=int(item["max_trade_lamports"]),
            daily_volume_cap_lamports=int(item["daily_volume_cap_lamports"]),
            keys=keys,
            max_fee_lamports=int(item.get("max_fee_lamports", default_max_fee_lamports())),
            website=item.get("website"),
        )


def default_max_fee_lamports() -> int:
    return int(get_settings().default_max_fee_lamports)


def _table() -> str:
    return get_settings().clients_table


def get_client(client_id: str) -> Client | None:
    item = ddb.get(_table(), client_id)
    return Client.from_item(item) if item else None


def get_item(client_id: str) -> dict[str, Any] | None:
    """The client's stored item as is (its webhook fields too)."""
    return ddb.get(_table(), client_id)


def all_items() -> list[dict[str, Any]]:
    """Every client's stored item (a scan, page by page: an operator's listing, never a request's)."""
    return ddb.scan(_table())


# a client's settings as its item stores them (and `partnerctl client show` prints them)
SETTINGS = (
    "name",
    "redirect_uri",
    "tier",
    "status",
    "scopes",
    "fee_wallet",
    "max_trade_lamports",
    "daily_volume_cap_lamports",
    "max_fee_lamports",
)


def settings_of(client: Client) -> dict[str, Any]:
    """The client's SETTINGS by name (scopes as a list)."""
    return {name: list(client.scopes) if name == "scopes" else getattr(client, name) for name in SETTINGS}


def create_client(client: Client) -> None:
    item = {
        "pk": client.client_id,
        **settings_of(client),
        "keys": {
            k.key_id: {"digest": k.digest, "status": k.status, "created_at": k.created_at} for k in client.keys.values()
        },
        "created_at": clock.now_int(),
        "website": client.website,
    }
    if not ddb.put(_table(), item, condition="attribute_not_exists(pk)"):
        raise ValueError(f"client {client.client_id} exists")


def _change(
    client_id: str,
    expression: str,
    condition: str = "attribute_exists(pk)",
    names: dict[str, str] | None = None,
    vals: dict[str, Any] | None = None,
) -> bool:
    """One UpdateItem on the client's item; False when `condition` fails (by default: no such client)."""
    return ddb.applied(ddb.Update(_table(), client_id, expression, condition=condition, names=names, vals=vals))


def add_key(client_id: str, key: ApiKey) -> bool:
    entry = {"digest": key.digest, "status": key.status, "created_at": key.created_at}
    return _change(
        client_id, "SET #keys.#kid = :key", names={"#keys": "keys", "#kid": key.key_id}, vals={":key": entry}
    )


def revoke_key(client_id: str, key_id: str) -> bool:
    names = {"#keys": "keys", "#kid": key_id, "#st": "status"}
    return _change(
        client_id,
        "SET #keys.#kid.#st = :revoked",
        "attribute_exists(#keys.#kid)",
        names=names,
        vals={":revoked": "revoked"},
    )


def set_status(client_id: str, status: str) -> bool:
    return set_fields(client_id, status=status)


def set_fields(client_id: str, **fields: Any) -> bool:
    names = {f"#f{i}": k for i, k in enumerate(fields)}
    vals = {f":v{i}": v for i, v in enumerate(fields.values())}
    expr = "SET " + ", ".join(f"#f{i} = :v{i}" for i in range(len(fields)))
    return _change(client_id, expr, names=names, vals=vals)


def remove_webhook(client_id: str, now: int) -> bool:
    """Forget the client's webhook URL and secret; False when there is no such client."""
    return _change(
        client_id,
        "REMOVE webhook_url, webhook_secret, webhook_key_id SET webhook_updated_at = :now",
        vals={":now": now},
    )
