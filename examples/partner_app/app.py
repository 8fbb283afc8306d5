"""A small partner web app on the standard library's http.server, using the partner SDK.

GET  /          Connect button, or (connected) the profile and a trade form
GET  /connect   starts the OAuth flow (PKCE S256, state) and redirects to the consent screen
GET  /callback  checks state, exchanges the code (HTTP Basic with the API key), stores the tokens
POST /trade     buys with the SDK (retry rules built in), then reconciles the signature
POST /disconnect revokes the grant and forgets the tokens
"""

from __future__ import annotations

import secrets
import threading
from decimal import Decimal, InvalidOperation
from html import escape
from http.cookies import SimpleCookie
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from partner_sdk import (
    AmbiguousWriteError,
    AuthorizationRequest,
    OAuthClient,
    PartnerClient,
    PartnerError,
    ReauthorizationRequired,
    TokenStore,
)

COOKIE = "partner_app_sid"  # distinct from the platform's cookie: cookies ignore the port
SCOPES = ("profile:read", "trade:execute")
LAMPORTS = Decimal(10**9)
STYLE = (
    "body{font-family:system-ui,sans-serif;max-width:42rem;margin:2rem auto;padding:0 1rem}"
    "pre,code{background:#f4f5f7;border-radius:6px}pre{padding:1rem;overflow:auto}"
    "label{display:block;margin:.5rem 0}input{font:inherit;padding:.3rem;width:100%;box-sizing:border-box}"
    ".button,button{display:inline-block;background:#1f6feb;color:#fff;padding:.6rem 1rem;border-radius:8px;"
    "border:0;text-decoration:none;font:inherit;cursor:pointer}.error{color:#b42318}"
)

Page = tuple[int, dict[str, str], bytes]


def page(title: str, body: str, status: int = 200, headers: dict[str, str] | None = None) -> Page:
    html = (
        f"<!doctype html><html><head><meta charset=utf-8><title>{escape(title)}</title>"
        f"<style>{STYLE}</style></head><body><h1>{escape(title)}</h1>{body}</body></html>"
    )
    return (
        status,
        {"Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store", **(headers or {})},
        html.encode(),
    )


def redirect(location: str, headers: dict[str, str] | None = None) -> Page:
    return 303, {"Location": location, **(headers or {})}, b""


def lamports(sol: str) -> int:
    try:
        value = Decimal(sol.strip()) * LAMPORTS
    except InvalidOperation as exc:
        raise ValueError("SOL amount is not a number") from exc
    if value <= 0 or value != value.to_integral_value():
        raise ValueError("SOL amount must be positive, at most 9 decimals")
    return int(value)


