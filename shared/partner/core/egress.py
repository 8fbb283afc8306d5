"""Outbound HTTP to a host someone else names (webhook receivers): no private address (SSRF).

`check_host` refuses what is plainly not a public host when the URL is registered; `target` resolves
the name once when a request is sent and refuses any address that is not publicly routable; `post`
connects to the checked address. The rules: docs/security.md.
"""

from __future__ import annotations

import dataclasses
import ipaddress
import re
import socket
from typing import Any
from urllib.parse import SplitResult, urlsplit

from partner.core import lazy, tls, transport

urllib3 = lazy.module("urllib3")

Address = ipaddress.IPv4Address | ipaddress.IPv6Address

MAX_ADDRESSES = 4  # addresses tried in turn when a connection is refused

# Names that never lead to a public host: special-use and private-use names (RFC 6761 localhost,
# test, invalid; RFC 6762 local; RFC 8375 home.arpa; ICANN's private-use `internal`, which holds
# metadata.google.internal and EC2's *.ec2.internal / *.compute.internal; RFC 7686 onion;
# `localdomain`, `lan`, `intranet`, `corp`, `home` and `private`, common internal suffixes; `arpa`,
# where reverse-lookup names live), and cluster DNS (`*.svc`, `*.cluster.local`).
BLOCKED_SUFFIXES = (
    "localhost",
    "local",
    "internal",
    "localdomain",
    "home.arpa",
    "arpa",
    "test",
    "invalid",
    "example",
    "onion",
    "lan",
    "intranet",
    "corp",
    "home",
    "private",
    "svc",
)
# Public DNS names whose answer is the address the name spells (127.0.0.1.nip.io, 10-0-0-1.sslip.io,
# 7f000001.nip.io) or always loopback (localtest.me, lvh.me, vcap.me): the name says nothing of
# where a request goes, so they are refused whatever they spell.
WILDCARD_DNS = (
    "nip.io",
    "sslip.io",
    "xip.io",
    "traefik.me",
    "localtest.me",
    "lvh.me",
    "vcap.me",
    "lacolhost.com",
    "localhost.direct",
)

_V4 = ipaddress.IPv4Network
_V6 = ipaddress.IPv6Network
CGNAT = _V4("100.64.0.0/10")
RELAY_6TO4 = _V4("192.88.99.0/24")  # 6to4 relay anycast, deprecated (RFC 7526); ipaddress calls it global
NAT64 = _V6("64:ff9b::/96")  # the well-known NAT64 prefix: the last 32 bits are the IPv4 address
SIX_TO_FOUR = _V6("2002::/16")
COMPAT = _V6("::/96")  # IPv4-compatible addresses (deprecated, RFC 4291), :: and ::1 aside
SITE_LOCAL = _V6("fec0::/10")  # deprecated (RFC 3879); ipaddress calls it global

_PART = re.compile(r"0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*")
_LABEL = re.compile(r"[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?")
_DASHED = re.compile(r"(?:^|[^0-9])([0-9]{1,3}-[0-9]{1,3}-[0-9]{1,3}-[0-9]{1,3})(?:$|[^0-9])")


class Refused(ValueError):
    """The host is not one a request may go to; the message says why (safe to show the partner)."""


def inet_aton(text: str) -> ipaddress.IPv4Address | None:
    """`text` read as glibc's inet_aton reads it (what getaddrinfo does with a numeric name),
    or None: one to four parts separated by dots, each decimal, octal (a leading 0) or hex
    (0x); every part but the last is one byte, the last fills the bytes left
    (`127.1` is 127.0.0.1, `2130706433` and `0x7f000001` too)."""
    parts = text.split(".")
    if len(parts) > 4 or not all(_PART.fullmatch(p) for p in parts):
        return None
    values = [
        int(p, 16) if p[:2].lower() == "0x" else int(p, 8) if len(p) > 1 and p[0] == "0" else int(p) for p in parts
    ]
    *head, last = values
    if any(v > 0xFF for v in head) or last >= 1 << (8 * (4 - len(head))):
        return None
    number = last
    for i, v in enumerate(head):
        number |= v << (8 * (3 - i))
    return ipaddress.IPv4Address(number)


def parse_ipv4(host: str) -> ipaddress.IPv4Address | None:
    """An IPv4 host as a resolver or browser takes it: inet_aton's forms, one trailing dot allowed."""
    return inet_aton(host[:-1] if host.endswith(".") else host)


def literal(host: str) -> Address | None:
    """The address a host names without DNS (IPv4 in any inet_aton form, IPv6), or None."""
    found = parse_ipv4(host)
    if found is not None:
        return found
    try:
        return ipaddress.IPv6Address(host)
    except ValueError:
        return None


def _v4_refusal(address: ipaddress.IPv4Address) -> str | None:
    if address.is_unspecified:
        return "unspecified"
    if address.is_loopback:
        return "loopback"
    if address.is_link_local:
        return "link-local"
    if address in CGNAT:
        return "shared address space (CGNAT)"
    if address.is_multicast:
        return "multicast"
    if address.is_reserved:
        return "reserved"
    if address.is_private:
        return "private"
    if address in RELAY_6TO4:
        return "6to4 relay anycast"
    if not address.is_global:
        return "not globally reachable"
    return None


