"""HTML for the consent screen, the sign-in prompt and authorize-time errors."""

from __future__ import annotations

from functools import partial
from html import escape
from typing import Any

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
.limits{background:#f4f5f7;border-radius:8px;padding:.75rem 1rem;margin:1rem 0}
.limits p{margin:.3rem 0 .6rem}
.field{display:flex;align-items:center;gap:.5rem;margin:.4rem 0}
.field label{flex:1;font-size:.95rem}
.field input{width:8.5rem;max-width:45%;padding:.45rem;border:1px solid #c9ced6;border-radius:6px;font-size:1rem}
.code{font-family:ui-monospace,monospace;color:#b42318}
.app{border-top:1px solid #e3e6eb;padding:1rem 0}
.app h2{font-size:1.1rem;margin:0 0 .25rem}
.app a{color:#1f6feb;word-break:break-all}
.spend{font-size:1rem;margin:.5rem 0}
.meter{height:.5rem;background:#e3e6eb;border-radius:4px;overflow:hidden}
.meter span{display:block;height:100%;background:#1f6feb}
.row{display:flex;gap:.75rem;margin-top:.75rem;flex-wrap:wrap}
.row button{flex:1 1 8rem}
button.danger{color:#b42318;border-color:#f0b4ae}
.notice{background:#e8f3ea;border-radius:8px;padding:.6rem .8rem}
@media (max-width:480px){main{margin:0;border-radius:0;padding:1.25rem;box-shadow:none}}
"""


def _page(title: str, body: str) -> str:
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width,initial-scale=1">'
        f"<title>{escape(title)}</title><style>{_STYLE}</style></head>"
        f"<body><main>{body}</main></body></html>"
    )


def limits_text(limits: dict[str, Any]) -> str:
    """The app's caps in plain words."""
    fee = (
        f", and at most <strong>{escape(limits['fee_cap'])} SOL</strong> in priority fees and tips per transaction"
        if limits.get("fee_cap") is not None
        else ""
    )
    return (
        f'This app may spend up to <strong id="trade-cap">{escape(limits["trade_cap"])} SOL per trade</strong> '
        f'and <strong id="daily-cap">{escape(limits["daily_cap"])} SOL per day</strong> from your wallet{fee}.'
    )


def limit_inputs(limits: dict[str, Any]) -> str:
    """Number inputs for the user's own limits (in SOL), bounded by the app's caps."""

    def one(name: str, label: str, value: str, cap: str) -> str:
        return (
            f'<div class="field"><label for="{name}">{label}</label>'
            f'<input type="number" id="{name}" name="{name}" value="{escape(value)}" '
            f'min="0.000000001" max="{escape(cap)}" step="0.000000001" inputmode="decimal" required>'
            "</div>"
        )

    return one("max_trade_sol", "Your limit per trade (SOL)", limits["trade"], limits["trade_cap"]) + one(
        "daily_cap_sol", "Your limit per day (SOL)", limits["daily"], limits["daily_cap"]
    )


def consent(model: dict[str, Any]) -> str:
    items = "".join(
        f'<li>{escape(text)} <span class="scope">({escape(name)})</span></li>' for name, text in model["scopes"]
    )
    wallet = escape(model["wallet"] or "no wallet yet")
    body = (
        f'<h1><span id="client-name">{escape(model["client_name"])}</span> wants to act for you</h1>'
        f'<p>It will use your delegated trading wallet:</p><p class="wallet" id="wallet">{wallet}</p>'
        f"<p>If you approve, <strong>{escape(model['client_name'])}</strong> will be able to:</p>"
        f'<ul id="scopes">{items}</ul>'
        f'<p class="note">You will be returned to {escape(model["redirect_host"])}. '
        "Trades and launches spend real SOL. You can change limits or disconnect at any time on "
        '<a href="/account/apps">your connected apps</a>.</p>'
        '<form method="post">'
        + (
            f'<div class="limits" id="limits"><p>{limits_text(model["limits"])}</p>'
            '<p class="note">You may lower either limit for this app; it can never go above the app\'s.</p>'
            f"{limit_inputs(model['limits'])}</div>"
            if model.get("limits")
            else ""
        )
        + f'<input type="hidden" name="request" value="{escape(model["request"])}">'
        f'<input type="hidden" name="csrf" value="{escape(model["csrf"])}">'
        '<div class="buttons">'
        '<button type="submit" name="decision" value="deny" formnovalidate>Deny</button>'
        '<button type="submit" name="decision" value="approve" class="approve">Approve</button>'
        "</div></form>"
    )
    return _page(f"Connect {model['client_name']}", body)


def sign_in(login_url: str | None) -> str:
    link = (
        f'<p><a id="login" href="{escape(login_url)}">Sign in to continue</a></p>'
        if login_url
        else "<p>Sign in to the platform in this browser, then reload this page.</p>"
    )
    return _page("Sign in", "<h1>Sign in to continue</h1><p>An app is asking to connect to your account.</p>" + link)


def _error(code: str, message: str, *, title: str, heading: str, after: str) -> str:
    """An error page: its heading, the `error` code and its message, then where to go from here."""
    return _page(
        title, f'<h1>{heading}</h1><p class="code" id="error">{escape(code)}</p><p>{escape(message)}</p>{after}'
    )


# error(code, message): the authorization pages' (authorize, consent, sign-in)
error = partial(
    _error,
    title="Authorization error",
    heading="This connection request cannot continue",
    after='<p class="note">Return to the app that sent you here and try again.</p>',
)


def _meter(spent: str, cap: str) -> str:
    from decimal import Decimal

    share = 0 if Decimal(cap) == 0 else min(100, int(Decimal(spent) * 100 / Decimal(cap)))
    return f'<div class="meter" aria-hidden="true"><span style="width:{share}%"></span></div>'


def _app(app: dict[str, Any], csrf: str) -> str:
    cid = escape(app["client_id"])
    hidden = (
        f'<input type="hidden" name="client_id" value="{cid}"><input type="hidden" name="csrf" value="{escape(csrf)}">'
    )
    items = "".join(f"<li>{escape(text)}</li>" for _, text in app["scopes"])
    limits = {
        "trade": app["trade"],
        "daily": app["daily"],
        "trade_cap": app["trade_cap"],
        "daily_cap": app["daily_cap"],
    }
    return (
        f'<section class="app" id="app-{cid}" data-client-id="{cid}">'
        f'<h2 class="app-name">{escape(app["name"])}</h2>'
        f'<p class="note"><a href="{escape(app["website"])}" rel="noopener noreferrer">{escape(app["website"])}</a>'
        f"<br>Connected {escape(app['connected'])} · last used {escape(app['last_used'])}</p>"
        f'<p class="spend">Spent today: <strong class="spent">{escape(app["spent"])} SOL</strong> of '
        f'<strong class="daily">{escape(app["daily"])} SOL</strong> per day '
        f'<span class="note">(up to <span class="trade">{escape(app["trade"])} SOL</span> per trade)</span></p>'
        f"{_meter(app['spent'], app['daily'])}"
        f'<p>It may:</p><ul class="scopes">{items}</ul>'
        f'<form method="post" class="limits-form"><input type="hidden" name="action" value="limits">{hidden}'
        f'<div class="limits"><p class="note">{limits_text(limits)} Your limits:</p>{limit_inputs(limits)}'
        '<div class="row"><button type="submit">Save limits</button></div></div></form>'
        f'<form method="post" class="disconnect-form"><input type="hidden" name="action" value="disconnect">{hidden}'
        '<div class="row"><button type="submit" class="danger">Disconnect</button></div></form>'
        "</section>"
    )


def apps(models: list[dict[str, Any]], csrf: str, notice: str | None = None) -> str:
    """/account/apps: every connected app with its spend, limits and a disconnect button."""
    head = "<h1>Connected apps</h1>"
    if notice:
        head += f'<p class="notice" id="notice" role="status">{escape(notice)}</p>'
    signout = (
        '<form method="post" id="signout"><input type="hidden" name="action" value="signout">'
        f'<input type="hidden" name="csrf" value="{escape(csrf)}">'
        '<div class="row"><button type="submit">Sign out</button></div></form>'
    )
    if not models:
        return _page("Connected apps", head + '<p id="no-apps">No app is connected to your account.</p>' + signout)
    intro = (
        '<p class="note">These apps can act for you with your trading wallet. Limits apply to each app\'s '
        "trades from its next request; spend resets at 00:00 UTC. Disconnecting signs the app out at once.</p>"
    )
    return _page("Connected apps", head + intro + "".join(_app(m, csrf) for m in models) + signout)


def signed_out() -> str:
    """After Sign out on /account/apps: the platform session has ended."""
    return _page(
        "Signed out",
        '<h1>Signed out</h1><p id="signed-out" role="status">Your session has ended. Connected apps keep '
        'working with the limits you set.</p><p><a href="/account/apps">Sign in again</a></p>',
    )


# apps_error(code, message): the connected-apps page's
apps_error = partial(
    _error,
    title="Connected apps",
    heading="That change was not made",
    after='<p><a href="/account/apps">Back to your connected apps</a></p>',
)
