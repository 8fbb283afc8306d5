"""Sign-in through the platform's OpenID provider (issue 28): the relying party's checks.

The provider here is the test's own (discovery, JWKS and a token endpoint on a local port),
so each ID token is one the test signs with its own keys: a good one, one by an unknown key,
`alg: none`, an expired one, one for another audience, one with another nonce (a replayed
token). Every refusal is an error page with no `app_session` cookie.
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import rsa

from testkit.helpers import answer, invoke

CLIENT_ID = "partner-api-test"
SECRET = "s3cret-from-ssm"
REDIRECT = "https://auth.example/account/signin/callback"


class OwnProvider:
    """Discovery, JWKS and a token endpoint; codes are single use (a replay: invalid_grant)."""

    def __init__(self) -> None:
        self.key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.kid = "k1"
        self.codes: dict[str, str] = {}  # code -> id_token to answer
        self.used: set[str] = set()
        self.token_requests: list[dict] = []
        provider = self

        class Handler(BaseHTTPRequestHandler):
            def _json(self, status: int, body: object) -> None:
                answer(self, status, json.dumps(body).encode(), {"Content-Type": "application/json"})

            def do_GET(self) -> None:
                if self.path == "/.well-known/openid-configuration":
                    return self._json(
                        200,
                        {
                            "issuer": provider.issuer,
                            "authorization_endpoint": f"{provider.issuer}/authorize",
                            "token_endpoint": f"{provider.issuer}/token",
                            "jwks_uri": f"{provider.issuer}/jwks",
                            "id_token_signing_alg_values_supported": ["RS256"],
                        },
                    )
                if self.path == "/jwks":
                    jwk = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(provider.key.public_key()))
                    return self._json(200, {"keys": [{**jwk, "kid": provider.kid, "use": "sig", "alg": "RS256"}]})
                return self._json(404, {})

            def do_POST(self) -> None:
                form = {
                    k: v[0] for k, v in parse_qs(self.rfile.read(int(self.headers["Content-Length"])).decode()).items()
                }
                provider.token_requests.append({**form, "authorization": self.headers.get("Authorization")})
                code = form.get("code", "")
                if code not in provider.codes or code in provider.used:
                    return self._json(400, {"error": "invalid_grant"})
                provider.used.add(code)
                return self._json(200, {"access_token": "at", "token_type": "Bearer", "id_token": provider.codes[code]})

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.issuer = f"http://127.0.0.1:{self.server.server_port}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def id_token(
        self, nonce: str, sub: str, *, key=None, kid: str | None = None, alg: str = "RS256", **claims: object
    ) -> str:
        now = int(time.time())
        payload = {
            "iss": self.issuer,
            "sub": sub,
            "aud": CLIENT_ID,
            "iat": now,
            "exp": now + 300,
            "nonce": nonce,
            **claims,
        }
        if alg == "none":
            return jwt.encode(payload, None, algorithm="none", headers={"kid": self.kid})
        return jwt.encode(payload, key or self.key, algorithm=alg, headers={"kid": kid or self.kid})


@pytest.fixture(scope="module")
def provider():
    p = OwnProvider()
    yield p
    p.server.shutdown()


@pytest.fixture
def oidc(provider, aws_stack, monkeypatch):
    import boto3

    from partner.core.settings import reset_settings

    ssm = boto3.client("ssm", endpoint_url=aws_stack.endpoint_url)
    ssm.put_parameter(Name="/test/oidc-secret", Value=SECRET, Type="SecureString", Overwrite=True)
    for name, value in {
        "OIDC_ISSUER": provider.issuer,
        "OIDC_CLIENT_ID": CLIENT_ID,
        "OIDC_CLIENT_SECRET_PARAMETER": "/test/oidc-secret",
        "OIDC_REDIRECT_URI": REDIRECT,
        "OIDC_JWKS_COOLDOWN_SECONDS": "0",
    }.items():
        monkeypatch.setenv(name, value)
    reset_settings()
    yield provider
    monkeypatch.undo()
    reset_settings()


@pytest.fixture
def linked(aws_stack):
    from partnerctl import admin

    sub = f"sub-{time.time_ns()}"
    return admin.create_user(sub=sub, twitter="linked") | {"sub": sub}


def _start(ip: str, next_path: str = "oauth/authorize?client_id=abc&state=x"):
    result = invoke("account_signin", "GET", "/account/signin", query={"next": next_path}, source_ip=ip)
    assert result.status == 302, result.body
    location = urlsplit(result.headers["location"])
    params = {k: v[0] for k, v in parse_qs(location.query).items()}
    cookie = result.headers["set-cookie"]
    assert cookie.startswith("app_signin=") and "HttpOnly" in cookie and "Secure" in cookie and "SameSite=Lax" in cookie
    return params, cookie.split(";")[0]


def _callback(ip: str, cookie: str | None, **query: str):
    return invoke(
        "account_signin",
        "GET",
        "/account/signin/callback",
        query=query,
        headers={"Cookie": cookie} if cookie else {},
        source_ip=ip,
    )


def _no_session(result) -> None:
    assert "app_session=app_ss_" not in result.headers.get("set-cookie", "")
    assert "location" not in result.headers


def test_start_redirects_to_the_provider_with_pkce_state_and_nonce(oidc, ip):
    params, _ = _start(ip)
    assert params["response_type"] == "code" and params["client_id"] == CLIENT_ID
    assert params["redirect_uri"] == REDIRECT and params["scope"] == "openid profile"
    assert params["code_challenge_method"] == "S256" and len(params["code_challenge"]) == 43
    assert len(params["state"]) >= 43 and len(params["nonce"]) >= 43 and params["state"] != params["nonce"]


def test_sign_in_round_trip_sets_the_session_and_returns_to_the_request(oidc, linked, ip):
    from partner.features.oauth import authorize

    params, cookie = _start(ip)
    oidc.codes["good-code"] = oidc.id_token(params["nonce"], linked["sub"])
    result = _callback(ip, cookie, code="good-code", state=params["state"])
    assert result.status == 302, result.body
    assert result.headers["location"] == "../../oauth/authorize?client_id=abc&state=x"
    cookies = result.raw["multiValueHeaders"]["Set-Cookie"]
    session = next(c for c in cookies if c.startswith("app_session="))
    assert {"Secure", "HttpOnly", "SameSite=Lax", "Path=/"} <= {p.strip() for p in session.split(";")}
    assert "Domain" not in session  # host-only: the auth host
    assert any(c.startswith("app_signin=;") and "Max-Age=0" in c for c in cookies)
    found = authorize.session_from_cookie(session.split(";")[0])
    assert found is not None and found[1].user_id == linked["user_id"]
    # the code went to the token endpoint with the client secret from SSM and the PKCE verifier
    request = oidc.token_requests[-1]
    import base64
    import hashlib

    assert request["authorization"] == "Basic " + base64.b64encode(f"{CLIENT_ID}:{SECRET}".encode()).decode()
    challenge = base64.urlsafe_b64encode(hashlib.sha256(request["code_verifier"].encode()).digest()).rstrip(b"=")
    assert challenge.decode() == params["code_challenge"] and request["redirect_uri"] == REDIRECT


def test_state_mismatch_is_refused(oidc, linked, ip):
    params, cookie = _start(ip)
    oidc.codes["c-state"] = oidc.id_token(params["nonce"], linked["sub"])
    other, _ = _start(ip)
    for cookie_sent, state in (
        (cookie, other["state"]),
        (None, params["state"]),
        ("app_signin=forged", params["state"]),
    ):
        result = _callback(ip, cookie_sent, code="c-state", state=state)
        assert result.status == 400 and "state mismatch" in result.body, result.body
        _no_session(result)
    assert "c-state" not in oidc.used  # refused before the code was exchanged


def test_a_replayed_callback_and_a_replayed_code_are_refused(oidc, linked, ip):
    params, cookie = _start(ip)
    oidc.codes["c-replay"] = oidc.id_token(params["nonce"], linked["sub"])
    assert _callback(ip, cookie, code="c-replay", state=params["state"]).status == 302
    again = _callback(ip, cookie, code="c-replay", state=params["state"])  # the same callback again
    assert again.status == 400 and "already completed" in again.body
    _no_session(again)
    # the used code in a fresh sign-in: the provider refuses it
    params2, cookie2 = _start(ip)
    replay = _callback(ip, cookie2, code="c-replay", state=params2["state"])
    assert replay.status == 400 and "invalid_grant" in replay.body
    _no_session(replay)


# each refused ID token, and what the sign-in page says about it
REFUSED_BECAUSE = {
    "wrong_key": "signature",
    "alg_none": "algorithm",
    "expired": "expired",
    "other_audience": "another client",
    "replayed_nonce": "nonce",
    "unknown_kid": "unknown kid",
    "other_issuer": "another issuer",
    "hs256_with_secret": "algorithm",
}


@pytest.mark.parametrize("case", list(REFUSED_BECAUSE))
def test_id_token_refusals(oidc, linked, ip, case):
    params, cookie = _start(ip)
    nonce, sub = params["nonce"], linked["sub"]
    now = int(time.time())
    token = {
        "wrong_key": lambda: oidc.id_token(
            nonce, sub, key=rsa.generate_private_key(public_exponent=65537, key_size=2048)
        ),
        "alg_none": lambda: oidc.id_token(nonce, sub, alg="none"),
        "expired": lambda: oidc.id_token(nonce, sub, iat=now - 900, exp=now - 600),
        "other_audience": lambda: oidc.id_token(nonce, sub, aud="another-client"),
        "replayed_nonce": lambda: oidc.id_token("a-nonce-of-another-sign-in", sub),
        "unknown_kid": lambda: oidc.id_token(
            nonce, sub, kid="rotated-away", key=rsa.generate_private_key(public_exponent=65537, key_size=2048)
        ),
        "other_issuer": lambda: oidc.id_token(nonce, sub, iss="https://evil.example"),
        "hs256_with_secret": lambda: jwt.encode(
            {"iss": oidc.issuer, "sub": sub, "aud": CLIENT_ID, "iat": now, "exp": now + 300, "nonce": nonce},
            SECRET,
            algorithm="HS256",
            headers={"kid": oidc.kid},
        ),
    }[case]()
    code = f"c-{case}-{time.time_ns()}"
    oidc.codes[code] = token
    result = _callback(ip, cookie, code=code, state=params["state"])
    assert result.status == 401, (case, result.status, result.body)
    assert "invalid_token" in result.body and "text/html" in result.headers["content-type"]
    assert REFUSED_BECAUSE[case] in result.body, result.body
    _no_session(result)


def test_an_unprovisioned_subject_gets_no_session(oidc, ip):
    params, cookie = _start(ip)
    oidc.codes["c-unknown-sub"] = oidc.id_token(params["nonce"], "never-provisioned")
    result = _callback(ip, cookie, code="c-unknown-sub", state=params["state"])
    assert result.status == 400 and "provisions" in result.body
    _no_session(result)


def test_a_cancelled_sign_in_gets_no_session(oidc, ip):
    params, cookie = _start(ip)
    result = _callback(ip, cookie, error="access_denied", state=params["state"])
    assert result.status == 400 and "cancelled" in result.body
    _no_session(result)


@pytest.mark.parametrize(
    "next_path",
    ["https://evil.example/x", "//evil.example", "/\\evil.example", "account/apps/../../x", "demo", "oauth/token"],
)
def test_sign_in_returns_only_to_the_pages_that_need_it(oidc, linked, ip, next_path):
    params, cookie = _start(ip, next_path)
    oidc.codes[f"c-next-{next_path}"] = oidc.id_token(params["nonce"], linked["sub"])
    result = _callback(ip, cookie, code=f"c-next-{next_path}", state=params["state"])
    assert result.status == 302 and result.headers["location"] == "../../account/apps"


def test_without_a_session_the_consent_page_redirects_to_sign_in(oidc, client, ip):
    from testkit.helpers import authorize_query, pkce_pair

    _, challenge = pkce_pair()
    query = authorize_query(client, challenge)
    result = invoke("oauth_authorize", "GET", "/oauth/authorize", query=query, source_ip=ip)
    assert result.status == 302
    location = urlsplit(result.headers["location"])
    assert location.path == "../account/signin"
    nxt = parse_qs(location.query)["next"][0]
    assert urlsplit(nxt).path == "oauth/authorize"
    assert {k: v[0] for k, v in parse_qs(urlsplit(nxt).query).items()} == query
    apps = invoke("account_apps", "GET", "/account/apps", source_ip=ip)
    assert apps.status == 302 and apps.headers["location"] == "../account/signin?next=account%2Fapps"


def test_a_rotated_signing_key_is_fetched_once_its_kid_appears(oidc, linked, ip):
    """The cached key set does not know the new kid: one refetch of the JWKS (PyJWKClient, cooldown 0
    here) finds it, and the sign-in succeeds; the old key is no longer published."""
    params, cookie = _start(ip)
    oidc.codes["c-before"] = oidc.id_token(params["nonce"], linked["sub"])
    assert _callback(ip, cookie, code="c-before", state=params["state"]).status == 302  # caches k1
    old_key, old_kid = oidc.key, oidc.kid
    oidc.key, oidc.kid = rsa.generate_private_key(public_exponent=65537, key_size=2048), "k2"
    try:
        params, cookie = _start(ip)
        oidc.codes["c-after"] = oidc.id_token(params["nonce"], linked["sub"])
        assert _callback(ip, cookie, code="c-after", state=params["state"]).status == 302
        params, cookie = _start(ip)  # a token by the retired key: k1 is gone from the refetched set
        oidc.codes["c-retired"] = oidc.id_token(params["nonce"], linked["sub"], key=old_key, kid=old_kid)
        retired = _callback(ip, cookie, code="c-retired", state=params["state"])
        assert retired.status == 401 and "unknown kid" in retired.body
    finally:
        oidc.key, oidc.kid = old_key, old_kid
