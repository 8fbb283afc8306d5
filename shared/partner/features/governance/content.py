"""POST governance/proposals/update-content: a metadata change proposal from a multipart form.

`execute` gives the order of the checks.
"""

from __future__ import annotations

import dataclasses
import json
import struct
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from solders.instruction import Instruction
from solders.pubkey import Pubkey

from partner.chain import governance_math as GM
from partner.chain import instructions as ix
from partner.chain import ports, unique, units
from partner.chain import programs as P
from partner.chain.layouts import (
    Governance,
    Proposal,
    TokenMetadata,
    decode_owned,
    token_account_amount,
    token_metadata_of,
)
from partner.chain.rpc import Rpc
from partner.chain.state import CLOCK_SYSVAR
from partner.chain.tx import WriteFees
from partner.core import bodies
from partner.core import cid as cids
from partner.core.errors import ApiError
from partner.core.principal import Principal, require_delegation
from partner.features import fees as write_fees
from partner.features import links, multipart, pinning, uploads
from partner.features.coin_fields import Image, clean_description, normalize_name, normalize_symbol, read_image
from partner.features.models import LINK, NAME, SYMBOL, Address, Amount, PositiveAmount, WriteFields, validate
from partner.send import pipeline
from partner.store import crypto
from partner.store.wallets import SealedWalletSigner

__all__ = [
    "UpdateContentForm",
    "parse_form",
    "normalize_name",
    "normalize_symbol",
    "execute",
    "read_request",
    "read_document",
]

DOCUMENT_FIELDS = ("name", "symbol", "description", "image", "website", "twitter", "telegram")
ATA_RENT = P.rent_exempt_minimum(170)  # a Token-2022 ATA (ImmutableOwner)
PROPOSAL_RENT = P.rent_exempt_minimum(Proposal.SIZE)
CAT_TIMEOUT = 10.0
MAX_DOCUMENT_BYTES = 256 * 1024


class UpdateContentFields(WriteFields):
    """Omitted fields are left unchanged; at least one of name, symbol, image, description, website, twitter,
    telegram. An empty description/website/twitter/telegram clears it."""

    mint: Address
    voteDurationSeconds: PositiveAmount | None = None
    baseContentRevision: Amount | None = None
    name: NAME | None = None
    symbol: SYMBOL | None = None
    description: str | None = None
    website: LINK | None = None
    twitter: LINK | None = None
    telegram: LINK | None = None
    imageUploadId: uploads.UploadId | None = None  # added: a staged image (partner.features.uploads)


@dataclass(frozen=True)
class UpdateContentForm:
    mint: str
    priority_fee_lamports: int
    tip_lamports: int
    vote_duration_seconds: int
    base_content_revision: int | None
    patch: dict[str, str]  # normalized text fields that were sent
    image: Image | None
    image_upload_id: str | None = None
    staged: uploads.Staged | None = None  # the checked upload, set by `handle`


def parse_form(form: multipart.Form) -> UpdateContentForm:
    unknown_files = set(form.files) - {"image"}
    if unknown_files:
        name = sorted(unknown_files)[0]
        raise ApiError("invalid_input", f"{name[:40]}: unknown file field", field=name[:40])
    if "image" in form.fields:
        raise ApiError("invalid_input", "image must be sent as a file.", field="image")
    fields = validate(UpdateContentFields, form.fields)
    patch: dict[str, str] = {}
    if fields.name is not None:
        patch["name"] = normalize_name(fields.name)
    if fields.symbol is not None:
        patch["symbol"] = normalize_symbol(fields.symbol)
    if fields.description is not None:
        patch["description"] = clean_description(fields.description)
    for name in links.LINK_FIELDS:
        value = getattr(fields, name)
        if value is not None:
            patch[name] = links.normalize(name, value)
    image = None
    upload = form.file("image")
    if upload is not None and fields.imageUploadId is not None:
        raise ApiError(
            "invalid_input",
            "Send the image either as the file field `image` or as `imageUploadId`, not both.",
            field=uploads.FIELD,
        )
    if upload is not None:
        image = read_image(upload.data)
    if not patch and image is None and fields.imageUploadId is None:
        raise ApiError(
            "invalid_input", "Send at least one of name, symbol, image, description, website, twitter, telegram."
        )
    duration = (
        int(fields.voteDurationSeconds) if fields.voteDurationSeconds is not None else GM.DEFAULT_VOTE_DURATION_SECONDS
    )
    base = int(fields.baseContentRevision) if fields.baseContentRevision is not None else None
    return UpdateContentForm(
        fields.mint,
        int(fields.priorityFeeLamports),
        int(fields.tipLamports),
        duration,
        base,
        patch,
        image,
        fields.imageUploadId,
    )


