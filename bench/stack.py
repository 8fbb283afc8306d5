"""The bench's stack: the devstack plus the users, coin and connections every measured request
needs (`Bench`). Shared by `bench.run` and `bench.latency`, so neither imports the other."""

from __future__ import annotations

import os
from typing import Any

SOL = 10**9
REDIRECT = "http://localhost:8080/callback"
PRIO = {"priorityFeeLamports": "1000", "tipLamports": "1000000"}
T = 10**6  # one token in base units
BOND = 10**15 * 100 // 10_000  # the default proposal bond: 1% of the supply
GOV_PATHS = {
    "governance_vote": ("governance_vote", "/partner/v1/governance/votes"),
    "governance_vote_cancel": ("governance_vote_cancel", "/partner/v1/governance/votes/cancel"),
    "governance_vote_withdraw": ("governance_vote_withdraw", "/partner/v1/governance/votes/withdraw"),
    "governance_settle": ("governance_settle", "/partner/v1/governance/proposals/settle"),
    "governance_extend_mutability": (
        "governance_extend_mutability",
        "/partner/v1/governance/proposals/extend-mutability",
    ),
    "governance_finalize_metadata": (
        "governance_finalize_metadata",
        "/partner/v1/governance/proposals/finalize-metadata",
    ),
    "governance_finalize_expired": ("governance_finalize_expired", "/partner/v1/governance/metadata/finalize-expired"),
    "governance_bond_withdraw": ("governance_bond_withdraw", "/partner/v1/governance/bonds/withdraw"),
}


class Bench:
    """The devstack plus the users, coin and connections every request below needs."""

    def __init__(self) -> None:
        from devstack.run import Devstack, StackPorts

        self.stack = Devstack(StackPorts(gateway=0, chain=0), log=False, prefix="partner-bench").start()
        os.environ.update(self.stack.env)
        os.environ["RPC_URL"] = os.environ["RPC_URLS"] = self.stack.chain.url
        os.environ["BLOCK_ENGINE_URL"] = self.stack.chain.bundle_url
        from partner.core.settings import reset_settings

        reset_settings()
        self.env = {**os.environ}
        from partnerctl import admin

        # the setup buys (governance bonds, fresh voters) add up to more than the default daily
        # volume cap; the cap check itself still runs on every trade
        self.client = admin.create_client(
            admin.NewClient(name="Bench", redirect_uri=REDIRECT, tier="Partner", daily_volume_cap_lamports=10**6 * SOL)
        )
        self.coin = self.new_coin()
        from partnerctl import dev

        dev.crank_wallet(10 * SOL)  # the migrator's wallet
        self._ips = iter(range(1, 1 << 20))

    @property
    def chain_url(self) -> str:
        return self.stack.chain.url

    def ip(self) -> str:
        n = next(self._ips)
        return f"10.{(n >> 16) & 255}.{(n >> 8) & 255}.{n & 255}"

    def new_coin(self) -> str:
        from testkit.chain import new_coin

        return new_coin(self.chain_url, "Bench Coin", "BNCH")

    def member(self, sol: int = 5, tokens: bool = False) -> Any:
        """A funded user connected with every scope (optionally holding some of the coin)."""
        from partner.core.scopes import ALL
        from partnerctl import admin
        from testkit.chain import airdrop, wait
        from testkit.helpers import connect, invoke

        user = admin.create_user()
        if sol:
            airdrop(self.chain_url, user["wallet"], sol * SOL)
        conn = connect(self.client, user, scope=" ".join(ALL), ip=self.ip())
        if tokens:
            out = invoke(
                "trades_buy",
                "POST",
                "/partner/v1/trades/buy",
                body=self.buy_body(SOL // 2),
                headers={**conn.bearer(), "Content-Type": "application/json"},
            )
            assert out.status == 200, out.body
            wait(self.chain_url, out.json["signature"])
        return conn

    def buy_exact(self, conn: Any, mint: str, tokens: int, max_sol: int = 3 * SOL) -> None:
        from testkit.chain import wait
        from testkit.helpers import invoke

        out = invoke(
            "trades_buy_exact_out",
            "POST",
            "/partner/v1/trades/buy-exact-out",
            headers={**conn.bearer(), "Content-Type": "application/json"},
            body={"mint": mint, "tokensOut": str(tokens), "maxSolIn": str(max_sol), **PRIO},
        )
        assert out.status == 200, out.body
        assert wait(self.chain_url, out.json["signature"])["err"] is None

    def gov(self, conn: Any, name: str, body: dict[str, Any]) -> Any:
        """One governance write in-process (setup, not measured); the result."""
        from testkit.helpers import invoke

        function, path = GOV_PATHS[name]
        return invoke(
            function, "POST", path, body={**PRIO, **body}, headers={**conn.bearer(), "Content-Type": "application/json"}
        )

    def buy_body(self, lamports: int) -> dict[str, Any]:
        return {
            "mint": self.coin,
            "maxSolIn": str(lamports),
            "slippageBps": 500,
            "priorityFeeLamports": "1000",
            "tipLamports": "1000000",
        }

    def stop(self) -> None:
        self.stack.stop()