def refusal(address: Address, *, allow_loopback: bool = False) -> str | None:
    """Why a request must not go to `address` (None: it may). IPv4 carried in IPv6
    (IPv4-mapped, NAT64) is judged as that IPv4 address."""
    if isinstance(address, ipaddress.IPv4Address):
        reason = _v4_refusal(address)
        return None if reason == "loopback" and allow_loopback else reason
    inner = address.ipv4_mapped
    if inner is None and address in NAT64:
        inner = ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    if inner is not None:
        reason = refusal(inner, allow_loopback=allow_loopback)
        return reason and f"{reason} (IPv4 {inner} inside IPv6)"
    if address.is_loopback:
        return None if allow_loopback else "loopback"
    if address.is_unspecified:
        return "unspecified"
    if address in COMPAT:
        return "IPv4-compatible (deprecated)"
    if address.is_link_local:
        return "link-local"
    if address.is_multicast:
        return "multicast"
    if address in SITE_LOCAL:
        return "site-local"
    if address.sixtofour is not None:
        return f"6to4 (IPv4 {address.sixtofour} inside IPv6)"
    if address.teredo is not None:
        return "Teredo"
    if address.is_private:
        return "private"
    if address.is_reserved:
        return "reserved"
    if not address.is_global:
        return "not globally reachable"
    return None


def normalize(host: str) -> str:
    """The host as DNS sees it: IDNA (as socket.getaddrinfo encodes it: fullwidth letters and
    ideographic dots fold to ASCII), lower case. Refused if it is not a valid host name."""
    try:
        ascii_host = host.encode("idna").decode("ascii").lower()
    except UnicodeError as exc:
        raise Refused("the host is not a valid host name") from exc
    name = ascii_host[:-1] if ascii_host.endswith(".") else ascii_host
    if not name or len(name) > 253 or not all(_LABEL.fullmatch(label) for label in name.split(".")):
        raise Refused("the host is not a valid host name")
    return ascii_host


def _spelled_addresses(name: str) -> list[ipaddress.IPv4Address]:
    """IPv4 addresses a name spells in its labels: four numeric labels in a row (10.0.0.1.example.com)
    or one label of four dashed numbers (ip-10-0-0-1.example.com)."""
    labels = name.split(".")
    found = []
    for i in range(len(labels) - 3):
        window = labels[i : i + 4]
        if all(label.isdigit() for label in window):
            address = inet_aton(".".join(window))
            if address is not None:
                found.append(address)
    for label in labels:
        for match in _DASHED.finditer(label):
            address = inet_aton(match.group(1).replace("-", "."))
            if address is not None:
                found.append(address)
    return found


def _is_loopback_name(name: str) -> bool:
    return name == "localhost" or name.endswith(".localhost")


def check_host(host: str, *, allow_loopback: bool = False) -> str:
    """Refuse (Refused) a host that is plainly not public; return it normalized (`normalize`).
    With `allow_loopback`, `localhost`, `*.localhost` and loopback addresses pass.

    Refuses what is plainly not a public
    host: IPv4 literals in every form a resolver takes (`parse_ipv4`: inet_aton's decimal,
    octal, hex and short forms such as `127.1` or `2130706433`, plus a trailing dot), IPv6
    literals, reserved or internal names (`localhost`, `*.localhost`, `*.internal` such as
    `metadata.google.internal`, `*.local`, single-label names, ...), names that spell a private
    address (`10.0.0.1.example.com`, `127-0-0-1.example.com`) and the public wildcard-DNS services
    whose answer is whatever address the name spells (`127.0.0.1.nip.io`).
    """
    if ":" in host:  # an IPv6 literal (urlsplit took the brackets off)
        try:
            v6 = ipaddress.IPv6Address(host)
        except ValueError as exc:
            raise Refused("the host is not a valid IPv6 address") from exc
        reason = refusal(v6, allow_loopback=allow_loopback)
        if reason:
            raise Refused(f"{v6} is not a public address ({reason})")
        return str(v6)
    normalized = normalize(host)
    name = normalized.rstrip(".")
    v4 = parse_ipv4(name)
    if v4 is not None:
        reason = refusal(v4, allow_loopback=allow_loopback)
        if reason:
            named = host if host == str(v4) else f"{host} ({v4})"
            raise Refused(f"{named} is not a public address ({reason})")
        return normalized
    if name.replace(".", "").isdigit():  # no top-level domain is numeric (RFC 3696)
        raise Refused("the host looks like an IPv4 address but is not a valid one")
    if _is_loopback_name(name):
        if allow_loopback:
            return normalized
        raise Refused(f"{host} is a loopback name, not a public host name")
    if "." not in name:
        raise Refused(f"{host} is a single-label name, not a public host name")
    if name in ("localhost.localdomain", "metadata.google.internal") or any(
        name == suffix or name.endswith("." + suffix) for suffix in BLOCKED_SUFFIXES
    ):
        raise Refused(f"{host} is a reserved or internal name, not a public host name")
    if any(name == d or name.endswith("." + d) for d in WILDCARD_DNS):
        raise Refused(f"{host} is under a wildcard DNS service that answers with any address the name spells")
    for spelled in _spelled_addresses(name):
        reason = refusal(spelled, allow_loopback=allow_loopback)
        if reason:
            raise Refused(f"{host} spells {spelled}, not a public address ({reason})")
    return normalized