# ------------------------------------------------------------------ chain state


@dataclass(frozen=True)
class ChainState:
    governance_key: Pubkey
    governance: Governance
    metadata: TokenMetadata
    token_account_exists: bool
    token_balance: int
    wallet_lamports: int
    unix_timestamp: int
    blockhash: Any
    last_valid_block_height: int


def read_state(chain: Rpc, mint: Pubkey, wallet: Pubkey) -> ChainState:
    gov_key = P.governance_pda(mint)[0]
    keys = [gov_key, mint, P.associated_token_address(wallet, mint), wallet, CLOCK_SYSVAR]
    raw_accounts, raw_hash = chain.batch([chain.multiple_accounts_request(keys, 1), Rpc.latest_blockhash_request(2)])
    accounts = Rpc.parse_multiple_accounts(raw_accounts)
    blockhash, last_valid = Rpc.parse_latest_blockhash(raw_hash)
    gov = decode_owned(Governance, accounts[0], P.LAUNCHPAD_PROGRAM_ID)
    meta = token_metadata_of(accounts[1], mint)
    if gov is None or gov.mint != mint or meta is None:
        raise ApiError("governance_not_found")
    ata = accounts[2]
    balance = token_account_amount(ata.data) if ata is not None and ata.owner == P.TOKEN_2022_PROGRAM_ID else 0
    clock = accounts[4]
    if clock is None or len(clock.data) < 40:
        raise ApiError("rpc_unavailable", "The chain clock could not be read.")
    unix_ts = struct.unpack_from("<QqQQq", clock.data)[4]
    return ChainState(
        gov_key,
        gov,
        meta,
        ata is not None,
        balance,
        accounts[3].lamports if accounts[3] else 0,
        unix_ts,
        blockhash,
        last_valid,
    )


def read_document(uri: str) -> dict[str, Any]:
    """The metadata JSON at `uri` (ipfs:// through the pinning node's `cat`); {} when there is none
    or it is not a JSON object. A node that cannot answer -> 502 pinning_unavailable."""
    if not uri or not uri.startswith("ipfs://"):
        return {}
    cid = uri[len("ipfs://") :].split("/", 1)[0]
    if not cids.is_cid(cid):
        return {}
    try:
        response = pinning.post("/api/v0/cat", CAT_TIMEOUT, params={"arg": cid})
    except ApiError as exc:
        raise pinning.unavailable("The current metadata could not be read.") from exc
    if response.status >= 500 or response.status == 429:
        raise pinning.unavailable("The current metadata could not be read.")
    if not 200 <= response.status < 300 or len(response.data) > MAX_DOCUMENT_BYTES:
        return {}
    if cid.startswith("Qm") and cids.cid_v0(response.data) != cid:
        raise pinning.unavailable("The pinning node returned content that does not match its CID.")
    try:
        document = json.loads(response.data)
    except ValueError:
        return {}
    return document if isinstance(document, dict) else {}


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def verified(gov: Governance, field: str, value: Any) -> bool:
    """`value` (as the metadata JSON carries it) hashes to the digest the program committed for `field`."""
    return crypto.equal(GM.field_digest(value), gov.digest_of(field))


def current_content(meta: TokenMetadata, document: dict[str, Any], gov: Governance) -> dict[str, str]:
    """The coin's content: name and symbol from its TokenMetadata, the uri-borne fields from the JSON
    at its uri, each only when it hashes to the digest the program committed (Governance.content_digests;
    docs/programs.md "The uri-borne locks"): a field that does not is unverified and reads as absent."""
    current = {"name": meta.name, "symbol": meta.symbol}
    for name in GM.URI_FIELDS:
        value = document.get(name)
        current[name] = _text(value) if verified(gov, name, value) else ""
    return current


def on_chain_changes(changes: dict[str, str], gov: Governance) -> dict[str, str]:
    """`changes` less the uri-borne ones whose new value hashes to the committed digest (the program
    sees no change there: an unverified field sent with its committed value)."""
    return {f: v for f, v in changes.items() if f not in GM.URI_FIELDS or not verified(gov, f, v)}


def changed_fields(form: UpdateContentForm, current: dict[str, str]) -> dict[str, str]:
    """Field -> new value, for each sent field that differs from the current content."""
    changes: dict[str, str] = {}
    for name, value in form.patch.items():
        now = current[name]
        if name in links.LINK_FIELDS:
            now = links.canonical_or_raw(name, now)
        if value != now:
            changes[name] = value
    if form.image is not None and form.image.uri != current["image"]:
        changes["image"] = form.image.uri
    return changes


