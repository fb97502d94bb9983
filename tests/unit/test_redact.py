"""citecheck.redact: the run's secrets and secret-looking URL parts out of every output text."""

from __future__ import annotations

import base64
from urllib.parse import quote, quote_plus

import pytest

from citecheck.config import Settings
from citecheck.models import Citation, CitationKind, ClaimKind, ClaimResult, Verdict
from citecheck.output.common import strip_invisible
from citecheck.output.report import build_report
from citecheck.redact import MASK, MIN_SECRET_CHARS, Redactor, mask_url, mask_urls, secret_name
from tests.leaks import echo_text, key_forms, leaks

KEY = "sk-ant-api03-" + "Zq8xW2vK9pL4mN7bR1tY6uH3jF5dS0aE" * 2
TOKEN = "ghs_9aB8cD7eF6gH5iJ4kL3mN2oP1qR0sT9uV8wX"


@pytest.mark.parametrize(
    ("url", "masked"),
    [
        ("https://u:p@host/x?token=abc&page=2", "https://***@host/x?token=***&page=2"),
        ("https://example.com/a?token=abc", "https://example.com/a?token=***"),
        ("https://user@host/", "https://***@host/"),
        ("ftp://user:pw@host/f", "ftp://***@host/f"),
        (
            "https://b.s3.amazonaws.com/k?X-Amz-Credential=AK%2F1&X-Amz-Signature=ff&X-Amz-Date=1",
            "https://b.s3.amazonaws.com/k?X-Amz-Credential=***&X-Amz-Signature=***&X-Amz-Date=1",
        ),
        (
            "https://h/?apiKey=1&api_key=2&access_token=3&client_secret=4",
            "https://h/?apiKey=***&api_key=***&access_token=***&client_secret=***",
        ),
        ("https://h/?sig=1&password=2&auth=3&key=4", "https://h/?sig=***&password=***&auth=***&key=***"),
        ("https://h/p#access_token=zz&state=1", "https://h/p#access_token=***&state=1"),
        # Kept: names that only contain a secret word's letters, empty values, text fragments.
        ("https://h/?keyword=a&monkey=b&author=c&page=2", "https://h/?keyword=a&monkey=b&author=c&page=2"),
        ("https://h/?token=&q=1", "https://h/?token=&q=1"),
        ("https://h/p#:~:text=a%20b", "https://h/p#:~:text=a%20b"),
        ("https://example.com/plain/path", "https://example.com/plain/path"),
        # Never raises, whatever the URL: a port past 65535, no host, no scheme.
        ("http://u:p@127.0.0.1:65536/x?token=1", "http://***@127.0.0.1:65536/x?token=***"),
        ("https://@/?token=1", "https://@/?token=***"),
        ("/relative?token=1#x", "/relative?token=***#x"),
    ],
)
def test_mask_url(url: str, masked: str) -> None:
    assert mask_url(url) == masked
    assert mask_url(masked) == masked  # idempotent: a masked report can be masked again


def test_secret_names() -> None:
    for name in ("token", "Token", "api-key", "apiKey", "X-Amz-Security-Token", "AWSAccessKeyId", "sid"):
        assert secret_name(name), name
    for name in ("page", "q", "keyword", "author", "monkey", "sort", "utm_source"):
        assert not secret_name(name), name


def test_urls_in_running_text_are_masked_and_the_prose_kept() -> None:
    text = "See (https://u:p@h/x?token=abc) and [it](https://h/?sig=s]x) or www.h.com/?token=t."
    assert (
        mask_urls(text)
        == "See (https://***@h/x?token=***) and [it](https://h/?sig=***]x) or www.h.com/?token=t."
    )
    assert mask_urls("no url here: a=b, c@d") == "no url here: a=b, c@d"


