"""HTML for the consent screen, the sign-in prompt and authorize-time errors."""

from __future__ import annotations

from html import escape
from typing import Any

SECURITY_HEADERS = {
    "Cache-Control": "no-store",
    "Pragma": "no-cache",
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
}

_STYLE = """
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;background:#f4f5f7;margin:0;color:#1b1d21}
main{max-width:28rem;margin:3rem auto;background:#fff;border-radius:12px;padding:2rem;
box-shadow:0 2px 12px rgba(0,0,0,.08)}
h1{font-size:1.25rem;margin:0 0 1rem}
.wallet{font-family:ui-monospace,monospace;font-size:.85rem;word-break:break-all;background:#f4f5f7;
padding:.5rem;border-radius:6px}
ul{padding-left:1.2rem}li{margin:.4rem 0}
.scope{font-family:ui-monospace,monospace;font-size:.8rem;color:#5b6270}
.buttons{display:flex;gap:.75rem;margin-top:1.5rem}
button{flex:1;padding:.7rem;border-radius:8px;border:1px solid #c9ced6;font-size:1rem;cursor:pointer;background:#fff}
button.approve{background:#1f6feb;color:#fff;border-color:#1f6feb}
.note{font-size:.85rem;color:#5b6270}
.code{font-family:ui-monospace,monospace;color:#b42318}
"""


def _page(title: str, body: str) -> str:
    return (
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">"
        "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">"
        f"<title>{escape(title)}</title><style>{_STYLE}</style></head>"
        f"<body><main>{body}</main></body></html>"
    )


def consent(model: dict[str, Any]) -> str:
    items = "".join(
        f"<li>{escape(text)} <span class=\"scope\">({escape(name)})</span></li>" for name, text in model["scopes"]
    )
    wallet = escape(model["wallet"] or "no wallet yet")
    body = (
        f"<h1><span id=\"client-name\">{escape(model['client_name'])}</span> wants to act for you</h1>"
        f"<p>It will use your delegated trading wallet:</p><p class=\"wallet\" id=\"wallet\">{wallet}</p>"
        f"<p>If you approve, <strong>{escape(model['client_name'])}</strong> will be able to:</p>"
        f"<ul id=\"scopes\">{items}</ul>"
        f"<p class=\"note\">You will be returned to {escape(model['redirect_host'])}. "
        "Trades and launches spend real SOL. You can revoke access at any time.</p>"
        "<form method=\"post\">"
        f"<input type=\"hidden\" name=\"request\" value=\"{escape(model['request'])}\">"
        f"<input type=\"hidden\" name=\"csrf\" value=\"{escape(model['csrf'])}\">"
        "<div class=\"buttons\">"
        "<button type=\"submit\" name=\"decision\" value=\"deny\">Deny</button>"
        "<button type=\"submit\" name=\"decision\" value=\"approve\" class=\"approve\">Approve</button>"
        "</div></form>"
    )
    return _page(f"Connect {model['client_name']}", body)


def sign_in(login_url: str | None) -> str:
    link = (
        f"<p><a id=\"login\" href=\"{escape(login_url)}\">Sign in to continue</a></p>" if login_url else
        "<p>Sign in to the platform in this browser, then reload this page.</p>"
    )
    return _page("Sign in", "<h1>Sign in to continue</h1><p>An app is asking to connect to your account.</p>" + link)


def error(code: str, message: str) -> str:
    return _page(
        "Authorization error",
        "<h1>This connection request cannot continue</h1>"
        f"<p class=\"code\" id=\"error\">{escape(code)}</p><p>{escape(message)}</p>"
        "<p class=\"note\">Return to the app that sent you here and try again.</p>",
    )