def _precheck(form: UpdateContentForm, state: ChainState, changes: dict[str, str]) -> None:
    gov = state.governance
    mask = GM.field_mask(**{f: True for f in changes})
    if mask & gov.locked_mask:
        locked = [f for f in GM.mask_fields(mask & gov.locked_mask)]
        raise ApiError("content_field_locked", f"Locked field(s): {', '.join(locked)}.", fields=locked)
    if not changes:
        raise ApiError("no_metadata_changes")
    problem = GM.vote_duration_error(
        state.unix_timestamp,
        form.vote_duration_seconds,
        gov.mutable_until,
        gov.min_vote_duration_seconds,
        gov.max_vote_duration_seconds,
    )
    if problem:
        raise ApiError(problem)
    if not state.token_account_exists or state.token_balance == 0:
        raise ApiError("missing_proposal_token_account")
    bond = gov.proposal_bond(state.unix_timestamp)
    if state.token_balance < bond:
        raise ApiError("insufficient_proposal_bond", requiredTokens=str(bond), availableTokens=str(state.token_balance))


def _check_governance(form: UpdateContentForm, state: ChainState) -> None:
    gov = state.governance
    if gov.finalized:
        raise ApiError("governance_finalized")
    if state.unix_timestamp >= gov.mutable_until:
        raise ApiError("metadata_not_mutable")
    if gov.active_proposal is not None:
        raise ApiError("active_proposal_exists", proposal=str(gov.active_proposal))
    if form.base_content_revision is not None and form.base_content_revision != gov.content_revision:
        raise ApiError("stale_content_revision", contentRevision=str(gov.content_revision))


def execute(principal: Principal, form: UpdateContentForm, chain: Rpc | None = None) -> dict[str, Any]:
    """Propose a metadata change.

    Order (after admission):
    1. form (400): `invalid_multipart` (partner.features.multipart, at most one file), then the fields:
       `mint`, `priorityFeeLamports`, `tipLamports` required; `voteDurationSeconds` (default 600);
       `baseContentRevision` (optional, additive: the revision the caller authored against);
       patch fields `name`, `symbol`, `description`, `website`, `twitter`, `telegram` (text) and
       `image` (file). Unknown fields, amounts that are not integer strings, no patch field at
       all -> `invalid_input`; name NFC + trim, then 1..32 bytes (`invalid_name`,
       `name_too_long`); symbol trim + upper, then `A-Z0-9` (`invalid_symbol`) and at most 10
       bytes (`symbol_too_long`); links through partner.features.links (six codes); the image by its
       magic bytes (PNG, JPEG, WebP, GIF) else `invalid_image_type`. Added: `imageUploadId` (a staged
       image, partner.features.uploads) in place of the `image` part; both -> `invalid_input`; the upload's
       checks run before the Idempotency-Key claim, and it is consumed after delegation.
    2. delegation (403 `delegation_missing`).
    3. chain state, one batch (404/422): governance (`governance_not_found`), `governance_finalized`,
       `metadata_not_mutable`, `active_proposal_exists`, `stale_content_revision` (a sent
       `baseContentRevision` behind the chain's), then the current content: name and symbol from
       the mint's TokenMetadata, the other five from the JSON document at its `uri` (read through the pinning
       node's `cat`); a sent field counts as changed when its normalized value differs;
       `content_field_locked`, `no_metadata_changes`; the vote duration
       (`invalid_vote_duration`, `proposal_window_closing`, `vote_duration_exceeds_window`);
       bond (`missing_proposal_token_account`, `insufficient_proposal_bond`); `insufficient_sol`.
    4. pin (502 `pinning_unavailable`, nothing sent): the image if it changed, then the metadata
       JSON (name, symbol, description, image, website, twitter, telegram: current values merged
       with the changes) when a field that lives in the JSON changed (the program takes a new
       uri only then).
    5. build `create_proposal` (update_content, the changed-field mask, name / symbol / uri as
       changed); the client's fee ceiling on priorityFeeLamports + tipLamports (400 `invalid_input`,
       partner.features.fees: an added check, last, so it never pre-empts a spec error); sign, land
       `processed`. Steps 3's SOL check to 5 are the send pipeline's (partner.send.pipeline).

    Response: the governance write response plus `metadataUri` and `imageUri` (the newly pinned
    URIs; the current ones when that part did not change, null when there is none).
    """
    require_delegation(principal)
    if form.staged is None:
        return _execute(principal, form, chain)
    # a staged image: consumed here, given back when nothing reached the network (partner.features.uploads)
    with pipeline.Held() as held:
        used = uploads.consume_held(principal, form.staged, held)
        out = _execute(principal, dataclasses.replace(form, image=used.image), chain, held)
    uploads.finished(used)
    return out