def test_redactor_removes_secrets_whole_cut_short_and_encoded() -> None:
    redact = Redactor([KEY, TOKEN, "", None, "ab"])  # empty and very short values are ignored
    echoed = (
        f"Error code: 400 - {{'error': 'bad header Authorization: Bearer {KEY}', 'tok': 'token {TOKEN}'}}"
    )
    assert KEY not in redact(echoed) and TOKEN not in redact(echoed)
    assert redact(echoed).count(MASK) == 2 and "Authorization: Bearer ***" in redact(echoed)
    # A message shortened before it was redacted keeps no recognisable piece of the key.
    cut = f"the API said: Bearer {KEY[:40]} [judge-bad-request]"
    assert redact(cut) == "the API said: Bearer *** [judge-bad-request]"
    # A known prefix alone (documentation naming it) is not a secret.
    assert redact("keys start with sk-ant-api03-") == "keys start with sk-ant-api03-"
    assert "ab" in redact("ab cd")
    # Percent-encoded (a URL that carries it) and line by line for a multi-line secret.
    pem = "-----BEGIN KEY-----\nMIIEowIBAAKCAQEAx1\n-----END KEY-----"
    redact = Redactor(["p@ss/w0rd+x", pem])
    assert redact("https://h/?q=p%40ss%2Fw0rd%2Bx") == "https://h/?q=***"
    assert "MIIEowIBAAKCAQEAx1" not in redact("got MIIEowIBAAKCAQEAx1 back")
    assert not Redactor() and Redactor([KEY])
    assert Redactor().secrets(KEY) == KEY  # no secrets: nothing to take out


def _claim_citing(url: str, verdict: Verdict, reason: str | None = None) -> ClaimResult:
    """A statistic on line 3 of docs/a.md that cites `url` in its text and as its source."""
    return ClaimResult(
        text=f"Grew 5% per {url}",
        kinds=[ClaimKind.statistic],
        file="docs/a.md",
        line=3,
        column=1,
        citations=[Citation(raw=url, kind=CitationKind.bare_url, url=url)],
        verdict=verdict,
        reason=reason,
        source_url=url,
    )


def test_redactor_walks_a_whole_report() -> None:
    url = "https://u:p@host/x?token=abc&page=2"
    claim = _claim_citing(
        url, Verdict.not_verified, reason=f"the judge API refused the request (HTTP 400): Bearer {KEY}"
    )
    report = build_report([claim], settings=Settings(), notes=[f"token {TOKEN}"])
    clean = Redactor([KEY, TOKEN]).model(report)
    dumped = clean.model_dump_json()
    assert KEY not in dumped and TOKEN not in dumped and "u:p@" not in dumped and "token=abc" not in dumped
    masked = "https://***@host/x?token=***&page=2"
    assert clean.claims[0].source_url == masked and clean.claims[0].citations[0].url == masked
    assert clean.claims[0].text == f"Grew 5% per {masked}" and clean.notes == ["token ***"]
    # Nothing else changes: the same report, field for field.
    assert clean.model_dump(exclude={"claims", "notes"}) == report.model_dump(exclude={"claims", "notes"})
    assert clean.claims[0].line == 3 and clean.claims[0].verdict == Verdict.not_verified


def test_a_report_with_nothing_to_redact_is_kept_as_it_is() -> None:
    """`model` returns the report itself when no string in it would change, and a redacted copy
    (the original untouched) as soon as one would: one URL with userinfo deep in a citation."""
    clean_url = "https://example.com/a?page=2"
    claim = _claim_citing(clean_url, Verdict.pass_)
    report = build_report([claim], settings=Settings(), notes=["no secret here"])
    assert not Redactor().changes(report.model_dump(mode="json"))
    assert Redactor().model(report) is report
    assert Redactor([KEY]).model(report) is report

    secret_url = "https://u:p@host/x"
    report.claims[0].citations[0].url = secret_url
    assert Redactor().changes(report.model_dump(mode="json"))
    clean = Redactor().model(report)
    assert clean is not report and clean.claims[0].citations[0].url == "https://***@host/x"
    assert report.claims[0].citations[0].url == secret_url
    # A secret anywhere (a note, no URL in it) is found as well.
    leaky = build_report([claim], settings=Settings(), notes=[f"key {KEY}"])
    assert Redactor([KEY]).model(leaky).notes == ["key ***"]


# ------------------------------------------------------------------ issue 30: every copy of a key


@pytest.mark.parametrize("secret", [KEY, TOKEN, "sk-test-9f8e7d6c5b4a3210"])
@pytest.mark.parametrize("form", sorted(key_forms(KEY)))
def test_every_copy_of_a_secret_is_redacted(secret: str, form: str) -> None:
    """Raw, percent-encoded, cut short, base64 at each alignment, interleaved with invisible
    characters, fullwidth, in a URL's query: whatever the form, nothing of the key is left to
    read, and the text around it is kept."""
    echoed = f"The API said: {key_forms(secret)[form]} (HTTP 400)."
    out = Redactor([secret])(echoed)
    assert leaks(out, secret) == [], out
    assert out.startswith("The API said: ") and out.endswith(" (HTTP 400).") and MASK in out


