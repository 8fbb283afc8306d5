"""The platform's OpenID provider, stood in on the devstack by `oidc-provider-mock` on its own port; the
service registers there as a confidential client, its secret in SSM (moto). Nonces and PKCE S256 are
required (`_require_pkce` adds authlib's CodeChallenge, which the package leaves out).
"""

from __future__ import annotations

import threading
from typing import Any

import httpx

SECRET_PARAMETER = "/partner-dev/oidc-client-secret"
# The package's page frame loads its stylesheet from a CDN; this one is self-contained (the
# devstack reaches nothing outside the machine) and says what the page stands in for. The package's
# user buttons end in "⮞" (U+2B9E), which most fonts lack (a missing-glyph box): left out.
_BASE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Platform sign-in (devstack stand-in)</title><style>
body{font-family:system-ui,sans-serif;background:#f4f5f7;margin:0;color:#1c2028}
main{max-width:36rem;margin:2rem auto;background:#fff;border-radius:12px;padding:1.5rem 2rem;
box-shadow:0 1px 3px rgba(0,0,0,.08)}
ul{list-style:none;padding:0;display:flex;gap:.5rem;flex-wrap:wrap}
button{font-size:1rem;padding:.55rem 1.1rem;border-radius:8px;border:1px solid #1f6feb;background:#1f6feb;
color:#fff;cursor:pointer}
button.secondary{background:#fff;color:#1f6feb}
input{font-size:1rem;padding:.5rem;border:1px solid #c9ced6;border-radius:6px}
fieldset{border:0;padding:0;display:flex;gap:.5rem}
table{font-size:.85rem}code{word-break:break-all}
.stand-in{font-size:.85rem;color:#5b6270}
main .authorize-button::after{content:none}
</style></head><body><main>
<p class="stand-in">The platform's OpenID provider, stood in on the devstack: pick a platform user.</p>
{% block content %}{{ content }}{% endblock %}</main></body></html>
"""


class Provider:
    def __init__(self, server: Any, thread: threading.Thread) -> None:
        self.server, self._thread = server, thread

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_port}"

    def register_client(self, redirect_uri: str) -> dict[str, str]:
        """Dynamic client registration (RFC 7591): {client_id, client_secret}."""
        answer = httpx.post(
            f"{self.url}/oauth2/clients",
            json={"redirect_uris": [redirect_uri], "token_endpoint_auth_method": "client_secret_basic"},
            timeout=10,
        )
        answer.raise_for_status()
        body = answer.json()
        return {"client_id": body["client_id"], "client_secret": body["client_secret"]}

    def stop(self) -> None:
        self.server.shutdown()
        self._thread.join(timeout=5)
        self.server.server_close()


def start_provider(subjects: list[tuple[str, dict[str, Any]]], port: int = 0) -> Provider:
    """The provider on 127.0.0.1:`port` (0: any free port), `subjects` (sub, claims) listed on its page."""
    import oidc_provider_mock
    import werkzeug.serving

    app = oidc_provider_mock.app(
        require_client_registration=True,
        require_nonce=True,
        user_claims=[oidc_provider_mock.User(sub=sub, claims=claims) for sub, claims in subjects],
    )
    app.debug = False  # init_app turns Flask's debug mode on; no tracebacks to the browser here
    _require_pkce(app)
    import jinja2

    app.jinja_loader = jinja2.ChoiceLoader([jinja2.DictLoader({"_base.html": _BASE}), app.jinja_loader])
    server = werkzeug.serving.make_server("127.0.0.1", port, app, threaded=True)
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.2}, name="devstack-oidc", daemon=True
    )
    thread.start()
    return Provider(server, thread)


def _require_pkce(app: Any) -> None:
    """PKCE S256 on the package's authorization-code grant (RFC 7636, RFC 9700 2.1.1).

    The authorization request must carry an S256 `code_challenge`, and the token request its
    `code_verifier`: a missing one is `invalid_request`, a wrong one `invalid_grant` (authlib's
    `CodeChallenge`, required). The package's codes are frozen records without a challenge field,
    so the grant keeps each code's challenge beside them. authlib offers no public way to add an
    extension to a registered grant: the package's entry in the server's grant lists is replaced,
    and a package whose registration differs fails here rather than running without PKCE.
    """
    import flask
    from oidc_provider_mock import _app

    challenges: dict[str, str] = {}  # authorization code -> its S256 code_challenge
    code_grant, pkce = _pkce_grant(challenges)
    with app.test_request_context():
        app.preprocess_request()  # the package's before_request hook puts its server on flask.g
        server = flask.g._authlib_authorization_server
    for grants in (server._authorization_grants, server._token_grants):
        found = [i for i, (grant, _) in enumerate(grants) if grant is _app.AuthorizationCodeGrant]
        if len(found) != 1:
            raise RuntimeError("oidc-provider-mock registers its code grant differently: PKCE not enforced")
        extensions = grants[found[0]][1] or []
        grants[found[0]] = (code_grant, [*extensions, pkce])

    discovery = app.view_functions["oidc-provider-mock.openid_config"]

    def openid_config() -> Any:  # the discovery document says so (RFC 8414)
        return flask.jsonify({**discovery().get_json(), "code_challenge_methods_supported": ["S256"]})

    app.view_functions["oidc-provider-mock.openid_config"] = openid_config


def _pkce_grant(challenges: dict[str, str]) -> tuple[type, Any]:
    """The package's code grant keeping each code's challenge in `challenges`, and authlib's
    `CodeChallenge` extension requiring S256 that reads them."""
    from authlib.oauth2.rfc6749 import InvalidRequestError
    from authlib.oauth2.rfc7636 import CodeChallenge
    from oidc_provider_mock import _app

    class S256CodeChallenge(CodeChallenge):
        SUPPORTED_CODE_CHALLENGE_METHOD = ["S256"]
        DEFAULT_CODE_CHALLENGE_METHOD = "S256"

        def validate_code_challenge(self, grant: Any, redirect_uri: str) -> None:
            data = grant.request.payload.data
            if not data.get("code_challenge"):
                raise InvalidRequestError("Missing 'code_challenge': PKCE S256 is required")
            if data.get("code_challenge_method") != "S256":
                raise InvalidRequestError("'code_challenge_method' must be S256")
            super().validate_code_challenge(grant, redirect_uri)

        def get_authorization_code_challenge(self, authorization_code: Any) -> str | None:
            return challenges.get(authorization_code.code)

        def get_authorization_code_challenge_method(self, authorization_code: Any) -> str:
            return "S256"

    class PkceCodeGrant(_app.AuthorizationCodeGrant):
        def save_authorization_code(self, code: str, request: Any) -> None:
            super().save_authorization_code(code, request)
            challenges[code] = request.payload.data["code_challenge"]

        def delete_authorization_code(self, authorization_code: Any) -> None:
            super().delete_authorization_code(authorization_code)
            challenges.pop(authorization_code.code, None)

    return PkceCodeGrant, S256CodeChallenge(required=True)


def store_secret(moto_url: str, secret: str) -> str:
    """Put the client secret in SSM (SecureString) on moto; the parameter's name."""
    import boto3

    from devstack.events import REGION

    ssm = boto3.client(
        "ssm", endpoint_url=moto_url, region_name=REGION, aws_access_key_id="testing", aws_secret_access_key="testing"
    )
    ssm.put_parameter(Name=SECRET_PARAMETER, Value=secret, Type="SecureString", Overwrite=True)
    return SECRET_PARAMETER