class PartnerApp:
    def __init__(
        self,
        api: str,
        client_id: str,
        api_key: str,
        redirect_uri: str,
        *,
        default_mint: str = "",
        reconcile_timeout: float = 15.0,
    ) -> None:
        self.api = api.rstrip("/")
        self.oauth = OAuthClient(self.api, client_id, api_key, redirect_uri)
        self.tokens = TokenStore(self.oauth)  # keyed by this app's session id
        self.default_mint = default_mint
        self.reconcile_timeout = reconcile_timeout
        self._pending: dict[str, tuple[AuthorizationRequest, str]] = {}  # state -> (request, session)
        self._lock = threading.Lock()

    def client_for(self, session: str) -> PartnerClient:
        return PartnerClient(self.api, self.tokens.for_user(session), http=self.oauth.http)

    # ------------------------------------------------------------------ routes
    def handle(self, method: str, path: str, query: dict[str, str], form: dict[str, str], session: str | None) -> Page:
        routes = {
            ("GET", "/"): self.home,
            ("GET", "/connect"): self.connect,
            ("GET", "/callback"): self.callback,
            ("POST", "/trade"): self.trade,
            ("POST", "/disconnect"): self.disconnect,
        }
        route = routes.get((method, path))
        if route is None:
            return page("Not found", "<p>No such page.</p>", 404)
        return route(query=query, form=form, session=session)

    def home(self, *, session: str | None, **_: Any) -> Page:
        if not session or self.tokens.needs_reauthorization(session):
            return page(
                "Example Partner App",
                "<p>Connect your launchpad account to see your profile and trade.</p>"
                "<p><a id=connect class=button href=/connect>Connect</a></p>",
            )
        try:
            profile = self.client_for(session).me()
        except ReauthorizationRequired:
            return redirect("/")
        except PartnerError as exc:
            return page(
                "Example Partner App",
                f"<p class=error id=error>{escape(exc.code)}: "
                f"{escape(exc.message)}</p><p><a href=/connect>Connect again</a></p>",
                502,
            )
        return page(
            "Example Partner App",
            f"""
<h2>Profile</h2>
<dl><dt>Wallet</dt><dd><code id=wallet>{escape(profile.wallet_solana or "")}</code></dd>
<dt>X / Twitter</dt><dd id=twitter>{escape(profile.twitter_handle or "-")}</dd>
<dt>1-click trading</dt><dd id=trading>{"enabled" if profile.trading_enabled else "disabled"}</dd>
<dt>Scopes</dt><dd id=scopes>{escape(" ".join(profile.scopes))}</dd></dl>
<h2>Buy</h2>
<form method=post action=/trade>
<label>Token mint <input id=mint name=mint required value="{escape(self.default_mint)}"></label>
<label>SOL to spend <input id=sol name=sol required value="0.1"></label>
<label>Slippage (bps) <input id=slippage name=slippage_bps required value="100"></label>
<button id=trade type=submit>Buy</button>
</form>
<form method=post action=/disconnect><p><button id=disconnect type=submit>Disconnect</button></p></form>""",
        )

    def connect(self, *, session: str | None, **_: Any) -> Page:
        session = session or secrets.token_urlsafe(24)
        request = self.oauth.authorization_request(SCOPES)
        with self._lock:
            self._pending[request.state] = (request, session)
        return redirect(request.url, {"Set-Cookie": f"{COOKIE}={session}; Path=/; HttpOnly; SameSite=Lax"})

    def callback(self, *, query: dict[str, str], session: str | None, **_: Any) -> Page:
        with self._lock:
            pending = self._pending.pop(query.get("state", ""), None)
        if pending is None or pending[1] != session:
            return page(
                "Connect failed", "<p class=error id=error>Unknown or expired state.</p><p><a href=/>Back</a></p>", 400
            )
        request, session = pending
        try:
            tokens = self.oauth.complete(request, query)
        except PartnerError as exc:
            return page(
                "Connect failed", f"<p class=error id=error>{escape(exc.code)}</p><p><a href=/>Back</a></p>", 400
            )
        self.tokens.save(session, tokens)
        return redirect("/")

    def trade(self, *, form: dict[str, str], session: str | None, **_: Any) -> Page:
        if not session or self.tokens.needs_reauthorization(session):
            return redirect("/")
        client = self.client_for(session)
        try:
            amount = lamports(form.get("sol", ""))
            slippage = int(form.get("slippage_bps", "100"))
        except ValueError as exc:
            return page("Trade", f"<p class=error id=error>{escape(str(exc))}</p><p><a href=/>Back</a></p>", 400)
        signature, note = None, ""
        try:
            result = client.buy(form.get("mint", "").strip(), amount, slippage_bps=slippage)
            signature = result.signature
        except AmbiguousWriteError as exc:
            # not retried: look the signature up before offering to send it again
            signature = exc.signature
            note = f"<p class=error>{escape(exc.code)}: the trade may be in flight; not resent.</p>"
            if signature is None:
                return page(
                    "Trade outcome unknown",
                    note + "<p>Check your wallet before trying again.</p><p><a href=/>Back</a></p>",
                    502,
                )
        except ReauthorizationRequired:
            return redirect("/")
        except PartnerError as exc:
            return page(
                "Trade failed",
                f"<p class=error id=error>{escape(exc.code)}: {escape(exc.message)}</p><p><a href=/>Back</a></p>",
                400 if (exc.status or 500) < 500 else 502,
            )
        status = client.reconcile(signature, timeout=self.reconcile_timeout)
        return page(
            "Trade submitted",
            f"""{note}
<p>Signature: <code id=signature>{escape(signature)}</code></p>
<p>Status: <span id=status>{escape(status.status)}</span>{
                f" (<span class=error>{escape(status.error)}</span>)" if status.error else ""
            }</p>
<p><a id=back href=/>Back</a></p>""",
        )

    def disconnect(self, *, session: str | None, **_: Any) -> Page:
        if session:
            try:
                self.tokens.revoke(session)
            except PartnerError:
                pass  # forgotten locally either way
        return redirect("/")


def make_handler(app: PartnerApp) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        server_version = "ExamplePartnerApp/0.1"

        def _serve(self, method: str) -> None:
            url = urlsplit(self.path)
            query = {k: v[0] for k, v in parse_qs(url.query).items()}
            form: dict[str, str] = {}
            if method == "POST":
                length = int(self.headers.get("Content-Length") or 0)
                form = {k: v[0] for k, v in parse_qs(self.rfile.read(min(length, 65536)).decode()).items()}
            cookies = SimpleCookie(self.headers.get("Cookie") or "")
            session = cookies[COOKIE].value if COOKIE in cookies else None
            try:
                status, headers, body = app.handle(method, url.path, query, form, session)
            except Exception as exc:  # keep serving
                status, headers, body = page("Error", f"<p class=error>{escape(type(exc).__name__)}</p>", 500)
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:
            self._serve("GET")

        def do_POST(self) -> None:
            self._serve("POST")

        def log_message(self, format: str, *args: Any) -> None:
            if getattr(self.server, "log", True):
                super().log_message(format, *args)

    return Handler


def bind(host: str = "127.0.0.1", port: int = 8090) -> ThreadingHTTPServer:
    """Bind first (port 0 picks one), then attach the app with `attach` once the redirect URI is known."""
    server = ThreadingHTTPServer((host, port), BaseHTTPRequestHandler)
    server.daemon_threads = True
    return server


def attach(server: ThreadingHTTPServer, app: PartnerApp, *, log: bool = True) -> ThreadingHTTPServer:
    server.RequestHandlerClass = make_handler(app)
    server.log = log
    server.app = app
    return server
