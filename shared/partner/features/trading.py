"""Trades: buy, buy exact out, sell — on the curve or the pool the curve migrated to. `execute` runs
one trade (its docstring gives the order of the checks); `quote` prices one without sending it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from functools import partial
from typing import Annotated, Literal

from pydantic import AfterValidator, WithJsonSchema
from solders.instruction import Instruction
from solders.pubkey import Pubkey

from partner.chain import curve as curve_math
from partner.chain import instructions as ix
from partner.chain import pool_math, ports, unique, units
from partner.chain import programs as P
from partner.chain.layouts import Pool
from partner.chain.rpc import Rpc
from partner.chain.state import CoinState, read_coin
from partner.chain.tx import WriteFees
from partner.core import clock, observability, parallel
from partner.core.errors import ApiError
from partner.core.principal import Principal, require_delegation
from partner.features import fees as write_fees
from partner.features import grantlimits
from partner.features.models import Address, Amount, Field, IntOrString, PositiveAmount, Request, WriteFields
from partner.send import pipeline
from partner.store import counters
from partner.store.wallets import SealedWalletSigner

BPS = 10_000
ATA_RENT = P.rent_exempt_minimum(170)  # a Token-2022 ATA (ImmutableOwner)


def _partner_fee(value: int | str) -> int:
    """`partnerFeeBps`: a JSON integer or an integer string, 0 to 9999 (else invalid_partner_fee)."""
    if isinstance(value, str):
        if not value.isascii() or not value.isdigit() or len(value) > 4:
            raise ValueError("must be an integer from 0 to 9999")
        value = int(value)
    if not 0 <= value <= 9999:
        raise ValueError("must be an integer from 0 to 9999")
    return value


# `partnerFeeBps`: absent or null = none; a number or a string (checked by `_partner_fee`)
PartnerFeeBps = Annotated[
    Annotated[IntOrString, AfterValidator(_partner_fee)] | None,
    WithJsonSchema(
        {
            "anyOf": [
                {"type": "integer", "minimum": 0, "maximum": 9999},
                {"type": "string", "pattern": "^[0-9]{1,4}$"},
                {"type": "null"},
            ],
            "description": "Integer 0 to 9999, as a number or a string. Non-zero adds a partner fee.",
        }
    ),
]


class FeeBps:
    """`fee_bps` of a request with a `partnerFeeBps` field."""

    @property
    def fee_bps(self) -> int:
        return int(self.partnerFeeBps or 0)  # type: ignore[attr-defined]  # a mixin: the model declares it


class TradeCommon(WriteFields, FeeBps):
    mint: Address
    # absent = explicit mode; present must be an integer (null is not a number: invalid_input)
    slippageBps: Annotated[int, Field(ge=0, le=5000)] = None  # type: ignore[assignment]  # None marks explicit mode
    partnerFeeBps: PartnerFeeBps = None

    @property
    def slippage_mode(self) -> bool:
        return "slippageBps" in self.model_fields_set


class BuyRequest(TradeCommon):
    maxSolIn: PositiveAmount
    minTokensOut: Amount | None = None


class BuyExactOutRequest(TradeCommon):
    tokensOut: PositiveAmount
    maxSolIn: PositiveAmount | None = None


class SellRequest(TradeCommon):
    tokensIn: PositiveAmount
    minSolOut: Amount | None = None


TradeRequest = BuyRequest | BuyExactOutRequest | SellRequest
SPECIAL_CODES = {"partnerFeeBps": "invalid_partner_fee"}


@dataclass(frozen=True)
class Plan:
    """What will be sent: the venue instruction, the fee and the trade's lamport value."""

    instruction: Instruction
    value_lamports: int
    partner_fee: int
    spend_lamports: int  # SOL the wallet commits to the venue and the partner fee
    # the fill of a buy or a sell and the amount's field: a dust amount is refused last (`require_fill`)
    fill: Fill | None = None
    amount_field: str = ""
    capped: Fill | None = None  # the fill of a buy the curve caps (Fill.capped_fields)


