"""Hostile Markdown is bounded (docs/ARCHITECTURE.md): each input here took minutes (or
gigabytes) to extract before extraction was made linear (issue 14), and takes about a second now.

Each runs `citecheck extract` in its own process under a timeout of a minute and an
address-space limit of 1 GB, so a test can only fail on a regression back to quadratic time
or per-number copies of a bracket, never on a slow machine. Figures: `python bench/hostile.py`.
A file still too slow (or one block too costly to parse) becomes an error for that file, and
the run goes on with the others.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from citecheck.config import Settings
from citecheck.models import SelectedFile
from citecheck.pipeline import check
from citecheck.redact import Redactor

CLAIM = "The survey found 42% of people agree"
TIMEOUT_S = 60  # each of these runs in about a second; before the fix, minutes
MEMORY_LIMIT = 1 << 30

# name -> (Markdown, the start of the claim extraction must still find). Each size took over
# two minutes before the fix (the figures and bench/hostile.py's: quadratic, so twice
# the size took four times as long), or over 1 GB.
HOSTILE = {
    # issue 14, as reported: 100 KB → 778 s
    "narrative-hyphens": (f"In (2020) {CLAIM} " + "A-" * 50_000, "In (2020) The survey"),
    # 105 KB → 113 s, 210 KB here
    "narrative-names": ("(2020) " + "Smith, " * 30_000, "(2020) Smith, Smith,"),
    # 100 KB → 71 s, 200 KB here
    "open-brackets": ("[" * 200_000 + f" {CLAIM}.", "[[[["),
    # 100 KB → 14 s, 500 KB here
    "open-paren-years": ("(" + "2000 " * 100_000, "(2000 2000"),
    # 100 KB → 5.0 GB
    "numbered-list": (f"{CLAIM} [" + ",".join(["1"] * 50_000) + "]", CLAIM),
    # found since, with bench/hostile.py: 100 KB → over 300 s
    "dots": (CLAIM + "." * 100_000, CLAIM),
    # 100 KB → 64 s, 200 KB here
    "colons-heading": ("# References" + ":" * 200_000 + "x\n\n" + CLAIM + ".\n", CLAIM),
    # 100 KB → 90 s, 200 KB here
    "footnote-refs": (f"{CLAIM} " + "[^" * 100_000, CLAIM),
    # 100 KB → 19 s, 400 KB here
    "curly-quotes": (f"{CLAIM}, he said " + "“" * 400_000, CLAIM),
}


# Template markup, pandoc citations, anchors and superscripts (issue 15): each was linear when
# written; these keep it so. "<A {" in MDX was quadratic (a JSX tag scan from every "<A") until a
# failed scan resumed where it stopped. (file suffix, Markdown, start of the claim)
HOSTILE_MARKUP = {
    "jsx-open-braces": (".mdx", f"{CLAIM}. " + "<A {" * 50_000, CLAIM),
    "liquid-open-tags": (".md", f"{CLAIM}. " + "{% " * 70_000, CLAIM),
    "shortcode-opens": (".md", f"{CLAIM}. " + "{{< x " * 40_000, CLAIM),
    "mdx-comment-opens": (".mdx", f"{CLAIM}. " + "{/* " * 50_000, CLAIM),
    "pandoc-brackets": (".md", f"{CLAIM} " + "[@a; " * 20_000 + "]", CLAIM),
    "anchor-links": (".md", f"{CLAIM} " + "[x](#a) " * 25_000, CLAIM),
    "superscripts": (".md", f"{CLAIM}. " + "<sup>[1]</sup>" * 14_000, CLAIM),
}


@pytest.mark.parametrize("name", list(HOSTILE_MARKUP))
def test_hostile_markup_extracts_in_bounded_time_and_memory(name: str, tmp_path: Path) -> None:
    suffix, markdown, claim_start = HOSTILE_MARKUP[name]
    doc = tmp_path / f"{name}{suffix}"
    doc.write_text(markdown, encoding="utf-8")
    out = _extract(doc)
    assert out["errors"] == [] or "too costly to parse" in out["errors"][0]["message"]
    assert all(c["text"].startswith(claim_start) for c in out["claims"][:1])


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def _extract(path: Path, *, check_exit: bool = True) -> dict[str, Any]:
    """`citecheck extract PATH --format json` in a process of its own, under the time and
    memory limits: its JSON (and, unless told otherwise, exit code 0)."""
    proc = subprocess.run(
        [sys.executable, "-m", "citecheck", "extract", str(path), "--format", "json"],
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        preexec_fn=_limit_memory,
    )
    if check_exit:
        assert proc.returncode == 0, proc.stderr[-2000:]
    out: dict[str, Any] = json.loads(proc.stdout)
    return out


@pytest.mark.parametrize("name", list(HOSTILE))
def test_hostile_input_extracts_in_bounded_time_and_memory(name: str, tmp_path: Path) -> None:
    markdown, claim_start = HOSTILE[name]
    doc = tmp_path / f"{name}.md"
    doc.write_text(markdown, encoding="utf-8")
    out = _extract(doc)
    assert out["errors"] == []
    assert [c["text"][: len(claim_start)] for c in out["claims"]] == [claim_start]


def test_numbered_list_collapses_to_one_citation_sharing_the_bracket(tmp_path: Path) -> None:
    markdown = f"{CLAIM} [" + ",".join(["1"] * 50_000) + "]\n\n## References\n\n1. https://example.com/one\n"
    doc = tmp_path / "list.md"
    doc.write_text(markdown, encoding="utf-8")
    [claim] = _extract(doc)["claims"]
    assert [(c["identifier"], c["url"]) for c in claim["citations"]] == [("1", "https://example.com/one")]


def test_a_footnote_of_many_sources_cited_often_stays_bounded(tmp_path: Path) -> None:
    # each sentence cited every one of the footnote's sources: 1,400 × 1,400 took 3.6 GB, and
    # 200 × 5,000 (130 KB) takes as much
    sentences = f"{CLAIM}[^1]. " * 200
    sources = "".join(f"https://example.com/{i} " for i in range(5_000))
    doc = tmp_path / "footnote.md"
    doc.write_text(f"{sentences}\n\n[^1]: {sources}\n", encoding="utf-8")
    claims = _extract(doc)["claims"]
    assert len(claims) == 200
    expected = [f"https://example.com/{i}" for i in range(50)]  # the first 50 sources, each once
    assert all([c["url"] for c in claim["citations"]] == expected for claim in claims)


def _costly_paragraphs(count: int) -> str:
    """Paragraphs of 80 KB that each parse within the block limit but take a second or two
    (markdown-it walks from each "[" to a "]"): dozens of them take minutes, so a budget of
    seconds runs out after the first few, on any machine."""
    return "".join(f"{CLAIM} ({i}) " + "[a][" * 20_000 + "\n\n" for i in range(count))


def test_a_file_over_its_time_budget_is_an_error_and_the_run_goes_on(tmp_path: Path) -> None:
    hostile = tmp_path / "hostile.md"
    hostile.write_text(_costly_paragraphs(50), encoding="utf-8")
    normal = tmp_path / "normal.md"
    normal.write_text(f"# Survey\n\n{CLAIM} [survey](https://example.com/survey).\n", encoding="utf-8")
    settings = Settings(fetch=False, judge="none", extract_budget_s=2.0)
    files = [
        SelectedFile(path=str(hostile), display="hostile.md"),
        SelectedFile(path=str(normal), display="normal.md"),
    ]
    report = check(settings, files, environ={}, redact=Redactor())
    assert [(c.file, c.line, c.text) for c in report.claims] == [
        ("normal.md", 3, f"{CLAIM} survey."),
    ]
    [error] = report.errors
    assert error.file == "hostile.md" and error.fatal
    assert error.message.startswith("extraction stopped after ")
    assert f" s at line {error.line}: over the 2-second time budget for one file;" in error.message
    assert error.line is not None and error.line > 1  # it read some blocks before it stopped


def test_a_block_too_costly_to_parse_is_an_error_and_the_run_goes_on(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    # one paragraph of 2.4 MB whose every "[" markdown-it would walk from: stopped unparsed
    (docs / "a-hostile.md").write_text("# Title\n\n" + "[a][" * 600_000 + "\n", encoding="utf-8")
    (docs / "b-normal.md").write_text(f"{CLAIM} [survey](https://example.com/survey).\n", encoding="utf-8")
    out = _extract(docs, check_exit=False)
    assert [(Path(c["file"]).name, c["text"]) for c in out["claims"]] == [("b-normal.md", f"{CLAIM} survey.")]
    [error] = out["errors"]
    assert Path(error["file"]).name == "a-hostile.md"
    assert error["line"] == 3
    assert error["message"].startswith("extraction stopped at line 3: a block of 2,400,000 characters")
    assert "too costly to parse" in error["message"]
