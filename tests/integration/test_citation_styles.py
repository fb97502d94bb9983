"""`citecheck check --judge none` on a claim cited in the five ways documentation cites (issue 32):
the source stand-in serves the real page, and a wrong figure fails however the source is named,
a right one passes.

The claim and its page are real: Check-COVID (Wang et al., Findings of ACL 2023, posuer/Check-COVID,
MIT) claim 601d70d96bc088b6d218dbfd_1 (SUPPORT) and the findings of its abstract, corpus 1wdfyypl
(Clark et al., "Global, regional, and national estimates of the population at increased risk of
severe COVID-19 due to underlying health conditions in 2020", The Lancet Global Health). Its
REFUTE twin (_0) states "Roughly 7 billion people … —100 percent of the global population"; here
one figure at a time is changed. The names in the links are the study's own journal and authors,
which the page never names.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from citecheck.cli import main
from tests.servers.source_server import SourceServer

PAGE = """<!doctype html><html><head><title>Global, regional, and national estimates of the population
at increased risk of severe COVID-19 due to underlying health conditions in 2020</title></head><body>
<article><h2>Findings</h2>
<p>We estimated that 1·7 billion (UI 1·0–2·4) people, comprising 22% (UI 15–28) of the global
population, have at least one underlying condition that puts them at increased risk of severe COVID-19
if infected (ranging from &lt;5% of those younger than 20 years to &gt;66% of those aged 70 years or
older). We estimated that 349 million (186–787) people (4% [3–9] of the global population) are at high
risk of severe COVID-19 and would require hospital admission if infected (ranging from &lt;1% of those
younger than 20 years to approximately 20% of those aged 70 years or older).</p>
<p>We estimated 6% (3–12) of males to be at high risk compared with 3% (2–7) of females.</p>
</article></body></html>"""

# (sentence, figure as written, the same changed, why the changed one fails): the Check-COVID claim,
# and the abstract's own
# finding as a document would quote it
CLAIMS = {
    "Check-COVID claim": (
        "roughly 1.7 billion people around the world — 22 percent of the global population — fall "
        "into the category of high-risk of severe COVID-19 because of an underlying condition",
        "22 percent",
        "35 percent",
        "the page gives '22%' where the claim says '35 percent'",
    ),
    "the abstract's finding": (
        "an estimated 6% of males are at high risk compared with 3% of females",
        "6% of males",
        "9% of males",
        "the page gives '6%' where the claim says '9%'",
    ),
}


def styles(sentence: str, url: str) -> dict[str, str]:
    """The sentence citing `url` in the five ways of issue 32."""
    first = sentence[0].upper() + sentence[1:]
    return {
        "bare": f"{first} ([source]({url})).",
        "named": f"{first} ([The Lancet Global Health]({url})).",
        "according": f"According to [The Lancet Global Health]({url}), {sentence}.",
        "reports": f"[The Lancet Global Health reports]({url}) that {sentence}.",
        "says": f"{first}, [Clark and colleagues say]({url}).",
    }


@pytest.fixture
def no_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)


@pytest.mark.parametrize("claim", list(CLAIMS))
def test_a_wrong_figure_fails_and_the_right_one_passes_in_every_style(
    claim: str, tmp_path: Path, source_server: SourceServer, capsys: pytest.CaptureFixture[str], no_keys: None
) -> None:
    url = source_server.add("/s2214-109x-20-30264-3.html", PAGE)
    right, old, new, why = CLAIMS[claim]
    wrong = right.replace(old, new)
    doc = tmp_path / "risk.md"
    lines = [*styles(right, url).values(), *styles(wrong, url).values()]
    doc.write_text("# At increased risk\n\n" + "\n\n".join(lines) + "\n", encoding="utf-8")
    code = main(
        ["check", str(doc), "--judge", "none", "--allow-private-host", "127.0.0.1", "--format", "json"]
    )
    report = json.loads(capsys.readouterr().out)
    assert code == 1
    claims = report["claims"]
    assert len(claims) == 10, [c["text"] for c in claims]
    # in the order written: the five right claims pass on their figures, the five wrong ones fail
    got = [(c["verdict"], c["decided_by"]) for c in claims]
    assert got == [("pass", "number")] * 5 + [("fail", "number")] * 5, [c["reason"] for c in claims]
    for failed in claims[5:]:
        assert failed["reason"] == why
    assert source_server.hits("/s2214-109x-20-30264-3.html") == 1  # one page, fetched once
