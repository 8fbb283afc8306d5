"""Devstack-only pages on the gateway: a tiny demo partner app. (The platform's sign-in is its
stand-in OpenID provider, devstack.oidc, on a port of its own.)

/demo            the demo app: "Connect" starts the OAuth flow with PKCE
/demo/callback   exchanges the code at /oauth/token (HTTP, with the demo client's key)
                 and shows the tokens' scopes and the /partner/v1/me answer (with `limits`)
/demo/buy        POST: buys the demo coin with the connection's token and shows the answer
                 (a 403 daily_cap_exceeded once past the daily limit the user chose)
/demo/me         POST: calls /partner/v1/me again (401 once the user disconnected the app
                 on /account/apps)
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import threading
from html import escape
from typing import Any
from urllib.parse import parse_qs, urlencode

import httpx

from devstack.gateway import Request

_STYLE = (
    "body{font-family:system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem}"
    "pre{background:#f4f5f7;padding:1rem;border-radius:8px;white-space:pre-wrap;overflow-wrap:anywhere}"
    "a.button{display:inline-block;background:#1f6feb;color:#fff;padding:.6rem 1rem;border-radius:8px;"
    "text-decoration:none}"
)


def _page(title: str, body: str) -> tuple[int, dict[str, str], bytes]:
    html = (
        f"<!doctype html><html><head><meta charset=utf-8><title>{escape(title)}</title>"
        f"<style>{_STYLE}</style></head><body>{body}</body></html>"
    )
    return 200, {"Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store"}, html.encode()


class DevPages:
    def __init__(
        self, base_url: str, demo_client: dict[str, Any], users: list[dict[str, Any]], mint: str | None = None
    ) -> None:
        self.base_url = base_url
        self.client = demo_client
        self.users = users
        self.mint = mint
        self._connections: dict[str, dict[str, str]] = {}  # demo connection id -> tokens (devstack only)
        self.redirect_uri = f"{base_url}/demo/callback"
        self._pending: dict[str, str] = {}  # state -> PKCE verifier
        self._lock = threading.Lock()

    def routes(self) -> dict[tuple[str, str], Any]:
        return {
            ("GET", "/demo"): self.demo,
            ("GET", "/demo/callback"): self.callback,
            ("POST", "/demo/buy"): self.buy,
            ("POST", "/demo/me"): self.me,
            ("POST", "/demo/refresh"): self.refresh,
        }

    # -------------------------------------------------------------- demo partner app
    def demo(self, request: Request):
        verifier = secrets.token_urlsafe(48)
        challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
        state = secrets.token_urlsafe(16)
        with self._lock:
            self._pending[state] = verifier
        query = urlencode(
            {
                "response_type": "code",
                "client_id": self.client["client_id"],
                "redirect_uri": self.redirect_uri,
                "scope": "profile:read trade:execute governance:vote governance:propose coin:create",
                "state": state,
                "code_challenge": challenge,
                "code_challenge_method": "S256",
            }
        )
        return _page(
            "Demo partner app",
            "<h1>Demo partner app</h1><p>Connects a platform user with OAuth 2.0 + PKCE.</p>"
            f'<p><a class=button id=connect href="/oauth/authorize?{escape(query)}">Connect</a></p>',
        )

    def callback(self, request: Request):
        query = {k: v[0] for k, v in request.query.items()}
        with self._lock:
            verifier = self._pending.pop(query.get("state", ""), None)
        if "error" in query or verifier is None:
            return _page(
                "Not connected", f"<h1>Not connected</h1><p id=result>{escape(query.get('error', 'unknown state'))}</p>"
            )
        token = httpx.post(
            f"{self.base_url}/oauth/token",
            auth=(self.client["client_id"], self.client["api_key"]),
            data={
                "grant_type": "authorization_code",
                "code": query.get("code", ""),
                "redirect_uri": self.redirect_uri,
                "code_verifier": verifier,
            },
            timeout=30,
        )
        if token.status_code != 200:
            return _page("Token error", f"<h1>Token error</h1><pre id=result>{escape(token.text)}</pre>")
        tokens = token.json()
        me = httpx.get(
            f"{self.base_url}/partner/v1/me", headers={"Authorization": f"Bearer {tokens['access_token']}"}, timeout=30
        )
        access = str(tokens["access_token"])
        shown = {
            "access_token": f"{access[:11]}... ({len(access)} characters)",
            "scope": tokens["scope"],
            "expires_in": tokens["expires_in"],
        }
        curl = f'AT=<the copied access token>\ncurl -s {self.base_url}/partner/v1/me -H "Authorization: Bearer $AT"'
        sid = secrets.token_urlsafe(16)
        with self._lock:
            self._connections[sid] = tokens
        return _page(
            "Connected",
            "<h1>Connected</h1>"
            f"<p>Token response (secrets not shown):</p><pre>{escape(json.dumps(shown, indent=2))}</pre>"
            f"<p>GET /partner/v1/me answered {me.status_code} (<code>limits</code>: what this app may "
            f"spend for you):</p><pre id=result>{escape(json.dumps(me.json(), indent=2))}</pre>"
            + self._actions(sid)
            + "<p>Try it yourself (the access token is valid 30 minutes): "
            f'<button id=copy-token type=button data-token="{escape(access)}" '
            "onclick=\"navigator.clipboard.writeText(this.dataset.token).then(()=>{this.textContent='Copied'})\">"
            f"Copy access token</button></p><pre id=try>{escape(curl)}</pre>"
            '<p><a href="/demo">Connect again</a> (as another platform user: in a private window, which '
            "signs in afresh)</p>",
        )

    # ---------------------------------------------------------------------- the user in control
    def _actions(self, sid: str) -> str:
        hidden = f'<input type=hidden name=sid value="{escape(sid)}">'
        buy = (
            (
                f'<form method=post action="/demo/buy">{hidden}<label>Buy the demo coin for '
                '<input name=sol id=buy-sol value="0.2" size=6> SOL</label> '
                "<button id=buy type=submit>Buy</button></form>"
            )
            if self.mint
            else ""
        )
        return (
            "<h2>Try your limits</h2>"
            "<p>Connect with a low daily limit (e.g. 0.1 SOL) on the consent page, then buy more: the API "
            "answers <code>403 daily_cap_exceeded</code> with your limit.</p>"
            + buy
            + '<p>Then open <a id=apps href="/account/apps">your connected apps</a>, change the limit or '
            "disconnect this app, and call the API again:</p>"
            f'<form method=post action="/demo/me">{hidden}<button id=me type=submit>Call /partner/v1/me again'
            "</button></form>"
            f'<form method=post action="/demo/refresh">{hidden}<button id=refresh type=submit>Refresh the tokens'
            "</button></form>"
        )

    def _token(self, request: Request) -> tuple[str, str | None, dict[str, str]]:
        form = {k: v[0] for k, v in parse_qs(request.body.decode(errors="replace")).items()}
        sid = form.get("sid", "")
        with self._lock:
            tokens = self._connections.get(sid)
        return sid, tokens["access_token"] if tokens else None, form

    def refresh(self, request: Request):
        sid, _, _ = self._token(request)
        with self._lock:
            tokens = self._connections.get(sid)
        if tokens is None:
            return _page("Not connected", '<h1>Not connected</h1><p><a href="/demo">Connect</a> first.</p>')
        answer = httpx.post(
            f"{self.base_url}/oauth/token",
            auth=(self.client["client_id"], self.client["api_key"]),
            data={"grant_type": "refresh_token", "refresh_token": tokens["refresh_token"]},
            timeout=30,
        )
        if answer.status_code == 200:
            with self._lock:
                self._connections[sid] = answer.json()
            shown = httpx.Response(200, json={"scope": answer.json()["scope"], "rotated": True})
            return self._answer("Tokens refreshed", sid, shown)
        return self._answer("Refresh", sid, answer)

    def _answer(self, title: str, sid: str, response: httpx.Response) -> tuple[int, dict[str, str], bytes]:
        try:
            shown = json.dumps(response.json(), indent=2)
        except ValueError:
            shown = response.text
        return _page(
            title,
            f"<h1>{escape(title)}</h1><p>The API answered <strong id=status>{response.status_code}"
            f"</strong>:</p><pre id=result>{escape(shown)}</pre>"
            + self._actions(sid)
            + '<p><a href="/demo">Connect again</a></p>',
        )

    def buy(self, request: Request):
        from decimal import Decimal, InvalidOperation

        sid, token, form = self._token(request)
        if token is None or not self.mint:
            return _page("Not connected", '<h1>Not connected</h1><p><a href="/demo">Connect</a> first.</p>')
        try:
            lamports = int(Decimal(form.get("sol", "0.2")) * 10**9)
        except InvalidOperation:
            lamports = 200_000_000
        answer = httpx.post(
            f"{self.base_url}/partner/v1/trades/buy",
            headers={"Authorization": f"Bearer {token}"},
            json={
                "mint": self.mint,
                "maxSolIn": str(max(lamports, 1)),
                "slippageBps": 500,
                "priorityFeeLamports": "10000",
                "tipLamports": "1000000",
            },
            timeout=30,
        )
        return self._answer("Buy", sid, answer)

    def me(self, request: Request):
        sid, token, _ = self._token(request)
        if token is None:
            return _page("Not connected", '<h1>Not connected</h1><p><a href="/demo">Connect</a> first.</p>')
        answer = httpx.get(f"{self.base_url}/partner/v1/me", headers={"Authorization": f"Bearer {token}"}, timeout=30)
        return self._answer("GET /partner/v1/me", sid, answer)
