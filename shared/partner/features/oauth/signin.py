"""Sign-in through the platform's OpenID provider: the service is an OIDC relying party
(authorization code, PKCE S256, `state` bound to the browser, `nonce`; docs/security.md).

Configuration (settings): OIDC_ISSUER, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET_PARAMETER (an SSM
SecureString; its value is never in the template or the environment), OIDC_REDIRECT_URI.
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import threading
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode, urlsplit

from partner.core import clock, lazy, tls, transport
from partner.core.settings import get_settings, on_reset
from partner.store import auth as store
from partner.store import crypto
from partner.store import users as user_store

jwt = lazy.module("jwt")

SIGNIN_COOKIE = "app_signin"
SIGNIN_TTL = 600  # a sign-in must come back within 10 minutes
CALLBACK_PATH = "/account/signin/callback"
START_PATH = "/account/signin"
# Where a sign-in may come back to: the two pages that need a session (no open redirect). Kept
# relative to the API's root (`oauth/authorize?...`), so the same redirects work on the execute-api
# URL (under its stage) and on a custom domain.
RETURN_PATHS = ("oauth/authorize", "account/apps")
# Asymmetric algorithms only: never `none`, never an HMAC keyed with the client secret.
ALGORITHMS = ("RS256", "PS256", "ES256", "EdDSA")
LEEWAY = 60  # seconds of clock skew on exp / iat
MAX_ID_TOKEN_AGE = 600  # an ID token issued longer ago than this is refused (iat)
HTTP_TIMEOUT = 5.0


class SigninRefused(Exception):
    """A refused sign-in: `code`, `message` (shown on the error page) and the HTTP status."""

    def __init__(self, code: str, message: str, status: int = 400) -> None:
        super().__init__(f"{code}: {message}")
        self.code, self.message, self.status = code, message, status


# ---------------------------------------------------------------- provider


@dataclass(frozen=True)
class Provider:
    issuer: str
    authorization_endpoint: str
    token_endpoint: str
    jwks_uri: str
    algorithms: tuple[str, ...]


_lock = threading.Lock()
_provider: Provider | None = None
_jwks: Any = None
_secret: str | None = None


@on_reset
def reset() -> None:
    global _provider, _jwks, _secret
    with _lock:
        _provider, _jwks, _secret = None, None, None


def configured() -> bool:
    s = get_settings()
    return bool(s.oidc_issuer and s.oidc_client_id)


def _get_json(url: str) -> Any:
    try:
        answer = transport.get(url, timeout=HTTP_TIMEOUT)
    except transport.Failed as exc:
        raise SigninRefused(
            "temporarily_unavailable", "The platform's sign-in service cannot be reached; try again in a moment.", 502
        ) from exc
    if answer.status != 200:
        raise SigninRefused(
            "temporarily_unavailable", "The platform's sign-in service answered an error; try again in a moment.", 502
        )
    try:
        return json.loads(answer.data)
    except ValueError as exc:
        raise SigninRefused("temporarily_unavailable", "The platform's sign-in service answered garbage.", 502) from exc


def provider() -> Provider:
    """The issuer's metadata (OpenID Connect Discovery 1.0), fetched once per process."""
    global _provider
    if _provider is not None:
        return _provider
    issuer = get_settings().oidc_issuer or ""
    meta = _get_json(issuer.rstrip("/") + "/.well-known/openid-configuration")
    if not isinstance(meta, dict) or meta.get("issuer") != issuer:  # Discovery 4.3: must match exactly
        raise SigninRefused("temporarily_unavailable", "The platform's sign-in metadata names another issuer.", 502)
    offered = meta.get("id_token_signing_alg_values_supported") or ["RS256"]
    algorithms = tuple(a for a in ALGORITHMS if a in offered)
    try:
        found = Provider(
            issuer,
            str(meta["authorization_endpoint"]),
            str(meta["token_endpoint"]),
            str(meta["jwks_uri"]),
            algorithms or ("RS256",),
        )
    except KeyError as exc:
        raise SigninRefused("temporarily_unavailable", "The platform's sign-in metadata is incomplete.", 502) from exc
    with _lock:
        _provider = found
    return found


def _jwks_client(uri: str) -> Any:
    global _jwks
    if _jwks is None or _jwks.uri != uri:
        cooldown = float(get_settings().oidc_jwks_cooldown_seconds)
        client = jwt.PyJWKClient(
            uri,
            cache_jwk_set=True,
            lifespan=300,
            timeout=HTTP_TIMEOUT,
            cooldown_duration=cooldown,
            ssl_context=tls.context() if uri.lower().startswith("https:") else None,
        )
        with _lock:
            _jwks = client
    return _jwks


