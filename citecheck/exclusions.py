"""Links that are not sources (docs/ARCHITECTURE.md, "Policy"): dropped from the claims right
after extraction, before anything is triaged or fetched, and counted.

Docs link to things nobody could cite: "open http://localhost:3000 in your browser", an API
example on `api.example.com`. Fetched, such a link fails (the SSRF guard blocks it, or the
name does not resolve), so a check that treated it as a citation would fail ordinary tech
docs. A link is not a source when

- its host is `localhost` or a `*.localhost` name (RFC 6761), or a loopback / unspecified
  address written as an IP literal (`127.0.0.1`, `[::1]`, `0.0.0.0`) — counted as `localhost`;
- its host is a reserved example or test name (RFC 2606 / 6761): `example.com`, `example.org`,
  `example.net` and their subdomains, and anything under the `example`, `test` and `invalid`
  top-level names — `reserved-domain`;
- one of the run's `exclude` patterns (`Settings.exclude`: the workflow input or flag, the
  config file's `exclude`, `.citecheckignore`) matches the URL (`re.search`) — `pattern`; for an
  internal link that resolved to a file of the checkout, not to a URL, the target as written
  ("/rules/x", "../reference/config.md#timeout").

Every other address stays a source, private ones included (RFC 1918, link-local, CGNAT, IPv6
unique-local): a link to `http://10.0.0.7/uptime` in public docs cites what no reader can open,
so the SSRF guard refuses it and the claim fails loudly ("source not allowed") rather than
being dropped without a word. An intranet the team means to cite is `allow-private-hosts`;
one it does not is an `exclude` pattern.

A host admitted past the SSRF guard by `allow-private-hosts` is a source the team asked for
(an intranet server, the demo's and the tests' loopback servers): no built-in rule drops it;
an `exclude` pattern, written on purpose, still does.

A link that is not a source is not a citation: it is removed from the claim. A claim left
with no citation keeps its fact kinds — the sentence may still state a fact, and is then
unsourced — and a sentence that was a claim only because it carried that link is no claim
at all. So such a link never fails the check. A citation the author marked `citecheck-ignore`
is left as it is (it is the author's own opt-out, reported as such).
"""

from __future__ import annotations

import ipaddress
import re
from collections import Counter
from dataclasses import dataclass
from urllib.parse import urlsplit

from citecheck.config import Settings
from citecheck.models import Citation, CitationKind, Claim, ClaimKind, ResolveStatus

# Why a link is not a source; the keys of `Report.links_excluded`.
LOCALHOST = "localhost"
RESERVED_DOMAIN = "reserved-domain"
PATTERN = "pattern"
REASONS = (LOCALHOST, RESERVED_DOMAIN, PATTERN)

_EXAMPLE_DOMAINS = ("example.com", "example.org", "example.net")  # RFC 2606, with subdomains
_RESERVED_TLDS = ("example", "test", "invalid")  # RFC 2606 / 6761 top-level names


def _normalize(host: str) -> str:
    # As the guard does: lower case, no trailing dot, no IPv6 brackets.
    return host.strip().lower().rstrip(".").removeprefix("[").removesuffix("]")


def _under(host: str, domain: str) -> bool:
    return host == domain or host.endswith("." + domain)


def builtin_reason(host: str) -> str | None:
    """The built-in reason a link to `host` is not a source, or None."""
    h = _normalize(host)
    if not h:
        return None
    if _under(h, "localhost"):
        return LOCALHOST
    try:
        ip = ipaddress.ip_address(h)
    except ValueError:
        ip = None
    if ip is not None:
        mapped = getattr(ip, "ipv4_mapped", None)  # ::ffff:127.0.0.1 is 127.0.0.1
        if any(a is not None and (a.is_loopback or a.is_unspecified) for a in (ip, mapped)):
            return LOCALHOST
        return None  # any other address is a source: the guard refuses a private one, loudly
    if any(_under(h, d) for d in (*_EXAMPLE_DOMAINS, *_RESERVED_TLDS)):
        return RESERVED_DOMAIN
    return None


@dataclass(frozen=True)
class Exclusions:
    """The run's rules for links that are not sources (built from `Settings`)."""

    patterns: tuple[re.Pattern[str], ...] = ()
    admitted: frozenset[str] = frozenset()  # `allow-private-hosts`, normalized

    @classmethod
    def from_settings(cls, settings: Settings) -> Exclusions:
        # The patterns were validated when the settings were made.
        return cls(
            patterns=tuple(re.compile(p) for p in settings.exclude),
            admitted=frozenset(_normalize(h) for h in settings.allow_private_hosts),
        )

    def matched(self, target: str) -> str | None:
        """`PATTERN` when an `exclude` pattern matches an internal link's target, else None."""
        return PATTERN if any(p.search(target) for p in self.patterns) else None

    def reason(self, url: str) -> str | None:
        """Why the link `url` is not a source, or None when it is one."""
        try:
            host = urlsplit(url).hostname or ""
        except ValueError:  # an unparsable URL is the fetch stage's to report ("invalid URL")
            host = ""
        if host and _normalize(host) not in self.admitted and (why := builtin_reason(host)):
            return why
        if any(p.search(url) for p in self.patterns):
            return PATTERN
        return None


def _excludable(citation: Citation) -> bool:
    return (
        bool(citation.url or _internal_target(citation)) and citation.resolve_status != ResolveStatus.skipped
    )


def _internal_target(citation: Citation) -> str | None:
    """An internal link that resolved to no URL, as written ("/rules/x", "../a.md#b"): what the
    `exclude` patterns are matched against for it."""
    return citation.identifier if citation.kind == CitationKind.internal and not citation.url else None


def exclude_links(claims: list[Claim], exclusions: Exclusions) -> tuple[list[Claim], Counter[str]]:
    """`claims` without their links that are not sources, and how many were dropped, by reason.

    A claim that loses every citation keeps its fact kinds (then it is unsourced) or, with
    none, is dropped: it was a claim only because of that link.
    """
    kept: list[Claim] = []
    dropped: Counter[str] = Counter()
    for claim in claims:
        citations: list[Citation] = []
        for citation in claim.citations:
            why = None
            if _excludable(citation):
                target = _internal_target(citation)
                why = exclusions.reason(citation.url or "") if target is None else exclusions.matched(target)
            if why is None:
                citations.append(citation)
            else:
                dropped[why] += 1
        if len(citations) == len(claim.citations):
            kept.append(claim)
            continue
        kinds = claim.kinds if citations else [k for k in claim.kinds if k != ClaimKind.hyperlinked]
        if citations or kinds:
            kept.append(claim.model_copy(update={"citations": citations, "kinds": kinds}))
    return kept, dropped