# ---------------------------------------------------------------- at send time


@dataclasses.dataclass(frozen=True)
class Target:
    """Where a request goes: the checked addresses, and the name for SNI, the certificate and Host."""

    scheme: str
    name: str  # ASCII, no trailing dot
    port: int
    addresses: tuple[Address, ...]
    path: str  # path and query, as written

    @property
    def host_header(self) -> str:
        shown = f"[{self.name}]" if ":" in self.name else self.name
        return shown if self.port == (443 if self.scheme == "https" else 80) else f"{shown}:{self.port}"


def resolve(name: str, port: int) -> list[Address]:
    """The name's addresses (getaddrinfo, TCP). The seam tests point at a fake DNS answer."""
    infos = socket.getaddrinfo(name, port, type=socket.SOCK_STREAM)
    return [ipaddress.ip_address(str(info[4][0]).split("%")[0]) for info in infos]


def target(url: str, *, allow_loopback: bool = False) -> Target:
    """Check `url`'s host, resolve it once and check every address (Refused otherwise).
    A resolver failure raises OSError (socket.gaierror): a passing fault, not a refusal.

    When a request is sent, `target` resolves the name once (`resolve`, the seam tests point at
    a fake answer) and refuses it unless every address is publicly routable (`refusal`: loopback,
    private, link-local, CGNAT 100.64/10, multicast, unspecified, reserved, site-local; IPv4
    inside IPv6 judged as the IPv4 it carries: IPv4-mapped, NAT64 64:ff9b::/96; 6to4 and Teredo
    are not global). `post` then connects to the checked address itself, with the name kept for
    SNI, certificate verification and the Host header, so a second DNS answer (rebinding) is
    never used. No redirects are followed and no proxy is read from the environment (urllib3).

    `allow_loopback` (development clients, the devstack's local receivers) lets loopback names
    and addresses through, and nothing else.
    """
    parts: SplitResult = urlsplit(url)
    if parts.scheme not in ("https", "http") or not parts.hostname:
        raise Refused("not an absolute http(s) URL")
    host = check_host(parts.hostname, allow_loopback=allow_loopback)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    name = host.rstrip(".")
    address = literal(name)
    if address is not None:  # `127.1` or `[::1]`: the address itself (also for TLS and Host)
        name, addresses = str(address), [address]
    else:
        addresses = resolve(name, port)
        if not addresses:
            raise OSError(f"{name} has no address")
    unique = tuple(dict.fromkeys(addresses))
    for address in unique:
        reason = refusal(address, allow_loopback=allow_loopback)
        if reason:
            raise Refused(f"{name} resolves to {address}, not a public address ({reason})")
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return Target(parts.scheme, name, port, unique[:MAX_ADDRESSES], path)


def _pool(t: Target, address: Address, timeout: float) -> Any:
    common: dict[str, Any] = {"timeout": urllib3.Timeout(connect=timeout, read=timeout), "retries": False, "maxsize": 1}
    if t.scheme == "https":
        # the connection goes to `address`; TLS sends and verifies `name` (SNI + certificate)
        return urllib3.HTTPSConnectionPool(
            str(address), t.port, ssl_context=tls.context(), server_hostname=t.name, **common
        )
    return urllib3.HTTPConnectionPool(str(address), t.port, **common)


def post(t: Target, *, body: bytes, headers: dict[str, str], timeout: float) -> transport.Answer:
    """POST to the target's checked addresses in turn (the next only when a connection is
    refused or times out before anything was sent); no redirect followed, the answer's body
    not read. Raises transport.Failed as transport.post does."""
    errors = urllib3.exceptions
    sent_headers = {**headers, "Host": t.host_header}
    failure: transport.Failed | None = None
    for address in t.addresses:
        pool = _pool(t, address, timeout)
        try:
            response = pool.urlopen(
                "POST", t.path, body=body, headers=sent_headers, redirect=False, retries=False, preload_content=False
            )
            status = response.status
            response.release_conn()
            return transport.Answer(status, b"")
        except (errors.ConnectTimeoutError, errors.NewConnectionError) as exc:
            failure = transport.Failed(str(exc), maybe_sent=False)
            failure.__cause__ = exc
        except (errors.SSLError, errors.LocationParseError) as exc:
            raise transport.Failed(str(exc), maybe_sent=False) from exc
        except (errors.ReadTimeoutError, errors.ProtocolError) as exc:
            raise transport.Failed(str(exc), maybe_sent=True) from exc
        except errors.HTTPError as exc:
            raise transport.Failed(str(exc), maybe_sent=False) from exc
        finally:
            pool.close()
    assert failure is not None
    raise failure