@dataclass(frozen=True)
class _Proposal:
    """The update_content proposal a request makes, built for a metadata URI (a placeholder of the
    same size for the checks, then the pinned one)."""

    form: UpdateContentForm
    signer: SealedWalletSigner
    mint: Pubkey
    governance: Governance
    changes: dict[str, str]
    memo: Instruction

    def tx(self, uri: str | None, document: dict[str, str]) -> pipeline.Tx:
        """`document`: the content after the change (the JSON pinned at `uri`); the digests of its changed
        uri-borne fields, the on-chain ones of the others (so a coin whose JSON does not match them can
        still be updated)."""
        changes, gov = self.changes, self.governance
        digests = [GM.field_digest(document[f]) if f in changes else gov.digest_of(f) for f in GM.URI_FIELDS]
        instruction = ix.propose_update_content(
            self.signer.pubkey,
            self.mint,
            self.governance.next_proposal_index,
            ix.ContentChange(tuple(changes), changes.get("name"), changes.get("symbol"), uri, digests),
            base_content_revision=self.governance.content_revision,
            vote_duration_seconds=self.form.vote_duration_seconds,
        )
        fees = WriteFees(self.form.priority_fee_lamports, self.form.tip_lamports)
        key, bump = P.proposal_pda(P.governance_pda(self.mint)[0], self.governance.next_proposal_index)
        hint = units.Hint(bumps={key: bump})
        return pipeline.Tx("propose_update_content", [instruction], [self.signer], fees, memo=self.memo, hint=hint)


def _execute(
    principal: Principal, form: UpdateContentForm, chain: Rpc | None, held: pipeline.Held | None = None
) -> dict[str, Any]:
    signer = SealedWalletSigner(principal.user)
    chain = pipeline.reading_for(principal, chain or ports.current().rpc())
    mint = Pubkey.from_string(form.mint)
    state = read_state(chain, mint, signer.pubkey)
    _check_governance(form, state)
    document = read_document(state.metadata.uri)
    current = current_content(state.metadata, document, state.governance)
    changes = on_chain_changes(changed_fields(form, current), state.governance)
    _precheck(form, state, changes)

    proposal = _Proposal(form, signer, mint, state.governance, changes, unique.request_memo())
    index = state.governance.next_proposal_index
    uri_change = any(f in changes for f in GM.URI_FIELDS)
    placeholder = "ipfs://" + cids.cid_v0(b"") if uri_change else None
    uris = {"image": current["image"] or None, "metadata": state.metadata.uri or None}

    def pin() -> list[pipeline.Tx] | None:
        """After the size and SOL checks, so nothing is pinned for a proposal they refuse."""
        if "image" in changes and form.image is not None:
            uris["image"] = pinning.pin_image(form.image).uri
        if not uri_change:
            return None
        merged = {**current, **changes}
        merged["image"] = uris["image"] or ""
        uris["metadata"] = pinning.pin_json({name: merged[name] for name in DOCUMENT_FIELDS}).uri
        return [proposal.tx(uris["metadata"], merged)]

    write = pipeline.Write(
        "propose_update_content",
        form.mint,
        [proposal.tx(placeholder, {**current, **changes})],
        state.blockhash,
        state.last_valid_block_height,
        # a fresh proposal's bond vault never exists: the proposal's rent and the vault's
        funds=pipeline.Funds(state.wallet_lamports, PROPOSAL_RENT + ATA_RENT),
        finish=pin,
        added=[
            pipeline.Added(lambda: write_fees.check_ceiling(principal, form.priority_fee_lamports, form.tip_lamports))
        ],
    )
    sent = pipeline.send(principal, write, pipeline.Processed(chain, pipeline.tx_engine()), held=held)
    return {
        "signature": sent.signature,
        "status": "processed",
        "mint": form.mint,
        "governance": str(state.governance_key),
        "proposal": str(P.proposal_pda(state.governance_key, index)[0]),
        "metadataUri": uris["metadata"],
        "imageUri": uris["image"],
    }


def read_request(principal: Principal, event: Any) -> tuple[UpdateContentForm, Callable[[], str]]:
    """The request's form (`event`: Powertools' event) parsed and checked and its staged image read, so
    that every 400 answers before the Idempotency-Key claim; with the form's digest (the claim's)."""
    form = multipart.parse(
        multipart.body_bytes(event.raw_event), bodies.content_type(event.headers, "invalid_input"), max_files=1
    )
    return uploads.stage(principal, parse_form(form), event.raw_event), form.digest
