"""Webhook URLs cannot reach private addresses (issue 23, item 2: SSRF).

The host parser reads IPv4 as a resolver does (glibc's inet_aton is the oracle), the URL
check refuses what is plainly private at `webhook set`, and a delivery resolves once,
checks every address and connects to the checked one (TLS still verifies the name), with no
redirect followed. Real listeners on 127.0.0.1; DNS is a monkeypatched getaddrinfo.
"""

from __future__ import annotations

import ipaddress
import socket
import ssl
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
import trustme
from hypothesis import given, settings
from hypothesis import strategies as st

from partner.core import egress, tls
from partner.jobs import webhooks
from testkit.helpers import Served

PUBLIC = "93.184.215.14"  # a globally routable address (never connected to: see the rebinding test)
NAME = "hooks.acme-partner.com"

# the issue's reproductions: each was accepted for a live client
ISSUE_URLS = [
    "https://127.1/",
    "https://2130706433/",
    "https://0x7f000001/",
    "https://0177.0.0.1/",
    "https://localhost./",
    "https://100.64.0.1/",
    "https://127.0.0.1.nip.io/",
    "https://metadata.google.internal/",
]


# ---------------------------------------------------------------- the host parser


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("127.0.0.1", "127.0.0.1"),
        ("127.1", "127.0.0.1"),
        ("127.0.1", "127.0.0.1"),
        ("2130706433", "127.0.0.1"),
        ("0x7f000001", "127.0.0.1"),
        ("0X7F000001", "127.0.0.1"),
        ("0177.0.0.1", "127.0.0.1"),
        ("0177.1", "127.0.0.1"),
        ("0x7f.0.0.0x1", "127.0.0.1"),
        ("017700000001", "127.0.0.1"),
        ("0", "0.0.0.0"),
        ("10.0x10.0377.1", "10.16.255.1"),
        ("4294967295", "255.255.255.255"),
        ("1.16777215", "1.255.255.255"),
        ("00000000000000000001", "0.0.0.1"),
        ("4294967296", None),
        ("1.16777216", None),
        ("256.0.0.1", None),
        ("08", None),
        ("0x", None),
        ("0x.1", None),
        ("1.2.3.4.5", None),
        ("1..2", None),
        ("", None),
        (".1", None),
        ("+1", None),
        ("1 ", None),
        ("0xg", None),
        ("example.com", None),
        ("1e3", None),
        ("١٢٧.0.0.1", None),
    ],
)
def test_inet_aton_reads_every_form_a_resolver_takes(text, expected):
    found = egress.inet_aton(text)
    assert (None if found is None else str(found)) == expected


def test_one_trailing_dot_is_the_same_address_as_without():
    assert str(egress.parse_ipv4("127.0.0.1.")) == "127.0.0.1"
    assert str(egress.parse_ipv4("0x7f000001.")) == "127.0.0.1"
    assert egress.parse_ipv4("127.0.0.1..") is None


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet="0123456789abcdefxX.", max_size=24))
def test_inet_aton_agrees_with_the_c_library(text):
    """Strings of digits, hex letters, x and dots: the same answer as glibc's inet_aton."""
    try:
        expected = ipaddress.IPv4Address(socket.inet_aton(text))
    except OSError:
        expected = None
    assert egress.inet_aton(text) == expected


def _render(number: int, sizes: list[int], bases: list[int]) -> str:
    """`number` written in len(sizes) parts of sizes[i] bytes each, part i in base bases[i]."""
    parts, shift = [], 32
    for size, base in zip(sizes, bases[: len(sizes)], strict=True):
        shift -= 8 * size
        value = (number >> shift) & ((1 << (8 * size)) - 1)
        parts.append(str(value) if base == 10 else f"0{value:o}" if base == 8 else f"0x{value:x}")
    return ".".join(parts)


