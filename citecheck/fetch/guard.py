"""The SSRF guard and the domain allowlist (SECURITY.md; docs/ARCHITECTURE.md "Security").

Two layers, both applied to every hop of every fetch:

1. `check_url` — before anything touches the network: only http/https, the host must be in
   the allowlist (suffix match on labels), and a host written as an address — including the
   odd numeric forms resolvers accept (`2130706433`, `0x7f000001`, `0177.0.0.1`, `127.1`) —
   must be a public address. Odd numeric forms are refused outright, whatever they decode to.
2. `resolve_checked` — what every connection of the fetcher's transport (`citecheck.fetch.transport`)
   goes through. It resolves the name once, checks *every* address it resolves to, and the
   transport connects to a checked address itself, so there is no second lookup an
   attacker's DNS could answer differently (no rebinding). TLS still verifies the host
   name: the transport passes the URL's host name as `server_hostname`, independent of the
   address it connected to.

`Settings.allow_private_hosts` is the only way past the guard: it admits a host exactly as
written in the URL (a name or an address), never an address that some other name resolves to.
"""

from __future__ import annotations

import asyncio
import ipaddress
import re
import socket
from collections.abc import Iterable
from urllib.parse import urlsplit

import httpx

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

# Only the hosts that answer DOIs: their redirect leads to the publisher, which the allowlist
# must admit (issue 3, point 5), so the resolver itself needs no allowlist entry.
DOI_RESOLVERS = frozenset({"doi.org", "dx.doi.org"})

_V4 = ipaddress.IPv4Network
_V6 = ipaddress.IPv6Network
# Explicit lists on top of `ipaddress` properties, so the reason names the range and no
# Python version difference in `is_private`/`is_global` can open a hole.
_BLOCKED_V4: tuple[tuple[ipaddress.IPv4Network, str], ...] = (
    (_V4("0.0.0.0/8"), "unspecified ('this network')"),
    (_V4("10.0.0.0/8"), "private"),
    (_V4("100.64.0.0/10"), "carrier-grade NAT (includes the 100.100.100.200 metadata service)"),
    (_V4("127.0.0.0/8"), "loopback"),
    (_V4("169.254.0.0/16"), "link-local (includes the 169.254.169.254 metadata service)"),
    (_V4("172.16.0.0/12"), "private"),
    (_V4("192.0.0.0/24"), "reserved (IETF protocol assignments)"),
    (_V4("192.0.2.0/24"), "documentation"),
    (_V4("192.88.99.0/24"), "reserved (6to4 relay anycast)"),
    (_V4("192.168.0.0/16"), "private"),
    (_V4("198.18.0.0/15"), "reserved (benchmarking)"),
    (_V4("198.51.100.0/24"), "documentation"),
    (_V4("203.0.113.0/24"), "documentation"),
    (_V4("224.0.0.0/4"), "multicast"),
    (_V4("240.0.0.0/4"), "reserved"),
)
_BLOCKED_V6: tuple[tuple[ipaddress.IPv6Network, str], ...] = (
    (_V6("::/128"), "unspecified"),
    (_V6("::1/128"), "loopback"),
    (_V6("::ffff:0:0/96"), "IPv4-mapped"),
    (_V6("::ffff:0:0:0/96"), "IPv4-translated"),
    (_V6("::/96"), "IPv4-compatible (deprecated)"),
    (_V6("64:ff9b::/96"), "NAT64 IPv4-translated"),
    (_V6("64:ff9b:1::/48"), "NAT64 local-use IPv4-translated"),
    (_V6("100::/64"), "discard-only"),
    (_V6("2001::/32"), "Teredo tunnel"),
    (_V6("2001:db8::/32"), "documentation"),
    (_V6("2002::/16"), "6to4 tunnel"),
    (_V6("fc00::/7"), "unique-local (includes the fd00:ec2::254 metadata service)"),
    (_V6("fe80::/10"), "link-local"),
    (_V6("fec0::/10"), "site-local (deprecated)"),
    (_V6("ff00::/8"), "multicast"),
)

