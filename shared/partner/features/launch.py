"""POST /partner/v1/coins/create: launch a coin, optionally with the creator's first buy.

`execute` gives the order of the checks; `plan_first_buy` the first-buy plan (the spec's rules 1-6).
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import AfterValidator, ConfigDict, WithJsonSchema
from solders.instruction import Instruction
from solders.keypair import Keypair
from solders.pubkey import Pubkey

from partner.chain import curve as curve_math
from partner.chain import instructions as ix
from partner.chain import ports, units
from partner.chain import programs as P
from partner.chain.layouts import Global, LayoutError
from partner.chain.rpc import BlockEngine, Rpc, unavailable
from partner.chain.tx import WriteFees
from partner.core import bodies, clock
from partner.core.errors import ApiError
from partner.core.principal import Principal, require_delegation
from partner.core.settings import get_settings
from partner.features import fees as write_fees
from partner.features import links, multipart, pinning, pipeline, uploads
from partner.features.coin_fields import Image, clean_description, normalize_name, normalize_symbol, read_image
from partner.features.models import (
    LINK,
    NAME,
    SYMBOL,
    Amount,
    PositiveAmount,
    PriorityFee,
    Request,
    bps_pattern,
    validate,
)
from partner.store import launches as launch_store
from partner.store.wallets import KeypairSigner, SealedWalletSigner

__all__ = [
    "LaunchRules",
    "RULES",
    "LaunchForm",
    "FirstBuyPlan",
    "InitialBuy",
    "plan_first_buy",
    "parse_form",
    "normalize_name",
    "normalize_symbol",
    "claim_launch",
    "release_launch",
    "execute",
    "read_request",
]

BPS = 10_000
DOCUMENT_FIELDS = ("name", "symbol", "description", "image", "website", "twitter", "telegram")
CLAMP_LIMITS = ("token_balance", "net_bought", "migration_threshold")
_DIGITS = re.compile(r"[0-9]{1,5}")  # fullmatch: `$` also matches before "\n"


@dataclass(frozen=True)
class LaunchRules:
    """The launch restrictions' defaults (tests may swap `RULES`)."""

    cooldown_seconds: int = 60
    identity_allowance: int = 1  # launches per normalized name and per symbol per creator
    bypass_fee_lamports: int = 100_000_000  # x launches already made with that name or symbol
    first_buy_cap_bps: int = 250  # of total supply
    default_priority_fee_lamports: int = 10_000
    bundle_tip_lamports: int = 1_000_000


RULES = LaunchRules()


# ------------------------------------------------------------------ form


def _slippage(value: str) -> str:
    if not _DIGITS.fullmatch(value) or int(value) > BPS:
        raise ValueError("must be an integer from 0 to 10000")
    return value


SlippageBps = Annotated[
    str,
    AfterValidator(_slippage),
    WithJsonSchema(
        {"type": "string", "pattern": bps_pattern(10_000), "maxLength": 5, "description": "Integer string 0 to 10000."}
    ),
]


def _required(schema: dict[str, Any], *names: str) -> None:
    """Document `names` as required (the handler checks them itself, after the image)."""
    schema["required"] = list(names)
    for name in names:
        schema["properties"][name].pop("default", None)


class CoinCreateForm(Request):
    """The image is required: as the file `image`, or (added) staged with POST /partner/v1/uploads and named by
    `imageUploadId` (both: invalid_input; neither: image_required). initialBuySol and initialBuyTokens are
    mutually exclusive; initialBuyTokens needs initialBuyMaxSolIn. At most 16 form fields and 4 files. The
    client's fee ceiling counts the launch's priorityFeeLamports, or with a first buy the bundle's total:
    2 x priorityFeeLamports + the bundle's tip of 1000000 lamports (over it: 400 invalid_input, field
    priorityFeeLamports, with maxFeeLamports)."""

    model_config = ConfigDict(json_schema_extra=lambda schema: _required(schema, "name", "symbol"))

    name: NAME = ""  # required (the document says so); an empty one is invalid_name after the image's check
    symbol: SYMBOL = ""
    description: str | None = None
    website: LINK | None = None
    twitter: LINK | None = None
    telegram: LINK | None = None
    priorityFeeLamports: PriorityFee | None = None
    initialBuySol: PositiveAmount | None = None
    initialBuyTokens: PositiveAmount | None = None
    initialBuyMaxSolIn: PositiveAmount | None = None
    slippageBps: SlippageBps | None = None
    maxBypassFeeLamports: Amount | None = None
    imageUploadId: uploads.UploadId | None = None  # added: a staged image (partner.features.uploads)