@settings(max_examples=300, deadline=None)
@given(
    st.integers(0, 2**32 - 1),
    st.integers(1, 4),
    st.lists(st.sampled_from([8, 10, 16]), min_size=4, max_size=4),
    st.booleans(),
)
def test_any_address_in_any_form_parses_back_to_itself(number, count, bases, trailing_dot):
    sizes = [1] * (count - 1) + [4 - (count - 1)]
    text = _render(number, sizes, bases) + ("." if trailing_dot else "")
    assert egress.parse_ipv4(text) == ipaddress.IPv4Address(number)


# ---------------------------------------------------------------- which addresses are refused


@pytest.mark.parametrize(
    ("address", "reason"),
    [
        ("127.0.0.1", "loopback"),
        ("127.255.0.9", "loopback"),
        ("10.1.2.3", "private"),
        ("172.16.0.1", "private"),
        ("192.168.1.1", "private"),
        ("169.254.169.254", "link-local"),
        ("100.64.0.1", "shared address space (CGNAT)"),
        ("100.127.255.255", "shared address space (CGNAT)"),
        ("224.0.0.1", "multicast"),
        ("239.1.1.1", "multicast"),
        ("0.0.0.0", "unspecified"),
        ("0.1.2.3", "private"),
        ("240.0.0.1", "reserved"),
        ("255.255.255.255", "reserved"),
        ("192.0.2.1", "private"),
        ("198.18.0.1", "private"),
        ("192.88.99.1", "6to4 relay anycast"),
        ("::1", "loopback"),
        ("::", "unspecified"),
        ("fe80::1", "link-local"),
        ("fc00::1", "private"),
        ("fd12:3456::1", "private"),
        ("ff02::1", "multicast"),
        ("fec0::1", "site-local"),
        ("::ffff:127.0.0.1", "loopback (IPv4 127.0.0.1 inside IPv6)"),
        ("::ffff:169.254.169.254", "link-local (IPv4 169.254.169.254 inside IPv6)"),
        ("64:ff9b::a00:1", "private (IPv4 10.0.0.1 inside IPv6)"),
        ("64:ff9b::7f00:1", "loopback (IPv4 127.0.0.1 inside IPv6)"),
        ("::7f00:1", "IPv4-compatible (deprecated)"),
        ("2002:7f00:1::1", "6to4 (IPv4 127.0.0.1 inside IPv6)"),
        ("2002:808:808::1", "6to4 (IPv4 8.8.8.8 inside IPv6)"),
        ("2001::1", "Teredo"),
        ("2001:db8::1", "private"),
        ("64:ff9b:1::1", "private"),
        ("100::1", "private"),
        ("8.8.8.8", None),
        ("93.184.215.14", None),
        ("2606:4700::1111", None),
        ("64:ff9b::808:808", None),
        ("::ffff:8.8.8.8", None),
    ],
)
def test_refusal_names_each_kind_of_non_public_address(address, reason):
    assert egress.refusal(ipaddress.ip_address(address)) == reason


@pytest.mark.parametrize("address", ["127.0.0.1", "127.9.9.9", "::1", "::ffff:127.0.0.1"])
def test_loopback_only_passes_when_allowed(address):
    assert egress.refusal(ipaddress.ip_address(address), allow_loopback=True) is None
    assert egress.refusal(ipaddress.ip_address(address)) is not None


@pytest.mark.parametrize("address", ["10.0.0.1", "169.254.169.254", "100.64.0.1", "0.0.0.0", "fe80::1"])
def test_allowing_loopback_allows_nothing_else(address):
    assert egress.refusal(ipaddress.ip_address(address), allow_loopback=True) is not None


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_ipv4_inside_ipv6_is_judged_as_the_ipv4_address(number):
    v4 = ipaddress.IPv4Address(number)
    mapped = ipaddress.IPv6Address(0xFFFF << 32 | number)
    nat64 = ipaddress.IPv6Address(int(ipaddress.IPv6Address("64:ff9b::")) | number)
    for wrapped in (mapped, nat64):
        assert (egress.refusal(wrapped) is None) == (egress.refusal(v4) is None)