def _require_explicit(value: str | None, name: str) -> int:
    if value is None:
        raise ApiError("invalid_input", f"{name} is required without slippageBps (explicit mode).", field=name)
    return int(value)


EXPLICIT_BOUNDS = {"BuyRequest": "minTokensOut", "BuyExactOutRequest": "maxSolIn", "SellRequest": "minSolOut"}


def require_bound(req: TradeRequest) -> None:
    """Explicit mode (no slippageBps) needs its bound field: input validation, before delegation."""
    if not req.slippage_mode:
        name = EXPLICIT_BOUNDS[type(req).__name__]
        _require_explicit(getattr(req, name), name)


def require_fill(fill: Fill, name: str) -> Fill:
    """A dust amount: a buy that gets no token, a sell that pays 0 lamports. 400 naming the amount, the
    same on the trade and on the quote (the amount is too small for this venue's price now)."""
    if fill.tokens == 0 or fill.sol == 0:
        what = "buys no token" if name == "maxSolIn" else "sells for 0 lamports"
        raise ApiError("invalid_input", f"{name}: too small; at the venue's price now it {what}.", field=name)
    return fill


def _floor_bps(amount: int, bps: int) -> int:
    return amount * bps // BPS


def _gross_up(net: int, bps: int) -> int:
    """Smallest m with m - floor(m * bps / 10000) >= net."""
    m = -(-net * BPS // (BPS - bps)) if bps else net
    while m - _floor_bps(m, bps) < net:
        m += 1
    while m > 0 and (m - 1) - _floor_bps(m - 1, bps) >= net:
        m -= 1
    return m


def _math(call):
    try:
        return call()
    except curve_math.MathOverflow as exc:
        raise ApiError("math_overflow") from exc
    except (curve_math.InsufficientLiquidity, pool_math.InsufficientLiquidity) as exc:
        raise ApiError("insufficient_liquidity") from exc
    except curve_math.CurveComplete as exc:
        raise ApiError("curve_complete") from exc
    except curve_math.InvalidAmount as exc:
        raise ApiError("invalid_input", str(exc)) from exc


@dataclass(frozen=True)
class Fill:
    """What the venue does for one trade, by the same integer math as the programs.

    `sol`: lamports the venue takes for a buy (protocol fee included), or pays for a sell (after
    it); `tokens`: tokens out of a buy or into a sell. `price_impact_bps`: how far the trade's
    own price (fees left out) is from the venue's price before it.
    """

    sol: int
    tokens: int
    protocol_fee: int
    price_impact_bps: int
    completes_curve: bool
    capped: bool = False  # a buy for more than the curve has left: it gets only the curve's last tokens

    def capped_fields(self) -> dict[str, str]:
        """The quote's and the trade's added fields for a capped buy (none otherwise)."""
        return {"cappedTokensOut": str(self.tokens), "cappedSolIn": str(self.sol)} if self.capped else {}


def _impact_bps(num: int, den: int) -> int:
    """round(10000 * num / den), at least 0; a trade that gets nothing has all impact (10000)."""
    if den <= 0:
        return BPS
    return max(0, (2 * BPS * num + den) // (2 * den))


def _spot(state: CoinState, venue: str) -> tuple[int, int]:
    """(SOL reserve, token reserve) whose ratio is the venue's price now."""
    if venue == "curve":
        return state.curve.virtual_sol_reserves, state.curve.virtual_token_reserves
    assert state.pool is not None
    return state.pool.quote_reserve, state.pool.base_reserve


def _buy_fill(state: CoinState, venue: str, tokens: int, sol: int, fee: int, completes: bool) -> Fill:
    sol_reserve, token_reserve = _spot(state, venue)
    net = sol - fee  # what reached the reserves: price = net / tokens against sol_reserve / token_reserve
    impact = _impact_bps(net * token_reserve - tokens * sol_reserve, tokens * sol_reserve)
    return Fill(sol, tokens, fee, impact, completes)


def _fill_buy_at(
    state: CoinState,
    venue: str,
    amount: int,
    on_curve: Callable[..., curve_math.BuyResult],
    on_pool: Callable[..., pool_math.SwapResult],
) -> Fill:
    """A buy of `amount` at the venue, by the curve's or the pool's function for its kind."""
    if venue == "curve":
        fee_bps = state.global_config.protocol_fee_bps
        r = _math(lambda: on_curve(curve_math.CurveState.of(state.curve), amount, fee_bps))
        return replace(_buy_fill(state, venue, r.tokens_out, r.sol_in, r.fee, r.completes), capped=r.capped)
    pool = _live_pool(state)
    p = _math(lambda: on_pool(pool_math.PoolState.of(pool), amount, pool.fee_bps))
    return _buy_fill(state, venue, p.amount_out, p.amount_in, p.fee, False)


def fill_buy(state: CoinState, venue: str, sol_in: int) -> Fill:
    """Spend `sol_in` (protocol fee included) at the venue."""
    return _fill_buy_at(state, venue, sol_in, curve_math.buy, pool_math.swap_quote_in)


def fill_buy_exact(state: CoinState, venue: str, tokens: int) -> Fill:
    """Receive exactly `tokens` from the venue (on the curve: at most what is left on it)."""
    return _fill_buy_at(state, venue, tokens, curve_math.buy_exact_out, pool_math.swap_base_out)


def fill_sell(state: CoinState, venue: str, tokens: int) -> Fill:
    """Sell `tokens` at the venue."""
    if venue == "curve":
        fee_bps = state.global_config.protocol_fee_bps
        r = _math(lambda: curve_math.sell(curve_math.CurveState.of(state.curve), tokens, fee_bps))
        out, fee = r.sol_out, r.fee
    else:
        pool = _live_pool(state)
        p = _math(lambda: pool_math.swap_base_in(pool_math.PoolState.of(pool), tokens, pool.fee_bps))
        out, fee = p.amount_out, p.fee
    sol_reserve, token_reserve = _spot(state, venue)
    gross = out + fee
    impact = _impact_bps(tokens * sol_reserve - gross * token_reserve, tokens * sol_reserve)
    return Fill(out, tokens, fee, impact, False)


def min_out_bound(expected: int, slippage_bps: int) -> int:
    """Slippage mode's floor for an amount out: floor(expected * (10000 - slippageBps) / 10000)."""
    return _floor_bps(expected, BPS - slippage_bps)


def max_in_bound(venue_quote: int, slippage_bps: int, partner_fee_bps: int) -> int:
    """Slippage mode's `maxSolIn` for buy-exact-out: the venue's ceiling
    ceil(quote * (10000 + slippageBps) / 10000), grossed up so that it is left after the partner fee."""
    return _gross_up(-(-venue_quote * (BPS + slippage_bps) // BPS), partner_fee_bps)


def _fee_recipient(state: CoinState, venue: str) -> Pubkey:
    return state.global_config.fee_recipient if venue == "curve" else _live_pool(state).fee_recipient


def _live_pool(state: CoinState) -> Pool:
    """The pool of a coin whose venue is the pool (`CoinState.venue` answered 409 otherwise)."""
    if state.pool is None:
        raise ApiError("migration_pending", action="Wait a few seconds and retry.")
    return state.pool


def plan_buy(req: BuyRequest, state: CoinState, venue: str, user: Pubkey) -> Plan:
    max_in = int(req.maxSolIn)
    partner_fee = _floor_bps(max_in, req.fee_bps)
    venue_in = max_in - partner_fee
    if venue_in <= 0:
        raise ApiError(
            "invalid_input", "maxSolIn leaves nothing for the venue after the partner fee.", field="maxSolIn"
        )
    fill = fill_buy(state, venue, venue_in)  # dust: refused after the spec's checks (execute)
    if req.slippage_mode:
        min_out = min_out_bound(fill.tokens, int(req.slippageBps))
    else:
        min_out = _require_explicit(req.minTokensOut, "minTokensOut")
    recipient = _fee_recipient(state, venue)
    if venue == "curve":
        instruction = ix.buy(user, state.mint, recipient, venue_in, min_out)
    else:
        instruction = ix.swap(user, state.mint, recipient, False, venue_in, min_out)
    return Plan(instruction, max_in, partner_fee, max_in, fill, "maxSolIn", fill if fill.capped else None)


def plan_buy_exact_out(req: BuyExactOutRequest, state: CoinState, venue: str, user: Pubkey) -> Plan:
    tokens = int(req.tokensOut)
    # the fill: slippage mode's bound comes from it, and a buy past the curve's last tokens answers it
    fill = None
    if req.slippage_mode or (venue == "curve" and tokens > state.curve.real_token_reserves):
        fill = fill_buy_exact(state, venue, tokens)
    if req.slippage_mode:
        assert fill is not None
        max_in = max_in_bound(fill.sol, int(req.slippageBps), req.fee_bps)
        if req.maxSolIn is not None:
            max_in = min(max_in, int(req.maxSolIn))
    else:
        max_in = _require_explicit(req.maxSolIn, "maxSolIn")
    partner_fee = _floor_bps(max_in, req.fee_bps)
    venue_max = max_in - partner_fee
    if venue_max <= 0:
        raise ApiError(
            "invalid_input", "maxSolIn leaves nothing for the venue after the partner fee.", field="maxSolIn"
        )
    recipient = _fee_recipient(state, venue)
    if venue == "curve":
        instruction = ix.buy_exact_out(user, state.mint, recipient, tokens, venue_max)
    else:
        instruction = ix.swap_exact_out(user, state.mint, recipient, tokens, venue_max)
    return Plan(instruction, max_in, partner_fee, max_in, capped=fill if fill is not None and fill.capped else None)


def plan_sell(req: SellRequest, state: CoinState, venue: str, user: Pubkey) -> Plan:
    """The sell as quoted now; the wallet's tokens are checked after the caps (`require_tokens`), and a
    dust amount after every spec check (execute)."""
    tokens = int(req.tokensIn)
    fill = fill_sell(state, venue, tokens)
    quote = fill.sol
    if req.slippage_mode:
        min_out = min_out_bound(quote, int(req.slippageBps))
    else:
        min_out = _require_explicit(req.minSolOut, "minSolOut")
    partner_fee = _floor_bps(min_out, req.fee_bps)
    recipient = _fee_recipient(state, venue)
    if venue == "curve":
        instruction = ix.sell(user, state.mint, recipient, tokens, min_out)
    else:
        instruction = ix.swap(user, state.mint, recipient, True, tokens, min_out)
    return Plan(instruction, quote, partner_fee, 0, fill, "tokensIn")


def require_tokens(state: CoinState, tokens: int) -> None:
    """A sell's balance checks (chain state, after the caps)."""
    if not state.token_account_exists or state.token_balance == 0:
        raise ApiError("missing_sell_token_account")
    if state.token_balance < tokens:
        raise ApiError("insufficient_tokens", requiredTokens=str(tokens), availableTokens=str(state.token_balance))


PLANNERS: dict[type, Callable[..., Plan]] = {
    BuyRequest: plan_buy,
    BuyExactOutRequest: plan_buy_exact_out,
    SellRequest: plan_sell,
}
KINDS: dict[type, str] = {BuyRequest: "buy", BuyExactOutRequest: "buy_exact_out", SellRequest: "sell"}


def _trade_cap_exceeded(value: int, cap: int) -> ApiError:
    return ApiError(
        "trade_cap_exceeded", f"The trade's value {value} exceeds the per-trade limit {cap}.", maxTradeLamports=str(cap)
    )


def _volume_key(client_id: str) -> tuple[str, int]:
    now = clock.now()
    day = datetime.fromtimestamp(now, UTC).strftime("%Y-%m-%d")
    return f"VOL#{client_id}#{day}", int(now) + 2 * 86_400


CLIENT_DAY = "The trade would exceed the client's daily volume cap (resets 00:00 UTC)."
OWN_DAY = "The trade would exceed the daily limit the user set for this app (resets 00:00 UTC)."


@dataclass(frozen=True)
class Reserved:
    """The caps' outcome for one trade: what gives its reservation back (None: nothing reserved), and
    the refusal of the user's own limits, answered last (None: within them)."""

    release: Callable[[], None] | None
    own_refusal: ApiError | None


def reserve_caps(principal: Principal, value: int) -> Reserved:
    """The caps for a trade of `value` lamports.

    The spec's caps, the client's per-trade cap and daily volume cap, answer here. The user's own
    limits (the lower of theirs and the client's) are added to the spec's: they are decided
    here, in the same reservation (`counters.reserve_all`: the client's day within its cap first, then
    the grant's day within the user's), but answered last, as an added check of the send pipeline, so
    that a spec error of the same request (chain state, balance, the program's) stands."""
    client = principal.client
    if value > client.max_trade_lamports:
        raise _trade_cap_exceeded(value, client.max_trade_lamports)
    if value <= 0:  # a dust sell's value: nothing to count (and refused as dust, last)
        return Reserved(None, None)
    limits = grantlimits.effective(client, principal.grant)
    key, expires = _volume_key(client.client_id)
    grant_key = grantlimits.grant_volume_key(client.client_id, principal.user.user_id, key.rsplit("#", 1)[1])
    cap, own = client.daily_volume_cap_lamports, limits.daily_volume_cap_lamports
    over_own_trade = (
        _trade_cap_exceeded(value, limits.max_trade_lamports) if value > limits.max_trade_lamports else None
    )
    # without a lower limit of the user's own, the grant's day only counts (it cannot refuse what the
    # client's day admitted): added beside the client's reservation instead of after it
    refused = counters.reserve_all(value, [(key, cap), (grant_key, own if own < cap else None)], expires)
    if refused is None:
        return Reserved(lambda: counters.release_all([key, grant_key], value), over_own_trade)
    which, spent = refused
    if which == 0:
        raise ApiError("daily_cap_exceeded", CLIENT_DAY, dailyVolumeCapLamports=str(cap), spentTodayLamports=str(spent))
    # the user's day ran out (the client's, reserved first, had room and was given back): nothing
    # is held, and the refusal waits for the spec's checks
    return Reserved(
        None,
        over_own_trade
        or ApiError("daily_cap_exceeded", OWN_DAY, dailyVolumeCapLamports=str(own), spentTodayLamports=str(spent)),
    )


def _hold(held: pipeline.Held, caps: Reserved) -> Reserved:
    if caps.release is not None:
        held.add(caps.release)
    return caps


def _refuse(error: ApiError) -> None:
    raise error


def _known_value(req: TradeRequest) -> int | None:
    """The trade's lamport value when the request gives it: maxSolIn (buy; buy-exact-out in explicit
    mode). A sell's (the quoted SOL out) and a slippage-mode buy-exact-out's need the venue's state."""
    if isinstance(req, BuyRequest) or (isinstance(req, BuyExactOutRequest) and not req.slippage_mode):
        return int(req.maxSolIn)  # type: ignore[arg-type]  # set: the branch above
    return None


def _write(
    principal: Principal, req: TradeRequest, state: CoinState, plan: Plan, signer: SealedWalletSigner, caps: Reserved
) -> pipeline.Write:
    """The trade's transaction and what the send pipeline checks before sending it."""
    client = principal.client
    fees = WriteFees(int(req.priorityFeeLamports), int(req.tipLamports))
    partner = (
        (Pubkey.from_string(client.fee_wallet), plan.partner_fee) if plan.partner_fee and client.fee_wallet else None
    )
    # a buy into a wallet without the coin's token account creates it (a sell needs one)
    new = () if state.token_account_exists else (P.associated_token_address(signer.pubkey, state.mint),)
    transaction = pipeline.Tx(
        "trade",
        [plan.instruction],
        [signer],
        fees,
        partner_fee=partner,
        memo=unique.request_memo(),
        hint=units.Hint(new=frozenset(new)),
    )
    # a buy commits its SOL (and the token account's rent the first time); a sell's tip and
    # fee come out of its proceeds
    spend = plan.spend_lamports + (0 if state.token_account_exists else ATA_RENT)
    # the added refusals, after every spec check: dust (the programs refuse it themselves, after
    # the same checks), the client's fee ceiling, the user's own limits
    added = []
    if plan.fill is not None:
        added.append(pipeline.Added(partial(require_fill, plan.fill, plan.amount_field), program=False))
    added.append(
        pipeline.Added(partial(write_fees.check_ceiling, principal, fees.priority_fee_lamports, fees.tip_lamports))
    )
    if caps.own_refusal is not None:
        added.append(pipeline.Added(partial(_refuse, caps.own_refusal)))
    return pipeline.Write(
        KINDS[type(req)],
        req.mint,
        [transaction],
        state.blockhash,
        state.last_valid_block_height,
        funds=pipeline.Funds(state.wallet_lamports, spend, tip_from_proceeds=isinstance(req, SellRequest)),
        added=added,
    )


def execute(principal: Principal, req: TradeRequest, chain: Rpc | None = None) -> dict[str, str]:
    """Run one trade for `principal`. Order (after admission): input (400; explicit mode's bound field
    included) -> delegation (403) -> partner fee configuration -> where the value is known without a
    quote (buy; buy-exact-out in explicit mode), the caps: the per-trade cap and the daily volume
    reserved atomically (400/403), answered before the wallet's own refusal -> chain state: one
    batched read, the venue (409) and the quote -> for a quote-valued trade (sell, buy-exact-out in
    slippage mode) the caps now, before any balance -> token balances (422) -> the send pipeline
    (partner.send.pipeline): build (422 tx_too_large), SOL (422 insufficient_sol), then the added
    refusals, last, so that none pre-empts a spec error: a dust amount (400 naming it), the client's
    fee ceiling (400), the user's own limits (403; decided with the caps, in the same reservation)
    -> sign (502) -> submit (502/422). A reservation is released whenever nothing reached the network.

    Independent calls run at once (partner.core.parallel; the answer is still the order's): the
    wallet's kms:Decrypt starts with the chain read, and where the request gives the value the
    reservation runs beside them; a quote-valued trade reserves once the read has given its value."""
    require_bound(req)
    require_delegation(principal)
    require_fee_configured(principal, req.fee_bps)
    known_value = _known_value(req)
    with pipeline.Held() as held:  # the day's volume, given back when nothing reached the network
        caps = None
        try:
            signer = SealedWalletSigner(principal.user)
        except ApiError:
            if known_value is not None:  # the caps answer before the wallet (they come first)
                _hold(held, reserve_caps(principal, known_value))
            raise
        # independent calls at once: the wallet's kms:Decrypt (answered at signing), the
        # chain read, and the caps' reservation where the request gives the value, here on this thread;
        # the caps still answer first (their refusal leaves the read unread)
        signer.prefetch()
        chain = pipeline.reading_for(principal, chain or ports.current().rpc())
        reading = parallel.submit(read_coin, chain, Pubkey.from_string(req.mint), signer.pubkey)
        if known_value is not None:
            caps = _hold(held, reserve_caps(principal, known_value))
        state = reading.result()
        venue = state.venue
        plan = PLANNERS[type(req)](req, state, venue, signer.pubkey)
        value = plan.value_lamports if known_value is None else known_value
        if caps is None:  # valued by the quote: the caps before any balance
            caps = _hold(held, reserve_caps(principal, value))
        if isinstance(req, SellRequest):
            require_tokens(state, int(req.tokensIn))
        write = _write(principal, req, state, plan, signer, caps)
        sent = pipeline.send(principal, write, pipeline.Submit(chain, engine=pipeline.tx_engine()), held=held)
    observability.count("Trades", venue=venue, kind=KINDS[type(req)])
    capped = plan.capped.capped_fields() if plan.capped else {}
    return {"signature": sent.signature, "mint": req.mint, "status": "submitted", **capped}


# ------------------------------------------------------------------ quote


AMOUNT_FIELDS = {"buy": "maxSolIn", "buy-exact-out": "tokensOut", "sell": "tokensIn"}


class QuoteRequest(Request, FeeBps):
    side: Literal["buy", "buy-exact-out", "sell"]
    mint: Address
    maxSolIn: PositiveAmount | None = Field(None, description="side buy: lamports to spend, partner fee included.")
    tokensOut: PositiveAmount | None = Field(None, description="side buy-exact-out: tokens to receive.")
    tokensIn: PositiveAmount | None = Field(None, description="side sell: tokens to sell.")
    slippageBps: Annotated[int, Field(ge=0, le=5000)] = Field(
        0,
        description=(
            "0 to 5000 (default 0): the bound in the answer is the one a trade in slippage mode with this "
            "value would use."
        ),
    )
    partnerFeeBps: PartnerFeeBps = None

    @property
    def amount(self) -> int:
        name = AMOUNT_FIELDS[self.side]
        value = getattr(self, name)
        if value is None:
            raise ApiError("invalid_input", f"{name}: required for side {self.side}.", field=name)
        for other in set(AMOUNT_FIELDS.values()) - {name}:
            if getattr(self, other) is not None:
                raise ApiError("invalid_input", f"{other}: not read for side {self.side}; send {name}.", field=other)
        return int(value)


def require_fee_configured(principal: Principal, fee_bps: int) -> None:
    client = principal.client
    if fee_bps > 0 and (client.tier != "Partner" or not client.fee_wallet):
        raise ApiError("partner_fee_not_configured", "Partner fees need the Partner tier and a registered fee wallet.")


def quote(principal: Principal, req: QuoteRequest, chain: Rpc | None = None) -> dict[str, object]:
    """What the same trade would do now, by the planners' own math; nothing is signed, sent or counted.

    Each expected amount has the basis of the bound beside it: `expectedSolIn` and `maxSolIn`
    include the partner fee (as a trade's `maxSolIn` does); `expectedSolOut` and `minSolOut` are
    what the venue pays, before the partner fee is transferred out of it.
    """
    amount = req.amount
    require_fee_configured(principal, req.fee_bps)
    if not principal.user.wallet:
        raise ApiError("invalid_wallet")
    chain = chain or ports.current().rpc()
    state = read_coin(chain, Pubkey.from_string(req.mint), Pubkey.from_string(principal.user.wallet))
    venue = state.venue
    slip = int(req.slippageBps)
    out: dict[str, object] = {"venue": venue}
    if req.side == "buy":
        partner_fee = _floor_bps(amount, req.fee_bps)
        if amount - partner_fee <= 0:
            raise ApiError(
                "invalid_input", "maxSolIn leaves nothing for the venue after the partner fee.", field="maxSolIn"
            )
        fill = require_fill(fill_buy(state, venue, amount - partner_fee), "maxSolIn")
        out.update(expectedTokensOut=str(fill.tokens), minTokensOut=str(min_out_bound(fill.tokens, slip)))
        out.update(fill.capped_fields())
    elif req.side == "buy-exact-out":
        fill = fill_buy_exact(state, venue, amount)
        max_in = max_in_bound(fill.sol, slip, req.fee_bps)
        partner_fee = _floor_bps(max_in, req.fee_bps)
        out.update(expectedSolIn=str(fill.sol + partner_fee), maxSolIn=str(max_in), **fill.capped_fields())
    else:
        fill = require_fill(fill_sell(state, venue, amount), "tokensIn")
        min_out = min_out_bound(fill.sol, slip)
        partner_fee = _floor_bps(min_out, req.fee_bps)
        out.update(expectedSolOut=str(fill.sol), minSolOut=str(min_out))
    out.update(
        protocolFeeLamports=str(fill.protocol_fee),
        partnerFeeLamports=str(partner_fee),
        priceImpactBps=fill.price_impact_bps,
        completesCurve=fill.completes_curve,
        contextSlot=state.slot,
    )
    return out
