"""POST /partner/v1/coins/create: launch a coin, optionally with the creator's first buy.

`execute` gives the order of the checks; `plan_first_buy` the first-buy plan (the spec's rules 1-6).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from solders.instruction import Instruction
from solders.keypair import Keypair
from solders.pubkey import Pubkey

from partner.chain import instructions as ix
from partner.chain import ports, units
from partner.chain import programs as P
from partner.chain.layouts import Global, LayoutError
from partner.chain.rpc import BlockEngine, Rpc, unavailable
from partner.chain.tx import WriteFees
from partner.core import bodies
from partner.core.errors import ApiError
from partner.core.principal import Principal, require_delegation
from partner.core.settings import get_settings
from partner.features import fees as write_fees
from partner.features import links, multipart, pinning, uploads
from partner.features.launch.first_buy import requested_buy
from partner.features.launch.form import LaunchForm, parse_form
from partner.features.launch.limits import Restrictions, claim_launch, record_launch, release_launch
from partner.features.launch.rules import RULES
from partner.send import pipeline
from partner.store.wallets import KeypairSigner, SealedWalletSigner

DOCUMENT_FIELDS = ("name", "symbol", "description", "image", "website", "twitter", "telegram")


def _read_global(chain: Rpc) -> Global:
    account = chain.accounts([P.global_pda()[0]])[0]
    if account is None or account.owner != P.LAUNCHPAD_PROGRAM_ID:
        raise unavailable("The launchpad's global configuration could not be read.")
    try:
        return Global.decode(account.data)
    except (LayoutError, ValueError) as exc:
        raise unavailable("The launchpad's global configuration could not be read.") from exc


def _launch_instructions(
    creator: Pubkey, mint: Pubkey, form: LaunchForm, pinned: tuple[str, str], bypass_fee: int
) -> list[Instruction]:
    """`create_coin` (`pinned`: the image's and the metadata JSON's URIs; the program commits to the
    JSON's uri-borne fields by digest), then the bypass fee to the platform treasury when one is due."""
    image_uri, uri = pinned
    instructions = [ix.create_coin(creator, mint, form.name, form.symbol, uri, _metadata(form, image_uri))]
    if bypass_fee > 0:
        treasury = Pubkey.from_string(get_settings().platform_treasury or "")
        instructions.append(ix.system_transfer(creator, treasury, bypass_fee))
    return instructions


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
       Steps 6 and 7 are the send pipeline's (partner.send.pipeline).
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
    plan = requested_buy(form, global_config) if form.first_buy else None
    image, metadata = _pin(form)

    mint_keypair = Keypair()
    mint = mint_keypair.pubkey()
    blockhash, last_valid = chain.latest_blockhash()
    create = _launch_instructions(creator, mint, form, (image.uri, metadata.uri), restrictions.bypass_fee_lamports)
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