# ---------------------------------------------------------------- at `webhook set`


def _refused(url: str, status: str) -> bool:
    """Whether `webhook set` refuses `url` for a client of `status` (ValueError)."""
    try:
        webhooks.check_url(url, status)
    except ValueError:
        return True
    return False


@pytest.mark.parametrize(
    "url",
    ISSUE_URLS
    + [
        "https://127.0.0.1/",
        "https://127.0.0.1./",
        "https://0/",
        "https://0.0.0.0/",
        "https://10.0.0.1/",
        "https://169.254.169.254/latest/meta-data/",
        "https://[::1]/",
        "https://[::ffff:127.0.0.1]/",
        "https://[::ffff:a9fe:a9fe]/",
        "https://[64:ff9b::a9fe:a9fe]/",
        "https://[fe80::1%25eth0]/",
        "https://[fd00::1]/",
        "https://localhost/",
        "https://LOCALHOST/",
        "https://api.localhost/",
        "https://ｌｏｃａｌｈｏｓｔ/",
        "https://127。0。0。1/",
        "https://localhost.localdomain/",
        "https://metadata/",
        "https://metadata.google.internal./computeMetadata/v1/",
        "https://instance-data.ec2.internal/",
        "https://ip-10-0-0-1.ec2.internal/",
        "https://printer.local/",
        "https://router.home.arpa/",
        "https://kubernetes.default.svc/",
        "https://x.svc.cluster.local/",
        "https://hooks.test/",
        "https://intranet/",
        "https://7f000001.nip.io/",
        "https://10-0-0-1.sslip.io/",
        "https://1.1.1.1.nip.io/",
        "https://app.localtest.me/",
        "https://lvh.me/",
        "https://10.0.0.1.acme-partner.com/",
        "https://ip-169-254-169-254.acme-partner.com/",
        "https://1.1.1.256/",
        "https://a..b.com/",
        "https://-a.com/",
        "https://%31%32%37.0.0.1/",
        "https://1.0.0.127.in-addr.arpa/",
    ],
)
def test_live_client_cannot_register_a_private_or_internal_host(url):
    assert _refused(url, "live")


@pytest.mark.parametrize(
    "url",
    [
        "https://partner.example.com/hooks",
        "https://hooks.acme-partner.com:8443/in?x=1",
        "https://8.8.8.8/h",
        "https://[2606:4700::1111]/h",
        "https://xn--bcher-kva.com/h",
        "https://hooks.acme-partner.com./h",
        "https://1-2-3-4.acme-partner.com/",
        "https://api-v2.acme.io/h",
    ],
)
def test_live_client_keeps_public_hosts(url):
    assert webhooks.check_url(url, "live") == url


@pytest.mark.parametrize(
    "url",
    [
        "http://localhost:9000/hooks",
        "http://127.0.0.1:9000/hooks",
        "http://[::1]:9000/hooks",
        "https://localhost:8443/",
        "https://127.1/",
        "https://api.localhost/",
        "https://[::1]/",
    ],
)
def test_development_client_keeps_loopback_urls(url):
    assert webhooks.check_url(url, "development") == url


@pytest.mark.parametrize(
    "url",
    [
        "https://10.0.0.1/",
        "https://169.254.169.254/",
        "https://metadata.google.internal/",
        "https://127.0.0.1.nip.io/",
        "http://10.0.0.1/",
        "http://example.com/",
    ],
)
def test_development_client_gets_loopback_and_nothing_else_private(url):
    assert _refused(url, "development")


# ---------------------------------------------------------------- at delivery