def client_secret() -> str:
    """The client secret, from SSM Parameter Store (SecureString), read once per process."""
    global _secret
    if _secret is None:
        from partner.store import aws

        name = get_settings().oidc_client_secret_parameter
        if not name:
            raise SigninRefused("server_error", "Sign-in is not configured (no client secret).", 500)
        value = aws.client("ssm").get_parameter(Name=name, WithDecryption=True)["Parameter"]["Value"]
        with _lock:
            _secret = value
    return _secret


# ---------------------------------------------------------------- start


def safe_next(value: str | None) -> str:
    """Only a page of this service that needs a session (RETURN_PATHS, relative to the API's root,
    with its query); anything else: account/apps."""
    if value and value.isprintable() and "\\" not in value and "#" not in value:
        parts = urlsplit(value)
        if not parts.scheme and not parts.netloc and parts.path in RETURN_PATHS:
            return value
    return "account/apps"


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _item_pk(state: str) -> str:
    return f"SIGNIN#{crypto.digest(state, 'signin')}"


def start(next_path: str | None) -> tuple[str, str]:
    """(the provider's authorization URL, the `app_signin` cookie value).

    `GET {auth_url}/account/signin?next=...` starts an authorization-code flow with PKCE (S256), a
    `state` and a `nonce`: the state is the value of a short-lived `app_signin` cookie (so the
    callback must come back to the browser that started it) and names a single-use item in the auth
    table holding the nonce, the PKCE verifier and where to go next. `GET /account/signin/callback`
    checks the state against the cookie, consumes the item, exchanges the code (client_secret_basic,
    code_verifier) and verifies the ID token with PyJWT: signature by a key of the provider's JWKS
    (PyJWKClient: the key set cached, refetched on an unknown `kid` at most once per cooldown), the
    algorithm allow-list, `iss`, `aud` (and `azp`), `exp`, `iat`, `nonce`. `sub` maps to the user the
    platform provisioned (features.platform); the answer sets the `app_session` cookie and goes back
    to the original request. Every refusal raises SigninRefused: an error page, and no session.
    """
    p = provider()
    s = get_settings()
    state, nonce, verifier = _b64(secrets.token_bytes(32)), _b64(secrets.token_bytes(32)), _b64(secrets.token_bytes(48))
    store.put(
        _item_pk(state),
        {
            "nonce": nonce,
            "verifier": verifier,
            "next": safe_next(next_path),
            "exp": clock.now_int() + SIGNIN_TTL,
            "used": False,
        },
    )
    query = urlencode(
        {
            "response_type": "code",
            "client_id": s.oidc_client_id,
            "redirect_uri": s.oidc_redirect_uri,
            "scope": "openid profile",
            "state": state,
            "nonce": nonce,
            "code_challenge": _b64(hashlib.sha256(verifier.encode()).digest()),
            "code_challenge_method": "S256",
        }
    )
    sep = "&" if "?" in p.authorization_endpoint else "?"
    return f"{p.authorization_endpoint}{sep}{query}", state


# ---------------------------------------------------------------- callback


def _consume(state: str) -> dict[str, Any]:
    """The sign-in's item, marked used (single use: a replayed callback finds it used)."""
    item = store.consume_once(_item_pk(state), clock.now_int())
    if not item:
        raise SigninRefused("invalid_request", "This sign-in expired or was already completed; start again.")
    return item


def _exchange(code: str, verifier: str) -> dict[str, Any]:
    p, s = provider(), get_settings()
    basic = base64.b64encode(f"{_form(s.oidc_client_id or '')}:{_form(client_secret())}".encode()).decode()
    try:
        answer = transport.post(
            p.token_endpoint,
            timeout=HTTP_TIMEOUT,
            body=urlencode(
                {
                    "grant_type": "authorization_code",
                    "code": code,
                    "redirect_uri": s.oidc_redirect_uri,
                    "code_verifier": verifier,
                }
            ),
            headers={
                "Content-Type": "application/x-www-form-urlencoded",
                "Accept": "application/json",
                "Authorization": f"Basic {basic}",
            },
        )
    except transport.Failed as exc:
        raise SigninRefused(
            "temporarily_unavailable", "The platform's sign-in service cannot be reached; start again.", 502
        ) from exc
    try:
        body = json.loads(answer.data)
    except ValueError:
        body = None
    if answer.status != 200 or not isinstance(body, dict) or not isinstance(body.get("id_token"), str):
        raise SigninRefused(
            "invalid_grant",
            "The platform refused the sign-in code (used already, expired, or "
            "not issued to this service); start again.",
        )
    return body


def _form(value: str) -> str:
    from urllib.parse import quote

    return quote(value, safe="")  # RFC 6749 2.3.1: form-encoded before Basic