@dataclass(frozen=True)
class LaunchForm:
    name: str
    symbol: str
    description: str
    links: dict[str, str]
    image: Image | None  # None with an imageUploadId until the upload is consumed
    priority_fee_lamports: int
    initial_buy_sol: int | None = None
    initial_buy_tokens: int | None = None
    initial_buy_max_sol_in: int | None = None
    slippage_bps: int = 0
    max_bypass_fee_lamports: int | None = None
    image_upload_id: str | None = None
    staged: uploads.Staged | None = None  # the checked upload, set by `handle`

    @property
    def first_buy(self) -> bool:
        return self.initial_buy_sol is not None or self.initial_buy_tokens is not None


def _invalid(message: str, name: str) -> ApiError:
    return ApiError("invalid_input", message, field=name)


def parse_form(form: multipart.Form) -> LaunchForm:
    upload = form.file("image")
    upload_id = form.fields.get(uploads.FIELD)
    if upload is not None and upload_id is not None:
        raise _invalid(
            "Send the image either as the file field `image` or as `imageUploadId`, not both.", uploads.FIELD
        )
    if upload is None and upload_id is None:
        raise ApiError(
            "image_required",
            "Send the coin's image as the file field `image`, or stage it with "
            "POST /partner/v1/uploads and send its `imageUploadId`.",
            field="image",
        )
    unknown_files = sorted(set(form.files) - {"image"})
    if unknown_files:
        raise _invalid(f"{unknown_files[0][:40]}: unknown file field", unknown_files[0][:40])
    image = read_image(upload.data) if upload is not None else None
    name = normalize_name(form.fields.get("name", ""))
    symbol = normalize_symbol(form.fields.get("symbol", ""))
    fields = validate(CoinCreateForm, form.fields)
    if fields.initialBuySol is not None and fields.initialBuyTokens is not None:
        raise _invalid("initialBuySol and initialBuyTokens are mutually exclusive.", "initialBuyTokens")
    if fields.initialBuyMaxSolIn is not None and fields.initialBuyTokens is None:
        raise _invalid("initialBuyMaxSolIn is only read with initialBuyTokens.", "initialBuyMaxSolIn")
    if fields.initialBuyTokens is not None and fields.initialBuyMaxSolIn is None:
        raise _invalid(
            "initialBuyTokens needs initialBuyMaxSolIn, the lamport ceiling of the buy.", "initialBuyMaxSolIn"
        )
    link_values = {n: getattr(fields, n) for n in links.LINK_FIELDS if getattr(fields, n) is not None}
    normalized = links.normalize_all(link_values)
    prio = (
        RULES.default_priority_fee_lamports if fields.priorityFeeLamports is None else int(fields.priorityFeeLamports)
    )

    def _int(value: str | None) -> int | None:
        return None if value is None else int(value)

    return LaunchForm(
        name=name,
        symbol=symbol,
        description=clean_description(fields.description or ""),
        links=normalized,
        image=image,
        priority_fee_lamports=prio,
        initial_buy_sol=_int(fields.initialBuySol),
        initial_buy_tokens=_int(fields.initialBuyTokens),
        initial_buy_max_sol_in=_int(fields.initialBuyMaxSolIn),
        slippage_bps=int(fields.slippageBps or 0),
        max_bypass_fee_lamports=_int(fields.maxBypassFeeLamports),
        image_upload_id=fields.imageUploadId,
    )


# ------------------------------------------------------------------ first-buy plan