# A host made only of numeric parts (decimal, 0x-hex, 0-octal), as inet_aton reads them.
_NUMERIC_HOST = re.compile(r"^(?:0x[0-9a-f]*|[0-9]+)(?:\.(?:0x[0-9a-f]*|[0-9]+)){0,3}$", re.IGNORECASE)
_HOST_CHARS = re.compile(r"^[A-Za-z0-9._:-]+$")
_OCTET = r"(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])"
_DOTTED_QUAD = re.compile(rf"^{_OCTET}(?:\.{_OCTET}){{3}}$")


class GuardError(Exception):
    """A URL or address refused by the allowlist or the SSRF guard; nothing was sent."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def normalize_host(host: str) -> str:
    """Lower-case, without the trailing dot(s) resolvers ignore and without IPv6 brackets."""
    return host.strip().lower().rstrip(".").removeprefix("[").removesuffix("]")


def blocked_reason(ip: IPAddress) -> str | None:
    """Why `ip` must not be contacted, or None when it is a public address."""
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.scope_id:
            return "scoped IPv6"
        for net6, why in _BLOCKED_V6:
            if ip in net6:
                return why
    else:
        for net4, why in _BLOCKED_V4:
            if ip in net4:
                return why
    if ip.is_multicast:
        return "multicast"
    if not ip.is_global:
        return "not globally routable"
    return None


def _describe(ip: IPAddress, why: str, host: str | None = None) -> str:
    subject = f"host {host} resolves to {ip}, which" if host else f"address {ip}"
    return f"{subject} is {why} (blocked by the SSRF guard)"


def parse_ip_host(host: str) -> IPAddress | None:
    """The address a host written as an IP means, or None for a host name.

    Raises `GuardError` for the odd numeric forms (`2130706433`, `0x7f000001`, `0177.0.0.1`,
    `127.1`): resolvers accept them, but no honest citation uses them, so they are refused.
    """
    h = normalize_host(host)
    if ":" in h:
        try:
            return ipaddress.IPv6Address(h)
        except ValueError:
            raise GuardError(f"host {host!r} is not a valid IPv6 address") from None
    if _DOTTED_QUAD.match(h):
        return ipaddress.IPv4Address(h)
    if _NUMERIC_HOST.match(h):
        try:
            decoded = socket.inet_ntoa(socket.inet_aton(h))
            meaning = f" (resolvers read it as {decoded})"
        except OSError:
            meaning = ""
        raise GuardError(f"numeric host form {host!r}{meaning} is not accepted (blocked by the SSRF guard)")
    return None


def domain_allowed(host: str, allowed_domains: Iterable[str]) -> bool:
    """Suffix match on whole labels: `nature.com` admits `www.nature.com`, not `evilnature.com`."""
    h = normalize_host(host)
    domains = [normalize_host(d) for d in allowed_domains]
    if not domains:
        return True
    return any(h == d or h.endswith("." + d) for d in domains if d)


def private_host_allowed(host: str, allow_private_hosts: Iterable[str]) -> bool:
    h = normalize_host(host)
    return any(h == normalize_host(a) for a in allow_private_hosts)


def parse_url(raw: str) -> httpx.URL:
    """Parse a URL as httpx will send it.

    Raises `GuardError` for an odd numeric host httpx itself rejects (`0177.0.0.1`), and
    `ValueError("invalid URL (…)")` for any other URL that cannot be sent: unparsable, a port
    outside 1–65535, a host name IDNA cannot encode, a host with characters no name has.
    """
    try:
        url = httpx.URL(raw)
    except httpx.InvalidURL as exc:
        try:
            host = urlsplit(raw).hostname or ""
        except ValueError:  # e.g. an unclosed IPv6 bracket
            host = ""
        if _NUMERIC_HOST.match(normalize_host(host)):
            parse_ip_host(host)  # raises GuardError naming the form
        raise ValueError(f"invalid URL ({exc})") from None
    except (ValueError, UnicodeError) as exc:  # not httpx's own error: say what it was anyway
        raise ValueError(f"invalid URL ({exc or type(exc).__name__})") from None
    port = url.port
    if port is not None and not 0 < port <= 65535:
        # httpx takes any number; the socket layer would fail the whole run with OverflowError.
        raise ValueError(f"invalid URL (port {port} is outside 1-65535)")
    host = url.raw_host.decode("ascii", "replace")
    if url.scheme in ("http", "https") and (not host or not _HOST_CHARS.match(host)):
        # httpx percent-encodes a space in a host name; no resolver should ever see that.
        raise ValueError(f"invalid URL (bad host name {host!r})")
    if host and not host.startswith("["):
        # Later steps would fail on these with a bare codec message (`check_url` decoding the
        # name, the resolver encoding it): punycode that decodes to nothing ("xn--a") and an
        # empty label ("a..b"; a trailing dot is the root, not a label).
        if "" in host.rstrip(".").split("."):
            raise ValueError(f"invalid URL (bad host name {host!r}: an empty label)")
        try:
            url.host  # noqa: B018 - decoding is the check
        except (ValueError, UnicodeError) as exc:
            raise ValueError(f"invalid URL (bad host name {host!r}: {exc})") from None
    return url


def check_url(
    url: httpx.URL,
    *,
    allowed_domains: Iterable[str],
    allow_private_hosts: Iterable[str],
    allowlist_exempt: bool = False,
) -> None:
    """Refuse a URL before any connection; raises `GuardError` with a human reason."""
    if url.scheme not in ("http", "https"):
        raise GuardError(f"scheme {url.scheme or '(none)'!r} is not allowed (http and https only)")
    host = url.host
    if not host:
        raise GuardError(f"URL {url} has no host")
    if url.userinfo:
        raise GuardError("URLs with credentials (user:password@) are not fetched")
    if not allowlist_exempt and not domain_allowed(host, allowed_domains):
        raise GuardError(f"domain {normalize_host(host)} is not in allowed-domains")
    if private_host_allowed(host, allow_private_hosts):
        return
    ip = parse_ip_host(host)
    if ip is not None:
        why = blocked_reason(ip)
        if why:
            raise GuardError(_describe(ip, why))


async def resolve_checked(host: str, port: int, allow_private_hosts: Iterable[str]) -> list[str]:
    """The addresses to connect to for `host`, each one checked; raises `GuardError` if any
    address the name resolves to is blocked (one bad answer taints the name: DNS rebinding).

    `allow_private_hosts` (normalised) admits `host` as written, never another name's address.
    """
    admitted = private_host_allowed(host, allow_private_hosts)
    ip = parse_ip_host(host) if not admitted else _literal_or_none(host)
    if ip is not None:
        if not admitted and (why := blocked_reason(ip)):
            raise GuardError(_describe(ip, why))
        return [str(ip)]
    try:
        infos = await asyncio.get_running_loop().getaddrinfo(
            normalize_host(host), port, type=socket.SOCK_STREAM
        )
    except OSError as exc:
        raise httpx.ConnectError(f"could not resolve host {host}: {exc.strerror or exc}") from exc
    addresses: list[str] = []
    for _family, _type, _proto, _canon, sockaddr in infos:
        addr = ipaddress.ip_address(str(sockaddr[0]).split("%")[0])
        if not admitted and (why := blocked_reason(addr)):
            raise GuardError(_describe(addr, why, normalize_host(host)))
        if str(addr) not in addresses:
            addresses.append(str(addr))
    if not addresses:
        raise httpx.ConnectError(f"could not resolve host {host}")
    return addresses


def _literal_or_none(host: str) -> IPAddress | None:
    try:
        return ipaddress.ip_address(normalize_host(host))
    except ValueError:
        return None
