"""`PartnerClient`: every `/partner/v1` endpoint for one connected user, under the retry rules."""

from __future__ import annotations

import mimetypes
import os
import time
from collections.abc import Callable
from typing import Any, BinaryIO, TypedDict, Unpack
from urllib.parse import quote

import httpx

from .errors import ValidationError
from .lifecycle import FeeEstimate, WebhookEvent
from .lifecycle import verify_webhook as _verify_webhook
from .models import (
    PENDING_STATUSES,
    CoinCreateResult,
    GovernanceView,
    GovernanceWriteResult,
    Profile,
    Quote,
    TradeResult,
    TransactionStatus,
    Vote,
    from_json,
)
from .retry import IdempotencyKey, RetryPolicy, Session, send
from .tokens import StaticToken, TokenSource

DEFAULT_PRIORITY_FEE = 10_000  # lamports (minimum 1000)
DEFAULT_TIP = 1_000_000  # lamports (minimum 1000000)

# images over this go to S3 through POST /partner/v1/uploads (a direct multipart body that big
# would not reach the function on AWS: Lambda's 6 MB request limit, after base64)
STAGED_UPLOAD_BYTES = 4 * 1024 * 1024

Amount = int | str


class WriteOptions(TypedDict, total=False):
    """What every write takes: its fees (default: the client's), and an Idempotency-Key."""

    priority_fee_lamports: Amount | None
    tip_lamports: Amount | None
    idempotency_key: str | None


class TradeOptions(WriteOptions, total=False):
    slippage_bps: int | None  # slippage mode; else explicit mode with the bound given
    partner_fee_bps: int | None


# an image: a file path, raw bytes, an open binary file, or (filename, bytes, content_type)
Image = str | os.PathLike | bytes | BinaryIO | tuple[str, Any, str | None]
_MAGIC = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
)


def _amount(value: Amount) -> str:
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise TypeError(f"amounts are integers in base units, not {type(value).__name__}")
    return str(value)


def _compact(fields: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in fields.items() if v is not None}


def _image_part(image: Image) -> tuple[str, bytes, str | None]:
    """(filename, bytes, declared type or None) of any accepted image form."""
    if isinstance(image, str | os.PathLike):
        with open(image, "rb") as f:
            return (os.path.basename(os.fspath(image)), f.read(), None)
    if isinstance(image, tuple):
        filename, data, ctype = image
        return (filename, data if isinstance(data, bytes) else data.read(), ctype)
    if isinstance(image, bytes | bytearray):
        return ("image", bytes(image), None)
    return (os.path.basename(str(getattr(image, "name", "image"))), image.read(), None)


def _content_type(filename: str, data: bytes, declared: str | None) -> str:
    """The image's type by its bytes (as the service decides), else the declared or guessed one."""
    for magic, ctype in _MAGIC:
        if data.startswith(magic):
            return ctype
    if len(data) >= 12 and data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return declared or mimetypes.guess_type(filename)[0] or "application/octet-stream"