@dataclass(frozen=True)
class FirstBuyPlan:
    authorized_max_sol_in: int
    expected_sol_in: int
    expected_tokens_out: int
    capacity_tokens_out: int
    clamped: bool
    clamp_reasons: tuple[str, ...]
    exact_out: bool  # buy_exact_out(expected_tokens_out, authorized_max_sol_in), else buy(sol, min_tokens_out)
    min_tokens_out: int = 0

    def instruction(self, user: Pubkey, mint: Pubkey, fee_recipient: Pubkey) -> Instruction:
        if self.exact_out:
            return ix.buy_exact_out(user, mint, fee_recipient, self.expected_tokens_out, self.authorized_max_sol_in)
        return ix.buy(user, mint, fee_recipient, self.authorized_max_sol_in, self.min_tokens_out)

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": "buy",
            "authorizedMaxSolIn": str(self.authorized_max_sol_in),
            "expectedSolIn": str(self.expected_sol_in),
            "expectedTokensOut": str(self.expected_tokens_out),
            "capacityTokensOut": str(self.capacity_tokens_out),
            "clamped": self.clamped,
            "clampReasons": list(self.clamp_reasons),
        }


def _math(call):
    try:
        return call()
    except curve_math.MathOverflow as exc:
        raise ApiError("math_overflow") from exc
    except curve_math.InsufficientLiquidity as exc:
        raise ApiError("insufficient_liquidity") from exc
    except curve_math.CurveComplete as exc:
        raise ApiError("curve_complete") from exc
    except curve_math.InvalidAmount as exc:
        raise ApiError("invalid_input", str(exc)) from exc