def verify_id_token(id_token: str, nonce: str) -> dict[str, Any]:
    """The ID token's claims, verified (OpenID Connect Core 3.1.3.7), else SigninRefused."""
    p, s = provider(), get_settings()
    errors = jwt.exceptions
    try:
        header = jwt.get_unverified_header(id_token)
        if header.get("alg") not in p.algorithms:
            raise SigninRefused("invalid_token", f"The ID token's algorithm {header.get('alg')!r} is not allowed.", 401)
        key = _jwks_client(p.jwks_uri).get_signing_key_from_jwt(id_token)
        claims = jwt.decode(
            id_token,
            key.key,
            algorithms=list(p.algorithms),
            audience=s.oidc_client_id,
            issuer=p.issuer,
            leeway=LEEWAY,
            options={"require": ["iss", "sub", "aud", "exp", "iat", "nonce"]},
        )
    except SigninRefused:
        raise
    except errors.ExpiredSignatureError as exc:
        raise SigninRefused("invalid_token", "The ID token has expired.", 401) from exc
    except errors.InvalidAudienceError as exc:
        raise SigninRefused("invalid_token", "The ID token was issued to another client (aud).", 401) from exc
    except errors.InvalidIssuerError as exc:
        raise SigninRefused("invalid_token", "The ID token comes from another issuer (iss).", 401) from exc
    except errors.PyJWKClientConnectionError as exc:
        raise SigninRefused("temporarily_unavailable", "The platform's signing keys cannot be fetched.", 502) from exc
    except errors.PyJWKClientError as exc:
        raise SigninRefused(
            "invalid_token", "The ID token is signed with a key the platform does not publish (unknown kid).", 401
        ) from exc
    except errors.InvalidSignatureError as exc:
        raise SigninRefused("invalid_token", "The ID token's signature does not verify.", 401) from exc
    except errors.PyJWTError as exc:
        raise SigninRefused("invalid_token", f"The ID token is invalid: {exc}.", 401) from exc
    azp = claims.get("azp")
    if isinstance(claims.get("aud"), list) and len(claims["aud"]) > 1 and azp != s.oidc_client_id:
        raise SigninRefused("invalid_token", "The ID token names another authorized party (azp).", 401)
    if azp is not None and azp != s.oidc_client_id:
        raise SigninRefused("invalid_token", "The ID token names another authorized party (azp).", 401)
    if not isinstance(claims.get("nonce"), str) or not crypto.equal(claims["nonce"], nonce):
        raise SigninRefused(
            "invalid_token", "The ID token's nonce does not match this sign-in (a replayed token).", 401
        )
    iat = claims.get("iat")
    if not isinstance(iat, int | float) or clock.now_int() - iat > MAX_ID_TOKEN_AGE + LEEWAY:
        raise SigninRefused("invalid_token", "The ID token was issued too long ago (iat).", 401)
    if not isinstance(claims.get("sub"), str) or not claims["sub"]:
        raise SigninRefused("invalid_token", "The ID token has no subject.", 401)
    return claims


def finish(query: dict[str, str], cookie_state: str | None) -> tuple[str, str]:
    """Check the callback and sign the user in: (the session secret, where to go next)."""
    from partner.features.oauth import authorize

    state = query.get("state") or ""
    if not state or not cookie_state or not crypto.equal(state, cookie_state):
        raise SigninRefused(
            "invalid_request", "This sign-in was not started in this browser (state mismatch); start again."
        )
    item = _consume(state)
    if query.get("error"):
        message = (
            "You cancelled the sign-in." if query["error"] == "access_denied" else "The platform refused the sign-in."
        )
        raise SigninRefused("access_denied", message)
    code = query.get("code") or ""
    if not code:
        raise SigninRefused("invalid_request", "The platform sent no code.")
    tokens = _exchange(code, str(item["verifier"]))
    claims = verify_id_token(tokens["id_token"], str(item["nonce"]))
    user_id = user_store.user_id_for_sub(claims["sub"])
    if user_id is None or user_store.get_user(user_id) is None:
        raise SigninRefused(
            "access_denied",
            "Your platform account has no wallet here yet; the platform "
            "provisions it (platform API) before you can connect apps.",
        )
    return authorize.create_session(user_id), safe_next(str(item.get("next") or ""))


def cookie(name: str, value: str, max_age: int, path: str = "/") -> str:
    """A host-only cookie of the auth host: Secure, HttpOnly, SameSite=Lax."""
    return f"{name}={value}; Path={path}; Max-Age={max_age}; Secure; HttpOnly; SameSite=Lax"


def cookie_value(header: str | None, name: str) -> str | None:
    value = None
    for part in (header or "").split(";"):
        key, _, v = part.strip().partition("=")
        if key == name:
            value = v
    return value