@pytest.fixture
def dns(monkeypatch):
    """A fake DNS: `answers[name]` is a list of answers, one per lookup (the last one repeats);
    every other name and every IP literal goes to the real getaddrinfo. `asked` counts lookups."""
    real = socket.getaddrinfo
    answers: dict[str, list[list[str]]] = {}
    asked: dict[str, int] = {}

    def fake(host, port, family=0, type=0, proto=0, flags=0):
        name = host.decode() if isinstance(host, bytes) else host
        if name not in answers:
            return real(host, port, family, type, proto, flags)
        n = asked[name] = asked.get(name, 0) + 1
        script = answers[name]
        out = []
        for address in script[min(n, len(script)) - 1]:
            fam = socket.AF_INET6 if ":" in address else socket.AF_INET
            sockaddr = (address, int(port or 0), 0, 0) if fam == socket.AF_INET6 else (address, int(port or 0))
            out.append((fam, socket.SOCK_STREAM, 6, "", sockaddr))
        return out

    monkeypatch.setattr(socket, "getaddrinfo", fake)
    return answers, asked


EVENT = {
    "id": "evt_" + "0" * 32,
    "type": "transaction.confirmed",
    "created": 1,
    "data": {"signature": "s", "kind": "buy", "mint": None, "wallet": "w", "slot": 1, "error": None},
}
SECRET = webhooks.new_secret()


@pytest.mark.parametrize(
    "answer",
    [
        ["10.0.0.7"],
        ["127.0.0.1"],
        ["169.254.169.254"],
        ["100.64.1.1"],
        ["::1"],
        ["fd00::5"],
        ["::ffff:10.0.0.7"],
        [PUBLIC, "10.0.0.7"],
    ],
)
def test_a_name_resolving_to_a_private_address_is_refused_at_delivery(dns, listener, answer):
    answers, _ = dns
    answers[NAME] = [answer]
    status, outcome = webhooks.post(f"https://{NAME}:{listener.port}/hooks", SECRET, EVENT, client_status="live")
    blocked = next(a for a in answer if a != PUBLIC)
    assert status is None
    assert outcome.startswith(f"refused: {NAME} resolves to {ipaddress.ip_address(blocked)}, not a public address (")
    assert listener.accepted == 0


def test_a_stored_url_that_predates_the_rules_is_refused_at_delivery(listener):
    """A URL stored before these checks (or a development client promoted to live) is checked
    again at each delivery, for the client's status as it is then."""
    for url in (
        f"https://127.1:{listener.port}/",
        f"https://0x7f000001:{listener.port}/",
        f"http://127.0.0.1:{listener.port}/",
        f"https://[::ffff:127.0.0.1]:{listener.port}/",
    ):
        status, outcome = webhooks.post(url, SECRET, EVENT, client_status="live")
        assert (status, outcome.split(":")[0]) == (None, "refused"), outcome
    assert listener.accepted == 0


def test_rebinding_cannot_swap_the_checked_address(dns, listener, monkeypatch):
    """DNS answers a public address first and loopback afterwards: the connection goes to the
    public address that was checked, never to the listener on loopback."""
    from urllib3.util import connection

    answers, asked = dns
    answers[NAME] = [[PUBLIC], ["127.0.0.1"]]
    dialed: list[tuple[str, int]] = []

    def dial(address, *args, **kwargs):  # the network is not reached: the test only needs where it would go
        dialed.append(address)
        raise ConnectionRefusedError(111, "refused in the test")

    monkeypatch.setattr(connection, "create_connection", dial)
    status, outcome = webhooks.post(f"https://{NAME}:{listener.port}/hooks", SECRET, EVENT, client_status="live")
    assert (status, outcome) == (None, "error: NewConnectionError")  # an ordinary failure: retried
    assert dialed == [(PUBLIC, listener.port)]
    assert asked[NAME] == 1  # resolved once, by the check; the connection did not ask again
    assert listener.accepted == 0


def test_each_checked_address_is_tried_in_turn_and_only_those(dns, monkeypatch):
    from urllib3.util import connection

    answers, _ = dns
    answers[NAME] = [[PUBLIC, "8.8.8.8", "2606:4700::1111"]]
    dialed: list[str] = []

    def dial(address, *args, **kwargs):
        dialed.append(address[0])
        raise ConnectionRefusedError(111, "refused in the test")

    monkeypatch.setattr(connection, "create_connection", dial)
    assert webhooks.post(f"https://{NAME}/hooks", SECRET, EVENT)[1] == "error: NewConnectionError"
    assert dialed == [PUBLIC, "8.8.8.8", "2606:4700::1111"]