class PartnerClient(Session):
    """Calls on behalf of one user. `auth` is a `TokenSource`: `token_store.for_user(user)` (refreshes
    once on 401 `invalid_token`, then retries once) or an access-token string (never refreshed).

    Every write sends an `Idempotency-Key` (a uuid4 per call, the same on the SDK's own retries; pass
    `idempotency_key=` to choose it, e.g. your order id); `idempotency_keys=False` sends none."""

    def __init__(
        self,
        base_url: str,
        auth: TokenSource | str,
        *,
        http: httpx.Client | None = None,
        retry: RetryPolicy | None = None,
        timeout: float = 30.0,
        priority_fee_lamports: Amount = DEFAULT_PRIORITY_FEE,
        tip_lamports: Amount = DEFAULT_TIP,
        idempotency_keys: bool = True,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.auth: TokenSource = StaticToken(auth) if isinstance(auth, str) else auth
        super().__init__(http, retry, timeout)
        self.fees = {"priorityFeeLamports": _amount(priority_fee_lamports), "tipLamports": _amount(tip_lamports)}
        self.idempotency_keys = idempotency_keys

    # ------------------------------------------------------------------ plumbing
    def _call(
        self,
        method: str,
        path: str,
        *,
        write: bool,
        json: dict[str, Any] | None = None,
        form: dict[str, Any] | None = None,
        files: list[tuple[str, Any]] | None = None,
        params: dict[str, Any] | None = None,
        key: IdempotencyKey | None = None,
    ) -> Any:
        current: dict[str, str] = {}

        def build() -> dict[str, Any]:
            current["token"] = self.auth.token()
            kwargs: dict[str, Any] = {"headers": {"Authorization": f"Bearer {current['token']}"}}
            if json is not None:
                kwargs["json"] = json
            if form is not None or files:
                # every field as a multipart part (httpx sends plain fields form-encoded otherwise)
                parts = [(k, (None, str(v))) for k, v in (form or {}).items()]
                kwargs["files"] = parts + list(files or [])
            if params:
                kwargs["params"] = params
            return kwargs

        return send(
            self.http,
            self.retry,
            method,
            f"{self.base_url}{path}",
            write=write,
            build=build,
            on_invalid_token=lambda: self.auth.refresh(current["token"]),
            key=key,
        )

    def _key(self, value: str | None) -> IdempotencyKey | None:
        """The Idempotency-Key of one write call: `value`, else a fresh uuid4 (unless keys are off)."""
        if value is None and not self.idempotency_keys:
            return None
        return IdempotencyKey(value)

    def _write(self, path: str, body: dict[str, Any], fees: dict[str, Any]) -> Any:
        key = self._key(fees.pop("idempotency_key", None))
        return self._call("POST", path, write=True, json=_compact({**body, **self._fees(fees)}), key=key)

    def _fees(self, fees: dict[str, Any]) -> dict[str, str]:
        out = dict(self.fees)
        if fees.get("priority_fee_lamports") is not None:
            out["priorityFeeLamports"] = _amount(fees["priority_fee_lamports"])
        if fees.get("tip_lamports") is not None:
            out["tipLamports"] = _amount(fees["tip_lamports"])
        return out

    # ------------------------------------------------------------------ profile
    def me(self) -> Profile:
        return Profile.from_json(self._call("GET", "/partner/v1/me", write=False))

    # ------------------------------------------------------------------ trades
    def _trade(self, side: str, mint: str, amounts: dict[str, Amount | None], opts: TradeOptions) -> TradeResult:
        body = {
            "mint": mint,
            **{name: None if value is None else _amount(value) for name, value in amounts.items()},
            "slippageBps": opts.pop("slippage_bps", None),
            "partnerFeeBps": opts.pop("partner_fee_bps", None),
        }
        return from_json(TradeResult, self._write(f"/partner/v1/trades/{side}", body, dict(opts)))

    def buy(
        self, mint: str, max_sol_in: Amount, *, min_tokens_out: Amount | None = None, **opts: Unpack[TradeOptions]
    ) -> TradeResult:
        """Spend up to `max_sol_in` lamports. Slippage mode when `slippage_bps` is given, else
        explicit mode with `min_tokens_out`."""
        return self._trade("buy", mint, {"maxSolIn": max_sol_in, "minTokensOut": min_tokens_out}, opts)

    def buy_exact_out(
        self, mint: str, tokens_out: Amount, *, max_sol_in: Amount | None = None, **opts: Unpack[TradeOptions]
    ) -> TradeResult:
        """Buy exactly `tokens_out`, paying at most `max_sol_in` lamports (explicit mode) or the
        quote within `slippage_bps`."""
        return self._trade("buy-exact-out", mint, {"tokensOut": tokens_out, "maxSolIn": max_sol_in}, opts)

    def sell(
        self, mint: str, tokens_in: Amount, *, min_sol_out: Amount | None = None, **opts: Unpack[TradeOptions]
    ) -> TradeResult:
        """Sell `tokens_in`, for at least `min_sol_out` lamports (explicit mode) or the quote within
        `slippage_bps`."""
        return self._trade("sell", mint, {"tokensIn": tokens_in, "minSolOut": min_sol_out}, opts)

    def quote(
        self,
        mint: str,
        side: str,
        amount: Amount,
        *,
        slippage_bps: int | None = None,
        partner_fee_bps: int | None = None,
    ) -> Quote:
        """What `side` (`buy`: amount = maxSolIn; `buy-exact-out`: tokensOut; `sell`: tokensIn) would do
        now; nothing is signed or sent. Trade at once in explicit mode with `quote.bound`."""
        fields = {"buy": "maxSolIn", "buy-exact-out": "tokensOut", "sell": "tokensIn"}
        if side not in fields:
            raise ValueError("side is 'buy', 'buy-exact-out' or 'sell'")
        body = _compact(
            {
                "side": side,
                "mint": mint,
                fields[side]: _amount(amount),
                "slippageBps": slippage_bps,
                "partnerFeeBps": partner_fee_bps,
            }
        )
        return from_json(Quote, self._call("POST", "/partner/v1/trades/quote", write=False, json=body))

    # ------------------------------------------------------------------ governance reads
    def governance(self, mint: str) -> GovernanceView:
        return GovernanceView.from_json(
            self._call("GET", f"/partner/v1/governance/{quote(mint, safe='')}", write=False)
        )

    def proposal_votes(self, proposal: str, limit: int | None = None) -> list[Vote]:
        body = self._call(
            "GET",
            f"/partner/v1/governance/proposals/{quote(proposal, safe='')}/votes",
            write=False,
            params=_compact({"limit": limit}),
        )
        return [from_json(Vote, v) for v in body.get("votes") or []]

    # ------------------------------------------------------------------ governance writes
    def _gov(self, path: str, body: dict[str, Any], fees: dict[str, Any]) -> GovernanceWriteResult:
        return from_json(GovernanceWriteResult, self._write(f"/partner/v1/governance/{path}", body, fees))

    def vote(self, proposal: str, side: str, amount: Amount, **fees: Any) -> GovernanceWriteResult:
        if side not in ("yes", "no"):
            raise ValueError("side is 'yes' or 'no'")
        return self._gov("votes", {"proposal": proposal, "side": side, "amount": _amount(amount)}, fees)

    def cancel_vote(self, proposal: str, **fees: Any) -> GovernanceWriteResult:
        return self._gov("votes/cancel", {"proposal": proposal}, fees)

    def withdraw_vote(self, proposal: str, voter: str | None = None, **fees: Any) -> GovernanceWriteResult:
        return self._gov("votes/withdraw", {"proposal": proposal, "voter": voter}, fees)

    def settle_proposal(self, proposal: str, **fees: Any) -> GovernanceWriteResult:
        return self._gov("proposals/settle", {"proposal": proposal}, fees)

    def propose_extend_mutability(
        self, mint: str, additional_seconds: int, *, vote_duration_seconds: int | None = None, **fees: Any
    ) -> GovernanceWriteResult:
        return self._gov(
            "proposals/extend-mutability",
            {
                "mint": mint,
                "additionalSeconds": str(additional_seconds),
                "voteDurationSeconds": None if vote_duration_seconds is None else str(vote_duration_seconds),
            },
            fees,
        )

    def propose_finalize_metadata(
        self, mint: str, *, vote_duration_seconds: int | None = None, **fees: Any
    ) -> GovernanceWriteResult:
        return self._gov(
            "proposals/finalize-metadata",
            {
                "mint": mint,
                "voteDurationSeconds": None if vote_duration_seconds is None else str(vote_duration_seconds),
            },
            fees,
        )

    def finalize_expired_metadata(self, mint: str, **fees: Any) -> GovernanceWriteResult:
        return self._gov("metadata/finalize-expired", {"mint": mint}, fees)

    def withdraw_bond(self, proposal: str, **fees: Any) -> GovernanceWriteResult:
        return self._gov("bonds/withdraw", {"proposal": proposal}, fees)

    def propose_update_content(
        self,
        mint: str,
        *,
        name: str | None = None,
        symbol: str | None = None,
        description: str | None = None,
        website: str | None = None,
        twitter: str | None = None,
        telegram: str | None = None,
        image: Image | None = None,
        vote_duration_seconds: int | None = None,
        idempotency_key: str | None = None,
        **fees: Any,
    ) -> GovernanceWriteResult:
        """Multipart. Omitted fields stay unchanged; an empty string clears a link or description."""
        form = _compact(
            {
                "mint": mint,
                "name": name,
                "symbol": symbol,
                "description": description,
                "website": website,
                "twitter": twitter,
                "telegram": telegram,
                "voteDurationSeconds": vote_duration_seconds,
                **self._fees(fees),
            }
        )
        files = None
        if image is not None:
            files, staged = self._image(image)
            form.update(staged)
        body = self._call(
            "POST",
            "/partner/v1/governance/proposals/update-content",
            write=True,
            form=form,
            files=files,
            key=self._key(idempotency_key),
        )
        return from_json(GovernanceWriteResult, body)

    # ------------------------------------------------------------------ staged uploads
    def upload_image(self, image: Image, *, content_type: str | None = None) -> str:
        """Stage an image in S3 and return its `uploadId`, for `imageUploadId` on `create_coin` and
        `propose_update_content` (each upload once, by this user, within 15 minutes). `create_coin`
        and `propose_update_content` do this themselves for images over 4 MiB.

        `POST /partner/v1/uploads`, then the standard S3 browser upload: the answer's `fields`,
        then the file as `file`, POSTed to its `url` (no bearer token goes to S3)."""
        filename, data, declared = _image_part(image)
        ctype = content_type or _content_type(filename, data, declared)
        staged = self._call(
            "POST", "/partner/v1/uploads", write=False, json={"contentType": ctype, "contentLength": str(len(data))}
        )
        sent = self.http.post(staged["url"], data=staged["fields"], files={"file": (filename, data, ctype)})
        if sent.status_code not in (200, 201, 204):
            raise ValidationError(
                "upload_failed", sent.status_code, f"The staged upload was refused by storage: {sent.text[:300]}"
            )
        return staged["uploadId"]

    def _image(self, image: Image) -> tuple[list[tuple[str, Any]] | None, dict[str, str]]:
        """The image as a multipart part, or (over 4 MiB) staged: the `imageUploadId` field."""
        filename, data, declared = _image_part(image)
        if len(data) > STAGED_UPLOAD_BYTES:
            return None, {"imageUploadId": self.upload_image((filename, data, declared))}
        return [("image", (filename, data, declared))], {}

    # ------------------------------------------------------------------ coins
    def create_coin(
        self,
        name: str,
        symbol: str,
        image: Image | None = None,
        *,
        image_upload_id: str | None = None,
        description: str | None = None,
        website: str | None = None,
        twitter: str | None = None,
        telegram: str | None = None,
        initial_buy_sol: Amount | None = None,
        initial_buy_tokens: Amount | None = None,
        initial_buy_max_sol_in: Amount | None = None,
        slippage_bps: int | None = None,
        max_bypass_fee_lamports: Amount | None = None,
        priority_fee_lamports: Amount | None = None,
        idempotency_key: str | None = None,
    ) -> CoinCreateResult:
        """Multipart launch; a first buy (`initial_buy_sol` or `initial_buy_tokens`) makes it a bundle.
        An image over 4 MiB is staged first (`upload_image`) and sent as `imageUploadId`; or pass
        `image_upload_id` (from `upload_image`) instead of `image`."""
        form = _compact(
            {
                "name": name,
                "symbol": symbol,
                "description": description,
                "website": website,
                "twitter": twitter,
                "telegram": telegram,
                "priorityFeeLamports": _amount(
                    priority_fee_lamports if priority_fee_lamports is not None else self.fees["priorityFeeLamports"]
                ),
                "initialBuySol": None if initial_buy_sol is None else _amount(initial_buy_sol),
                "initialBuyTokens": None if initial_buy_tokens is None else _amount(initial_buy_tokens),
                "initialBuyMaxSolIn": None if initial_buy_max_sol_in is None else _amount(initial_buy_max_sol_in),
                "slippageBps": slippage_bps,
                "maxBypassFeeLamports": None if max_bypass_fee_lamports is None else _amount(max_bypass_fee_lamports),
            }
        )
        files, staged = self._image(image) if image is not None else (None, {})
        if image_upload_id is not None:
            staged["imageUploadId"] = image_upload_id
        form.update(staged)
        body = self._call(
            "POST", "/partner/v1/coins/create", write=True, form=form, files=files, key=self._key(idempotency_key)
        )
        return CoinCreateResult.from_json(body)

    # ------------------------------------------------------------------ transactions
    def transaction_status(self, signature: str) -> TransactionStatus:
        body = self._call("GET", f"/partner/v1/transactions/{quote(signature, safe='')}/status", write=False)
        return from_json(TransactionStatus, body)

    def fees_estimate(self, mint: str) -> FeeEstimate:
        """`GET /partner/v1/fees/estimate?mint=...`: priority fee percentiles for a trade on `mint`."""
        body = self._call("GET", "/partner/v1/fees/estimate", write=False, params={"mint": mint})
        return FeeEstimate.from_json(body)

    @staticmethod
    def verify_webhook(secret: str, headers: Any, body: str | bytes, *, tolerance: int = 300) -> WebhookEvent:
        """Verify a webhook delivery (Standard Webhooks) and return its event; raises
        WebhookVerificationError for a bad signature, an old timestamp or a tampered body."""
        return _verify_webhook(secret, headers, body, tolerance=tolerance)

    def reconcile(
        self,
        signature: str,
        *,
        timeout: float = 30.0,
        interval: float = 0.5,
        sleep: Callable[[float], None] = time.sleep,
    ) -> TransactionStatus:
        """Poll the status until it leaves `pending`/`not_found` or `timeout` passes; returns the last
        answer. `landed` true: do not resend. `failed`, or still `not_found` after the blockhash
        expired: safe to build the write again."""
        deadline = time.monotonic() + timeout
        while True:
            status = self.transaction_status(signature)
            if status.status not in PENDING_STATUSES or time.monotonic() >= deadline:
                return status
            sleep(interval)
