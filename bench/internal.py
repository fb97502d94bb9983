"""Internal links on real documentation sites (issue 34): where they lead, and how many cited
assertions that cite only them are extracted.

Usage: python bench/internal.py [--checkouts DIR] [--quick] [--json OUT] [-v]

Two figures:

1. **Labelled** (held-out 36-38, whose `cited.jsonl` marks each cited sentence `internal` when it
   cites the site's own pages): of the cited assertions (`asserts` Y) whose citations are all
   internal (no web URL, as `bench/realdocs.py` counts "cited assertions kept (in-site links
   only)"), how many are extracted, and where each one's links lead in its repository's
   checkout: a file of it, a reference entry's source, the site (`site-url`), or nowhere known.
2. **Whole sites**: every internal citation of every Markdown file of each checkout in `SITES`
   (Docusaurus, MkDocs, Hugo, Jekyll, Eleventy, Jupyter Book), followed as a run follows it
   (`citecheck.fetch.site`) with the site's `site-root`: to a file's section (its anchor found),
   to a whole file, to a reference entry's URL, to the site (with `site-url`; without it, "not
   resolved"), or not resolved, with why.

The checkouts are the repositories at the commits below, fetched beside the data
(`--checkouts DIR`, one folder per `OWNER+NAME`; not committed: only their Markdown is read).
Without them, the committed sample `tests/data/internal_sample/` (a few pages of each site, with
their licences) stands in; the test `tests/unit/test_internal_bench.py` pins its figures.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
_ROOT = Path(__file__).resolve().parent.parent
if not __import__("os").environ.get("PYTHONPATH"):
    sys.path.insert(0, str(_ROOT))

import argparse  # noqa: E402
import json  # noqa: E402
import time  # noqa: E402
from collections import Counter, defaultdict  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402

from bench.realdocs import _jsonl, match, truth_urls  # noqa: E402
from citecheck.extract.document import extract_file  # noqa: E402
from citecheck.fetch.site import Checkout, Site  # noqa: E402
from citecheck.models import CitationKind, Claim  # noqa: E402
from citecheck.select import walk_files  # noqa: E402

SAMPLE = _ROOT / "tests" / "data" / "internal_sample"
LABELLED = [_ROOT / "tests" / "data" / f"realdocs-heldout{n}" for n in (36, 37, 38)]
MARKDOWN = (".md", ".mdx", ".markdown")


@dataclass(frozen=True)
class SiteConfig:
    generator: str
    commit: str
    site_root: tuple[str, ...]
    site_url: str


# The sites, as their generators' configuration says where their pages are and are published.
SITES: dict[str, SiteConfig] = {
    "open-feature+openfeature.dev": SiteConfig(
        "Docusaurus", "a15ac12cd7997adf235bfd485ad5dc45d42cd701", (".",), "https://openfeature.dev"
    ),
    "pnpm+pnpm.io": SiteConfig(
        "Docusaurus", "4096ad35b19c7d7e0c2c64c704c57daf5bb91668", ("docs", "."), "https://pnpm.io"
    ),
    "reduxjs+redux": SiteConfig(
        "Docusaurus", "3084fc33bb23ab4cab4796172eafe342da4e73d9", ("docs", "."), "https://redux.js.org"
    ),
    "babel+website": SiteConfig(
        "Docusaurus", "b4753209310b5b1a6c6a27014ff50a2283e09327", (".", "website"), "https://babeljs.io"
    ),
    "encode+httpx": SiteConfig(
        "MkDocs", "ae1b9f66238f75ced3ced5e4485408435de10768", ("docs",), "https://www.python-httpx.org"
    ),
    "OWASP+CheatSheetSeries": SiteConfig(
        "MkDocs", "6b8819da79e0537d072e04296ffa3adfc94ba881", (".",), "https://cheatsheetseries.owasp.org"
    ),
    "gohugoio+hugoDocs": SiteConfig(
        "Hugo", "1c613349f4220ae84070df25979d720c43e5cfa6", ("content/en",), "https://gohugo.io"
    ),
    "ScilifelabDataCentre+pathogens-portal": SiteConfig(
        "Hugo", "a900425ff2dff35419172d266dbc8478ef73c9d3", ("content/english",), "https://www.pathogens.se"
    ),
    "usnistgov+800-63-3": SiteConfig(
        "Jekyll", "ce8ada6277a2948308d85b16a4c568874f7d5abb", (".",), "https://pages.nist.gov/800-63-3"
    ),
    "v8+v8.dev": SiteConfig(
        "Eleventy", "7aabdf8d32431c4a292009564261ceddd8f718d6", ("src",), "https://v8.dev"
    ),
    "tum-pbs+pbdl-book": SiteConfig(
        "Jupyter Book",
        "45d2b6529eff3dacb0bec62c6ebee67ea807db33",
        (".",),
        "https://www.physicsbaseddeeplearning.org",
    ),
}
OUTCOMES = ("section", "page", "reference URL", "site", "not resolved")


@dataclass
class Tally:
    """Where the internal citations of one site (or one set's assertions) lead."""

    outcomes: Counter[str] = field(default_factory=Counter)
    reasons: Counter[str] = field(default_factory=Counter)  # why not resolved
    files: int = 0
    seconds: float = 0.0
    examples: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))

    def add(self, outcome: str, example: str, reason: str | None = None) -> None:
        self.outcomes[outcome] += 1
        if reason is not None:
            self.reasons[reason] += 1
        if len(self.examples[outcome]) < 3:
            self.examples[outcome].append(example)


