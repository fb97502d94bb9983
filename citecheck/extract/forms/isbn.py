"""ISBNs: `ISBN 978-0-13-468599-1`, `ISBN-10: 0-306-40615-2`, `ISBN: 9780306406157` (also
pandoc/manubot's `@isbn:…`), and Open Library's ISBN URLs, all normalised to
`https://openlibrary.org/isbn/<ISBN>` (kind `isbn`).

Why Open Library: `openlibrary.org/isbn/<ISBN>` is a stable, key-free URL for any ISBN, which
redirects to the book's edition page (title, authors, publisher, date, as HTML the fetcher
reads); WorldCat's pages need JavaScript and refuse automated clients, and publisher pages vary.
The ISBN is kept as written (digits and a final X, without hyphens): ISBN-10 and ISBN-13 both
resolve there. Only a valid ISBN (its check digit right) is a citation.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from citecheck.extract.forms.base import CitationForm, Hit
from citecheck.models import CitationKind

# "ISBN" then up to 17 characters of digits, hyphens and spaces (and a final X): a 10- or
# 13-digit ISBN with its separators. Bounded, so linear.
ISBN = re.compile(r"(?<![\w/])ISBN(?:-1[03])?:?\s?((?:\d[-\s]?){9,12}[\dXx])(?![\w-])")
_URL = re.compile(r"https?://(?:www\.)?openlibrary\.org/isbn/([\dXx-]{10,17})/?(?=[?#]|$)", re.I)


def normalize(isbn: str) -> str | None:
    """The ISBN's digits (and final X), or None when it is not a valid ISBN-10 or ISBN-13."""
    digits = re.sub(r"[-\s]", "", isbn).upper()
    if len(digits) == 10 and re.fullmatch(r"\d{9}[\dX]", digits):
        total = sum((10 - k) * (10 if c == "X" else int(c)) for k, c in enumerate(digits))
        return digits if total % 11 == 0 else None
    if len(digits) == 13 and digits.isdigit():
        total = sum(int(c) * (1 if k % 2 == 0 else 3) for k, c in enumerate(digits))
        return digits if total % 10 == 0 else None
    return None


def isbn_url(isbn: str) -> str:
    return f"https://openlibrary.org/isbn/{isbn}"


def canonical(url: str) -> tuple[str, str] | None:
    m = _URL.match(url)
    if m is None:
        return None
    isbn = normalize(m.group(1))
    return (isbn, isbn_url(isbn)) if isbn else None


def find(text: str) -> Iterator[Hit]:
    for m in ISBN.finditer(text):
        isbn = normalize(m.group(1))
        if isbn:
            yield Hit(m.start(), m.end(), m.group(0), isbn_url(isbn), isbn)


FORM = CitationForm(
    name="isbn",
    kind=CitationKind.isbn,
    gate=("ISBN",),
    find=find,
    needles=("isbn",),
    canonical=canonical,
    marker=ISBN,
)
