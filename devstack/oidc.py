"""The platform's OpenID provider, stood in on the devstack (issue 28).

`oidc-provider-mock` (a maintained OpenID provider for development and tests, built on authlib's
server-side OAuth 2.0 / OpenID Connect grants behind Flask): discovery, JWKS (RS256), the
authorization endpoint with its own sign-in page listing the seeded users ("Authorize as alice"),
the token endpoint, userinfo and dynamic client registration. Started on its own port; the
service registers as a confidential client there (redirect URI `{gateway}/account/signin/callback`)
and its client secret goes to SSM Parameter Store (moto), where the sign-in function reads it,
as it does in AWS. Nonces are required. The stand-in does not check PKCE (authlib's CodeChallenge
extension is not registered by the package); the service sends S256 all the same.
"""

from __future__ import annotations

import threading
from typing import Any

import httpx

SECRET_PARAMETER = "/partner-dev/oidc-client-secret"
# The package's page frame loads its stylesheet from a CDN; this one is self-contained (the
# devstack reaches nothing outside the machine) and says what the page stands in for.
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
    import jinja2

    app.jinja_loader = jinja2.ChoiceLoader([jinja2.DictLoader({"_base.html": _BASE}), app.jinja_loader])
    server = werkzeug.serving.make_server("127.0.0.1", port, app, threaded=True)
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.2}, name="devstack-oidc", daemon=True
    )
    thread.start()
    return Provider(server, thread)


def store_secret(moto_url: str, secret: str) -> str:
    """Put the client secret in SSM (SecureString) on moto; the parameter's name."""
    import boto3

    from devstack.events import REGION

    ssm = boto3.client(
        "ssm", endpoint_url=moto_url, region_name=REGION, aws_access_key_id="testing", aws_secret_access_key="testing"
    )
    ssm.put_parameter(Name=SECRET_PARAMETER, Value=secret, Type="SecureString", Overwrite=True)
    return SECRET_PARAMETER