def test_percent_encoded_forms_of_a_secret_with_reserved_characters() -> None:
    secret = "p@ss/w0rd+x y=z&more-chars"
    redact = Redactor([secret])
    for form in (quote(secret, safe=""), quote(secret), quote_plus(secret), quote_plus(secret).lower()):
        assert redact(f"GET /?q={form}&page=2") == "GET /?q=***&page=2", form


def test_base64_finds_the_secret_inside_a_larger_blob_at_each_alignment() -> None:
    redact = Redactor([TOKEN])
    for n in range(6):  # the key at offsets 0..5: each alignment twice
        for encode in (base64.b64encode, base64.urlsafe_b64encode):
            blob = encode(b"#" * n + TOKEN.encode() + b":trailer").decode()
            out = redact(f"Authorization: Basic {blob}")
            assert leaks(out, TOKEN) == [] and MASK in out, (n, out)
    # A base64 blob that does not hold the key is left alone.
    other = base64.b64encode(b"x-access-token:" + b"A" * 40).decode()
    assert redact(other) == other


def test_a_secret_cut_short_is_redacted_from_its_label_and_eight_more_characters() -> None:
    """A cut-off start of a key is masked once it holds 8 characters past the key's label (its
    fixed `sk-ant-api03-`, `ghs_`), and 12 characters at least; never from fewer than half of
    the key. The label alone, documentation naming it, is not a secret."""
    redact = Redactor([KEY, TOKEN])
    assert redact(f"Bearer {KEY[:21]}…") == "Bearer ***…"  # `sk-ant-api03-` + 8
    assert redact(f"Bearer {KEY[:20]}…") == f"Bearer {KEY[:20]}…"
    assert redact(f"token {TOKEN[:12]}") == "token ***"  # `ghs_` + 8
    assert redact(f"token {TOKEN[:11]}") == f"token {TOKEN[:11]}"
    assert redact("keys start with sk-ant-api03- and ghs_") == "keys start with sk-ant-api03- and ghs_"
    short = "sk-test-9f8e7d6c5b4"  # 19 characters: a label of 8, but no cut at fewer than 12
    assert (
        Redactor([short])(f"x {short[:12]}") == "x ***"
        and Redactor([short])(f"x {short[:11]}")[2:] == short[:11]
    )


def test_secrets_shorter_than_eight_characters_are_not_redacted() -> None:
    """A 'secret' of a few characters (a test value, a placeholder) would blank out ordinary
    words in every report; real keys and tokens are 20 characters and more."""
    assert MIN_SECRET_CHARS == 8
    assert Redactor(["hunter2"])("the password hunter2") == "the password hunter2"
    assert Redactor(["hunter22"])("the password hunter22") == "the password ***"
    assert not Redactor(["short", "", None])


def test_invisible_characters_inside_a_secret_are_redacted_with_it() -> None:
    """Every character a renderer drops (controls, bidi controls; `strip_invisible`) or a reader
    does not see (zero-width, soft hyphen, word joiner, BOM) is looked through: the key and the
    invisible characters inside it are one masked span, the text around it kept."""
    redact = Redactor([KEY])
    dropped = [chr(c) for c in range(0x3000) if strip_invisible(chr(c)) == "" and chr(c) not in "\n\t"]
    zero_width = ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad", "\u2062"]
    for ch in [*dropped, *zero_width]:
        assert redact(f"<{ch.join(KEY)}>") == "<***>", hex(ord(ch))
    # A rendered report is stripped of them after redaction: nothing of the key comes back.
    assert KEY[:16] not in strip_invisible(redact(f"key: {chr(1).join(KEY)}"))


def test_a_secret_looking_parameter_name_with_invisible_characters_is_still_masked() -> None:
    assert mask_url("https://h/?to\u200bken=abc&page=2") == "https://h/?to\u200bken=***&page=2"
    assert mask_urls("see https://h/x?q=1&api%5Fkey=zz") == "see https://h/x?q=1&api%5Fkey=***"


def test_redaction_is_idempotent() -> None:
    redact = Redactor([KEY, TOKEN])
    text = echo_text(KEY) + " " + echo_text(TOKEN) + " https://u:p@h/?token=t"
    once = redact(text)
    assert redact(once) == once and leaks(once, KEY) == [] and leaks(once, TOKEN) == []


def test_a_secret_that_holds_what_reading_changes_is_found_as_written() -> None:
    secret = "pass%41word-with-%2Fslash"
    assert Redactor([secret])(f"x {secret} y") == "x *** y"
    assert Redactor([secret])(f"x {quote(secret, safe='')} y") == "x *** y"
