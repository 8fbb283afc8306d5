"""Fees: the client's fee ceiling on every write, and GET /partner/v1/fees/estimate: what priority fee a
trade on a mint needs now (docs/chain.md, "The fee estimate").
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from solders.pubkey import Pubkey

from partner.chain import instructions as ix
from partner.chain import ports
from partner.chain import programs as P
from partner.chain.layouts import Pool, decode_owned
from partner.chain.rpc import Rpc
from partner.chain.state import decode_curve, decode_global
from partner.core.errors import ApiError
from partner.core.limits import MIN_PRIORITY_FEE, MIN_TIP, TRADE_UNITS, check_address

if TYPE_CHECKING:
    from partner.core.principal import Principal

PERCENTILES = (25, 50, 75, 95)
MICRO_LAMPORTS = 1_000_000


def check_ceiling(
    principal: Principal,
    priority_fee: int,
    tip: int,
    *,
    transactions: int = 1,
    extra_tip: int = 0,
    field: str | None = None,
) -> None:
    """400 invalid_input when `transactions` x `priority_fee` + `tip` + `extra_tip` (what the write's
    transactions spend besides their program's movements) is over the client's ceiling.

    A tip or a priority fee is not trade volume, so the caps do not bound it; each client has
    `max_fee_lamports` (default 0.1 SOL, the `default_max_fee_lamports` setting; `partnerctl client
    limits`), and every write refuses a transaction whose `priorityFeeLamports + tipLamports` is over
    it (a launch bundle: the sum over its transactions) with 400 `invalid_input` naming the larger of
    the two fields (the tip on a tie) and `maxFeeLamports`. It is an added refusal, checked last by
    the send pipeline (partner.send.pipeline), after every spec check and before signing, so that
    a spec error of the same request answers first.
    """
    ceiling = principal.client.max_fee_lamports
    total = transactions * priority_fee + tip + extra_tip
    if total <= ceiling:
        return
    name = field or ("tipLamports" if tip >= priority_fee else "priorityFeeLamports")
    raise ApiError(
        "invalid_input",
        f"{name}: priorityFeeLamports + tipLamports come to {total} lamports, over "
        f"this client's fee ceiling of {ceiling} per transaction.",
        field=name,
        maxFeeLamports=str(ceiling),
    )


def parse_mint(query: dict[str, list[str]]) -> str:
    values = query.get("mint") or []
    if len(values) != 1:
        raise ApiError("invalid_input", "mint is required, once." if not values else "mint is repeated.", field="mint")
    try:
        return check_address(values[0])
    except ValueError as exc:
        raise ApiError("invalid_input", "mint must be a Base58 public key.", field="mint") from exc


def percentile(sorted_values: list[int], p: int) -> int:
    """Nearest-rank percentile of ascending values (0 for none)."""
    if not sorted_values:
        return 0
    rank = max(1, math.ceil(p / 100 * len(sorted_values)))
    return sorted_values[rank - 1]


def lamports_for(micro_lamports_per_unit: int, units: int = TRADE_UNITS) -> int:
    """The priority fee in lamports that buys at least this compute-unit price, at least the minimum."""
    return max(MIN_PRIORITY_FEE, -(-micro_lamports_per_unit * units // MICRO_LAMPORTS))


RECOMMENDED = 75  # the percentile `recommended` names: a price that landed in 3 of 4 recent paid slots


def trade_accounts(mint: Pubkey, fee_recipients: list[Pubkey]) -> list[Pubkey]:
    """What a trade on `mint` write-locks, on the curve and on the pool, without the trader's own
    accounts: the instructions' writable, non-signing accounts (one per key, in order)."""
    nobody = Pubkey.default()
    own = {nobody, P.associated_token_address(nobody, mint)}
    out: list[Pubkey] = []
    for recipient in fee_recipients:
        for instruction in (ix.buy(nobody, mint, recipient, 0, 0), ix.swap(nobody, mint, recipient, False, 0, 0)):
            out += [
                m.pubkey
                for m in instruction.accounts
                if m.is_writable and not m.is_signer and m.pubkey not in own and m.pubkey not in out
            ]
    return out


def from_samples(mint: str, samples: list[dict[str, Any]], accounts: list[str]) -> dict[str, Any]:
    paid = sorted(fee for fee in (int(s.get("prioritizationFee") or 0) for s in samples) if fee > 0)
    price = {f"p{p}": percentile(paid, p) for p in PERCENTILES}
    recommended = percentile(paid, RECOMMENDED)
    return {
        "mint": mint,
        "computeUnitLimit": TRADE_UNITS,
        "priorityFeeLamports": {k: str(lamports_for(v)) for k, v in price.items()},
        "computeUnitPriceMicroLamports": {k: str(v) for k, v in price.items()},
        "tipLamports": str(MIN_TIP),
        "slots": len(paid),
        "recommended": {
            "percentile": RECOMMENDED,
            "priorityFeeLamports": str(lamports_for(recommended)),
            "computeUnitPriceMicroLamports": str(recommended),
        },
        "sampledSlots": len(samples),
        "accounts": accounts,
    }


def fee_recipients(rpc: Rpc, mint: Pubkey) -> list[Pubkey]:
    """The launchpad's fee recipient, and the pool's when the coin has migrated; 400 invalid_input,
    as the quote answers, when the mint is not a coin of this launchpad."""
    keys = [P.global_pda()[0], P.pool_pda(mint)[0], P.bonding_curve_pda(mint)[0]]
    answer = rpc.batch([rpc.multiple_accounts_request(keys, 1)])[0]
    global_raw, pool_raw, curve_raw = Rpc.parse_multiple_accounts(answer)
    global_config = decode_global(global_raw)
    decode_curve(curve_raw, mint)
    pool = decode_owned(Pool, pool_raw, P.POOL_PROGRAM_ID)
    recipients = [global_config.fee_recipient]
    if pool is not None and pool.fee_recipient not in recipients:
        recipients.append(pool.fee_recipient)
    return recipients


def estimate(mint: str, rpc: Rpc | None = None) -> dict[str, Any]:
    """The chain's `getRecentPrioritizationFees` for every account a trade on the mint
    write-locks, except the trader's own (the curve and its vault, the pool and its vault, and the
    fee recipients, which every trade on the launchpad writes). Per completed slot of the last
    150, the node answers the lowest compute-unit price that landed a transaction writing one of
    them, or the block's minimum, which on mainnet is 0. The slots where nothing paid are not a
    market for these accounts: the percentiles (nearest rank) are over the other slots only, and
    `recommended` is the 75th. Converted to lamports for the trade's compute-unit limit and
    rounded up, never below the spec's minimum. docs/chain.md "The fee estimate" compares it
    with the RPC providers' estimators.
    """
    rpc = rpc or ports.current().rpc()
    key = Pubkey.from_string(mint)
    accounts = [str(a) for a in trade_accounts(key, fee_recipients(rpc, key))]
    samples = rpc.call("getRecentPrioritizationFees", [accounts]) or []
    return from_samples(mint, samples, accounts)