def outcome(site: Site, href: str, place: str, line: int, with_url: bool) -> tuple[str, str | None]:
    """Where one internal link leads, and why not when it leads nowhere known."""
    target = site.follow(href, place, line)
    if target.error is not None:
        return "not resolved", _reason(target.error)
    if target.reference:
        return "reference URL", None
    if target.url is not None:
        return ("site", None) if with_url else ("not resolved", "no file of the checkout")
    assert target.path is not None
    return ("section" if "#" in target.path else "page"), None


def _reason(error: str) -> str:
    """The kind of an error: the words in its parentheses, without the link's own."""
    inner = error[error.find("(") + 1 : error.rfind(")")] if "(" in error else error
    for key in (
        "no file of the checkout",
        "is no page",
        "folder without an index page",
        "section the sentence stands in",
        "no part of this page declares",
        "has no URL or DOI",
        "outside the checkout",
        "no checkout",
    ):
        if key in inner or key in error:
            return key
    return inner[:60]


def internal_links(claim: Claim) -> list[str]:
    return [c.identifier or "" for c in claim.citations if c.kind == CitationKind.internal]


def whole_site(root: Path, config: SiteConfig, with_url: bool) -> Tally:
    """Every internal citation of every Markdown file under the site's roots, followed."""
    tally = Tally()
    site = Site(Checkout(root, config.site_root, config.site_url if with_url else None), 5 * 1024 * 1024)
    files: dict[str, Path] = {}
    for top in config.site_root:
        folder = root / top
        if folder.is_dir():
            for path in walk_files(folder)[0]:
                if path.suffix.lower() in MARKDOWN:
                    files.setdefault(path.relative_to(root).as_posix(), path)
    start = time.perf_counter()
    for rel, path in sorted(files.items()):
        tally.files += 1
        for claim in extract_file(path, display=rel, budget_s=None).claims:
            for href in internal_links(claim):
                where, why = outcome(site, href, rel, claim.line, with_url)
                tally.add(where, f"{rel}:{claim.line} {href}", why)
    tally.seconds = time.perf_counter() - start
    return tally


@dataclass
class Labelled:
    """The internal-only cited assertions of one set."""

    kept: int = 0
    total: int = 0
    tally: Tally = field(default_factory=Tally)
    lost: list[str] = field(default_factory=list)