def test_a_resolver_failure_is_a_passing_error_not_a_refusal(dns):
    answers, _ = dns
    answers[NAME] = [[]]
    assert webhooks.post(f"https://{NAME}/hooks", SECRET, EVENT) == (None, "error: dns OSError")


class Recorder(Served):
    """An HTTP(S) receiver on 127.0.0.1 recording each request's Host header, path and the SNI name."""

    def __init__(self, status: int = 204, location: str | None = None, context: ssl.SSLContext | None = None):
        self.got: list[dict[str, str]] = []
        self.sni: list[str | None] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                outer.got.append(
                    {"host": self.headers["Host"], "path": self.path, "signature": self.headers["webhook-signature"]}
                )
                self.send_response(status)
                if location:
                    self.send_header("Location", location)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args) -> None:
                pass

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        if context is not None:
            context.sni_callback = lambda sock, name, ctx: outer.sni.append(name) and None
            server.socket = context.wrap_socket(server.socket, server_side=True)
        self.serve(server)


@pytest.fixture
def tls_receiver(monkeypatch):
    """An HTTPS receiver whose certificate names `cert_name`, trusted by the service's TLS context."""
    made: list[Recorder] = []
    ca = trustme.CA()
    client_context = ssl.create_default_context()
    ca.configure_trust(client_context)
    monkeypatch.setattr(tls, "_context", client_context)

    def make(cert_name: str) -> Recorder:
        server_context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        ca.issue_cert(cert_name).configure_cert(server_context)
        made.append(Recorder(context=server_context))
        return made[-1]

    yield make
    for r in made:
        r.stop()


def test_the_pinned_connection_keeps_sni_host_and_certificate_of_the_name(dns, tls_receiver):
    """The connection goes to the checked address; TLS still sends and verifies the name and
    the Host header carries it (a development client may use loopback)."""
    answers, asked = dns
    rx = tls_receiver(NAME)
    answers[NAME] = [["127.0.0.1"]]
    status, outcome = webhooks.post(f"https://{NAME}:{rx.port}/hooks?a=1", SECRET, EVENT, client_status="development")
    assert (status, outcome) == (204, "delivered")
    assert rx.sni == [NAME]
    assert [(g["host"], g["path"]) for g in rx.got] == [(f"{NAME}:{rx.port}", "/hooks?a=1")]
    assert rx.got[0]["signature"].startswith("v1,")
    assert asked[NAME] == 1


def test_the_certificate_is_verified_for_the_name_not_the_address(dns, tls_receiver):
    answers, _ = dns
    rx = tls_receiver("someone-else.example.com")
    answers[NAME] = [["127.0.0.1"]]
    status, outcome = webhooks.post(f"https://{NAME}:{rx.port}/hooks", SECRET, EVENT, client_status="development")
    assert (status, outcome) == (None, "error: SSLError")
    assert rx.got == []


def test_a_redirect_is_a_failed_delivery_and_is_not_followed():
    target = Recorder()
    redirecting = Recorder(status=302, location=f"http://127.0.0.1:{target.port}/stolen")
    try:
        for code in (301, 302, 303, 307, 308):
            redirecting_code = Recorder(status=code, location=f"http://127.0.0.1:{target.port}/stolen")
            try:
                assert webhooks.post(
                    f"http://127.0.0.1:{redirecting_code.port}/hooks", SECRET, EVENT, client_status="development"
                ) == (code, f"http {code}")
            finally:
                redirecting_code.stop()
        assert webhooks.post(
            f"http://localhost:{redirecting.port}/hooks", SECRET, EVENT, client_status="development"
        ) == (302, "http 302")
        assert len(redirecting.got) == 1 and target.got == []
    finally:
        target.stop()
        redirecting.stop()
