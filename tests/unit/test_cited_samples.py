"""Every cited sentence of the public claim corpora's samples is kept, in every citation style
(issue 31, `bench/cited.py`): each claim of tests/data/cited_sample written as one sentence with
one link — `… ([source](URL)).`, `… [source](URL).`, `[Name](URL) …`, `…[^1]` — is a claim that
carries that link. The samples hold the forms extraction once dropped ("Exciter is an album from
Depeche Mode.", headlines, "X is ADJ", bare URLs with apostrophes in footnotes) beside claims kept
all along (tests/data/cited_sample/NOTICE.md).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bench._data import read_jsonl
from bench.cited import STYLES, check

SAMPLES = sorted((Path(__file__).resolve().parents[1] / "data" / "cited_sample").glob("*.jsonl"))


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda p: p.stem)
@pytest.mark.parametrize("style", STYLES)
def test_every_cited_sentence_of_the_sample_is_kept(sample: Path, style: str) -> None:
    rows = read_jsonl(sample)
    assert len(rows) == 60
    dropped = [(row["id"], reason, row["claim"]) for row in rows if (reason := check(row, style))]
    assert dropped == []