def labelled(set_dir: Path, checkouts: Path | None) -> Labelled:
    """Held-out set `set_dir`'s cited assertions that cite only the site's own pages: extracted
    or not, and where their links lead (in the repository's checkout when `checkouts` has it,
    else in the set's own copy of the labelled files)."""
    out = Labelled()
    rows = [
        r for r in _jsonl(set_dir / "cited.jsonl") if r["asserts"] == "Y" and not truth_urls(r["citations"])
    ]
    claims: dict[str, list[Claim]] = {}
    for row in rows:
        if row["file"] not in claims:
            claims[row["file"]] = extract_file(set_dir / "corpus" / row["file"], display=row["file"]).claims
    sites: dict[str, Site] = {}
    for row in rows:
        out.total += 1
        claim = match(claims, row)
        if claim is None:
            out.lost.append(f"{row['file']}:{row['line']} {row['text'][:100]}")
            continue
        out.kept += 1
        repo, _, place = row["file"].partition("/original/")
        config = SITES.get(repo)
        root = checkouts / repo if checkouts is not None and (checkouts / repo).is_dir() else None
        own = root is not None
        if root is None:  # the set's own copy of the labelled files, its folders no site's
            root, place = set_dir / "corpus", row["file"]
        if repo not in sites:
            roots = config.site_root if config is not None and own else ()
            sites[repo] = Site(Checkout(root, roots, config.site_url if config else None), 5 * 1024 * 1024)
        for href in internal_links(claim) or ["(the site's own URL)"]:
            if href == "(the site's own URL)":
                out.tally.add("site", f"{row['file']}:{row['line']} web link to the site")
                continue
            where, why = outcome(sites[repo], href, place, claim.line, True)
            out.tally.add(where, f"{row['file']}:{row['line']} {href}", why)
    return out


def _table(rows: list[tuple[str, str, Tally]]) -> str:
    head = "| site | generator | files | " + " | ".join(OUTCOMES) + " | s |"
    lines = [head, "|" + " --- |" * (len(OUTCOMES) + 4)]
    for name, generator, t in rows:
        cells = " | ".join(str(t.outcomes.get(o, 0)) for o in OUTCOMES)
        lines.append(f"| {name} | {generator} | {t.files} | {cells} | {t.seconds:.2f} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--checkouts", type=Path, help="the repositories' checkouts, one folder per OWNER+NAME"
    )
    parser.add_argument("--quick", action="store_true", help="the committed sample only")
    parser.add_argument("--json", type=Path, help="write the figures here")
    parser.add_argument("-v", "--verbose", action="store_true", help="examples of each outcome")
    args = parser.parse_args(argv)
    checkouts = None if args.quick else args.checkouts
    figures: dict[str, object] = {}

    print("## Labelled: cited assertions that cite only the site's own pages (held-out 36-38)\n")
    print("| set | kept | " + " | ".join(OUTCOMES) + " |")
    print("|" + " --- |" * (len(OUTCOMES) + 2))
    for set_dir in LABELLED:
        got = labelled(set_dir, checkouts)
        cells = " | ".join(str(got.tally.outcomes.get(o, 0)) for o in OUTCOMES)
        print(f"| {set_dir.name} | {got.kept}/{got.total} | {cells} |")
        figures[set_dir.name] = {"kept": [got.kept, got.total], "outcomes": dict(got.tally.outcomes)}
        if args.verbose:
            for line in got.lost:
                print(f"  lost: {line}")
            for why, n in got.tally.reasons.most_common():
                print(f"  not resolved ({why}): {n}")

    base = checkouts if checkouts is not None else SAMPLE
    for with_url in (False, True):
        print(f"\n## Whole sites: every internal citation, {'with' if with_url else 'without'} site-url\n")
        rows: list[tuple[str, str, Tally]] = []
        for name, config in SITES.items():
            root = base / name
            if root.is_dir():
                rows.append((name, config.generator, whole_site(root, config, with_url)))
        print(_table(rows))
        total = Tally()
        for _, _, t in rows:
            total.outcomes.update(t.outcomes)
            total.reasons.update(t.reasons)
        n = sum(total.outcomes.values())
        print(
            f"\nall: {n} internal citations; "
            + ", ".join(
                f"{o} {total.outcomes.get(o, 0)} ({total.outcomes.get(o, 0) / max(n, 1):.0%})"
                for o in OUTCOMES
            )
        )
        print("not resolved, why: " + ", ".join(f"{why} {k}" for why, k in total.reasons.most_common()))
        if args.verbose:
            for name, _, t in rows:
                for o, examples in t.examples.items():
                    print(f"  {name} {o}: {'; '.join(examples)}")
        figures["sites with site-url" if with_url else "sites"] = {
            name: {"outcomes": dict(t.outcomes), "reasons": dict(t.reasons), "files": t.files}
            for name, _, t in rows
        }
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