def first_buy_cap(token_total_supply: int, cap_bps: int | None = None, wallet_cap_bps: int = BPS) -> int:
    """Token base units a first buy may reach: 2.5% of supply (and the per-wallet cap if lower)."""
    bps = RULES.first_buy_cap_bps if cap_bps is None else cap_bps
    return min(token_total_supply * bps // BPS, token_total_supply * wallet_cap_bps // BPS)


@dataclass(frozen=True)
class InitialBuy:
    """The first buy a launch asks for: exactly one of `sol` (initialBuySol, with `slippage_bps`)
    and `tokens` (initialBuyTokens, which needs `max_sol_in`: initialBuyMaxSolIn)."""

    sol: int | None = None
    tokens: int | None = None
    max_sol_in: int | None = None
    slippage_bps: int = 0


def plan_first_buy(
    curve: curve_math.CurveState,
    fee_bps: int,
    cap_tokens: int,
    ask: InitialBuy,
    *,
    token_balance: int = 0,
    net_bought: int = 0,
) -> FirstBuyPlan:
    """The first buy on `curve`.

    First-buy plan (rules 1-6 of the spec): the cap is 2.5% of supply (and the per-wallet cap
    when one is set); capacity = min over `token_balance` (cap - balance), `net_bought`
    (cap - net bought) and `migration_threshold` (real tokens left on the curve); at launch both
    balances are zero, so a supply-cap clamp lists `token_balance` and `net_bought` together.
    `initialBuySol` whose tokens exceed the capacity is clamped to an exact-out buy of the
    capacity with `max_sol_in` = initialBuySol; `initialBuyTokens` above it -> 422
    `buy_limit_exceeded`. Per-trade and daily caps do not apply.
    """
    if (ask.sol is None) == (ask.tokens is None):
        raise ApiError("invalid_input", "Send exactly one of initialBuySol and initialBuyTokens.")
    limits = {
        "token_balance": cap_tokens - token_balance,
        "net_bought": cap_tokens - net_bought,
        "migration_threshold": curve.real_token_reserves,
    }
    capacity = max(0, min(limits.values()))
    reasons = tuple(name for name in CLAMP_LIMITS if max(0, limits[name]) == capacity)
    if ask.tokens is not None:
        return _plan_tokens(curve, fee_bps, ask, capacity, reasons)
    return _plan_sol(curve, fee_bps, ask, capacity, reasons)


def _over_capacity(message: str, capacity: int, reasons: tuple[str, ...]) -> ApiError:
    return ApiError("buy_limit_exceeded", message, capacityTokensOut=str(capacity), clampReasons=list(reasons))


def _plan_tokens(
    curve: curve_math.CurveState, fee_bps: int, ask: InitialBuy, capacity: int, reasons: tuple[str, ...]
) -> FirstBuyPlan:
    """initialBuyTokens: exactly that many, within the capacity, at most initialBuyMaxSolIn."""
    tokens, max_sol_in = ask.tokens, ask.max_sol_in
    assert tokens is not None
    if max_sol_in is None:
        raise ApiError("invalid_input", "initialBuyTokens needs initialBuyMaxSolIn.", field="initialBuyMaxSolIn")
    if tokens > capacity:
        raise _over_capacity(
            f"initialBuyTokens {tokens} is over the first buy's capacity {capacity}.", capacity, reasons
        )
    cost = _math(lambda: curve_math.buy_exact_out(curve, tokens, fee_bps)).sol_in
    if cost > max_sol_in:
        raise ApiError(
            "slippage_exceeded",
            f"The first buy costs {cost} lamports, over initialBuyMaxSolIn {max_sol_in}.",
            requiredLamports=str(cost),
        )
    return FirstBuyPlan(max_sol_in, cost, tokens, capacity, False, (), exact_out=True)


def _plan_sol(
    curve: curve_math.CurveState, fee_bps: int, ask: InitialBuy, capacity: int, reasons: tuple[str, ...]
) -> FirstBuyPlan:
    """initialBuySol: what it buys, or clamped to an exact-out buy of the capacity."""
    sol = ask.sol
    assert sol is not None
    bought = _math(lambda: curve_math.buy(curve, sol, fee_bps))
    if not bought.capped and bought.tokens_out <= capacity:
        if bought.tokens_out == 0:
            raise ApiError("invalid_input", "initialBuySol is too small to buy any token.", field="initialBuySol")
        min_out = bought.tokens_out * (BPS - ask.slippage_bps) // BPS
        return FirstBuyPlan(
            sol, bought.sol_in, bought.tokens_out, capacity, False, (), exact_out=False, min_tokens_out=min_out
        )
    if capacity == 0:
        raise _over_capacity("Nothing fits under the first buy's limits.", 0, reasons)
    cost = _math(lambda: curve_math.buy_exact_out(curve, capacity, fee_bps)).sol_in
    return FirstBuyPlan(sol, cost, capacity, capacity, True, reasons, exact_out=True)


def _requested_buy(form: LaunchForm, global_config: Global) -> FirstBuyPlan:
    curve = curve_math.CurveState(
        virtual_token_reserves=global_config.initial_virtual_token_reserves,
        virtual_sol_reserves=global_config.initial_virtual_sol_reserves,
        real_token_reserves=global_config.initial_real_token_reserves,
        real_sol_reserves=0,
        token_total_supply=global_config.token_total_supply,
    )
    cap = first_buy_cap(global_config.token_total_supply, wallet_cap_bps=global_config.wallet_cap_bps)
    ask = InitialBuy(form.initial_buy_sol, form.initial_buy_tokens, form.initial_buy_max_sol_in, form.slippage_bps)
    return plan_first_buy(curve, global_config.protocol_fee_bps, cap, ask)


# ------------------------------------------------------------------ restrictions


@dataclass(frozen=True)
class Restrictions:
    bypass_fee_lamports: int  # 0 when no bypass is needed


CLAIM_SECONDS = 120  # a launch in flight holds the creator's slot this long at most


def _cooldown_error(remaining: int) -> ApiError:
    return ApiError(
        "deploy_cooldown_active",
        f"This user launched a coin less than {RULES.cooldown_seconds} s ago, or is launching one now.",
        headers={"retry-after": str(remaining)},
        cooldownRemainingSeconds=remaining,
        action="Wait cooldownRemainingSeconds, then retry.",
    )


def claim_launch(
    user_id: str, name: str, symbol: str, max_bypass_fee: int | None, now: float | None = None
) -> Restrictions:
    """Take the creator's launch slot atomically, then check the identity allowance.

    One conditional UpdateItem enforces the cooldown AND that no other launch of this
    user is in flight, so concurrent launches cannot both pass (429). The identity
    allowance (422, or the bypass when the caller accepts the quote) is checked on the
    record the claim returns; a refusal gives the slot back.
    """
    now = clock.now() if now is None else now
    record = launch_store.claim(
        user_id, now=int(now), until=int(now) + CLAIM_SECONDS, cooled_at=math.floor(now - RULES.cooldown_seconds)
    )
    if record is None:
        current = launch_store.current(user_id)
        waits = [math.ceil(float(current["last_at"]) + RULES.cooldown_seconds - now)] if "last_at" in current else []
        if "claim_until" in current:
            waits.append(math.ceil(float(current["claim_until"]) - now))
        raise _cooldown_error(max(1, *waits) if waits else 1)
    try:
        return _identity(record, name, symbol, max_bypass_fee)
    except ApiError:
        release_launch(user_id)
        raise


def _identity(record: dict[str, Any], name: str, symbol: str, max_bypass_fee: int | None) -> Restrictions:
    launches = record.get("launches") or []
    with_name = sum(1 for item in launches if item.get("n") == name)
    with_symbol = sum(1 for item in launches if item.get("s") == symbol)
    if with_name < RULES.identity_allowance and with_symbol < RULES.identity_allowance:
        return Restrictions(0)
    shared = sum(1 for item in launches if item.get("n") == name or item.get("s") == symbol)
    fee = RULES.bypass_fee_lamports * shared
    if not get_settings().platform_treasury:  # no treasury configured: no bypass to offer
        raise ApiError(
            "launch_identity_limit_reached",
            "This user already launched a coin with this name or symbol.",
            launchesWithName=with_name,
            launchesWithSymbol=with_symbol,
        )
    if max_bypass_fee is not None and max_bypass_fee >= fee:
        return Restrictions(fee)
    raise ApiError(
        "launch_identity_limit_reached",
        "This user already launched a coin with this name or symbol.",
        totalBypassFeeLamports=str(fee),
        launchesWithName=with_name,
        launchesWithSymbol=with_symbol,
        action="Resend with maxBypassFeeLamports at least totalBypassFeeLamports to pay the bypass fee.",
    )


def release_launch(user_id: str) -> None:
    """Give the slot back: nothing of this launch reached the network."""
    launch_store.release(user_id)


def record_launch(user_id: str, name: str, symbol: str, mint: str, now: float | None = None) -> None:
    """One UpdateItem: the cooldown's start and the launch's identity."""
    now = clock.now() if now is None else now
    entry = {"n": name, "s": symbol, "m": mint, "t": int(now)}
    launch_store.record(user_id, entry, int(math.ceil(now)))


# ------------------------------------------------------------------ chain


def _read_global(chain: Rpc) -> Global:
    account = chain.accounts([P.global_pda()[0]])[0]
    if account is None or account.owner != P.LAUNCHPAD_PROGRAM_ID:
        raise unavailable("The launchpad's global configuration could not be read.")
    try:
        return Global.decode(account.data)
    except (LayoutError, ValueError) as exc:
        raise unavailable("The launchpad's global configuration could not be read.") from exc


def _launch_instructions(
    creator: Pubkey, mint: Pubkey, form: LaunchForm, uri: str, bypass_fee: int
) -> list[Instruction]:
    """`create_coin`, then the bypass fee to the platform treasury when one is due."""
    instructions = [ix.create_coin(creator, mint, form.name, form.symbol, uri)]
    if bypass_fee > 0:
        treasury = Pubkey.from_string(get_settings().platform_treasury or "")
        instructions.append(ix.system_transfer(creator, treasury, bypass_fee))
    return instructions


_bundle_failed = pipeline.bundle_failed  # the launch's check, by the name its tests use


def _metadata(form: LaunchForm, image_uri: str) -> dict[str, str]:
    document = {"name": form.name, "symbol": form.symbol, "description": form.description, "image": image_uri}
    for name in links.LINK_FIELDS:
        document[name] = form.links.get(name, "")
    return {name: document[name] for name in DOCUMENT_FIELDS}


def check_fee_ceiling(principal: Principal, form: LaunchForm) -> None:
    """The launch alone: one transaction at the priority fee, no tip. With a first buy, the bundle by
    its total: the launch's and the buy's priority fee and the bundle's tip."""
    if form.first_buy:
        write_fees.check_ceiling(
            principal,
            form.priority_fee_lamports,
            0,
            transactions=2,
            extra_tip=RULES.bundle_tip_lamports,
            field="priorityFeeLamports",
        )
    else:
        write_fees.check_ceiling(principal, form.priority_fee_lamports, 0, field="priorityFeeLamports")


def _ambiguous(exc: ApiError) -> bool:
    """The send timed out: the launch (or its bundle) may still land."""
    return exc.code == "rpc_unavailable" and ("signature" in exc.extra or "signatures" in exc.extra)


def execute(
    principal: Principal, form: LaunchForm, chain: Rpc | None = None, engine: BlockEngine | None = None
) -> dict[str, Any]:
    """Launch a coin.

    Order (after admission: bucket `coin` keyed on the token, scope `coin:create`):
    1. form (400): `invalid_multipart` (partner.features.multipart), then `image_required`,
       `invalid_image_type` (magic bytes: PNG, JPEG, WebP, GIF), `invalid_name` / `name_too_long`
       (NFC + trim, 1..32 bytes), `invalid_symbol` / `symbol_too_long` (trim + upper, 1..10 bytes,
       `A-Z0-9`), `invalid_input` (unknown fields, amounts that are not integer strings,
       priorityFeeLamports < 1000, slippageBps outside 0..10000, both first-buy modes,
       `initialBuyMaxSolIn` without `initialBuyTokens` and `initialBuyTokens` without it), the
       link fields through partner.features.links. Added: `imageUploadId` (a staged image, partner.features.uploads)
       in place of `image`: both -> `invalid_input`; the upload's checks (400 `invalid_input` naming
       the failed check, `invalid_image_type` by the staged bytes) run before the Idempotency-Key claim.
    2. delegation (403 `delegation_missing`).
    3. per-creator restrictions, per user (not per client), before anything is uploaded:
       `deploy_cooldown_active` (429, `retry-after`, `cooldownRemainingSeconds`), then
       `launch_identity_limit_reached` (422, `totalBypassFeeLamports`) unless
       `maxBypassFeeLamports` >= the quote, in which case the quoted fee goes to the platform
       treasury in the launch transaction. A staged image is consumed with the slot (one conditional
       UpdateItem) and given back with it when nothing reached the network.
    4. the launchpad's Global config (502 `rpc_unavailable`) and the first-buy plan on the fresh
       curve (422 `buy_limit_exceeded`, `slippage_exceeded`), still before any upload.
    5. pin the image, then the metadata JSON (502 `pinning_unavailable`; nothing is sent).
    6. build: `create_coin` signed by the creator and a fresh mint keypair (+ the bypass fee);
       with a first buy a second transaction (the buy and the block-engine tip). Then the client's
       fee ceiling (400 `invalid_input` naming priorityFeeLamports, partner.features.fees): the launch
       transaction's priority fee, or with a first buy the bundle's total (the priority fee of both
       transactions and the bundle's tip); an added check, last, so it never pre-empts a spec error.
       Steps 6 and 7 are the send pipeline's (partner.features.pipeline).
    7. submit: without a first buy `sendTransaction` with preflight; with one, both as ONE
       bundle to the block engine (`record_bundle` so the status endpoint reports it; a bundle
       the engine already reports `Failed` answers 422 `tx_failed`, nothing landed).
    8. record the launch (cooldown and identity) in one UpdateItem once it was submitted, or when the
       send was ambiguous (a timeout after sending: 502 with the signature(s) and the mint; it may
       still land, so the creator's cooldown and identity allowance count it).
    """
    require_delegation(principal)
    user = principal.user
    restrictions = claim_launch(user.user_id, form.name, form.symbol, form.max_bypass_fee_lamports)
    try:
        with pipeline.Held() as held:
            # a staged image: consumed with the launch slot (partner.features.uploads)
            used = None if form.staged is None else uploads.consume_held(principal, form.staged, held)
            if used is not None:
                form = dataclasses.replace(form, image=used.image)
            out = _launch(principal, form, restrictions, chain, engine, held)
    except ApiError as exc:
        if _ambiguous(exc):  # it may land: the cooldown and the identity count as for a submitted launch
            record_launch(user.user_id, form.name, form.symbol, str(exc.extra.get("mint", "")))
        else:
            release_launch(user.user_id)
        raise
    except Exception:
        release_launch(user.user_id)
        raise
    record_launch(user.user_id, form.name, form.symbol, out["mint"])
    uploads.finished(used)
    return out


def _launch(
    principal: Principal,
    form: LaunchForm,
    restrictions: Restrictions,
    chain: Rpc | None,
    engine: BlockEngine | None,
    held: pipeline.Held,
) -> dict[str, Any]:
    chain = chain or ports.current().rpc()
    signer = SealedWalletSigner(principal.user)
    creator = signer.pubkey
    global_config = _read_global(chain)
    plan = _requested_buy(form, global_config) if form.first_buy else None
    image, metadata = _pin(form)

    mint_keypair = Keypair()
    mint = mint_keypair.pubkey()
    blockhash, last_valid = chain.latest_blockhash()
    create = _launch_instructions(creator, mint, form, metadata.uri, restrictions.bypass_fee_lamports)
    buy = None if plan is None else plan.instruction(creator, mint, global_config.fee_recipient)
    write = pipeline.Write(
        "coin_create",
        str(mint),
        _transactions(form, signer, KeypairSigner(mint_keypair), create, buy),
        blockhash,
        last_valid,
        added=[pipeline.Added(lambda: check_fee_ceiling(principal, form))],
    )
    ambiguous = {"mint": str(mint)}  # to reconcile, and the launch record's
    if plan is None:
        delivery: pipeline.Delivery = pipeline.Submit(chain, ambiguous)
    else:
        delivery = pipeline.Bundle(engine or BlockEngine(get_settings().block_engine_url), chain, ambiguous)
    sent = pipeline.send(principal, write, delivery, held=held)
    out: dict[str, Any] = {
        "signature": sent.signature,
        "mint": str(mint),
        "status": "submitted",
        "metadataUri": metadata.uri,
        "imageUri": image.uri,
        "initialBuyPlan": None,
    }
    if plan is not None:
        out.update(initialBuyPlan=plan.to_json(), signatures=list(sent.signatures), bundleId=sent.bundle_id)
    return out


def _pin(form: LaunchForm) -> tuple[pinning.Pinned, pinning.Pinned]:
    """The image, then the metadata JSON that names it: (image, metadata)."""
    if form.image is None:  # parse_form or the staged upload always supplies it
        raise ApiError("image_required", field="image")
    image = pinning.pin_image(form.image)
    return image, pinning.pin_json(_metadata(form, image.uri))


def _transactions(
    form: LaunchForm,
    signer: SealedWalletSigner,
    mint_signer: KeypairSigner,
    create: list[Instruction],
    buy: Instruction | None,
) -> list[pipeline.Tx]:
    """The launch's own transaction (no tip), then the first buy's with the block engine's tip."""
    fee = form.priority_fee_lamports
    txs = [pipeline.Tx("coin_create", create, [signer, mint_signer], WriteFees(fee, 0), tip=False)]
    if buy is not None:
        # into the creator's token account of the new coin, which the buy creates
        new = units.Hint(new=frozenset({P.associated_token_address(signer.pubkey, mint_signer.pubkey)}))
        txs.append(pipeline.Tx("first_buy", [buy], [signer], WriteFees(fee, RULES.bundle_tip_lamports), hint=new))
    return txs


def read_request(principal: Principal, event: Any) -> tuple[LaunchForm, Callable[[], str]]:
    """The request's form (`event`: Powertools' event) parsed and checked and its staged image read, so
    that every 400 answers before the Idempotency-Key claim; with the form's digest (the claim's)."""
    form = multipart.parse(multipart.body_bytes(event.raw_event), bodies.content_type(event.headers, "invalid_input"))
    return uploads.stage(principal, parse_form(form), event.raw_event), form.digest
